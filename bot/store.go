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

// Store keeps games and what they say about players. The bot loads a
// channel's current game each time it locks the channel, and saves every
// change, under that lock and before it answers anyone. Saves are
// versioned: store.ErrConflict means another process changed the game
// first. store.SQLite, store.Postgres and store.Memory implement it.
type Store interface {
	// Current returns the channel's current game, or nil if it has none.
	Current(ctx context.Context, channelID string) (*store.Game, error)
	// Save stores g if nobody saved it since g.Version, and updates the
	// players' stats in the same transaction when g ends.
	Save(ctx context.Context, g *store.Game) error
	// Running returns every game that has not ended; Due the channels of
	// those whose deadline is at or before a time.
	Running(ctx context.Context) ([]*store.Game, error)
	Due(ctx context.Context, before time.Time) ([]string, error)
	// Stats, Leaderboard and History answer /ttt stats, leaderboard and
	// history.
	Stats(ctx context.Context, guildID, userID string, minRated int) (store.Stats, error)
	Leaderboard(ctx context.Context, guildID string, minRated, limit int) ([]store.Stats, error)
	History(ctx context.Context, guildID, userID string, limit int) ([]*store.Game, error)
	// ComputerLeaderboard ranks a guild's players by their record against
	// the computer, for servers that show it (/ttt config computer_ranked).
	ComputerLeaderboard(ctx context.Context, guildID string, limit int) ([]store.Stats, error)
	// Settings returns a guild's /ttt config (the zero Settings with its
	// GuildID if it has none); SaveSettings replaces it.
	Settings(ctx context.Context, guildID string) (store.Settings, error)
	SaveSettings(ctx context.Context, s store.Settings) error
	// CountGames counts every game ever started, for /ttt about.
	CountGames(ctx context.Context) (int, error)
	// CommandGuilds and SetCommandGuild remember the guilds that hold a
	// copy of the commands of their own, so that registering globally can
	// remove it.
	CommandGuilds(ctx context.Context) ([]string, error)
	SetCommandGuild(ctx context.Context, guildID string, registered bool) error
	// Challenge returns the channel's open challenge, or nil; OpenChallenge
	// stores one (store.ErrConflict if the channel has one); CloseChallenge
	// removes one and reports whether this call did; Challenges lists them.
	Challenge(ctx context.Context, channelID string) (*store.Challenge, error)
	OpenChallenge(ctx context.Context, c *store.Challenge) error
	CloseChallenge(ctx context.Context, id string) (bool, error)
	Challenges(ctx context.Context) ([]*store.Challenge, error)
}

// A match is a channel's game as the bot holds it, and as the store keeps
// it: the table's match, the Discord locale its public messages speak
// ("": English), and the id of the message that last pinged its player to
// move (a correspondence game's "your move" reply to the board, deleted
// once that move is made; "" if none).
type match struct {
	*table.Match
	locale string
	ping   string
}

// Clone returns a deep copy, in the same locale, with the same ping.
func (m *match) Clone() *match { return &match{Match: m.Match.Clone(), locale: m.locale, ping: m.ping} }

// toStored is m as the store keeps it.
func toStored(m *match) *store.Game {
	hist := m.Judge.History()
	moves := make([]store.Move, len(hist))
	for i, mv := range hist {
		moves[i] = store.Move{Move: mv}
		if i < len(m.Times) {
			moves[i].At = m.Times[i]
		}
	}
	return &store.Game{
		ID: m.ID, GuildID: m.GuildID, ChannelID: m.ChannelID,
		Players: m.Players, Computer: m.Computer, Level: m.Level,
		Size: m.Judge.Size(), Win: m.Judge.WinLength(), First: m.Judge.First(),
		Moves: moves, End: m.End, Loser: m.Loser, StoppedBy: m.StoppedBy, DrawOffer: m.DrawOffer,
		StartedAt: m.StartedAt, EndedAt: m.EndedAt, Deadline: m.Deadline,
		Serial: m.Serial,
		Board: store.Board{AppID: m.Board.AppID, Token: m.Board.Token, At: m.Board.At,
			ChannelID: m.Board.ChannelID, MessageID: m.Board.MessageID},
		Ping:    m.ping,
		Locale:  m.locale,
		Version: m.Version,
	}
}

var errBadGame = errors.New("bot: stored game is inconsistent")

