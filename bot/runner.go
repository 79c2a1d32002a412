package bot

import (
	"context"
	"sync"
	"time"
)

// How many goroutines background work may use at once. Thousands of
// challenges expiring in the same second once started a goroutine each,
// and one more for each edit of their messages: work beyond these limits
// waits its turn in a queue, which costs a closure, not a goroutine with
// its stack and an HTTP request in flight. Timers and edits have workers
// of their own, so that a slow Discord delays no deadline.
// Deletes of replaced boards, one per /ttt move, have workers of their
// own, more of them: a delete is a request in flight, nothing more, and
// at Discord's round trip (tens of milliseconds) 16 at once would delete
// a few hundred boards a second, far fewer than a busy bot replaces.
const (
	editWorkers   = 16  // Discord edits and deletes nobody waits for
	timerWorkers  = 8   // timer callbacks: a lock, a load, maybe a save
	deleteWorkers = 128 // deletes of replaced boards
)

// A pool runs functions in the background, in the order given, on at
// most max goroutines at once; the rest wait in a queue, which never
// blocks the caller. Its goroutines exist only while there is work. The
// zero value runs nothing: set max. It is safe for concurrent use.
type pool struct {
	max int

	mu      sync.Mutex
	queue   []func()
	workers int // goroutines running queued work
}

// run queues f, and starts a goroutine for it if fewer than max are at
// work.
func (r *pool) run(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queue = append(r.queue, f)
	if r.workers < r.max {
		r.workers++
		go r.work()
	}
}

// work runs queued functions until the queue is empty.
func (r *pool) work() {
	for {
		r.mu.Lock()
		if len(r.queue) == 0 {
			r.queue = nil // a burst's backing array is not kept
			r.workers--
			r.mu.Unlock()
			return
		}
		f := r.queue[0]
		r.queue[0] = nil
		r.queue = r.queue[1:]
		r.mu.Unlock()
		f()
	}
}

// A runner holds the bot's work besides answering: background edits and
// timer callbacks, each on a pool of its own, and the interactions being
// answered, which Close waits for. Create it with newRunner; it is safe
// for concurrent use.
type runner struct {
	mu       sync.Mutex
	closed   bool           // set by close: no new interactions or timer callbacks
	finished bool           // set by drain: nothing runs any more
	handlers sync.WaitGroup // interactions being answered
	bg       inFlight       // background edits and timer callbacks queued or running
	edits    pool           // runs background edits (editWorkers at once)
	timers   pool           // runs timer callbacks (timerWorkers at once)
	deletes  pool           // runs deletes of replaced boards (deleteWorkers at once)
	// owed counts the background requests asked for and not yet made
	// (queued work, replaced boards to delete), which an interaction
	// waits for once answered when there are too many (releaseAnswered).
	owed backlog
	// owedWait is the longest an answered interaction waits for the
	// background work to catch up (releaseAnswered).
	owedWait time.Duration
}

func newRunner() *runner {
	return &runner{edits: pool{max: editWorkers}, timers: pool{max: timerWorkers}, deletes: pool{max: deleteWorkers}, owedWait: owedWaitMax}
}

// Background work nobody waits for can fall behind the answers: on a
// core that the answers keep busy (a closed loop of players), each
// background request waits its turn behind the interactions, and the
// deletes of replaced boards, one per /ttt move, once fell behind by
// tens of thousands, holding memory and timing out. So an interaction,
// once answered, waits while more than owedHigh background requests are
// owed, until owedLow are (or owedWait, or Close): the players' next
// interactions then come only as fast as the background work keeps up,
// and the CPU of an interaction includes its deletes. The wait is
// bounded (a Discord that is slow, not a busy core, keeps the work
// owed), and so is the number of interactions waiting (owedWaiters): the
// answers of the others are not held up, and the work owed is bounded
// elsewhere (maxDeletesOwed).
const (
	owedHigh    = 256
	owedLow     = owedHigh / 2
	owedWaitMax = 500 * time.Millisecond
	owedWaiters = 256
)

// editWithin bounds background edits (timers, stale boards).
const editWithin = 10 * time.Second

// admit counts an interaction about to be answered, unless close has
// begun; the caller calls release once it is answered.
func (r *runner) admit() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.handlers.Add(1)
	return true
}

// release marks an admitted interaction answered.
func (r *runner) release() { r.handlers.Done() }

// releaseAnswered marks an admitted interaction answered, once the
// background work owed has caught up (see owedHigh), within r.owedWait.
// Its caller holds nothing, and its answer has gone out.
func (r *runner) releaseAnswered() {
	defer r.handlers.Done()
	r.owed.waitBelow(owedHigh, r.owedWait)
}

