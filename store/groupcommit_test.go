package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// groupFixture is a group commit on the writer of a fresh SQLite file,
// with a table of its own, and a write that holds the lead until told, so
// that the writes queued behind it form one batch.
type groupFixture struct {
	s       *SQLite
	g       *groupCommit
	release chan struct{}
	held    chan error
}

func newGroupFixture(t *testing.T) *groupFixture {
	s := openSQLite(t, filepath.Join(t.TempDir(), "group.db"))
	if _, err := s.writer.Exec(`CREATE TABLE notes (n INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	f := &groupFixture{s: s, g: newGroupCommit(s.writer), release: make(chan struct{}), held: make(chan error, 1)}
	started := make(chan struct{})
	go func() {
		f.held <- f.g.write(context.Background(), func(t tx) error {
			close(started)
			<-f.release
			_, err := t.exec(context.Background(), `INSERT INTO notes (n) VALUES (0)`)
			return err
		})
	}()
	<-started
	return f
}

// queue starts a write and waits until it is queued behind the held one.
func (f *groupFixture) queue(t *testing.T, ctx context.Context, fn func(tx) error) chan error {
	t.Helper()
	f.g.mu.Lock()
	before := len(f.g.queue)
	f.g.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- f.g.write(ctx, fn) }()
	for {
		f.g.mu.Lock()
		n := len(f.g.queue)
		f.g.mu.Unlock()
		if n > before {
			return done
		}
		time.Sleep(time.Millisecond) // polling a condition, not timing
	}
}

func insertNote(n int) func(tx) error {
	return func(t tx) error {
		_, err := t.exec(context.Background(), `INSERT INTO notes (n) VALUES (?)`, n)
		return err
	}
}

func (f *groupFixture) notes(t *testing.T) []int {
	t.Helper()
	rs, err := f.s.writer.Query(`SELECT n FROM notes ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var out []int
	for rs.Next() {
		var n int
		if err := rs.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// Writes queued while another commits go in together, and a write that
// fails in the batch, after writing, is undone alone: the others commit.
func TestGroupCommitFailureUndoesOneWrite(t *testing.T) {
	f := newGroupFixture(t)
	errOwn := errors.New("a conflict of its own")
	var dones []chan error
	for n := 1; n <= 5; n++ {
		fn := insertNote(n)
		if n == 3 {
			fn = func(t tx) error {
				if err := insertNote(3)(t); err != nil {
					return err
				}
				return errOwn
			}
		}
		dones = append(dones, f.queue(t, context.Background(), fn))
	}
	close(f.release)
	if err := <-f.held; err != nil {
		t.Fatalf("the held write: %v", err)
	}
	for i, d := range dones {
		err := <-d
		if n := i + 1; n == 3 && !errors.Is(err, errOwn) {
			t.Errorf("the failing write returned %v; want its own error", err)
		} else if n != 3 && err != nil {
			t.Errorf("write %d returned %v", n, err)
		}
	}
	if got, want := f.notes(t), []int{0, 1, 2, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("notes %v; want %v (3 undone, the rest kept)", got, want)
	}
}

// A caller that gives up while its write is queued returns at once, before
// the batch ahead of it is written; its write is not made, and the others
// are.
func TestGroupCommitCancelledWhileQueued(t *testing.T) {
	f := newGroupFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	first := f.queue(t, context.Background(), insertNote(1))
	gaveUp := f.queue(t, ctx, insertNote(2))
	last := f.queue(t, context.Background(), insertNote(3))
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) { // the held write still leads
		t.Errorf("the cancelled write returned %v; want context.Canceled", err)
	}
	close(f.release)
	for _, d := range []chan error{f.held, first, last} {
		if err := <-d; err != nil {
			t.Fatal(err)
		}
	}
	if got, want := f.notes(t), []int{0, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("notes %v; want %v", got, want)
	}
}

// Many writers at once: every write is stored, once. (Whether they shared
// transactions depends on the scheduler: the tests above force a batch.)
func TestGroupCommitManyWriters(t *testing.T) {
	s := openSQLite(t, filepath.Join(t.TempDir(), "group.db"))
	if _, err := s.writer.Exec(`CREATE TABLE notes (n INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	g := newGroupCommit(s.writer)
	var mu sync.Mutex
	txs := map[*sqlAdapter]bool{} // the transactions seen
	const writers, each = 16, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				n := w*each + i
				err := g.write(context.Background(), func(t tx) error {
					mu.Lock()
					txs[t.(*sqlAdapter)] = true
					mu.Unlock()
					return insertNote(n)(t)
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	f := &groupFixture{s: s}
	if got := len(f.notes(t)); got != writers*each {
		t.Errorf("%d notes stored; want %d", got, writers*each)
	}
	t.Logf("%d writes in %d transactions", writers*each, len(txs))
}

// More writes queued than one batch takes are all written, in batches.
func TestGroupCommitMoreThanABatch(t *testing.T) {
	f := newGroupFixture(t)
	var dones []chan error
	for n := 1; n <= maxBatch+6; n++ {
		dones = append(dones, f.queue(t, context.Background(), insertNote(n)))
	}
	close(f.release)
	for i, d := range append([]chan error{f.held}, dones...) {
		if err := <-d; err != nil {
			t.Errorf("write %d: %v", i, err)
		}
	}
	if got := len(f.notes(t)); got != maxBatch+7 {
		t.Errorf("%d notes; want %d", got, maxBatch+7)
	}
	// The leader tells the last batch it is done before it looks at the
	// queue once more and finds it empty: wait for it to let go.
	idle := func() (int, bool) {
		f.g.mu.Lock()
		defer f.g.mu.Unlock()
		return len(f.g.queue), f.g.leading
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		queued, leading := idle()
		if queued == 0 && !leading {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the writes: %d queued, leading %v; want none, false", queued, leading)
		}
		runtime.Gosched()
	}
}

// A write that panics fails alone, in a batch or by itself, and the writes
// after it are not left waiting for a lead nobody passes on.
func TestGroupCommitPanic(t *testing.T) {
	f := newGroupFixture(t)
	panics := func(tx) error { panic("a bug in a write") }
	first := f.queue(t, context.Background(), insertNote(1))
	bad := f.queue(t, context.Background(), panics)
	last := f.queue(t, context.Background(), insertNote(3))
	close(f.release)
	for _, d := range []chan error{f.held, first, last} {
		if err := <-d; err != nil {
			t.Fatal(err)
		}
	}
	if err := <-bad; err == nil || !strings.Contains(err.Error(), "a bug in a write") {
		t.Errorf("the panicking write returned %v; want an error with the panic", err)
	}
	if err := f.g.write(context.Background(), panics); err == nil {
		t.Error("a panicking write alone returned nil")
	}
	if err := f.g.write(context.Background(), insertNote(4)); err != nil {
		t.Errorf("a write after the panics: %v", err)
	}
	if got, want := f.notes(t), []int{0, 1, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("notes %v; want %v", got, want)
	}
}

// A write that has not started when its context ends gives up at once,
// even when its batch is stuck waiting for the database (here another
// process holds SQLite's write lock, which the batch waits busyTimeout
// for): the caller, who must answer Discord within 3 s, gets its
// context's error while the lock is still held, and nothing is written.
func TestGroupCommitDeadlineWhileStuck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tttbot.db")
	s := openSQLite(t, path)
	other := openSQLite(t, path) // another process
	conn, err := other.writer.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	released := false
	release := func() {
		if !released {
			released = true
			conn.ExecContext(context.Background(), `ROLLBACK`)
			conn.Close()
		}
	}
	defer release()

	// The first write leads a batch stuck in BEGIN; the second queues
	// behind it.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	errs := make(chan error, 2)
	for _, id := range []string{"g1", "g2"} {
		go func() { errs <- s.Save(ctx, newGame(id, "guild", id, "alice", "bob")) }()
	}
	for range 2 {
		select {
		case err := <-errs:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Save while another process holds the write lock = %v; want context.DeadlineExceeded", err)
			}
		case <-time.After(time.Minute): // a bound on a hang, not a timing
			t.Fatal("Save did not return while the write lock was held")
		}
	}
	release()
	for _, id := range []string{"g1", "g2"} {
		if g, err := s.Game(context.Background(), id); g != nil || err != nil {
			t.Errorf("Game(%s) after its Save gave up = %v, %v; want nil, nil", id, g, err)
		}
	}
	mustSave(t, s, newGame("g3", "guild", "g3", "alice", "bob")) // the store still works
}

// On one core, the writes of concurrent callers still share
// transactions: the leader lets the goroutines ready to run go first, and
// those about to write join its batch. Here rounds of 16 writers are made
// ready at once, as a busy bot's requests are: without it the leader ran
// as soon as its caller blocked, and took its write alone (320 writes in
// 320 transactions; under -race, whose scheduler shuffles who runs next,
// the writes group either way).
func TestGroupCommitGroupsOnOneCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	s := openSQLite(t, filepath.Join(t.TempDir(), "group.db"))
	if _, err := s.writer.Exec(`CREATE TABLE notes (n INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	g := newGroupCommit(s.writer)
	const rounds, writers = 20, 16
	for r := range rounds {
		gate := make(chan struct{})
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				<-gate
				if err := g.write(context.Background(), insertNote(r*writers+w)); err != nil {
					t.Error(err)
				}
			})
		}
		close(gate)
		wg.Wait()
	}
	batches, writes := g.batches.Load(), g.writes.Load()
	if writes != rounds*writers {
		t.Fatalf("%d writes counted; want %d", writes, rounds*writers)
	}
	if writes < 4*batches {
		t.Errorf("%d writes in %d transactions on one core; want at least 4 a transaction", writes, batches)
	}
	t.Logf("%d writes in %d transactions", writes, batches)
}

// A write enqueued, which nobody waits for, joins the batch of the
// writes queued with it, is told how it went, and idle waits for it.
func TestGroupCommitEnqueue(t *testing.T) {
	f := newGroupFixture(t)
	told := make(chan error, 2)
	f.g.enqueue(insertNote(1), func(err error) { told <- err })
	done := f.queue(t, context.Background(), insertNote(2))
	f.g.enqueue(insertNote(2), func(err error) { told <- err }) // fails alone: 2 is taken
	close(f.release)
	if err := <-done; err != nil {
		t.Errorf("the write queued with the enqueued ones: %v", err)
	}
	f.g.idle()
	f.g.mu.Lock()
	queued, leading := len(f.g.queue), f.g.leading
	f.g.mu.Unlock()
	if queued != 0 || leading {
		t.Errorf("after idle: %d queued, leading %v; want none, false", queued, leading)
	}
	if len(told) != 2 {
		t.Fatalf("%d enqueued writes told how they went; want 2", len(told))
	}
	if err := <-told; err != nil {
		t.Errorf("enqueued write: %v", err)
	}
	if err := <-told; err == nil {
		t.Errorf("enqueued write of a note taken: nil error; want the conflict")
	}
	if got := f.notes(t); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("notes %v; want [0 1 2]", got)
	}
	if b := f.g.batches.Load(); b != 2 {
		t.Errorf("%d batches; want 2, the held write's and one of the three queued behind it", b)
	}
}

// BenchmarkGroupCommit measures one small write through the group commit
// of a SQLite file: alone, one writer after another (the latency of a
// lone caller), and 16 writers at once (what grouping saves). It reports
// the process's CPU per write and the writes a transaction held. Run it
// at -cpu 1, as the bot runs on one core, and -cpu 2.
func BenchmarkGroupCommit(b *testing.B) {
	for _, writers := range []int{1, 16} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			s := openSQLite(b, filepath.Join(b.TempDir(), "group.db"))
			if _, err := s.writer.Exec(`CREATE TABLE notes (n INTEGER PRIMARY KEY)`); err != nil {
				b.Fatal(err)
			}
			g := newGroupCommit(s.writer)
			var next atomic.Int64
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.ResetTimer()
			var wg sync.WaitGroup
			for range writers {
				wg.Go(func() {
					for n := next.Add(1); n <= int64(b.N); n = next.Add(1) {
						if err := g.write(context.Background(), insertNote(int(n))); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/1e3/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(g.writes.Load())/float64(max(g.batches.Load(), 1)), "writes/batch")
		})
	}
}