// fromStored rebuilds a match by replaying its moves. A game the bot could
// not have saved (a size it does not draw, an unknown player or ending,
// moves the judge refuses) is errBadGame, never a panic later.
func fromStored(g *store.Game) (*match, error) {
	side := func(p game.Player) bool { return p == game.None || p == game.X || p == game.O }
	bad := !validID(g.ID) || g.Players[game.X] == "" || g.Players[game.O] == "" || !side(g.DrawOffer) ||
		g.Size < MinSize || g.Size > MaxSize || g.Win < MinWin || g.Win > g.Size ||
		!side(g.Computer) || g.First == game.None || !side(g.First) || !side(g.Loser) ||
		!g.End.Valid() || g.Serial < 0 ||
		(g.End == game.EndResigned || g.End == game.EndTimeout) && g.Loser == game.None ||
		g.End == game.EndStopped && g.StoppedBy == ""
	if g.Computer != game.None {
		if _, err := game.ParseLevel(g.Level.String()); err != nil {
			bad = true
		}
	}
	if bad {
		return nil, fmt.Errorf("%w: game %q", errBadGame, g.ID)
	}
	hist := make([]game.Move, len(g.Moves))
	times := make([]time.Time, len(g.Moves))
	for i, mv := range g.Moves {
		hist[i], times[i] = mv.Move, mv.At
	}
	judge, err := game.Replay(g.Size, hist, game.WinLength(g.Win), game.FirstPlayer(g.First))
	if err != nil {
		return nil, fmt.Errorf("%w: game %q: %w", errBadGame, g.ID, err)
	}
	if g.End == game.EndNone && judge.Status() != game.InProgress || g.End == game.EndWon && judge.Status() != game.Won {
		return nil, fmt.Errorf("%w: game %q: ending %s but the board says %s", errBadGame, g.ID, g.End, judge.Status())
	}
	return &match{Match: &table.Match{
		ID: g.ID, GuildID: g.GuildID, ChannelID: g.ChannelID,
		Players: g.Players, Computer: g.Computer, Level: g.Level,
		Judge: judge, Times: times,
		End: g.End, Loser: g.Loser, StoppedBy: g.StoppedBy, DrawOffer: g.DrawOffer,
		StartedAt: g.StartedAt, EndedAt: g.EndedAt, Deadline: g.Deadline,
		Serial:  g.Serial,
		Board:   boardOf(g.Board),
		Version: g.Version,
	}, locale: g.Locale, ping: g.Ping}, nil
}

// boardOf is the board message that the store keeps as sb.
func boardOf(sb store.Board) table.Board {
	return table.Board{AppID: sb.AppID, Token: sb.Token, At: sb.At, ChannelID: sb.ChannelID, MessageID: sb.MessageID}
}

// save stores m, versioned; on success m.Version is the new version.
func (b *Bot) save(ctx context.Context, m *match) error {
	g := toStored(m)
	if err := b.store.Save(ctx, g); err != nil {
		return err
	}
	m.Version = g.Version
	return nil
}

// lockMargin is the part of an interaction's time kept for answering when
// its channel is busy.
const lockMargin = 800 * time.Millisecond

// lock returns the channel, locked, with its game loaded from the store. A
// game whose player to move is past the deadline (the bot was down when it
// fell, or another process's timer has not fired) loses by timeout first.
func (b *Bot) lock(ctx context.Context, channelID string) (*channel, error) {
	return b.lockChannel(ctx, channelID, false)
}

// lockChannel is lock; with cached, a running game this process holds is
// used without reading the store (see play).
func (b *Bot) lockChannel(ctx context.Context, channelID string, cached bool) (*channel, error) {
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-lockMargin))
		defer cancel()
	}
	ch, err := b.channels.lock(ctx, channelID)
	if err != nil {
		return nil, err
	}
	if m := ch.match; cached && m != nil && !m.Over() {
		ch.cached = true
		b.syncTurn(ctx, ch) // a deadline passed since: the game is lost first
		return ch, nil
	}
	if err := b.load(ctx, ch); err != nil {
		b.channels.unlock(ch)
		return nil, err
	}
	return ch, nil
}

func (b *Bot) unlock(ch *channel) { b.channels.unlock(ch) }

// errStale is a save that lost the race against another process while the
// game it changed came from this process's memory, not from the store:
// play runs the handler again on the stored game.
var errStale = errors.New("bot: the game in memory was out of date")

