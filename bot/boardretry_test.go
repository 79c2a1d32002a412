package bot

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tttbot/tttbot/store"
)

// rateLimited is the error of a request that a rate limit kept from
// Discord for after, as the REST layer returns it to a caller that does
// not wait limits out.
type rateLimited struct{ after time.Duration }

func (e rateLimited) Error() string             { return "rate limited for " + e.after.String() }
func (e rateLimited) RetryAfter() time.Duration { return e.after }
func (rateLimited) NotSent() bool               { return true }

// A timed-out board whose edit fails for a while (rate limits, or an
// answer slower than the time the edit has under the channel's lock) is
// edited again after the limit or a pause, and ends showing the timeout:
// nobody else would ever update it.
func TestTimedOutBoardEditTriedAgain(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fails int32
		fail  func(ctx context.Context) error
	}{
		{"rate limited", 3, func(context.Context) error { return rateLimited{10 * time.Millisecond} }},
		{"slow answer", 1, func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := new(store.Memory)
			if err := st.Save(context.Background(), runningRecord(t, "c1", time.Now().Add(-time.Millisecond))); err != nil {
				t.Fatal(err)
			}
			rec := &recorder{edited: make(chan struct{}, 16)}
			var tries atomic.Int32
			rec.editFail = func(ctx context.Context) error {
				if tries.Add(1) <= tc.fails {
					return tc.fail(ctx)
				}
				return nil
			}
			b := newBotOn(t, st, rec)
			b.tables.expireTurn("c1")
			select {
			case <-rec.edited:
			case <-time.After(time.Minute):
				t.Errorf("no edit of the board after %d failed tries; want it tried again until it goes through", tries.Load())
			}
			b.Close()
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if len(rec.edits) != 1 || !strings.Contains(*rec.edits[0].Content, "did not move in time") {
				t.Errorf("%d edits of the board; want one, showing the timeout", len(rec.edits))
			}
			if n := tries.Load(); n != tc.fails+1 {
				t.Errorf("%d tries of the edit; want %d", n, tc.fails+1)
			}
		})
	}
}
