package bot

import (
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
)

// ending says how a game ended. The zero value, running, means it has not.
type ending uint8

const (
	running     ending = iota // moves are still being made
	endWon                    // the judge saw a completed line
	endDraw                   // the board is full
	endDecided                // no line can be completed any more, so we stop early
	endResigned               // the loser gave up with /ttt resign
	endTimeout                // the loser did not move within the turn timeout
	endStopped                // a moderator stopped the game; nobody wins
)

// A match is one game in one channel: who plays which side, the judge, and
// the message the current board is drawn on. It is guarded by its table's
// lock.
type match struct {
	id        string
	guildID   string
	channelID string
	players   [3]string   // user ids, indexed by game.X and game.O
	computer  game.Player // the side the computer plays, or game.None
	level     game.Level
	judge     *game.Game
	end       ending
	loser     game.Player // for endResigned and endTimeout
	stoppedBy string      // for endStopped

	// serial numbers the board messages of this match. Cell buttons carry
	// it, so a click on a board that a newer message replaced is refused.
	serial int
	// board is the interaction whose @original is the current board
	// message; its token lets timers edit that message for 15 minutes.
	board    *discordgo.Interaction
	shown    string    // the content of the current board message
	deadline time.Time // when the player to move loses; zero when over
	timer    *time.Timer
}

func (m *match) over() bool { return m.end != running }

// winner is the side that won, or game.None for a draw, a stopped game or a
// game still running.
func (m *match) winner() game.Player {
	switch m.end {
	case endWon:
		return m.judge.Winner()
	case endResigned, endTimeout:
		return m.loser.Other()
	}
	return game.None
}

// side is the side userID plays, or game.None. The computer's side belongs to
// no user, so the bot's own id never moves through this.
func (m *match) side(userID string) game.Player {
	for _, p := range []game.Player{game.X, game.O} {
		if m.players[p] == userID && m.computer != p {
			return p
		}
	}
	return game.None
}

// settle ends the match if the judge says the game is decided.
func (m *match) settle() {
	switch m.judge.Status() {
	case game.Won:
		m.end = endWon
	case game.Draw:
		m.end = endDraw
	case game.DecidedDraw:
		m.end = endDecided
	}
}

// A challenge is an invitation from one user to another, waiting for an
// answer. It is guarded by its table's lock.
type challenge struct {
	id        string
	from, to  string // user ids
	size, win int
	expires   time.Time
	msg       *discordgo.Interaction // whose @original is the challenge message
	timer     *time.Timer
}

// A table is one channel's state: at most one open challenge and the latest
// match, finished or not (kept for /ttt board and Rematch). Its mutex
// serialises everything that happens in the channel, which is what makes two
// simultaneous clicks apply exactly one move.
type table struct {
	mu        sync.Mutex
	challenge *challenge
	match     *match
}

// registry maps channel ids to tables. The zero value is ready to use and it
// is safe for concurrent use; tables are created on first use and kept, so
// memory grows with the number of channels that ever played.
type registry struct {
	mu     sync.Mutex
	tables map[string]*table
}

// lock returns the channel's table with its lock held; the caller unlocks.
// Different channels never wait for each other beyond the map lookup.
func (r *registry) lock(channelID string) *table {
	r.mu.Lock()
	if r.tables == nil {
		r.tables = make(map[string]*table)
	}
	t, ok := r.tables[channelID]
	if !ok {
		t = new(table)
		r.tables[channelID] = t
	}
	r.mu.Unlock()
	t.mu.Lock()
	return t
}

// each calls f on every table with its lock held, for shutdown.
func (r *registry) each(f func(*table)) {
	r.mu.Lock()
	ts := make([]*table, 0, len(r.tables))
	for _, t := range r.tables {
		ts = append(ts, t)
	}
	r.mu.Unlock()
	for _, t := range ts {
		t.mu.Lock()
		f(t)
		t.mu.Unlock()
	}
}
