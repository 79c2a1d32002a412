package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
)

// Every handler follows one pattern: lock the channel's table, check, change
// the state, answer, and only once the answer went out arm timers and drop
// what the change replaced. If the answer fails the state is put back, so a
// user who saw "This interaction failed" finds the game as it was.

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

	t := b.games.lock(ic.ChannelID)
	defer t.mu.Unlock()
	if err := busy(t); err != nil {
		return err
	}

	if vsComputer {
		m, err := b.newMatch(ic, [3]string{game.X: user.ID, game.O: self}, game.O, so.size, so.win, so.level, game.X)
		if err != nil {
			return err
		}
		prev := t.match
		t.match = m
		if err := b.postBoard(ctx, ic, m, ""); err != nil {
			t.match = prev
			return err
		}
		return nil
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
	if err := b.respond(ctx, ic, discordgo.InteractionResponseChannelMessageWithSource, v, false); err != nil {
		return err
	}
	c.msg = ic.Interaction
	t.challenge = c
	channelID := ic.ChannelID
	c.timer = b.afterFunc(b.cfg.ChallengeTimeout, func() { b.expireChallenge(channelID, c.id) })
	return nil
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

// setDeadline sets when the player to move loses by timeout; the timer
// itself is armed by armTurn once the board is shown.
func (b *Bot) setDeadline(m *match) {
	m.deadline = time.Time{}
	if !m.over() && m.judge.Turn() != m.computer {
		m.deadline = time.Now().Add(b.cfg.TurnTimeout)
	}
}

// armTurn (re)starts m's turn timer to fire at m.deadline.
func (b *Bot) armTurn(m *match) {
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
	if m.deadline.IsZero() {
		return
	}
	id, channelID, moves := m.id, m.channelID, m.judge.Len()
	m.timer = b.afterFunc(time.Until(m.deadline), func() { b.turnTimedOut(channelID, id, moves) })
}

// postBoard answers ic with m's board as a new message, which becomes the
// current board; the previous board message loses its buttons.
func (b *Bot) postBoard(ctx context.Context, ic *discordgo.InteractionCreate, m *match, note string) error {
	old, oldContent := m.board, m.shown
	m.serial++
	v := renderMatch(m, note)
	if err := b.respond(ctx, ic, discordgo.InteractionResponseChannelMessageWithSource, v, false); err != nil {
		m.serial--
		return err
	}
	m.board, m.shown = ic.Interaction, v.content
	b.armTurn(m)
	if old != nil {
		b.editLater(old, stale(oldContent), m.channelID)
	}
	return nil
}

// snapshot is a copy of m that restore can put back.
func snapshot(m *match) match {
	s := *m
	s.judge = m.judge.Clone()
	return s
}

func restore(m *match, s match) {
	timer := m.timer
	*m = s
	m.timer = timer
}

// play applies userID's move at the 1-based row and col, and the computer's
// answer if it plays. It refuses, with a userError and no change, anything
// the user may not do.
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
	t := b.games.lock(ic.ChannelID)
	defer t.mu.Unlock()
	m := t.match
	if m == nil {
		return noGame(t)
	}
	before := snapshot(m)
	if err := b.play(m, invoker(ic).ID, row, col); err != nil {
		return err
	}
	if err := b.postBoard(ctx, ic, m, ""); err != nil {
		restore(m, before)
		return err
	}
	return nil
}

func (b *Bot) moveButton(ctx context.Context, ic *discordgo.InteractionCreate) error {
	r, err := parseRoute(ic.MessageComponentData().CustomID)
	if err != nil {
		return err
	}
	t := b.games.lock(ic.ChannelID)
	defer t.mu.Unlock()
	m := t.match
	switch {
	case m == nil || m.id != r.id:
		return sayf("That board belongs to a game that is over. Start a new one with `/ttt start`.")
	case r.serial != m.serial:
		return sayf("That board is out of date: the game continues in a newer message. `/ttt board` shows it again.")
	}
	before := snapshot(m)
	if err := b.play(m, invoker(ic).ID, r.row, r.col); err != nil {
		return err
	}
	v := renderMatch(m, "")
	if err := b.respond(ctx, ic, discordgo.InteractionResponseUpdateMessage, v, false); err != nil {
		restore(m, before)
		return err
	}
	// The click's token edits the same message and is fresher.
	m.board, m.shown = ic.Interaction, v.content
	b.armTurn(m)
	return nil
}

func noGame(t *table) error {
	if c := t.challenge; c != nil {
		return sayf("No game is running here yet: %s's challenge to %s is waiting for an answer.", mention(c.from), mention(c.to))
	}
	return sayf("No game in this channel. Start one with `/ttt start`.")
}

func (b *Bot) boardCommand(ctx context.Context, ic *discordgo.InteractionCreate) error {
	t := b.games.lock(ic.ChannelID)
	defer t.mu.Unlock()
	m := t.match
	if m == nil || (t.challenge != nil && m.over()) {
		return noGame(t)
	}
	return b.postBoard(ctx, ic, m, "")
}

func (b *Bot) resign(ctx context.Context, ic *discordgo.InteractionCreate) error {
	user := invoker(ic).ID
	t := b.games.lock(ic.ChannelID)
	defer t.mu.Unlock()
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
	before := snapshot(m)
	m.end, m.loser, m.deadline = endResigned, side, time.Time{}
	if err := b.postBoard(ctx, ic, m, ""); err != nil {
		restore(m, before)
		return err
	}
	return nil
}

// canModerate says whether the member may stop other people's games.
func canModerate(ic *discordgo.InteractionCreate) bool {
	return ic.Member != nil && ic.Member.Permissions&(discordgo.PermissionManageMessages|discordgo.PermissionAdministrator) != 0
}

