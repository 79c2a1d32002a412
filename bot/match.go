package bot

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// A match is a channel's game as the bot holds it, and as the store keeps
// it: the table's match; the message its board is drawn on (Board: the
// interaction that drew it, and once known the message's channel and id);
// the store's version it was loaded or saved at (Version, 0: never saved),
// which the store checks; the Discord locale its public messages speak
// ("": English); and the id of the message that last pinged its player to
// move (a correspondence game's "your move" reply to the board, deleted
// once that move is made; "" if none).
type match struct {
	*table.Match
	Board   store.Board
	Version int64
	locale  string
	ping    string
}

// Clone returns a deep copy, on the same board, at the same version, in
// the same locale, with the same ping.
func (m *match) Clone() *match {
	return &match{Match: m.Match.Clone(), Board: m.Board, Version: m.Version, locale: m.locale, ping: m.ping}
}

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
		Serial:  m.Serial,
		Board:   m.Board,
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
		Serial: g.Serial,
	}, Board: g.Board, Version: g.Version, locale: g.Locale, ping: g.Ping}, nil
}

// storedChallenge is c, shown on msg in the Discord locale locale, as the
// store keeps it.
func storedChallenge(c *table.Challenge, guildID, channelID string, msg store.Board, locale string) *store.Challenge {
	return &store.Challenge{ID: c.ID, GuildID: guildID, ChannelID: channelID, From: c.From, To: c.To, Size: c.Size, Win: c.Win,
		Expires: c.Expires, Message: store.Board{AppID: msg.AppID, Token: msg.Token, At: msg.At}, Locale: locale}
}

// tokenLife is how long the bot uses an interaction token for edits:
// Discord accepts it for 15 minutes from the interaction; the bot counts
// from when it received the interaction, with a margin. It exceeds
// MaxTimeout, so the turn timer of a game with short turns finds its
// board's token good; a correspondence game's turn outlives it, and its
// timer reaches the board through the channel instead (see doc.go).
const tokenLife = 15*time.Minute - 30*time.Second

// outlivesToken says whether the board of m may have to be reached after
// its token has expired: m runs, and the player to move loses later than
// the token's life after the board was drawn. It costs a comparison, on
// every move.
func outlivesToken(m *match) bool {
	return !m.Over() && !m.Deadline.IsZero() && m.Deadline.Sub(m.Board.At) > tokenLife
}

// sameTurn says whether now is still the turn that then showed: the same
// game, running, with as many moves. A board drawn again (/ttt board)
// keeps the turn, and its ping: the new board pings nobody.
func sameTurn(then, now *match) bool {
	return now.ID == then.ID && !now.Over() && now.Judge.Len() == then.Judge.Len()
}

// servedPing is the ping of prev's turn if next, the change saved over
// prev, ends that turn; "" if there is none.
func servedPing(prev, next *match) string {
	if prev == nil || prev.ping == "" || prev.ID != next.ID || sameTurn(prev, next) {
		return ""
	}
	return prev.ping
}

// newID returns a fresh random id for a match or a challenge, short enough
// for custom_ids.
func newID() string {
	var buf [6]byte
	_, _ = rand.Read(buf[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(buf[:])
}
