package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// groupCommit runs the writes of concurrent callers in shared
// transactions of the SQLite writer (group commit). A transaction's cost
// is mostly fixed: BEGIN, COMMIT, the file locks, and writing each page it
// changed to the WAL, where the saves of many games share the pages of the
// games table. Batching N writes pays that once instead of N times.
//
// A write that fails (a version conflict, say) is undone alone and the
// others commit: the batch is then written again with a SAVEPOINT for
// each write (see run). A caller returns once the transaction holding its
// write is committed: a write that returned nil is as durable as before.
// A caller whose context ends before its write has started returns the
// context's error at once, and its write never runs, even if its batch is
// stuck (waiting for another process's write lock, say): whoever must
// answer within a deadline gets its answer in time. Once its write has
// started, the caller waits for the commit, so that what it returns is
// true.
//
// The first caller to find nobody writing starts a goroutine that leads:
// it runs batches (up to maxBatch writes each, all that queued meanwhile)
// until the queue is empty, then stops.
type groupCommit struct {
	db *stmtCache
	// check, when set, is asked before each batch whether the database
	// may be written (SQLite.check): an error fails every write of the
	// batch, none of which runs. Once a batch, not once a write: it
	// costs a stat.
	check func() error

	mu      sync.Mutex // guards queue, leading and stopped
	queue   []*writeJob
	leading bool
	stopped *sync.Cond // signalled when the leader stops (on mu)

	// batches and writes count the transactions run and the writes
	// they held, for tests and benchmarks (writes per batch).
	batches, writes atomic.Int64
}

// maxBatch bounds one transaction: a batch that waits for a huge one to
// commit would see its latency grow with it.
const maxBatch = 64

type writeJob struct {
	ctx  context.Context
	fn   func(tx) error
	done chan error // buffered: the batch never waits for its caller
	// then, when set, is told how the write went instead of a caller
	// waiting on done (enqueue).
	then func(error)
	// state is jobQueued until the batch starts the write (jobStarted) or
	// its caller gives up first (jobAbandoned); it changes once.
	state atomic.Int32
}

const (
	jobQueued int32 = iota
	jobStarted
	jobAbandoned
)

func newGroupCommit(db *stmtCache) *groupCommit {
	g := &groupCommit{db: db}
	g.stopped = sync.NewCond(&g.mu)
	return g
}

// write runs fn in a transaction shared with other writers and returns
// fn's error, or the commit's. A caller whose ctx ends before its write
// has started returns ctx's error and fn never runs; once it has started,
// the caller waits for its batch.
func (g *groupCommit) write(ctx context.Context, fn func(tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j := &writeJob{ctx: ctx, fn: fn, done: make(chan error, 1)}
	g.push(j)
	select {
	case err := <-j.done:
		return err
	case <-ctx.Done():
		if j.state.CompareAndSwap(jobQueued, jobAbandoned) {
			return ctx.Err()
		}
		return <-j.done // started: its batch tells how it went
	}
}

// enqueue runs fn in a transaction shared with other writers, as write
// does, but nobody waits for it: then, if not nil, is told fn's error or
// the commit's, on the leader's goroutine (it must be quick). The write
// joins the batch of whatever is written next, or leads one of its own:
// a write whose outcome the caller need not wait for costs no
// transaction of its own when others write. idle waits for it.
func (g *groupCommit) enqueue(fn func(tx) error, then func(error)) {
	g.push(&writeJob{ctx: context.Background(), fn: fn, done: make(chan error, 1), then: then})
}

// push queues j, and starts a leader if nobody leads.
func (g *groupCommit) push(j *writeJob) {
	g.mu.Lock()
	g.queue = append(g.queue, j)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	if lead {
		go g.lead()
	}
}

// idle waits until every write queued so far has been written (or
// failed), the enqueued ones included.
func (g *groupCommit) idle() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.leading {
		g.stopped.Wait()
	}
}

// lead runs batches from the head of the queue until it is empty, then
// gives up the lead.
func (g *groupCommit) lead() {
	for {
		// Let the goroutines that are ready to run go first: on a
		// busy core, those about to write join this batch instead of
		// each waiting for a transaction of its own (without it, on
		// one core, the leader runs as soon as its caller blocks, and
		// batches hold one write). A lone writer finds nothing else to
		// run and goes on at once.
		runtime.Gosched()
		g.mu.Lock()
		n := min(len(g.queue), maxBatch)
		if n == 0 {
			g.leading = false
			g.stopped.Broadcast()
			g.mu.Unlock()
			return
		}
		batch := g.queue[:n:n]
		if n == len(g.queue) {
			g.queue = nil // the next writes get an array of their own: this one goes with batch
		} else {
			g.queue = g.queue[n:]
		}
		g.mu.Unlock()
		g.batches.Add(1)
		g.writes.Add(int64(len(batch)))
		g.run(batch)
	}
}

