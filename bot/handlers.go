package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
)

// Every handler follows one pattern: lock the channel's table, check, build
// the new state on a clone, then commit: save it, answer, and unless the
// answer certainly did not take effect, make it current, arm timers and drop
// what it replaced. A user whose answer was refused finds the game exactly
// as it was.

const helpText = "**Tic-tac-toe** — get a whole row, column or diagonal of your mark before your opponent does (or as many in a row as the game says).\n" +
	"• `/ttt start` plays me; `/ttt start opponent:@someone` challenges them (they get Accept and Decline buttons). " +
	"Options: `size` 3 to 10 (default 3), `win` how many in a row wins (3 to size, default size), `difficulty` easy, medium or hard when playing me.\n" +
	"• `/ttt move row:2 col:3` places your mark; the numbers are the labels on the board. Boards up to 5×5 also have a button per cell.\n" +
	"• `/ttt board` shows the current game again. `/ttt resign` gives up your game, or withdraws your challenge. " +
	"`/ttt stop` (members with Manage Messages) stops any game in the channel.\n" +
	"One game per channel. You have %s per move, or you lose by timeout; a challenge waits %s. When a game ends, press Rematch to play again with the other player starting."

func (b *Bot) help(ctx context.Context, ic *discordgo.InteractionCreate) error {
	return b.say(ctx, ic, fmt.Sprintf(helpText, humanDuration(b.cfg.TurnTimeout), humanDuration(b.cfg.ChallengeTimeout)))
}

// lockMargin is the part of an interaction's time kept for answering when
// its channel is busy.
const lockMargin = 800 * time.Millisecond

// lock returns the channel's table, locked. A game whose player to move is
// past the deadline (the bot was down when the timer was due) loses by
// timeout first; a game just brought back from the store gets its timer.
func (b *Bot) lock(ctx context.Context, channelID string) (*table, error) {
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-lockMargin))
		defer cancel()
	}
	t, restored, err := b.games.lock(ctx, channelID)
	if err != nil {
		return nil, err
	}
	if m := t.match; m != nil && !m.over() && !m.deadline.IsZero() && !time.Now().Before(m.deadline) {
		b.timeOut(ctx, t)
	} else if restored {
		b.armTurn(t)
	}
	return t, nil
}

// Restore restarts the turn timers of the games the store says are
// running, and ends those whose time ran out while the bot was away.
func (b *Bot) Restore(ctx context.Context) error {
	rs, err := b.store.Running(ctx)
	if err != nil {
		return fmt.Errorf("list running games: %w", err)
	}
	for _, r := range rs {
		t, err := b.lock(ctx, r.ChannelID)
		if err != nil {
			return err
		}
		t.unlock()
	}
	return nil
}

// busy refuses a new game or challenge while the channel has one.
func busy(t *table) error {
	if c := t.challenge; c != nil {
		return sayf("A challenge is already waiting in this channel: %s challenged %s. One game per channel; it expires <t:%d:R>.",
			mention(c.from), mention(c.to), c.expires.Unix())
	}
	if m := t.match; m != nil && !m.over() {
		return sayf("A game is already running in this channel: %s %s vs %s %s. One game per channel; `/ttt board` shows it again.",
			cellX, mention(m.players[game.X]), cellO, mention(m.players[game.O]))
	}
	return nil
}

// commit makes next the channel's match: it saves next, then calls answer,
// then, once next is current, after (if not nil) for what follows from it.
// If the save fails, or the answer certainly did not take effect, the
// channel keeps its previous match, in memory and in the store. If the
// answer may have been shown (a timeout, a lost reply), next stays and the
// error is still returned: what players may see must be what the game is.
func (b *Bot) commit(ctx context.Context, t *table, next *match, answer func() error, after func()) error {
	prev := t.match
	if err := b.store.Save(ctx, toRecord(next)); err != nil {
		return fmt.Errorf("save game: %w", err)
	}
	err := answer()
	if rejected(err) {
		// ctx may be what ran out; the store must still be put back.
		rctx, cancel := context.WithTimeout(context.Background(), editWithin)
		defer cancel()
		var rerr error
		if prev == nil {
			rerr = b.store.Delete(rctx, next.channelID)
		} else {
			rerr = b.store.Save(rctx, toRecord(prev))
		}
		if rerr != nil {
			b.log.Error("could not put the stored game back", "channel", next.channelID, "err", rerr)
		}
		return err
	}
	t.match = next
	b.armTurn(t)
	if after != nil {
		after()
	}
	return err // nil, or an answer that may have been shown
}