// close refuses new interactions and timer callbacks and waits for the
// interactions in flight.
func (r *runner) close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.owed.stopWaits()
	r.handlers.Wait()
}

// drain waits for the background work queued or running; once it is
// done, nothing runs any more.
func (r *runner) drain() {
	r.bg.Wait()
	r.mu.Lock()
	r.finished = true
	r.mu.Unlock()
}

// queue runs f on one of the edit workers, which Close waits for.
// While Close drains, work started by what is draining still runs (an
// edit after a timeout); once Close is done, nothing does. f's ctx ends
// editWithin after f started, not after it was queued: work that waited
// its turn behind a busy Discord (429s, slow answers) still has its time,
// and is not cancelled in the middle of a request.
func (r *runner) queue(f func(ctx context.Context)) {
	r.spawn(func() {
		ctx, cancel := context.WithTimeout(context.Background(), editWithin)
		defer cancel()
		f(ctx)
	}, &r.finished, &r.edits)
}

// queueDelete runs f as queue does, on one of the delete workers, and
// says whether it will (not once Close is done).
func (r *runner) queueDelete(f func(ctx context.Context)) bool {
	return r.spawn(func() {
		ctx, cancel := context.WithTimeout(context.Background(), editWithin)
		defer cancel()
		f(ctx)
	}, &r.finished, &r.deletes)
}

// afterFunc runs f after d on one of the timer workers, unless Close has
// begun by then; Close waits for f once it is queued.
func (r *runner) afterFunc(d time.Duration, f func()) *time.Timer {
	return time.AfterFunc(d, func() { r.spawn(f, &r.closed, &r.timers) })
}

// spawn runs f on p, counted in bg, unless *refused (read under mu) is
// set; it says whether f will run.
func (r *runner) spawn(f func(), refused *bool, p *pool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if *refused {
		return false
	}
	r.bg.Add(1)
	r.owed.add(1)
	p.run(func() {
		defer r.bg.Done()
		defer r.owed.add(-1)
		f()
	})
	return true
}

// inFlight counts work queued or running. Unlike a sync.WaitGroup, work
// may be added while someone waits, even when none is left (a timer that
// fires just then): Wait returns once the count is zero. The zero value is
// ready to use.
type inFlight struct {
	mu   sync.Mutex
	n    int
	idle *sync.Cond // signalled when n drops to zero; made on first use
}

// Add adds d, which may be negative, to the count.
func (w *inFlight) Add(d int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += d
	if w.n < 0 {
		panic("bot: negative count of work in flight")
	}
	if w.n == 0 && w.idle != nil {
		w.idle.Broadcast()
	}
}

// Done takes one off the count.
func (w *inFlight) Done() { w.Add(-1) }

// Wait returns once the count is zero.
func (w *inFlight) Wait() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.idle == nil {
		w.idle = sync.NewCond(&w.mu)
	}
	for w.n > 0 {
		w.idle.Wait()
	}
}

// A backlog counts work owed, and lets callers wait for it to shrink.
// The zero value is ready to use; it is safe for concurrent use.
type backlog struct {
	mu      sync.Mutex
	n       int
	waiters int
	stopped bool          // no more waits (the runner is closing)
	room    chan struct{} // closed once n is owedLow or less; nil while nobody waits
}

// add adds d, which may be negative, to what is owed.
func (b *backlog) add(d int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n += d
	if b.room != nil && b.n <= owedLow {
		close(b.room)
		b.room = nil
	}
}

// owed returns what is owed now.
func (b *backlog) owed() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

// waitBelow waits, if more than high is owed, until owedLow is, for at
// most max; not if owedWaiters wait already, nor once stopWaits was
// called.
func (b *backlog) waitBelow(high int, max time.Duration) {
	b.mu.Lock()
	if b.n <= high || b.stopped || b.waiters >= owedWaiters || max <= 0 {
		b.mu.Unlock()
		return
	}
	if b.room == nil {
		b.room = make(chan struct{})
	}
	room := b.room
	b.waiters++
	b.mu.Unlock()
	t := time.NewTimer(max)
	select {
	case <-room:
	case <-t.C:
	}
	t.Stop()
	b.mu.Lock()
	b.waiters--
	b.mu.Unlock()
}

// stopWaits ends the waits under way, and makes no more.
func (b *backlog) stopWaits() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopped = true
	if b.room != nil {
		close(b.room)
		b.room = nil
	}
}
