package bot

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// thinkSlots is how many moves the computer thinks about at once: the
// cores but one, which is left to everyone else (bystanders' answers,
// boards, pictures), and at least one.
func thinkSlots() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// thinking admits the computer's moves: a player's pace (moveBurst,
// moveEvery) and a slot among thinkSlots. The zero value is not ready:
// use newThinking. Safe for concurrent use.
type thinking struct {
	slots chan struct{} // a token held by each move the computer thinks about
	wait  time.Duration // the longest a move waits for a slot

	mu    sync.Mutex
	moves pace // each user's moves against the computer
}

func newThinking(slots int) *thinking {
	return &thinking{slots: make(chan struct{}, slots), wait: thinkWait, moves: pace{burst: moveBurst, every: moveEvery}}
}

// pace lets a move by user against the computer at now through, or
// refuses it in words. undo takes it back, for a move that was not made.
func (t *thinking) pace(user string, now time.Time) (undo func(), err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	next, retry, ok := t.moves.check(user, now)
	if !ok {
		return nil, refuse("move.too_fast", map[string]any{"At": retry.Unix()})
	}
	t.moves.take(user, next, now)
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.moves.undo(user)
	}, nil
}

// slot waits for the computer to have time for one more move: at most
// t.wait, and never so long that less than thinkReserve is left of ctx.
// It refuses with the text busy when none came (what was not done for
// want of the computer's time: a move, a rematch); release gives the
// slot back.
func (t *thinking) slot(ctx context.Context, busy string) (release func(), err error) {
	select {
	case t.slots <- struct{}{}:
		return func() { <-t.slots }, nil
	default:
	}
	wait := t.wait
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)-thinkReserve)
	}
	if wait > 0 {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case t.slots <- struct{}{}:
			return func() { <-t.slots }, nil
		case <-timer.C:
		case <-ctx.Done():
		}
	}
	return nil, refuse(busy, nil)
}
