package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// Every game handler follows one pattern: lock the channel (which loads its
// game from the store), let the table decide on a clone, then commit: save
// the clone (versioned, durable), answer, and unless the answer certainly
// did not take effect, keep it and arm timers. A refusal changes nothing.

const helpText = "**Tic-tac-toe** — get a whole row, column or diagonal of your mark before your opponent does (or as many in a row as the game says).\n" +
	"• `/ttt start` plays me; `/ttt start opponent:@someone` challenges them (they get Accept and Decline buttons). " +
	"Options: `size` 3 to 10 (default 3), `win` how many in a row wins (3 to size, default size), `difficulty` when playing me:\n" +
	"  – easy: %s\n  – medium: %s\n  – hard: %s\n" +
	"• `/ttt move row:2 col:3` places your mark; the numbers are the labels on the board. Boards up to 5×5 also have a button per cell.\n" +
	"• `/ttt board` shows the current game again. `/ttt resign` gives up your game, or withdraws your challenge. " +
	"`/ttt stop` (members with Manage Messages) stops any game in the channel.\n" +
	"• `/ttt stats`, `/ttt history` (yours, or `user`'s) and `/ttt leaderboard` (players with at least %d rated games) show this server's results.\n" +
	"One game per channel. You have %s per move, or you lose by timeout; a challenge waits %s. When a game ends, press Rematch to play again with the other player starting."

// levelHelp says in one line how each level plays.
var levelHelp = [...]string{
	game.Easy:   "makes mistakes; good for a first game.",
	game.Medium: "sees wins and threats one move ahead, but can be outplayed.",
	game.Hard:   "plays perfectly on small boards and searches ahead on big ones.",
}

func (b *Bot) help(ctx context.Context, req *request) error {
	return b.say(ctx, req, fmt.Sprintf(helpText, levelHelp[game.Easy], levelHelp[game.Medium], levelHelp[game.Hard], MinRated,
		humanDuration(b.cfg.Table.TurnTimeout), humanDuration(b.cfg.Table.ChallengeTimeout)))
}

// lockMargin is the part of an interaction's time kept for answering when
// its channel is busy.
const lockMargin = 800 * time.Millisecond

// lock returns the channel, locked, with its game loaded from the store. A
// game whose player to move is past the deadline (the bot was down when it
// fell, or another process's timer has not fired) loses by timeout first.
func (b *Bot) lock(ctx context.Context, channelID string) (*channel, error) {
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-lockMargin))
		defer cancel()
	}
	ch, err := b.channels.lock(ctx, channelID)
	if err != nil {
		return nil, err
	}
	if err := b.load(ctx, ch); err != nil {
		b.channels.unlock(ch)
		return nil, err
	}
	return ch, nil
}

func (b *Bot) unlock(ch *channel) { b.channels.unlock(ch) }

// load reads the channel's current game and brings its timer in line.
func (b *Bot) load(ctx context.Context, ch *channel) error {
	g, err := b.store.Current(ctx, ch.id)
	if err != nil {
		return fmt.Errorf("load the game of channel %s: %w", ch.id, err)
	}
	ch.match = nil
	if g != nil {
		m, err := fromStored(g)
		if err != nil {
			// A game that cannot be played must not lock the channel for
			// good: it is stopped (it counts for nobody), and a new game
			// may start.
			b.log.Error("stopping a stored game that cannot be played", "channel", ch.id, "err", err)
			if g.Running() {
				g.End, g.StoppedBy, g.EndedAt, g.Deadline = game.EndStopped, b.systemID(), b.now(), time.Time{}
				if err := b.store.Save(ctx, g); err != nil {
					return fmt.Errorf("stop the unplayable game of channel %s: %w", ch.id, err)
				}
			}
		} else {
			ch.match = m
		}
	}
	b.syncTurn(ctx, ch)
	return nil
}

// syncTurn ends a match whose deadline has passed, and keeps the turn timer
// on the deadline of the match.
func (b *Bot) syncTurn(ctx context.Context, ch *channel) {
	if m := ch.match; m != nil && m.Due(b.now()) && !b.timeOut(ctx, ch) {
		return // a retry is armed
	}
	m := ch.match
	if m == nil || m.Over() || m.Deadline.IsZero() {
		ch.stopTurnTimer()
		return
	}
	if ch.turnTimer != nil && ch.turnAt.Equal(m.Deadline) {
		return
	}
	ch.stopTurnTimer()
	ch.turnAt = m.Deadline
	id := ch.id
	ch.turnTimer = b.afterFunc(m.Deadline.Sub(b.now()), func() { b.turnTimedOut(id) })
}