// run writes batch in one transaction and tells each of its callers how
// its write went, even if something panics on the way.
func (g *groupCommit) run(batch []*writeJob) {
	var errs []error
	var err error
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("store: a batch of writes panicked: %v", r)
		}
		for i, j := range batch {
			e := err
			if e == nil {
				e = errs[i]
			}
			if j.then != nil {
				tell(j.then, e)
			} else {
				j.done <- e
			}
		}
	}()
	// The statements run under a context of the batch, not of any one
	// caller: SQLite answers a statement interrupted by a cancelled
	// context by rolling back the whole transaction, the others' writes
	// with it.
	if g.check != nil {
		if err = g.check(); err != nil {
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), busyTimeout+5*time.Second)
	defer cancel()
	// Writes rarely fail, and savepoints cost three statements each: try
	// the batch without them first, and only if a write fails, roll it
	// all back and write it again with a savepoint for each.
	errs, err = g.try(ctx, batch, false)
	if err == errRetry {
		errs, err = g.try(ctx, batch, true)
	}
	if full(err, errs) {
		// The disk is full, often of the WAL itself, which grows until a
		// checkpoint (about 4 MB) and would fill a small disk again and
		// again. Copy the WAL into the database and truncate it, which
		// frees its space when the database has room to grow, and try
		// once more: nothing of this batch was committed.
		g.checkpoint(ctx)
		errs, err = g.try(ctx, batch, len(batch) > 1)
	}
}

// full reports whether a batch failed, all of it, because the disk is
// full: err, or every write's error that is not its caller giving up.
func full(err error, errs []error) bool {
	if err != nil {
		return diskFull(err)
	}
	any := false
	for _, e := range errs {
		switch {
		case e == nil:
			return false // committed
		case diskFull(e):
			any = true
		}
	}
	return any
}

// diskFull reports whether err is SQLite's SQLITE_FULL.
func diskFull(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL
}

// checkpoint copies the WAL into the database and truncates it to zero
// bytes, if it can.
func (g *groupCommit) checkpoint(ctx context.Context) {
	var busy, log, done int
	_ = g.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &log, &done)
}

var errRetry = errors.New("store: write the batch again with savepoints")

// try runs batch in one transaction, each write in a savepoint of its own
// when savepoints is set, and commits what succeeded. errs are the writes'
// own errors; err is an error of the whole transaction, or errRetry when a
// write failed without savepoints and nothing was committed.
func (g *groupCommit) try(ctx context.Context, batch []*writeJob, savepoints bool) (errs []error, err error) {
	t, err := g.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			t.Rollback() // free the writer's one connection
			panic(r)
		}
	}()
	// The statements run under a context that never ends: the driver
	// (modernc.org/sqlite) starts a goroutine to watch each statement's
	// context if it can end, which on one core cost more than the
	// statement. The transaction is still bounded by ctx: database/sql
	// rolls it back when ctx ends, and a wait for a lock by busyTimeout.
	a := &sqlAdapter{q: t, t: t, c: g.db, ctx: context.Background()}
	defer func() {
		for _, q := range a.missed {
			g.db.prepare(ctx, q)
		}
	}()
	errs = make([]error, len(batch))
	ok := 0
	for i, j := range batch {
		// A write starts once; its caller may have given up before.
		if j.state.Load() != jobStarted && !j.state.CompareAndSwap(jobQueued, jobStarted) {
			errs[i] = j.ctx.Err()
			continue
		}
		if !savepoints {
			errs[i] = call(j.fn, a)
			if errs[i] != nil && len(batch) > 1 {
				t.Rollback()
				return nil, errRetry
			}
		} else if errs[i], err = savepoint(a, j.fn); err != nil {
			t.Rollback() // the transaction is in no known state
			return nil, err
		}
		if errs[i] == nil {
			ok++
		}
	}
	if ok == 0 {
		t.Rollback()
		return errs, nil
	}
	if err := t.Commit(); err != nil {
		// SQLite may keep the transaction open after a failed COMMIT (a
		// full disk, say), and database/sql gives the connection back as
		// it is: every later BEGIN would fail. Roll it back; if it was
		// already, this fails harmlessly.
		_, _ = g.db.ExecContext(ctx, `ROLLBACK`)
		return errs, err
	}
	return errs, nil
}

// savepoint runs fn inside a savepoint of a's transaction and rolls back
// to it when fn fails. fnErr is fn's error; err means the savepoint itself
// failed and the transaction must be abandoned.
func savepoint(a *sqlAdapter, fn func(tx) error) (fnErr, err error) {
	if _, err := a.exec(a.ctx, `SAVEPOINT w`); err != nil {
		return nil, fmt.Errorf("store: savepoint: %w", err)
	}
	if fnErr = call(fn, a); fnErr != nil {
		if _, err := a.exec(a.ctx, `ROLLBACK TO w`); err != nil {
			return fnErr, fmt.Errorf("store: roll back to savepoint after %v: %w", fnErr, err)
		}
	}
	if _, err := a.exec(a.ctx, `RELEASE w`); err != nil {
		return fnErr, fmt.Errorf("store: release savepoint: %w", err)
	}
	return fnErr, nil
}

// call runs fn, and turns a panic in it into an error of that write
// alone: a panic must not leave the lead taken and every later write
// waiting for it.
func call(fn func(tx) error, a *sqlAdapter) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("store: a write panicked: %v", r)
		}
	}()
	return fn(a)
}

// tell gives then the error of its write; a panic in then is not let
// loose on the leader, which must still tell the others and let go.
func tell(then func(error), err error) {
	defer func() { _ = recover() }()
	then(err)
}