// postBoard answers ic with next's board as a new message, which becomes the
// current board; notify pings the player to move. The message it replaces
// loses its buttons.
func (b *Bot) postBoard(ctx context.Context, ic *discordgo.InteractionCreate, t *table, next *match, notify bool) error {
	old := t.match
	next.serial++
	next.board, next.boardAt = ic.Interaction, time.Now()
	v := renderMatch(next, "")
	if !notify {
		v.ping = ""
	}
	next.shown = v.content
	return b.commit(ctx, t, next, func() error {
		return b.respond(ctx, ic, discordgo.InteractionResponseChannelMessageWithSource, v, false)
	}, func() { b.retire(old, next) })
}

// retire takes the buttons off old's board message now that next is shown:
// a running game's older board says it is out of date; a finished game's
// board keeps its result, without the Rematch button.
func (b *Bot) retire(old, next *match) {
	switch {
	case old == nil:
	case old.id == next.id && !old.over():
		b.editBoard(old.board, old.boardAt, stale(old.shown), old.channelID)
	default:
		b.editBoard(old.board, old.boardAt, view{content: old.shown}, old.channelID)
	}
}

func (b *Bot) start(ctx context.Context, ic *discordgo.InteractionCreate) error {
	data := ic.ApplicationCommandData()
	sub, err := subcommand(data)
	if err != nil {
		return err
	}
	so, err := decodeStart(data, sub)
	if err != nil {
		return err
	}
	user := invoker(ic)
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

	t, err := b.lock(ctx, ic.ChannelID)
	if err != nil {
		return err
	}
	defer t.unlock()
	if err := busy(t); err != nil {
		return err
	}

	if vsComputer {
		m, err := b.newMatch(ic, [3]string{game.X: user.ID, game.O: self}, game.O, so.size, so.win, so.level, game.X)
		if err != nil {
			return err
		}
		return b.postBoard(ctx, ic, t, m, true)
	}

	c := &challenge{
		id:      newID(),
		from:    user.ID,
		to:      so.opponent.ID,
		size:    so.size,
		win:     so.win,
		expires: time.Now().Add(b.cfg.ChallengeTimeout),
	}
	v := renderChallenge(c, challengeOpen, b.cfg.ChallengeTimeout)
	err = b.respond(ctx, ic, discordgo.InteractionResponseChannelMessageWithSource, v, false)
	if rejected(err) {
		return err
	}
	// Shown, or perhaps shown: the challenge is open either way.
	c.msg = ic.Interaction
	t.challenge = c
	channelID := ic.ChannelID
	c.timer = b.afterFunc(b.cfg.ChallengeTimeout, func() { b.expireChallenge(channelID, c.id) })
	return err
}

// newMatch starts a game in ic's channel. first moves first; if that is the
// computer, it has already moved when newMatch returns.
func (b *Bot) newMatch(ic *discordgo.InteractionCreate, players [3]string, computer game.Player, size, win int, level game.Level, first game.Player) (*match, error) {
	judge, err := game.New(size, game.WinLength(win), game.FirstPlayer(first))
	if err != nil {
		return nil, fmt.Errorf("new game %d×%d, %d in a row: %w", size, size, win, err)
	}
	m := &match{
		id:        newID(),
		guildID:   ic.GuildID,
		channelID: ic.ChannelID,
		players:   players,
		computer:  computer,
		level:     level,
		judge:     judge,
	}
	if err := b.computerTurn(m); err != nil {
		return nil, err
	}
	b.setDeadline(m)
	return m, nil
}

// computerTurn lets the computer move if it is its turn.
func (b *Bot) computerTurn(m *match) error {
	if m.over() || m.computer == game.None || m.judge.Turn() != m.computer {
		return nil
	}
	c, err := b.computerMove(m)
	if err != nil {
		return fmt.Errorf("computer move: %w", err)
	}
	if _, err := m.judge.Play(c.Row, c.Col, m.computer); err != nil {
		return fmt.Errorf("computer move %d,%d: %w", c.Row, c.Col, err)
	}
	m.settle()
	return nil
}

// setDeadline sets when the player to move loses by timeout; armTurn starts
// the timer once the match is current.
func (b *Bot) setDeadline(m *match) {
	m.deadline = time.Time{}
	if !m.over() && m.judge.Turn() != m.computer {
		m.deadline = time.Now().Add(b.cfg.TurnTimeout)
	}
}