// timeOut ends ch's match: the player to move loses. The board message is
// updated in the background; the player loses even if it cannot be. If the
// result cannot be saved the game goes on, and a timer tries again later;
// then timeOut returns false.
func (b *Bot) timeOut(ctx context.Context, ch *channel) bool {
	next := ch.match.Clone()
	if err := next.TimeOut(b.now()); err != nil {
		return true
	}
	err := b.save(ctx, next)
	if errors.Is(err, store.ErrConflict) {
		// Another process changed the game first: what it saved stands.
		if g, lerr := b.store.Current(ctx, ch.id); lerr == nil && g != nil {
			if m, ferr := fromStored(g); ferr == nil && !m.Due(b.now()) {
				ch.match = m
				return true
			}
		}
	}
	if err != nil {
		ch.saveFailures++
		wait := min(time.Second<<min(ch.saveFailures, 6), time.Minute)
		b.log.Error("could not save a timeout", "channel", ch.id, "retry_in", wait, "err", err)
		ch.stopTurnTimer()
		id := ch.id
		ch.turnTimer = b.afterFunc(wait, func() { b.turnTimedOut(id) })
		return false
	}
	ch.saveFailures = 0
	ch.match = next
	b.editBoard(next, renderMatch(next, ""))
	return true
}

// Restore ends the games whose time ran out while the bot was away and
// restarts the turn timers of the others. Then, every sweepEvery, it ends
// the games whose time ran out without a timer here: games another process
// was timing when it stopped. Whichever process saves the timeout first
// wins; the others find the game over.
func (b *Bot) Restore(ctx context.Context) error {
	if err := b.sweep(ctx, nil); err != nil {
		return err
	}
	b.sweepLater()
	return nil
}

// sweepEvery is how often Restore's sweep looks for games whose time ran
// out without a timer in this process.
const sweepEvery = 30 * time.Second

func (b *Bot) sweepLater() {
	b.afterFunc(sweepEvery, func() {
		ctx, cancel := context.WithTimeout(context.Background(), sweepEvery)
		defer cancel()
		now := b.now()
		if err := b.sweep(ctx, func(g *store.Game) bool { return !g.Deadline.IsZero() && !now.Before(g.Deadline) }); err != nil {
			b.log.Warn("looking for games out of time", "err", err)
		}
		b.sweepLater()
	})
}

// sweep locks the channel of every running game that pick accepts (nil:
// all), which ends it if its time ran out and arms its timer otherwise.
func (b *Bot) sweep(ctx context.Context, pick func(*store.Game) bool) error {
	gs, err := b.store.Running(ctx)
	if err != nil {
		return fmt.Errorf("list running games: %w", err)
	}
	for _, g := range gs {
		if pick != nil && !pick(g) {
			continue
		}
		ch, err := b.lock(ctx, g.ChannelID)
		if err != nil {
			return err
		}
		b.unlock(ch)
	}
	return nil
}

// busy refuses a new game or challenge while the channel has one.
func busy(ch *channel) error {
	if c := ch.challenge; c != nil {
		return sayf("A challenge is already waiting in this channel: %s challenged %s. One game per channel; it expires <t:%d:R>.",
			mention(c.From), mention(c.To), c.Expires.Unix())
	}
	if m := ch.match; m != nil && !m.Over() {
		return sayf("A game is already running in this channel: %s %s vs %s %s. One game per channel; `/ttt board` shows it again.",
			cellX, mention(m.Players[game.X]), cellO, mention(m.Players[game.O]))
	}
	return nil
}

