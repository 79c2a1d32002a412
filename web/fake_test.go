package web

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// The web layer is under test here, so the game behind it is a small one
// of the test's: a board per channel, moves by the player whose turn it
// is on the version the page saw, and a feed that tells every watcher of
// the channel. (Package bot's Games and Feed are tested with the real
// tables and stores, and end to end with this server.)

type fakeGame struct {
	id      string
	version int64
	size    int
	cells   []string
	players [2]User
	turn    int // 0: X, 1: O
	moves   []Move
}

// fakeGames implements Games and Feed.
type fakeGames struct {
	mu       sync.Mutex
	games    map[string]*fakeGame
	watchers map[string]map[chan Change]bool
	watches  atomic.Int64          // Watch calls
	states   atomic.Int64          // State calls
	acts     atomic.Int64          // Act calls
	free     bool                  // any move is good (benchmarks): the board never fills
	pad      string                // a label of every state, to make states big
	hang     atomic.Bool           // State waits for the end of its ctx (a database that hangs)
	fail     atomic.Pointer[error] // Act fails with it (a store whose outcome is unknown)
	now      func() time.Time
}

func newFakeGames() *fakeGames {
	return &fakeGames{games: map[string]*fakeGame{}, watchers: map[string]map[chan Change]bool{}, now: time.Now}
}

// start starts a game of size in channel between x and o.
func (f *fakeGames) start(channel string, size int, x, o User) {
	f.mu.Lock()
	x.Mark, o.Mark = "X", "O"
	f.games[channel] = &fakeGame{id: fmt.Sprint("g", len(f.games)+1), version: 1, size: size, cells: make([]string, size*size), players: [2]User{x, o}}
	f.mu.Unlock()
	f.changed(channel)
}

func (f *fakeGames) version(channel string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if g := f.games[channel]; g != nil {
		return g.version
	}
	return 0
}

// bump saves the game again (a move made elsewhere, e.g. in chat).
func (f *fakeGames) bump(channel string) {
	f.mu.Lock()
	f.games[channel].version++
	f.mu.Unlock()
	f.changed(channel)
}

func (f *fakeGames) changed(channel string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.games[channel]
	for ch := range f.watchers[channel] {
		select {
		case ch <- Change{ChannelID: channel, GameID: g.id, Version: g.version}:
		default: // a change is waiting: it will read this one too
		}
	}
}

func (f *fakeGames) State(ctx context.Context, v Viewer) (State, error) {
	f.states.Add(1)
	if f.hang.Load() {
		<-ctx.Done()
		return State{}, ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	st := State{ChannelID: v.ChannelID, Now: f.now().UnixMilli(), Status: status(v.Locale, "No game here")}
	g := f.games[v.ChannelID]
	if g == nil {
		return st, nil
	}
	st.GameID, st.Version, st.Running, st.Size, st.Win = g.id, g.version, true, g.size, min(g.size, 5)
	st.Cells = append([]string(nil), g.cells...)
	st.Players = g.players
	st.Moves = append([]Move(nil), g.moves...)
	st.Turn = [2]string{"X", "O"}[g.turn]
	st.Status = status(v.Locale, st.Turn+" to move")
	if f.pad != "" {
		st.Labels = map[string]string{"pad": f.pad}
	}
	for _, p := range g.players {
		if p.ID == v.UserID {
			st.You = p.Mark
		}
	}
	return st, nil
}

// status marks a text with the viewer's language, so that a test sees
// which language's state a page got.
func status(locale, s string) string { return "[" + locale + "] " + s }

func (f *fakeGames) Act(ctx context.Context, v Viewer, a Action) (string, error) {
	f.acts.Add(1)
	if err := f.fail.Load(); err != nil {
		return "", *err
	}
	f.mu.Lock()
	g := f.games[v.ChannelID]
	switch {
	case g == nil:
		f.mu.Unlock()
		return "There is no game here.", nil
	case f.free:
	case a.Type != "move":
		f.mu.Unlock()
		return "Not in this test.", nil
	case g.players[g.turn].ID != v.UserID:
		f.mu.Unlock()
		if g.players[1-g.turn].ID == v.UserID {
			return "It is not your turn.", nil
		}
		return "You are not playing in this game.", nil
	case a.Version != g.version:
		f.mu.Unlock()
		return "The board changed since you tapped.", nil
	case a.Row > g.size || a.Col > g.size || g.cells[(a.Row-1)*g.size+a.Col-1] != "":
		f.mu.Unlock()
		return "That cell is taken.", nil
	}
	if !f.free {
		mark := g.players[g.turn].Mark
		g.cells[(a.Row-1)*g.size+a.Col-1] = mark
		g.moves = append(g.moves, Move{Row: a.Row, Col: a.Col, Mark: mark})
		g.turn = 1 - g.turn
	}
	g.version++
	f.mu.Unlock()
	f.changed(v.ChannelID)
	return "", nil
}

// Failure says what an Act that failed with err did, as package bot's
// Live does (whether anything changed).
func (f *fakeGames) Failure(err error, locale string) string {
	return status(locale, "maybe saved: "+err.Error())
}

func (f *fakeGames) Watch(ctx context.Context, channel string) (<-chan Change, func(), error) {
	f.watches.Add(1)
	ch := make(chan Change, 1)
	f.mu.Lock()
	if f.watchers[channel] == nil {
		f.watchers[channel] = map[chan Change]bool{}
	}
	f.watchers[channel][ch] = true
	f.mu.Unlock()
	return ch, func() {
		f.mu.Lock()
		delete(f.watchers[channel], ch)
		f.mu.Unlock()
	}, nil
}

// endFeed ends every watch of channel, as a feed whose database
// connection is lost.
func (f *fakeGames) endFeed(channel string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.watchers[channel] {
		close(ch)
	}
	delete(f.watchers, channel)
}

// watching is how many watches of channel are open.
func (f *fakeGames) watching(channel string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.watchers[channel])
}
