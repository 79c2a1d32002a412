package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// After 10,000 games in 10,000 channels have ended, the bot holds nothing
// for them: no channel entry, no timer goroutine, and the heap is back near
// where it started (the games themselves are in the SQLite file).
func TestMemoryReturnsAfterGamesEnd(t *testing.T) {
	// Under the race detector (as in CI's main run) each game costs ten
	// times as much: 1,000 games there; .ci/run also runs this test
	// without -race, with the full 10,000.
	games := 10000
	if testing.Short() || raceBuild {
		games = 1000
	}
	st, err := store.OpenSQLite(filepath.Join(t.TempDir(), "tttbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := &discardDiscord{}
	b := New(rec, StoresOf(st), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf("1000000000000000001")
	defer b.Close()

	play := func(from, to int) {
		for i := from; i < to; i++ {
			ch := fmt.Sprint(1000000000000000000 + i)
			for _, sub := range []string{"start", "resign"} {
				var opts []map[string]any
				if sub == "start" { // easy: the test is about memory, not the computer's search
					opts = []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}
				}
				ic := slashPayload(t, sub, opts, nil)
				// A player of its own in each channel: one player's starts
				// are paced (startLimits).
				ic.ChannelID, ic.Member.User.ID = ch, fmt.Sprint(2000000000000000000+i)
				b.handle(context.Background(), ic.Interaction, rec)
				if rec.last == nil || rec.last.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
					t.Fatalf("channel %s: /ttt %s answered %+v; want a board", ch, sub, rec.last)
				}
			}
		}
	}
	// Warm up (SQLite's page cache, the race detector's shadow memory,
	// pools), then measure.
	play(0, 200)
	heap0, goroutines0 := settledHeap()
	play(200, 200+games)
	heap1, goroutines1 := settledHeap()

	if n := b.tables.channels.len(); n != 0 {
		t.Errorf("after %d ended games the registry holds %d channels; want 0", games, n)
	}
	if goroutines1 > goroutines0+2 {
		t.Errorf("goroutines went from %d to %d after %d ended games; want them back", goroutines0, goroutines1, games)
	}
	// A leak of one channel entry with its timer per game would be about
	// 1 kB a game; allow a fifth of that, plus 256 kB for caches that fill
	// up once (SQLite's pages, statements, pools).
	if grew := int64(heap1) - int64(heap0); grew > int64(games)*200+256<<10 {
		t.Errorf("heap grew by %d bytes over %d ended games (%d B/game); want it back near %d", grew, games, grew/int64(games), heap0)
	}
	t.Logf("%d games: heap %d → %d bytes, goroutines %d → %d", games, heap0, heap1, goroutines0, goroutines1)
}

func settledHeap() (heap uint64, goroutines int) {
	var ms runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, runtime.NumGoroutine()
}

// discardDiscord answers and edits without keeping anything but the last
// answer, so that the test itself does not hold memory.
type discardDiscord struct {
	last *discordgo.InteractionResponse
}

func (d *discardDiscord) Respond(_ context.Context, r *discordgo.InteractionResponse) error {
	d.last = r
	return nil
}

func (d *discardDiscord) InteractionResponseDelete(*discordgo.Interaction, ...discordgo.RequestOption) error {
	return nil
}

func (d *discardDiscord) InteractionResponse(*discordgo.Interaction, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

func (d *discardDiscord) ChannelMessageSendComplex(string, *discordgo.MessageSend, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

func (d *discardDiscord) ChannelMessageSendNonce(string, *discordgo.MessageSend, string, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

func (d *discardDiscord) ChannelMessageEditComplex(*discordgo.MessageEdit, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

func (d *discardDiscord) ChannelMessageDelete(string, string, ...discordgo.RequestOption) error {
	return nil
}

func (d *discardDiscord) InteractionResponseEdit(*discordgo.Interaction, *discordgo.WebhookEdit, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

func (d *discardDiscord) ApplicationCommandBulkOverwrite(string, string, []*discordgo.ApplicationCommand, ...discordgo.RequestOption) ([]*discordgo.ApplicationCommand, error) {
	return nil, nil
}

func (d *discardDiscord) ApplicationCommandsJSON(string, string, ...discordgo.RequestOption) ([]json.RawMessage, error) {
	return nil, nil
}

func (d *discardDiscord) ApplicationCommandBulkOverwriteJSON(string, string, []json.RawMessage, ...discordgo.RequestOption) error {
	return nil
}

func (d *discardDiscord) FollowupMessageCreate(*discordgo.Interaction, bool, *discordgo.WebhookParams, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

func (d *discardDiscord) FollowupMessageDelete(*discordgo.Interaction, string, ...discordgo.RequestOption) error {
	return nil
}

// deleteGate is a Discord that holds every delete through a token until
// open is closed, and records the tokens deleted.
type deleteGate struct {
	discardDiscord
	open     chan struct{}
	inflight atomic.Int64
	mu       sync.Mutex
	deleted  map[string]bool
}

func newDeleteGate() *deleteGate {
	return &deleteGate{open: make(chan struct{}), deleted: make(map[string]bool)}
}

func (d *deleteGate) InteractionResponseDelete(i *discordgo.Interaction, _ ...discordgo.RequestOption) error {
	d.inflight.Add(1)
	defer d.inflight.Add(-1)
	<-d.open
	d.mu.Lock()
	defer d.mu.Unlock()
	d.deleted[i.Token] = true
	return nil
}

func (d *deleteGate) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.deleted)
}

// Every board that a /ttt move replaced is deleted, in every channel and
// game, once the bot has drained its background work; the board of each
// game's last move stays, its one board message.
func TestReplacedBoardsDeleted(t *testing.T) {
	const channels, n = 4, 5 // 5×5, five in a row: X wins in column 1 on the 9th move
	dc := newDeleteGate()
	close(dc.open)
	st := new(store.Memory)
	b := New(dc, StoresOf(st), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf("1000000000000000001")
	players := [3]string{game.X: "1000000000000000010", game.O: "1000000000000000020"}
	var wantDeleted, wantKept []string
	for c := range channels {
		channelID := fmt.Sprint(2000000000000000000 + c)
		for g := range 2 {
			m, err := table.Start(b.cfg.Table, newID(), table.Setup{ChannelID: channelID, Players: players, Size: n, Win: n, First: game.X}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if err := b.tables.put(context.Background(), &match{Match: m}); err != nil {
				t.Fatal(err)
			}
			// X down column 1, O down column 2: X's fifth move wins.
			cells := [][2]int{{1, 1}, {1, 2}, {2, 1}, {2, 2}, {3, 1}, {3, 2}, {4, 1}, {4, 2}, {5, 1}}
			for i, cell := range cells {
				ic := slashPayload(t, "move", []map[string]any{intOpt("row", cell[0]), intOpt("col", cell[1])}, nil)
				ic.ChannelID = channelID
				ic.ID = fmt.Sprint(3000000000000000000 + c*1000 + g*100 + i)
				ic.Token = fmt.Sprintf("token-%d-%d-%d", c, g, i)
				ic.Member = &discordgo.Member{User: &discordgo.User{ID: players[game.X+game.Player(i%2)]}}
				var resp discardDiscord
				b.Handle(ic.Interaction, &resp)
				if resp.last == nil || resp.last.Data == nil || resp.last.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
					t.Fatalf("channel %s, game %d, move %d: answered %+v; want a board", channelID, g, i+1, resp.last)
				}
				if i < len(cells)-1 {
					wantDeleted = append(wantDeleted, ic.Token)
				} else {
					wantKept = append(wantKept, ic.Token)
				}
			}
		}
	}
	b.Close()
	for _, tok := range wantDeleted {
		if !dc.deleted[tok] {
			t.Errorf("the board of %s, replaced by the next move, was not deleted", tok)
		}
	}
	for _, tok := range wantKept {
		if dc.deleted[tok] {
			t.Errorf("the board of %s, its game's last, was deleted; want it kept", tok)
		}
	}
	if len(dc.deleted) != len(wantDeleted) {
		t.Errorf("%d boards deleted; want %d", len(dc.deleted), len(wantDeleted))
	}
}

// While Discord does not answer the deletes of replaced boards, the bot
// keeps at most maxDeletesOwed of them waiting, in a few hundred bytes
// each (not the game they were boards of), with deleteWorkers in flight
// at once, even of one game; says in the log that it left the others;
// and deletes those it kept once Discord answers.
func TestReplacedBoardsOwedAreBounded(t *testing.T) {
	dc := newDeleteGate()
	var logs syncBuffer
	b := New(dc, StoresOf(new(store.Memory)), DefaultConfig(), slog.New(slog.NewTextHandler(&logs, nil)))
	b.SetSelf("1000000000000000001")
	defer b.Close()
	var opened sync.Once
	openGate := func() { opened.Do(func() { close(dc.open) }) }
	defer openGate() // before Close, which waits for the deletes held
	players := [3]string{game.X: "1000000000000000010", game.O: "1000000000000000020"}
	// A 15×15 game with moves played: what a delete must not hold.
	start, err := table.Start(b.cfg.Table, newID(), table.Setup{ChannelID: "2000000000000000000", Players: players, Size: 15, Win: 5, First: game.X}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	replace := func(i int) {
		old := &match{Match: start.Clone(), Board: store.Board{AppID: "1", Token: fmt.Sprintf("token-%08d-%s", i, strings.Repeat("x", 180)), At: b.cfg.Now()}}
		next := &match{Match: old.Match, Board: store.Board{AppID: "1", Token: "next", At: b.cfg.Now()}}
		b.boards.retire(old, next)
	}
	const extra = 1000
	heap0, _ := settledHeap()
	for i := range maxDeletesOwed + extra {
		replace(i)
		if owed := b.boards.slots.owedDeletes(); owed > maxDeletesOwed {
			t.Fatalf("after %d replaced boards, %d deletes are owed; want at most %d", i+1, owed, maxDeletesOwed)
		}
	}
	// All of one game's: still made many at once, as Discord's round
	// trip asks, not one after the other.
	waitFor(t, "deletes in flight at once", func() bool { return dc.inflight.Load() == deleteWorkers })
	heap1, _ := settledHeap()
	per := (int64(heap1) - int64(heap0)) / maxDeletesOwed
	t.Logf("%d deletes owed: %d bytes of heap each", maxDeletesOwed, per)
	if per > 1024 {
		t.Errorf("each delete owed holds %d bytes of heap; want a small record (token and ids), under 1 kB", per)
	}
	if !strings.Contains(logs.String(), "too many replaced boards are waiting to be deleted") || !strings.Contains(logs.String(), "left=1 ") {
		t.Errorf("log %q; want it to say that a replaced board was left", logs.String())
	}
	openGate()
	b.run.drain()
	if got := dc.count(); got != maxDeletesOwed {
		t.Errorf("%d replaced boards deleted once Discord answered; want the %d owed", got, maxDeletesOwed)
	}
	if owed := b.boards.slots.owedDeletes(); owed != 0 {
		t.Errorf("%d deletes still owed after the background work drained; want 0", owed)
	}
	if owed := b.run.owed.owed(); owed != 0 {
		t.Errorf("%d background requests still owed after the work drained; want 0", owed)
	}
}

// An answered interaction waits, while more background work is owed than
// owedHigh, until it is down to owedLow: its player's next interaction
// comes only as fast as the background work keeps up. Close ends the
// wait.
func TestAnsweredWaitsForBackgroundWork(t *testing.T) {
	r := newRunner()
	r.owedWait = time.Hour // long enough never to end the waits here
	returned := func() chan struct{} {
		if !r.admit() {
			t.Fatal("admit refused before close")
		}
		done := make(chan struct{})
		go func() {
			r.releaseAnswered()
			close(done)
		}()
		return done
	}
	isClosed := func(c chan struct{}) bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	waiters := func() int {
		r.owed.mu.Lock()
		defer r.owed.mu.Unlock()
		return r.owed.waiters
	}

	// Little owed: no wait.
	r.owed.add(owedHigh)
	done := returned()
	<-done

	r.owed.add(1)
	done = returned()
	waitFor(t, "the answered interaction to wait or return", func() bool { return waiters() == 1 || isClosed(done) })
	if isClosed(done) {
		t.Fatalf("with %d owed (more than %d) an answered interaction did not wait", owedHigh+1, owedHigh)
	}
	r.owed.add(-(owedHigh - owedLow)) // owedLow+1: not yet
	if isClosed(done) {
		t.Fatalf("with %d owed an answered interaction stopped waiting; want it to wait until %d", owedLow+1, owedLow)
	}
	r.owed.add(-1)
	<-done

	// Close ends a wait.
	r.owed.add(owedHigh + 1 - owedLow)
	done = returned()
	waitFor(t, "the answered interaction to wait", func() bool { return waiters() == 1 })
	r.close()
	<-done
}

// syncBuffer is a bytes.Buffer safe for the log's concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}