// play locks the channel and runs f on it, for a move: most of what the
// bot answers, and so what it must do cheaply.
//
// When this process holds the channel's running game from its own last
// save or load, f gets it without a read from the store (ch.cached). That
// game may be out of date if another process played here since. A change
// based on it cannot be saved then (saves are versioned: commit returns
// errStale), but a refusal could be wrong ("not your turn", a board "out of
// date"). So when f refuses or its save loses, and nothing was answered, the
// game is loaded from the store and f runs again: that verdict stands.
func (b *Bot) play(ctx context.Context, req *request, f func(ch *channel) error) error {
	ch, err := b.lockChannel(ctx, req.ChannelID, true)
	if err != nil {
		return err
	}
	defer b.unlock(ch)
	err = f(ch)
	var ue userError
	if !ch.cached || req.answered.Load() || !errors.As(err, &ue) && !errors.Is(err, errStale) {
		return err
	}
	if err := b.load(ctx, ch); err != nil {
		return err
	}
	return f(ch)
}

// load reads the channel's current game and brings its timer in line.
func (b *Bot) load(ctx context.Context, ch *channel) error {
	g, err := b.store.Current(ctx, ch.id)
	if err != nil {
		return fmt.Errorf("load the game of channel %s: %w", ch.id, err)
	}
	ch.match, ch.cached = nil, false
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
	if ch.match != nil && !ch.match.Over() {
		// A running game excludes a challenge (a start is refused while
		// one runs), so the moves of a game, most of what the bot
		// answers, read nothing more. One opened by another process in
		// the same instant is read when its buttons are clicked
		// (challengeClick), or once the game is over.
		ch.clearChallenge()
		return nil
	}
	return b.loadChallenge(ctx, ch)
}

// loadChallenge reads ch's open challenge from the store.
func (b *Bot) loadChallenge(ctx context.Context, ch *channel) error {
	c, err := b.store.Challenge(ctx, ch.id)
	if err != nil {
		return fmt.Errorf("load the challenge of channel %s: %w", ch.id, err)
	}
	b.syncChallenge(ctx, ch, c)
	return nil
}

// syncChallenge makes ch's open challenge the stored one, c (nil: none),
// with a timer here to expire it; one whose time is up is closed now.
func (b *Bot) syncChallenge(ctx context.Context, ch *channel, c *store.Challenge) {
	if c == nil {
		ch.clearChallenge()
		return
	}
	if ch.challenge != nil && ch.challenge.ID == c.ID {
		return // as loaded before, timer and all
	}
	ch.clearChallenge()
	oc := &openChallenge{
		Challenge: &table.Challenge{ID: c.ID, From: c.From, To: c.To, Size: c.Size, Win: c.Win, Expires: c.Expires},
		msg:       &discordgo.Interaction{AppID: c.Message.AppID, Token: c.Message.Token},
		locale:    c.Locale,
	}
	if oc.Expired(b.now()) {
		b.closeExpired(ctx, ch.id, c.GuildID, oc)
		return
	}
	ch.challenge = oc
	channelID, id := ch.id, c.ID
	oc.timer = b.afterFunc(c.Expires.Sub(b.now()), func() { b.expireChallenge(channelID, id) })
}

// closeExpired closes a challenge of the guild whose time is up; of the
// processes that try, the one that closes it in the store says so on its
// message, with the guild's challenge timeout.
func (b *Bot) closeExpired(ctx context.Context, channelID, guildID string, c *openChallenge) {
	closed, err := b.store.CloseChallenge(ctx, c.ID)
	if err != nil {
		b.log.Error("could not close an expired challenge", "channel", channelID, "err", err)
		return
	}
	b.starts.closed(c.From, c.ID)
	if closed {
		// Edited outside the lock: a slow Discord must not hold up the channel.
		// Nobody asked: the message keeps the language it was drawn in.
		// The guild's timeout as it is now (a challenge does not keep
		// the one it was opened with); the bot's if it cannot be read.
		timeout := b.cfg.Table.ChallengeTimeout
		if tc, _, err := b.rules(ctx, guildID); err == nil {
			timeout = tc.ChallengeTimeout
		}
		b.editLater(c.msg, renderChallenge(b.lang(c.locale), c.Challenge, challengeExpired, timeout), channelID)
	}
}

// storedChallenge is c, shown on msg in the Discord locale locale, as the
// store keeps it.
func storedChallenge(c *table.Challenge, guildID, channelID string, msg table.Board, locale string) *store.Challenge {
	return &store.Challenge{ID: c.ID, GuildID: guildID, ChannelID: channelID, From: c.From, To: c.To, Size: c.Size, Win: c.Win,
		Expires: c.Expires, Message: store.Board{AppID: msg.AppID, Token: msg.Token, At: msg.At}, Locale: locale}
}