// commit makes next the channel's game: it saves next, then calls answer,
// then, once next is current, after (if not nil) for what follows from it.
// If the save fails, the game stays as it was and the user is told; if
// another process saved first, the user sees the game as it is now. If the
// answer certainly did not take effect, the change is undone. If it may
// have been shown (a timeout, a lost reply), next stays and the error is
// still returned: what players may see must be what the game is.
func (b *Bot) commit(ctx context.Context, req *request, ch *channel, next *table.Match, answer func() error, after func()) error {
	prev := ch.match
	if err := b.save(ctx, next); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return b.changed(ctx, req, ch)
		}
		return fmt.Errorf("save game: %w", err)
	}
	err := answer()
	if rejected(err) {
		b.undo(prev, next)
		return err
	}
	ch.match = next
	b.syncTurn(ctx, ch)
	if after != nil {
		after()
	}
	return err // nil, or an answer that may have been shown
}

// undo takes back a saved change whose answer Discord refused: a move is
// taken back (saved again as it was), a new game nobody saw is stopped. A
// game that ended stays ended: its result is already in the stats.
func (b *Bot) undo(prev, next *table.Match) {
	ctx, cancel := context.WithTimeout(context.Background(), editWithin)
	defer cancel()
	var back *table.Match
	switch {
	case next.Over() && prev != nil && prev.ID == next.ID:
		b.log.Warn("a game ended but its players could not be told", "channel", next.ChannelID, "game", next.ID)
		return
	case prev != nil && prev.ID == next.ID:
		back = prev.Clone()
	default:
		back = next.Clone()
		if err := back.Stop(b.systemID(), b.now()); err != nil {
			return
		}
	}
	back.Version = next.Version
	if err := b.save(ctx, back); err != nil {
		b.log.Error("could not take back a change nobody saw", "channel", next.ChannelID, "err", err)
	}
}

// systemID is who stops a game that the bot itself calls off.
func (b *Bot) systemID() string {
	if id := b.selfID(); id != "" {
		return id
	}
	return "0"
}

// changed answers a user whose change lost the race with another process:
// the game moved on, and this is how it stands now.
func (b *Bot) changed(ctx context.Context, req *request, ch *channel) error {
	g, err := b.store.Current(ctx, ch.id)
	if err != nil {
		return fmt.Errorf("reload after a conflict: %w", err)
	}
	if g == nil {
		return sayf("The game in this channel changed while you were playing. Start one with `/ttt start`.")
	}
	m, err := fromStored(g)
	if err != nil {
		return err
	}
	ch.match = m
	return b.say(ctx, req, "The board changed just before yours was saved: someone else was faster, and nothing of yours was applied. Here it is now:\n"+renderMatch(m, "").content)
}

// postBoard answers req with next's board as a new message, which becomes the
// current board; notify pings the player to move. The message it replaces
// loses its buttons.
func (b *Bot) postBoard(ctx context.Context, req *request, ch *channel, next *table.Match, notify bool) error {
	old := ch.match
	next.Serial++
	next.Board = table.Board{AppID: req.AppID, Token: req.Token, At: b.now()}
	v := renderMatch(next, "")
	if !notify {
		v.ping = ""
	}
	return b.commit(ctx, req, ch, next, func() error {
		return b.respond(ctx, req, discordgo.InteractionResponseChannelMessageWithSource, v, false)
	}, func() { b.retire(old, next) })
}

// retire takes the buttons off old's board message now that next is shown:
// a running game's older board says where the game went; a finished game's
// board keeps its result, without the Rematch button.
func (b *Bot) retire(old, next *table.Match) {
	switch {
	case old == nil:
	case old.ID == next.ID && !old.Over():
		b.editBoard(old, stale(renderMatch(old, "").content, next.Over()))
	default:
		b.editBoard(old, view{content: renderMatch(old, "").content})
	}
}

// refusal turns the table's refusal of userID's move at row, col in m into
// words; other errors pass through.
func refusal(err error, m *table.Match, row, col int) error {
	n := m.Judge.Size()
	switch {
	case errors.Is(err, table.ErrOver):
		return sayf("This game is over. Press Rematch on its board, or start a new one with `/ttt start`.")
	case errors.Is(err, table.ErrNotPlayer):
		return sayf("You're not playing in this game: it's %s vs %s. Start your own in another channel, or wait for this one to end.",
			mention(m.Players[game.X]), mention(m.Players[game.O]))
	case errors.Is(err, table.ErrNotYourTurn):
		turn := m.Turn()
		return sayf("It's not your turn: %s %s is to move.", mark(turn), mention(m.Players[turn]))
	case errors.Is(err, table.ErrOutside):
		return sayf("There is no row %d, column %d: this board is %d×%d, so rows and columns go from 1 to %d.", row, col, n, n, n)
	case errors.Is(err, table.ErrOccupied):
		return sayf("Row %d, column %d is already taken. Pick an empty cell (%s).", row, col, cellEmpty)
	}
	return err
}