func (b *Bot) stop(ctx context.Context, ic *discordgo.InteractionCreate) error {
	if !canModerate(ic) {
		return sayf("Only members with the Manage Messages permission can stop games. To give up your own game, use `/ttt resign`.")
	}
	t := b.games.lock(ic.ChannelID)
	defer t.mu.Unlock()
	if t.challenge != nil {
		return b.closeChallenge(ctx, ic, t, challengeCancelled, "You cancelled the challenge.")
	}
	m := t.match
	if m == nil || m.over() {
		return sayf("There is no game running in this channel.")
	}
	before := snapshot(m)
	m.end, m.stoppedBy, m.deadline = endStopped, invoker(ic).ID, time.Time{}
	if err := b.postBoard(ctx, ic, m, ""); err != nil {
		restore(m, before)
		return err
	}
	return nil
}

// closeChallenge ends t's challenge without a game: it tells the user
// (ephemerally) and rewrites the challenge message to say what happened.
func (b *Bot) closeChallenge(ctx context.Context, ic *discordgo.InteractionCreate, t *table, st challengeState, reply string) error {
	c := t.challenge
	if err := b.say(ctx, ic, reply); err != nil {
		return err
	}
	t.challenge = nil
	c.timer.Stop()
	b.editLater(c.msg, renderChallenge(c, st, b.cfg.ChallengeTimeout), ic.ChannelID)
	return nil
}

// openChallenge returns t's challenge if the button route r belongs to it.
func openChallenge(t *table, r route) (*challenge, error) {
	c := t.challenge
	if c == nil || c.id != r.id {
		return nil, sayf("This challenge is no longer open.")
	}
	return c, nil
}

func (b *Bot) accept(ctx context.Context, ic *discordgo.InteractionCreate) error {
	r, err := parseRoute(ic.MessageComponentData().CustomID)
	if err != nil {
		return err
	}
	user := invoker(ic).ID
	t := b.games.lock(ic.ChannelID)
	defer t.mu.Unlock()
	c, err := openChallenge(t, r)
	if err != nil {
		return err
	}
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
	m.serial = 1
	v := renderMatch(m, "")
	if err := b.respond(ctx, ic, discordgo.InteractionResponseUpdateMessage, v, false); err != nil {
		return err
	}
	c.timer.Stop()
	t.challenge = nil
	t.match = m
	m.board, m.shown = ic.Interaction, v.content
	b.armTurn(m)
	return nil
}

func (b *Bot) decline(ctx context.Context, ic *discordgo.InteractionCreate) error {
	r, err := parseRoute(ic.MessageComponentData().CustomID)
	if err != nil {
		return err
	}
	user := invoker(ic).ID
	t := b.games.lock(ic.ChannelID)
	defer t.mu.Unlock()
	c, err := openChallenge(t, r)
	if err != nil {
		return err
	}
	st := challengeDeclined
	switch user {
	case c.to:
	case c.from:
		st = challengeWithdrawn
	default:
		return sayf("This challenge is for %s, not for you.", mention(c.to))
	}
	if err := b.respond(ctx, ic, discordgo.InteractionResponseUpdateMessage, renderChallenge(c, st, b.cfg.ChallengeTimeout), false); err != nil {
		return err
	}
	c.timer.Stop()
	t.challenge = nil
	return nil
}

func (b *Bot) rematch(ctx context.Context, ic *discordgo.InteractionCreate) error {
	r, err := parseRoute(ic.MessageComponentData().CustomID)
	if err != nil {
		return err
	}
	user := invoker(ic).ID
	t := b.games.lock(ic.ChannelID)
	defer t.mu.Unlock()
	m := t.match
	switch {
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
	nm, err := b.newMatch(ic, m.players, m.computer, g.Size(), g.WinLength(), m.level, g.First().Other())
	if err != nil {
		return err
	}
	t.match = nm
	if err := b.postBoard(ctx, ic, nm, ""); err != nil {
		t.match = m
		return err
	}
	// The finished board stays as it was, without its Rematch button.
	b.editLater(m.board, view{content: m.shown}, ic.ChannelID)
	return nil
}

// expireChallenge runs when a challenge's time is up.
func (b *Bot) expireChallenge(channelID, id string) {
	t := b.games.lock(channelID)
	defer t.mu.Unlock()
	c := t.challenge
	if c == nil || c.id != id {
		return // answered in time
	}
	t.challenge = nil
	ctx, cancel := context.WithTimeout(context.Background(), editWithin)
	defer cancel()
	if err := b.edit(ctx, c.msg, renderChallenge(c, challengeExpired, b.cfg.ChallengeTimeout)); err != nil {
		b.log.Warn("could not mark a challenge expired", "channel", channelID, "err", err)
	}
}

// turnTimedOut runs when a player's time is up; moves is how many moves the
// game had when the timer was armed, so a timer that lost a race with a move
// does nothing.
func (b *Bot) turnTimedOut(channelID, id string, moves int) {
	t := b.games.lock(channelID)
	defer t.mu.Unlock()
	m := t.match
	if m == nil || m.id != id || m.over() || m.judge.Len() != moves {
		return
	}
	m.end, m.loser, m.deadline, m.timer = endTimeout, m.judge.Turn(), time.Time{}, nil
	v := renderMatch(m, "")
	ctx, cancel := context.WithTimeout(context.Background(), editWithin)
	defer cancel()
	if err := b.edit(ctx, m.board, v); err != nil {
		b.log.Warn("could not show a timeout", "channel", channelID, "err", err)
		return
	}
	m.shown = v.content
}
