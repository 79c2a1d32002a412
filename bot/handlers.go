package bot

import (
	"context"
	"errors"
	"fmt"

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
	game.Easy:   "plays loosely and often misses wins and blocks; good for beginners and kids.",
	game.Medium: "always takes a win and blocks yours, but sometimes plays a careless move; a fair game for casual players.",
	game.Hard:   "never makes a mistake on boards up to 4×4; on bigger boards it spots and sets up forced wins and stops yours; beat it and brag.",
}

func (b *Bot) help(ctx context.Context, req *request) error {
	return b.say(ctx, req, fmt.Sprintf(helpText, levelHelp[game.Easy], levelHelp[game.Medium], levelHelp[game.Hard], MinRated,
		humanDuration(b.cfg.Table.TurnTimeout), humanDuration(b.cfg.Table.ChallengeTimeout)))
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

	// Stored before it is shown, so that every process sharing the
	// database can answer its buttons.
	c := table.NewChallenge(b.cfg.Table, newID(), user.ID, so.opponent.ID, so.size, so.win, b.now())
	sc := storedChallenge(c, req.GuildID, req.ChannelID, table.Board{AppID: req.AppID, Token: req.Token, At: b.now()})
	if err := b.store.OpenChallenge(ctx, sc); err != nil {
		if !errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("store the challenge: %w", err)
		}
		// Another process opened one first.
		if err := b.load(ctx, ch); err != nil {
			return err
		}
		if err := busy(ch); err != nil {
			return err
		}
		return sayf("Someone started something in this channel at the same moment. Please try again.")
	}
	v := renderChallenge(c, challengeOpen, b.cfg.Table.ChallengeTimeout)
	err = b.respond(ctx, req, discordgo.InteractionResponseChannelMessageWithSource, v, false)
	if rejected(err) {
		if _, cerr := b.store.CloseChallenge(context.WithoutCancel(ctx), c.ID); cerr != nil {
			b.log.Error("could not take back a challenge nobody saw", "channel", req.ChannelID, "err", cerr)
		}
		return err
	}
	// Shown, or perhaps shown: the challenge is open either way.
	b.syncChallenge(ctx, ch, sc)
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
	if err := b.claim(ctx, ch, c); err != nil {
		return err
	}
	// The challenge ends whether or not the reply reaches the user.
	b.editLater(c.msg, renderChallenge(c.Challenge, st, b.cfg.Table.ChallengeTimeout), req.ChannelID)
	return b.say(ctx, req, reply)
}

// claim closes ch's open challenge c in the store, for this process
// alone: of an Accept, a Decline and a timer racing on two processes, one
// gets it, the others are told it is no longer open.
func (b *Bot) claim(ctx context.Context, ch *channel, c *openChallenge) error {
	closed, err := b.store.CloseChallenge(ctx, c.ID)
	if err != nil {
		return fmt.Errorf("close the challenge: %w", err)
	}
	ch.clearChallenge()
	if !closed {
		return sayf("This challenge is no longer open.")
	}
	return nil
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
	if ch.challenge == nil {
		// Loading skips it while a game runs (see load).
		if err := b.loadChallenge(ctx, ch); err != nil {
			b.unlock(ch)
			return nil, nil, err
		}
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
	// Claimed first: a Decline or a timer on another process now finds
	// it closed.
	if err := b.claim(ctx, ch, c); err != nil {
		return err
	}
	// The challenge message becomes the board.
	m.Serial, m.Board = 1, table.Board{AppID: req.AppID, Token: req.Token, At: b.now()}
	v := renderMatch(m, "")
	old := ch.match
	err = b.commit(ctx, req, ch, m, func() error {
		return b.respond(ctx, req, discordgo.InteractionResponseUpdateMessage, v, false)
	}, func() { b.retire(old, m) })
	switch {
	case rejected(err):
		// Nobody saw the game start: the challenge is open again.
		if rerr := b.store.OpenChallenge(context.WithoutCancel(ctx), storedChallenge(c.Challenge, req.GuildID, req.ChannelID,
			table.Board{AppID: c.msg.AppID, Token: c.msg.Token})); rerr != nil {
			b.log.Warn("could not reopen a challenge whose acceptance nobody saw", "channel", req.ChannelID, "err", rerr)
		}
	case ch.match == nil || ch.match.ID != m.ID:
		// Another process started a game in this channel first (the
		// save conflicted): the challenge can no longer be played.
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
	if err := b.claim(ctx, ch, c); err != nil {
		return err
	}
	return b.respond(ctx, req, discordgo.InteractionResponseUpdateMessage, renderChallenge(c.Challenge, st, b.cfg.Table.ChallengeTimeout), false)
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