func (b *Bot) start(ctx context.Context, req *request) error {
	data := req.commandData()
	sub, err := subcommand(data)
	if err != nil {
		return err
	}
	so, err := decodeStart(data, sub)
	if err != nil {
		return err
	}
	user := req.user
	self := b.selfID()
	vsComputer := so.opponent == nil || so.opponent.ID == self
	if !vsComputer {
		switch {
		case so.opponent.ID == user.ID:
			return sayf("You can't challenge yourself. Leave out `opponent` to play against me.")
		case so.opponent.Bot:
			return sayf("%s is a bot and can't play. Leave out `opponent` to play against me.", mention(so.opponent.ID))
		}
	}

	ch, err := b.lock(ctx, req.ChannelID)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	if err := busy(ch); err != nil {
		return err
	}

	if vsComputer {
		m, err := table.Start(b.cfg.Table, newID(), table.Setup{
			GuildID: req.GuildID, ChannelID: req.ChannelID,
			Players: [3]string{game.X: user.ID, game.O: self}, Computer: game.O, Level: so.level,
			Size: so.size, Win: so.win, First: game.X,
		}, b.now())
		if err != nil {
			return err
		}
		return b.postBoard(ctx, req, ch, m, true)
	}

	c := &openChallenge{Challenge: table.NewChallenge(b.cfg.Table, newID(), user.ID, so.opponent.ID, so.size, so.win, b.now())}
	v := renderChallenge(c.Challenge, challengeOpen, b.cfg.Table.ChallengeTimeout)
	err = b.respond(ctx, req, discordgo.InteractionResponseChannelMessageWithSource, v, false)
	if rejected(err) {
		return err
	}
	// Shown, or perhaps shown: the challenge is open either way.
	c.msg = req.Interaction
	ch.challenge = c
	channelID, id := req.ChannelID, c.ID
	c.timer = b.afterFunc(b.cfg.Table.ChallengeTimeout, func() { b.expireChallenge(channelID, id) })
	return err
}

func (b *Bot) moveCommand(ctx context.Context, req *request) error {
	sub, err := subcommand(req.commandData())
	if err != nil {
		return err
	}
	row, col, err := decodeMove(sub)
	if err != nil {
		return err
	}
	ch, err := b.lock(ctx, req.ChannelID)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	if ch.match == nil {
		return noGame(ch)
	}
	next := ch.match.Clone()
	if err := next.Play(b.cfg.Table, req.user.ID, row, col, b.now()); err != nil {
		return refusal(err, ch.match, row, col)
	}
	return b.postBoard(ctx, req, ch, next, true)
}

func (b *Bot) moveButton(ctx context.Context, req *request) error {
	r, err := parseRoute(req.componentData().CustomID)
	if err != nil {
		return err
	}
	ch, err := b.lock(ctx, req.ChannelID)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	m := ch.match
	switch {
	case m == nil || m.ID != r.id:
		return sayf("That board belongs to a game that is over. Start a new one with `/ttt start`.")
	case r.serial != m.Serial:
		return sayf("That board is out of date: the game continues in a newer message. `/ttt board` shows it again.")
	}
	next := m.Clone()
	if err := next.Play(b.cfg.Table, req.user.ID, r.row, r.col, b.now()); err != nil {
		return refusal(err, m, r.row, r.col)
	}
	// The click's token edits the same message, and is fresher.
	next.Board = table.Board{AppID: req.AppID, Token: req.Token, At: b.now()}
	v := renderMatch(next, "")
	return b.commit(ctx, req, ch, next, func() error {
		return b.respond(ctx, req, discordgo.InteractionResponseUpdateMessage, v, false)
	}, nil)
}

func noGame(ch *channel) error {
	if c := ch.challenge; c != nil {
		return sayf("No game is running here yet: %s's challenge to %s is waiting for an answer.", mention(c.From), mention(c.To))
	}
	return sayf("No game in this channel. Start one with `/ttt start`.")
}

