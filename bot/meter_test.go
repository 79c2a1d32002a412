package bot

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tttbot/tttbot/store"
)

// countingMeter records what the bot tells its meter.
type countingMeter struct {
	mu           sync.Mutex
	interactions []string // kind/outcome
	moves        int
	started      int
	ended        []string
	storeCalls   map[string]int
	storeErrors  int
}

func (m *countingMeter) Interaction(kind, outcome string, answer time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.interactions = append(m.interactions, kind+"/"+outcome)
}

func (m *countingMeter) Moves(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.moves += n
}

func (m *countingMeter) GameStarted() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.started++
}

func (m *countingMeter) GameEnded(how string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ended = append(m.ended, how)
}

func (m *countingMeter) StoreCall(method string, took time.Duration, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.storeCalls == nil {
		m.storeCalls = map[string]int{}
	}
	m.storeCalls[method]++
	if err != nil {
		m.storeErrors++
	}
}

// newMeteredBot is a bot on a memory store that counts into a
// countingMeter.
func newMeteredBot(t *testing.T) (*Bot, *countingMeter) {
	t.Helper()
	meter := new(countingMeter)
	cfg := DefaultConfig()
	cfg.Meter = meter
	st := store.NewMemory(store.Observe(meter.StoreCall))
	b := New(new(recorder), StoresOf(st), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf("1000000000000000001")
	t.Cleanup(b.Close)
	return b, meter
}

// The meter hears of every interaction by kind and outcome, of moves by
// players and by the computer, of games started and ended, and of store
// calls.
func TestMeterCounts(t *testing.T) {
	b, meter := newMeteredBot(t)
	ctx := context.Background()

	b.serveIC(ctx, slashPayload(t, "start", []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}, intOpt("size", 3)}, nil))
	b.serveIC(ctx, slashPayload(t, "move", []map[string]any{intOpt("row", 9), intOpt("col", 1)}, nil)) // outside: refused
	moved := 0
	for _, cell := range [][2]int{{2, 2}, {1, 1}, {1, 3}, {3, 1}, {3, 3}, {1, 2}, {2, 1}, {2, 3}, {3, 2}} {
		before := moves(t, b, slashPayload(t, "board", nil, nil))
		b.serveIC(ctx, slashPayload(t, "move", []map[string]any{intOpt("row", cell[0]), intOpt("col", cell[1])}, nil))
		moved += moves(t, b, slashPayload(t, "board", nil, nil)) - before
	}
	b.serveIC(ctx, slashPayload(t, "resign", nil, nil))

	meter.mu.Lock()
	defer meter.mu.Unlock()
	if meter.started != 1 || len(meter.ended) != 1 {
		t.Errorf("games started %d, ended %v; want 1 and one ending", meter.started, meter.ended)
	}
	if meter.moves != moved || moved < 2 {
		t.Errorf("moves counted %d; want %d (the game's own count, at least 2)", meter.moves, moved)
	}
	if i := slices.Index(meter.interactions, "start/ok"); i != 0 {
		t.Errorf("interactions %v; want start/ok first", meter.interactions)
	}
	if !slices.Contains(meter.interactions, "move/refused") || !slices.Contains(meter.interactions, "move/ok") {
		t.Errorf("interactions %v; want move/refused and move/ok", meter.interactions)
	}
	if meter.storeCalls["save"] < 2 || meter.storeCalls["current"] < 2 || meter.storeErrors != 0 {
		t.Errorf("store calls %v, %d errors; want saves and loads, no errors", meter.storeCalls, meter.storeErrors)
	}
}

// The same interaction delivered twice is acted on once: the second
// delivery gets a plain answer and the game is unchanged.
func TestDuplicateDeliveryActsOnce(t *testing.T) {
	b, meter := newMeteredBot(t)
	rec := b.dc.(*recorder)
	ctx := context.Background()
	b.serveIC(ctx, slashPayload(t, "start", []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}, nil))
	ic := slashPayload(t, "move", []map[string]any{intOpt("row", 2), intOpt("col", 2)}, nil)
	b.serveIC(ctx, ic)
	after := moves(t, b, ic)
	b.serveIC(ctx, ic)
	wantEphemeral(t, rec.last(t), english().T("error.duplicate", nil))
	if got := moves(t, b, ic); got != after {
		t.Errorf("moves after the duplicate = %d; want %d", got, after)
	}
	meter.mu.Lock()
	defer meter.mu.Unlock()
	if got := meter.interactions[len(meter.interactions)-1]; got != "unknown/duplicate" {
		t.Errorf("last interaction counted as %s; want unknown/duplicate", got)
	}
}

// recent forgets the oldest ids beyond recentSize and no others.
func TestRecentIsBounded(t *testing.T) {
	var r recent
	for i := range recentSize + 10 {
		if !r.add(fmt.Sprint(i + 1)) {
			t.Fatalf("first(%d) = false on its first time", i+1)
		}
	}
	if len(r.ids) != recentSize || len(r.ring) != recentSize {
		t.Fatalf("recent holds %d ids in a ring of %d; want %d", len(r.ids), len(r.ring), recentSize)
	}
	if !r.add("5") {
		t.Error("id 5, pushed out by newer ones, is not new again")
	}
	if r.add(fmt.Sprint(recentSize + 10)) {
		t.Error("the newest id is new again")
	}
	if !r.add("not-a-snowflake") || !r.add("not-a-snowflake") {
		t.Error("an id that is not a snowflake is not always new")
	}
}

// recent grows with the ids it holds: its first id costs a few bytes, not
// the room for recentSize ids.
func TestRecentStartsSmall(t *testing.T) {
	var r recent
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r.add("1")
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
		t.Errorf("the first id allocated %d bytes; want under 64 KiB", got)
	}
	runtime.KeepAlive(&r)
}
