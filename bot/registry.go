package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
)

// A match is one game in one channel: who plays which side, the judge, and
// the message the current board is drawn on. Handlers never change the
// channel's match in place: they change a clone and make it current only
// once it is saved and the user has been answered (Bot.commit), so a failure
// anywhere leaves the game exactly as it was.
type match struct {
	id        string
	guildID   string
	channelID string
	players   [3]string   // user ids, indexed by game.X and game.O
	computer  game.Player // the side the computer plays, or game.None
	level     game.Level
	judge     *game.Game
	end       store.Ending
	loser     game.Player // for store.Resigned and store.Timeout
	stoppedBy string      // for store.Stopped

	// serial numbers the board messages of this match. Cell buttons carry
	// it, so a click on a board that a newer message replaced is refused.
	serial int
	// board is the interaction whose @original is the current board
	// message; its token lets timers edit that message for 15 minutes.
	board    *discordgo.Interaction
	boardAt  time.Time // when board was received; its token lasts tokenLife
	shown    string    // the content of the current board message
	deadline time.Time // when the player to move loses; zero when over
}

// clone returns a copy of m that shares nothing mutable with it.
func (m *match) clone() *match {
	c := *m
	c.judge = m.judge.Clone()
	return &c
}

func (m *match) over() bool { return m.end != store.Running }

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
		m.end = store.Won
	case game.Draw:
		m.end = store.Draw
	case game.DecidedDraw:
		m.end = store.Decided
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
	sem       chan struct{} // holds one token while the table is locked
	loaded    bool          // the store was asked for this channel's match
	challenge *challenge
	match     *match
	turnTimer *time.Timer // fires when the player to move runs out of time
	// saveFailures counts timeouts in a row that could not be saved, to
	// back off.
	saveFailures uint
}

func newTable() *table { return &table{sem: make(chan struct{}, 1)} }

// acquire locks t, or gives up when ctx ends: a handler that cannot get its
// channel in time still has to answer.
func (t *table) acquire(ctx context.Context) error {
	select {
	case t.sem <- struct{}{}: // a free table is taken even if ctx has ended
		return nil
	default:
	}
	select {
	case t.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return errBusy
	}
}

func (t *table) unlock() { <-t.sem }

// errBusy is what a user hears when their channel stayed locked too long.
var errBusy = userError("This channel's game is busy with another move. Please try again.")

// registry maps channel ids to tables, loading each channel's match from the
// store (if any) the first time the channel is used. The zero value is ready
// to use, without a store. It is safe for concurrent use;
// tables are kept once created, so memory grows with the number of channels
// that ever played, not with the number of games.
type registry struct {
	store  Store
	log    *slog.Logger
	mu     sync.Mutex
	tables map[string]*table
}

// lock returns the channel's table with its lock held; the caller unlocks.
// It gives up with errBusy when ctx ends first.
// Different channels never wait for each other beyond the map lookup (and,
// once per channel, the store). restored is true when this call brought the
// channel's match back from the store, so the caller re-arms its timer.
func (r *registry) lock(ctx context.Context, channelID string) (t *table, restored bool, err error) {
	r.mu.Lock()
	if r.tables == nil {
		r.tables = make(map[string]*table)
	}
	t, ok := r.tables[channelID]
	if !ok {
		t = newTable()
		r.tables[channelID] = t
	}
	r.mu.Unlock()
	if err := t.acquire(ctx); err != nil {
		return nil, false, err
	}
	if t.loaded {
		return t, false, nil
	}
	var rec *store.Record
	if r.store != nil {
		rec, err = r.store.Load(ctx, channelID)
	}
	if err == nil && rec != nil {
		t.match, err = fromRecord(rec)
	}
	if errors.Is(err, errBadRecord) {
		// A record that cannot be played must not lock the channel for
		// good: start afresh, and the next save replaces it.
		if r.log != nil {
			r.log.Error("discarding a stored game", "channel", channelID, "err", err)
		}
		t.match, err = nil, nil
	}
	if err != nil {
		t.unlock()
		return nil, false, fmt.Errorf("load the game of channel %s: %w", channelID, err)
	}
	t.loaded = true
	return t, t.match != nil, nil
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
		t.sem <- struct{}{}
		f(t)
		t.unlock()
	}
}