// armTurn (re)starts t's turn timer for its match's deadline.
func (b *Bot) armTurn(t *table) {
	if t.turnTimer != nil {
		t.turnTimer.Stop()
		t.turnTimer = nil
	}
	m := t.match
	if m == nil || m.over() || m.deadline.IsZero() {
		return
	}
	channelID := m.channelID
	t.turnTimer = b.afterFunc(time.Until(m.deadline), func() { b.turnTimedOut(channelID) })
}

// play applies userID's move at the 1-based row and col to m, and the
// computer's answer if it plays. It refuses, with a userError, anything the
// user may not do; m is a clone, so a refusal changes nothing.
func (b *Bot) play(m *match, userID string, row, col int) error {
	if m.over() {
		return sayf("This game is over. Press Rematch on its board, or start a new one with `/ttt start`.")
	}
	side := m.side(userID)
	if side == game.None {
		return sayf("You're not playing in this game: it's %s vs %s. Start your own in another channel, or wait for this one to end.",
			mention(m.players[game.X]), mention(m.players[game.O]))
	}
	if turn := m.judge.Turn(); turn != side {
		return sayf("It's not your turn: %s %s is to move.", mark(turn), mention(m.players[turn]))
	}
	n := m.judge.Size()
	if row < 1 || row > n || col < 1 || col > n {
		return sayf("There is no row %d, column %d: this board is %d×%d, so rows and columns go from 1 to %d.", row, col, n, n, n)
	}
	if _, err := m.judge.Play(row-1, col-1, side); err != nil {
		if errors.Is(err, game.ErrOccupied) {
			return sayf("Row %d, column %d is already taken. Pick an empty cell (%s).", row, col, cellEmpty)
		}
		return fmt.Errorf("judge refused a checked move: %w", err)
	}
	m.settle()
	if err := b.computerTurn(m); err != nil {
		return err
	}
	b.setDeadline(m)
	return nil
}

func (b *Bot) moveCommand(ctx context.Context, ic *discordgo.InteractionCreate) error {
	sub, err := subcommand(ic.ApplicationCommandData())
	if err != nil {
		return err
	}
	row, col, err := decodeMove(sub)
	if err != nil {
		return err
	}
	t, err := b.lock(ctx, ic.ChannelID)
	if err != nil {
		return err
	}
	defer t.unlock()
	if t.match == nil {
		return noGame(t)
	}
	next := t.match.clone()
	if err := b.play(next, invoker(ic).ID, row, col); err != nil {
		return err
	}
	return b.postBoard(ctx, ic, t, next, true)
}

func (b *Bot) moveButton(ctx context.Context, ic *discordgo.InteractionCreate) error {
	r, err := parseRoute(ic.MessageComponentData().CustomID)
	if err != nil {
		return err
	}
	t, err := b.lock(ctx, ic.ChannelID)
	if err != nil {
		return err
	}
	defer t.unlock()
	m := t.match
	switch {
	case m == nil || m.id != r.id:
		return sayf("That board belongs to a game that is over. Start a new one with `/ttt start`.")
	case r.serial != m.serial:
		return sayf("That board is out of date: the game continues in a newer message. `/ttt board` shows it again.")
	}
	next := m.clone()
	if err := b.play(next, invoker(ic).ID, r.row, r.col); err != nil {
		return err
	}
	// The click's token edits the same message, and is fresher.
	next.board, next.boardAt = ic.Interaction, time.Now()
	v := renderMatch(next, "")
	next.shown = v.content
	return b.commit(ctx, t, next, func() error {
		return b.respond(ctx, ic, discordgo.InteractionResponseUpdateMessage, v, false)
	}, nil)
}

func noGame(t *table) error {
	if c := t.challenge; c != nil {
		return sayf("No game is running here yet: %s's challenge to %s is waiting for an answer.", mention(c.from), mention(c.to))
	}
	return sayf("No game in this channel. Start one with `/ttt start`.")
}

func (b *Bot) boardCommand(ctx context.Context, ic *discordgo.InteractionCreate) error {
	t, err := b.lock(ctx, ic.ChannelID)
	if err != nil {
		return err
	}
	defer t.unlock()
	if t.match == nil || (t.challenge != nil && t.match.over()) {
		return noGame(t)
	}
	// Showing the board again pings nobody: anyone may ask for it.
	return b.postBoard(ctx, ic, t, t.match.clone(), false)
}