func (b *Bot) boardCommand(ctx context.Context, req *request) error {
	ch, err := b.lock(ctx, req.ChannelID)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	if ch.match == nil || (ch.challenge != nil && ch.match.Over()) {
		return noGame(ch)
	}
	// Showing the board again pings nobody: anyone may ask for it.
	return b.postBoard(ctx, req, ch, ch.match.Clone(), false)
}

func (b *Bot) resign(ctx context.Context, req *request) error {
	user := req.user.ID
	ch, err := b.lock(ctx, req.ChannelID)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	if c := ch.challenge; c != nil {
		switch user {
		case c.From:
			return b.closeChallenge(ctx, req, ch, challengeWithdrawn, "You withdrew your challenge.")
		case c.To:
			return sayf("You haven't accepted the challenge, so there is nothing to resign. Press Decline on it to turn it down.")
		}
	}
	m := ch.match
	if m == nil || m.Over() {
		return noGame(ch)
	}
	next := m.Clone()
	if err := next.Resign(user, b.now()); err != nil {
		if errors.Is(err, table.ErrNotPlayer) {
			return sayf("You're not playing in this game. A member with Manage Messages can stop it with `/ttt stop`.")
		}
		return err
	}
	return b.postBoard(ctx, req, ch, next, false)
}

// canModerate says whether the member may stop other people's games.
func canModerate(req *request) bool {
	return req.Member != nil && req.Member.Permissions&(discordgo.PermissionManageMessages|discordgo.PermissionAdministrator) != 0
}

func (b *Bot) stop(ctx context.Context, req *request) error {
	if !canModerate(req) {
		return sayf("Only members with the Manage Messages permission can stop games. To give up your own game, use `/ttt resign`.")
	}
	ch, err := b.lock(ctx, req.ChannelID)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	if ch.challenge != nil {
		return b.closeChallenge(ctx, req, ch, challengeCancelled, "You cancelled the challenge.")
	}
	m := ch.match
	if m == nil || m.Over() {
		return sayf("There is no game running in this channel.")
	}
	next := m.Clone()
	if err := next.Stop(req.user.ID, b.now()); err != nil {
		return err
	}
	return b.postBoard(ctx, req, ch, next, false)
}

// closeChallenge ends ch's challenge without a game: it tells the user
// (ephemerally) and rewrites the challenge message to say what happened.
func (b *Bot) closeChallenge(ctx context.Context, req *request, ch *channel, st challengeState, reply string) error {
	c := ch.challenge
	// The challenge ends whether or not the reply reaches the user.
	ch.clearChallenge()
	b.editLater(c.msg, renderChallenge(c.Challenge, st, b.cfg.Table.ChallengeTimeout), req.ChannelID)
	return b.say(ctx, req, reply)
}

// challengeClick locks the channel of a click on a challenge button and
// returns the open challenge the button belongs to. The caller unlocks ch.
func (b *Bot) challengeClick(ctx context.Context, req *request) (*channel, *openChallenge, error) {
	r, err := parseRoute(req.componentData().CustomID)
	if err != nil {
		return nil, nil, err
	}
	ch, err := b.lock(ctx, req.ChannelID)
	if err != nil {
		return nil, nil, err
	}
	c := ch.challenge
	if c == nil || c.ID != r.id {
		b.unlock(ch)
		return nil, nil, sayf("This challenge is no longer open.")
	}
	return ch, c, nil
}

func (b *Bot) accept(ctx context.Context, req *request) error {
	ch, c, err := b.challengeClick(ctx, req)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	m, err := c.Accept(b.cfg.Table, newID(), req.user.ID, req.GuildID, req.ChannelID, b.now())
	switch {
	case errors.Is(err, table.ErrOwnChallenge):
		return sayf("You can't accept your own challenge. Press Decline to withdraw it.")
	case errors.Is(err, table.ErrNotChallenge):
		return sayf("This challenge is for %s, not for you. Start your own with `/ttt start`.", mention(c.To))
	case errors.Is(err, table.ErrExpired):
		return sayf("This challenge has expired. Start a new one with `/ttt start`.")
	case err != nil:
		return err
	}
	// The challenge message becomes the board.
	m.Serial, m.Board = 1, table.Board{AppID: req.AppID, Token: req.Token, At: b.now()}
	v := renderMatch(m, "")
	old := ch.match
	err = b.commit(ctx, req, ch, m, func() error {
		return b.respond(ctx, req, discordgo.InteractionResponseUpdateMessage, v, false)
	}, func() {
		ch.clearChallenge()
		b.retire(old, m)
	})
	if ch.challenge == c && ch.match != nil && ch.match.ID != m.ID && !ch.match.Over() {
		// Another process started a game in this channel first (the
		// save conflicted): the challenge can no longer be played.
		ch.clearChallenge()
		b.editLater(c.msg, renderChallenge(c.Challenge, challengeSuperseded, b.cfg.Table.ChallengeTimeout), req.ChannelID)
	}
	return err
}

