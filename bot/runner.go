package bot

import "sync"

// How many goroutines background work may use at once. Thousands of
// challenges expiring in the same second once started a goroutine each,
// and one more for each edit of their messages: work beyond these limits
// waits its turn in a queue, which costs a closure, not a goroutine with
// its stack and an HTTP request in flight. Timers and edits have workers
// of their own, so that a slow Discord delays no deadline.
const (
	editWorkers  = 16 // Discord edits and deletes nobody waits for
	timerWorkers = 8  // timer callbacks: a lock, a load, maybe a save
)

// A runner runs functions in the background, in the order given, on at
// most max goroutines at once; the rest wait in a queue, which never
// blocks the caller. Its goroutines exist only while there is work. The
// zero value runs nothing: set max. It is safe for concurrent use.
type runner struct {
	max int

	mu      sync.Mutex
	queue   []func()
	workers int // goroutines running queued work
}

// run queues f, and starts a goroutine for it if fewer than max are at
// work.
func (r *runner) run(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queue = append(r.queue, f)
	if r.workers < r.max {
		r.workers++
		go r.work()
	}
}

// work runs queued functions until the queue is empty.
func (r *runner) work() {
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