func (b *Bot) resign(ctx context.Context, ic *discordgo.InteractionCreate) error {
	user := invoker(ic).ID
	t, err := b.lock(ctx, ic.ChannelID)
	if err != nil {
		return err
	}
	defer t.unlock()
	if c := t.challenge; c != nil {
		switch user {
		case c.from:
			return b.closeChallenge(ctx, ic, t, challengeWithdrawn, "You withdrew your challenge.")
		case c.to:
			return sayf("You haven't accepted the challenge, so there is nothing to resign. Press Decline on it to turn it down.")
		}
	}
	m := t.match
	if m == nil || m.over() {
		return noGame(t)
	}
	side := m.side(user)
	if side == game.None {
		return sayf("You're not playing in this game. A member with Manage Messages can stop it with `/ttt stop`.")
	}
	next := m.clone()
	next.end, next.loser, next.deadline = store.Resigned, side, time.Time{}
	return b.postBoard(ctx, ic, t, next, false)
}

// canModerate says whether the member may stop other people's games.
func canModerate(ic *discordgo.InteractionCreate) bool {
	return ic.Member != nil && ic.Member.Permissions&(discordgo.PermissionManageMessages|discordgo.PermissionAdministrator) != 0
}

func (b *Bot) stop(ctx context.Context, ic *discordgo.InteractionCreate) error {
	if !canModerate(ic) {
		return sayf("Only members with the Manage Messages permission can stop games. To give up your own game, use `/ttt resign`.")
	}
	t, err := b.lock(ctx, ic.ChannelID)
	if err != nil {
		return err
	}
	defer t.unlock()
	if t.challenge != nil {
		return b.closeChallenge(ctx, ic, t, challengeCancelled, "You cancelled the challenge.")
	}
	m := t.match
	if m == nil || m.over() {
		return sayf("There is no game running in this channel.")
	}
	next := m.clone()
	next.end, next.stoppedBy, next.deadline = store.Stopped, invoker(ic).ID, time.Time{}
	return b.postBoard(ctx, ic, t, next, false)
}

// closeChallenge ends t's challenge without a game: it tells the user
// (ephemerally) and rewrites the challenge message to say what happened.
func (b *Bot) closeChallenge(ctx context.Context, ic *discordgo.InteractionCreate, t *table, st challengeState, reply string) error {
	c := t.challenge
	// The challenge ends whether or not the reply reaches the user.
	t.challenge = nil
	c.timer.Stop()
	b.editLater(c.msg, renderChallenge(c, st, b.cfg.ChallengeTimeout), ic.ChannelID)
	return b.say(ctx, ic, reply)
}

// challengeClick locks the channel of a click on a challenge button and
// returns the open challenge the button belongs to. The caller unlocks t.
func (b *Bot) challengeClick(ctx context.Context, ic *discordgo.InteractionCreate) (*table, *challenge, error) {
	r, err := parseRoute(ic.MessageComponentData().CustomID)
	if err != nil {
		return nil, nil, err
	}
	t, err := b.lock(ctx, ic.ChannelID)
	if err != nil {
		return nil, nil, err
	}
	c := t.challenge
	if c == nil || c.id != r.id {
		t.unlock()
		return nil, nil, sayf("This challenge is no longer open.")
	}
	return t, c, nil
}

func (b *Bot) accept(ctx context.Context, ic *discordgo.InteractionCreate) error {
	t, c, err := b.challengeClick(ctx, ic)
	if err != nil {
		return err
	}
	defer t.unlock()
	user := invoker(ic).ID
	switch user {
	case c.to:
	case c.from:
		return sayf("You can't accept your own challenge. Press Decline to withdraw it.")
	default:
		return sayf("This challenge is for %s, not for you. Start your own with `/ttt start`.", mention(c.to))
	}
	m, err := b.newMatch(ic, [3]string{game.X: c.from, game.O: c.to}, game.None, c.size, c.win, game.Hard, game.X)
	if err != nil {
		return err
	}
	// The challenge message becomes the board.
	m.serial, m.board, m.boardAt = 1, ic.Interaction, time.Now()
	v := renderMatch(m, "")
	m.shown = v.content
	old := t.match
	return b.commit(ctx, t, m, func() error {
		return b.respond(ctx, ic, discordgo.InteractionResponseUpdateMessage, v, false)
	}, func() {
		c.timer.Stop()
		t.challenge = nil
		b.retire(old, m)
	})
}