func (b *Bot) decline(ctx context.Context, req *request) error {
	ch, c, err := b.challengeClick(ctx, req)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	withdrawn, err := c.Decline(req.user.ID)
	if err != nil {
		return sayf("This challenge is for %s, not for you.", mention(c.To))
	}
	st := challengeDeclined
	if withdrawn {
		st = challengeWithdrawn
	}
	err = b.respond(ctx, req, discordgo.InteractionResponseUpdateMessage, renderChallenge(c.Challenge, st, b.cfg.Table.ChallengeTimeout), false)
	if rejected(err) {
		return err
	}
	ch.clearChallenge()
	return err
}

func (b *Bot) rematch(ctx context.Context, req *request) error {
	r, err := parseRoute(req.componentData().CustomID)
	if err != nil {
		return err
	}
	ch, err := b.lock(ctx, req.ChannelID)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	m := ch.match
	switch {
	case m != nil && m.ID != r.id && !m.Over():
		return sayf("A new game is already running in this channel: `/ttt board` shows it.")
	case m == nil || m.ID != r.id:
		return sayf("A newer game has been played in this channel since. Start a new one with `/ttt start`.")
	}
	if err := busy(ch); err != nil {
		return err
	}
	next, err := m.Rematch(b.cfg.Table, newID(), req.user.ID, b.now())
	switch {
	case errors.Is(err, table.ErrNotOver):
		return sayf("This game isn't over yet.")
	case errors.Is(err, table.ErrNotPlayer):
		return sayf("Only %s and %s can ask for a rematch. Start your own game with `/ttt start`.",
			mention(m.Players[game.X]), mention(m.Players[game.O]))
	case err != nil:
		return err
	}
	return b.postBoard(ctx, req, ch, next, true)
}

// onTimer runs f on the locked channel for a timer; what names the timer
// in the log if the channel cannot be had.
func (b *Bot) onTimer(channelID, what string, f func(ch *channel)) {
	ctx, cancel := context.WithTimeout(context.Background(), editWithin)
	defer cancel()
	ch, err := b.channels.lock(ctx, channelID)
	if err != nil {
		b.log.Error(what, "channel", channelID, "err", err)
		return
	}
	defer b.unlock(ch)
	f(ch)
}

// expireChallenge runs when a challenge's time is up.
func (b *Bot) expireChallenge(channelID, id string) {
	b.onTimer(channelID, "challenge timeout", func(ch *channel) {
		c := ch.challenge
		if c == nil || c.ID != id {
			return // answered in time
		}
		ch.clearChallenge()
		// Edited outside the lock: a slow Discord must not hold up the channel.
		b.editLater(c.msg, renderChallenge(c.Challenge, challengeExpired, b.cfg.Table.ChallengeTimeout), channelID)
	})
}

// turnTimedOut runs when a player's time may be up, and again to retry a
// timeout that could not be saved. Loading the channel ends a game whose
// deadline has passed; a timer that lost a race with a move finds a later
// deadline and re-arms.
func (b *Bot) turnTimedOut(channelID string) {
	b.onTimer(channelID, "turn timeout", func(ch *channel) {
		ctx, cancel := context.WithTimeout(context.Background(), editWithin)
		defer cancel()
		ch.turnTimer, ch.turnAt = nil, time.Time{} // this one has fired
		if err := b.load(ctx, ch); err != nil {
			b.log.Error("turn timeout", "channel", channelID, "err", err)
			id := ch.id
			ch.turnTimer = b.afterFunc(time.Second, func() { b.turnTimedOut(id) })
		}
	})
}
