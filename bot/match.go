package bot

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// A match is a channel's game as the bot holds it, and as the store keeps
// it: the table's match; the message its board is drawn on (Board: the
// interaction that drew it, and once known the message's channel and id);
// the store's version it was loaded or saved at (Version, 0: never saved),
// which the store checks; the Discord locale its public messages speak
// ("": English); the id of the message that last pinged its player to
// move (a correspondence game's "your move" reply to the board, or the
// turn's reminder, deleted once that move is made; "" if none: see
// pingOf); the turn whose player was reminded (turnNumber; 0: none);
// and, while the process that claimed that turn's reminder has not yet
// heard Discord take it, the end of its claim (lease; zero once the
// reminder went, or was given up).
type match struct {
	*table.Match
	Board    store.Board
	Version  int64
	locale   string
	ping     string
	reminded int
	lease    time.Time
}

// Clone returns a deep copy, on the same board, at the same version, in
// the same locale, with the same ping and reminder.
func (m *match) Clone() *match {
	return &match{Match: m.Match.Clone(), Board: m.Board, Version: m.Version, locale: m.locale, ping: m.ping, reminded: m.reminded, lease: m.lease}
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
	remind, ok := remindAt(m)
	if !ok {
		remind = time.Time{}
	}
	return &store.Game{
		ID: m.ID, GuildID: m.GuildID, ChannelID: m.ChannelID,
		Players: m.Players, Computer: m.Computer, Level: m.Level,
		Size: m.Judge.Size(), Win: m.Judge.WinLength(), First: m.Judge.First(),
		Moves: moves, End: m.End, Loser: m.Loser, StoppedBy: m.StoppedBy, DrawOffer: m.DrawOffer,
		StartedAt: m.StartedAt, EndedAt: m.EndedAt, Deadline: m.Deadline,
		Serial:   m.Serial,
		Board:    m.Board,
		Ping:     m.ping,
		Reminded: m.reminded,
		RemindAt: remind,
		Locale:   m.locale,
		Version:  m.Version,
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
	m := &match{Match: &table.Match{
		ID: g.ID, GuildID: g.GuildID, ChannelID: g.ChannelID,
		Players: g.Players, Computer: g.Computer, Level: g.Level,
		Judge: judge, Times: times,
		End: g.End, Loser: g.Loser, StoppedBy: g.StoppedBy, DrawOffer: g.DrawOffer,
		StartedAt: g.StartedAt, EndedAt: g.EndedAt, Deadline: g.Deadline,
		Serial: g.Serial,
	}, Board: g.Board, Version: g.Version, locale: g.Locale, ping: g.Ping, reminded: g.Reminded}
	if m.reminded == turnNumber(m) && !m.Over() {
		// The turn's reminder claimed: its RemindAt is the claim's end
		// until the reminder is sent (see remindAt).
		m.lease = g.RemindAt
	}
	return m, nil
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
// prev, ends that turn; "" if there is none. A reminder sent through
// prev's board token (pingOf) is served too when next's board has another
// token (/ttt board drew it again): only that token deletes it, and the
// game keeps the token of its board alone.
func servedPing(prev, next *match) string {
	if prev == nil || prev.ping == "" || prev.ID != next.ID {
		return ""
	}
	if sameTurn(prev, next) && !(pingOf(prev, prev.ping).hook != nil && prev.Board.Token != next.Board.Token) {
		return ""
	}
	return prev.ping
}

// A pingRef names a ping message: id in channelID, and for a reminder
// sent as a follow-up, the interaction whose token deletes it until
// until (after that, the channel's route is tried).
type pingRef struct {
	channelID, id string
	hook          *discordgo.Interaction
	until         time.Time
}

// followupPing marks, in a game's ping, a reminder sent as a follow-up
// through the board's interaction token rather than to the channel with
// the bot's token (boards.remind): it is deleted through that token.
const followupPing = "followup:"

// boardChannel returns the channel of m's board message: the board's own
// when it names one, else the game's.
func boardChannel(m *match) string { return cmp.Or(m.Board.ChannelID, m.ChannelID) }

// pingOf names ping, a ping kept with m (or about to be), as a message to
// delete: in the board's channel, or a follow-up of m's board token.
func pingOf(m *match, ping string) pingRef {
	id, followup := strings.CutPrefix(ping, followupPing)
	p := pingRef{channelID: boardChannel(m), id: id}
	if followup {
		p.hook = &discordgo.Interaction{AppID: m.Board.AppID, Token: m.Board.Token}
		p.until = m.Board.At.Add(tokenLife)
	}
	return p
}

// Reminders: the player to move hears, once per turn, that half of their
// time has passed (see doc.go).

// minRemindedTurn is the shortest turn whose player is reminded: in a
// shorter one the board they just saw says it all.
const minRemindedTurn = time.Minute

// remindLeast is the least time a reminder leaves its player: one due
// while no process could send it (the bot was down), and found later, is
// not sent once the turn is nearly over.
const remindLeast = minRemindedTurn / 4

// lateToRemind says whether at now m's turn is too near its end for a
// reminder.
func lateToRemind(m *match, now time.Time) bool { return m.Deadline.Sub(now) < remindLeast }

// The claim of a turn's reminder (match.lease) lasts half of what is left
// of the turn for a reminder (until remindLeast before its end), within
// these bounds: if the process that claimed it dies, another process
// still has time to send it. A claim that Discord refused is released to
// be tried again after remindRetry.
const (
	minRemindLease = 5 * time.Second
	maxRemindLease = 2 * time.Minute
	remindRetry    = 2 * time.Second
)

// remindLease is how long a claim of m's turn's reminder made at now lasts.
func remindLease(m *match, now time.Time) time.Duration {
	return min(max((m.Deadline.Sub(now)-remindLeast)/2, minRemindLease), maxRemindLease)
}

// claimedBy says whether m's turn's reminder is still claimed by the claim
// that next holds.
func claimedBy(m, next *match) bool {
	return !next.lease.IsZero() && sameTurn(next, m) && m.reminded == turnNumber(m) &&
		next.reminded == m.reminded && m.lease.Equal(next.lease)
}

// turnNumber numbers m's turn: the moves played before it, plus one.
func turnNumber(m *match) int { return m.Judge.Len() + 1 }

// turn names one turn among every game's: its game and turnNumber. The
// zero value names none. It is compared on every move, so it is built
// without allocating; String spells it for what is sent.
type turn struct {
	game string
	n    int
}

func (t turn) String() string { return t.game + "/" + strconv.Itoa(t.n) }

// turnKey names m's turn among every game's.
func turnKey(m *match) turn { return turn{m.ID, turnNumber(m)} }

// turnStart is when m's turn began: its last move, or its start.
func turnStart(m *match) time.Time {
	if n := len(m.Times); n > 0 && m.Judge.Len() > 0 {
		return m.Times[n-1]
	}
	return m.StartedAt
}

// remindAt is when the player to move in m is reminded, half-way from the
// start of their turn to its deadline; ok is false when they are not: the
// game is over or untimed, the computer is to move, the turn is shorter
// than minRemindedTurn, or it was reminded already. A reminder claimed but
// not yet sent is due again when its claim ends (lease): the process that
// claimed it releases it that way when Discord refuses it, and when that
// process dies, it ends by itself.
func remindAt(m *match) (at time.Time, ok bool) {
	if m == nil || m.Over() || m.Deadline.IsZero() || m.Turn() == m.Computer {
		return time.Time{}, false
	}
	if m.reminded == turnNumber(m) {
		return m.lease, !m.lease.IsZero()
	}
	start := turnStart(m)
	turn := m.Deadline.Sub(start)
	if turn < minRemindedTurn {
		return time.Time{}, false
	}
	return start.Add(turn / 2), true
}

// newID returns a fresh random id for a match or a challenge, short enough
// for custom_ids.
func newID() string {
	var buf [6]byte
	_, _ = rand.Read(buf[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(buf[:])
}