func (b *Bot) decline(ctx context.Context, ic *discordgo.InteractionCreate) error {
	t, c, err := b.challengeClick(ctx, ic)
	if err != nil {
		return err
	}
	defer t.unlock()
	user := invoker(ic).ID
	st := challengeDeclined
	switch user {
	case c.to:
	case c.from:
		st = challengeWithdrawn
	default:
		return sayf("This challenge is for %s, not for you.", mention(c.to))
	}
	err = b.respond(ctx, ic, discordgo.InteractionResponseUpdateMessage, renderChallenge(c, st, b.cfg.ChallengeTimeout), false)
	if rejected(err) {
		return err
	}
	c.timer.Stop()
	t.challenge = nil
	return err
}

func (b *Bot) rematch(ctx context.Context, ic *discordgo.InteractionCreate) error {
	r, err := parseRoute(ic.MessageComponentData().CustomID)
	if err != nil {
		return err
	}
	user := invoker(ic).ID
	t, err := b.lock(ctx, ic.ChannelID)
	if err != nil {
		return err
	}
	defer t.unlock()
	m := t.match
	switch {
	case m != nil && m.id != r.id && !m.over():
		return sayf("A new game is already running in this channel: `/ttt board` shows it.")
	case m == nil || m.id != r.id:
		return sayf("A newer game has been played in this channel since. Start a new one with `/ttt start`.")
	case !m.over():
		return sayf("This game isn't over yet.")
	case m.side(user) == game.None:
		return sayf("Only %s and %s can ask for a rematch. Start your own game with `/ttt start`.",
			mention(m.players[game.X]), mention(m.players[game.O]))
	}
	if err := busy(t); err != nil {
		return err
	}
	g := m.judge
	next, err := b.newMatch(ic, m.players, m.computer, g.Size(), g.WinLength(), m.level, g.First().Other())
	if err != nil {
		return err
	}
	return b.postBoard(ctx, ic, t, next, true)
}

// onTimer runs f on the channel's table for a timer; what names the timer
// in the log if the table cannot be had.
func (b *Bot) onTimer(channelID, what string, f func(t *table)) {
	ctx, cancel := context.WithTimeout(context.Background(), editWithin)
	defer cancel()
	t, err := b.lock(ctx, channelID)
	if err != nil {
		b.log.Error(what, "channel", channelID, "err", err)
		return
	}
	defer t.unlock()
	f(t)
}

// expireChallenge runs when a challenge's time is up.
func (b *Bot) expireChallenge(channelID, id string) {
	b.onTimer(channelID, "challenge timeout", func(t *table) {
		c := t.challenge
		if c == nil || c.id != id {
			return // answered in time
		}
		t.challenge = nil
		// Edited outside the lock: a slow Discord must not hold up the channel.
		b.editLater(c.msg, renderChallenge(c, challengeExpired, b.cfg.ChallengeTimeout), channelID)
	})
}

// turnTimedOut runs when a player's time may be up, and again to retry a
// timeout that could not be saved. Bot.lock ends a game whose deadline has
// passed, so it only has to lock; a timer that lost a race with a move finds
// a later deadline and does nothing.
func (b *Bot) turnTimedOut(channelID string) {
	b.onTimer(channelID, "turn timeout", func(*table) {})
}

// timeOut ends t's match: the player to move loses. The board message is
// updated in the background; the player loses even if it cannot be. If the
// result cannot be saved the game goes on, and the timer tries again later.
func (b *Bot) timeOut(ctx context.Context, t *table) {
	m := t.match
	next := m.clone()
	next.end, next.loser, next.deadline = store.Timeout, m.judge.Turn(), time.Time{}
	v := renderMatch(next, "")
	next.shown = v.content
	if err := b.store.Save(ctx, toRecord(next)); err != nil {
		t.saveFailures++
		wait := min(time.Second<<min(t.saveFailures, 6), time.Minute)
		b.log.Error("could not save a timeout", "channel", m.channelID, "retry_in", wait, "err", err)
		channelID := m.channelID
		if t.turnTimer != nil {
			t.turnTimer.Stop()
		}
		t.turnTimer = b.afterFunc(wait, func() { b.turnTimedOut(channelID) })
		return
	}
	t.saveFailures = 0
	t.match = next
	b.armTurn(t)
	b.editBoard(next.board, next.boardAt, v, next.channelID)
}
