package bot

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// gateDiscord holds every edit until release is closed, counting how many
// are in flight at once.
type gateDiscord struct {
	discardDiscord
	release        chan struct{}
	inflight, most atomic.Int64
	done           atomic.Int64
}

func (d *gateDiscord) InteractionResponseEdit(*discordgo.Interaction, *discordgo.WebhookEdit, ...discordgo.RequestOption) (*discordgo.Message, error) {
	n := d.inflight.Add(1)
	for {
		m := d.most.Load()
		if n <= m || d.most.CompareAndSwap(m, n) {
			break
		}
	}
	<-d.release
	d.inflight.Add(-1)
	d.done.Add(1)
	return &discordgo.Message{}, nil
}

// closeCounter counts the challenges closed.
type closeCounter struct {
	*store.Memory
	closed atomic.Int64
}

func (s *closeCounter) CloseChallenge(ctx context.Context, id string) (bool, error) {
	ok, err := s.Memory.CloseChallenge(ctx, id)
	if ok {
		s.closed.Add(1)
	}
	return ok, err
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// When many challenges expire at once, their timers and the edits of
// their messages run on a bounded number of goroutines: the rest wait in
// a queue, and every message is still edited once Discord answers.
func TestExpiringChallengesUseBoundedGoroutines(t *testing.T) {
	const n = 1000
	ctx := context.Background()
	clk := &clock{t: time.Now()}
	st := &closeCounter{Memory: new(store.Memory)}
	dc := &gateDiscord{release: make(chan struct{})}
	cfg := DefaultConfig()
	cfg.Now = clk.now
	b := New(dc, StoresOf(st), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf(botID)
	released := false
	defer func() {
		if !released {
			close(dc.release)
		}
		b.Close()
	}()

	// Challenges due in 200 ms of real time: their timers are real. One
	// that fires before the test's clock moves finds it not yet expired
	// and waits again.
	for i := range n {
		c := &table.Challenge{ID: newID(), From: mason, Size: 3, Win: 3, Expires: clk.now().Add(200 * time.Millisecond)}
		sc := storedChallenge(c, fixtureGuild, fmt.Sprint("ch", i), store.Board{AppID: "app", Token: fmt.Sprint("tok", i), At: clk.now()}, "")
		if err := st.OpenChallenge(ctx, sc); err != nil {
			t.Fatal(err)
		}
	}
	_, base := settledHeap()
	if err := b.tables.sweepChallenges(ctx, false); err != nil { // arms a timer for each
		t.Fatal(err)
	}
	clk.advance(time.Hour)

	waitFor(t, "every challenge closed", func() bool { return st.closed.Load() == n })
	waitFor(t, "the edit workers busy", func() bool { return dc.inflight.Load() >= min(n, editWorkers) })
	if g := runtime.NumGoroutine(); g > base+editWorkers+timerWorkers+8 {
		t.Errorf("%d challenges expiring at once run on %d goroutines beside the %d before; want at most %d workers and a few",
			n, g-base, base, editWorkers+timerWorkers)
	}
	if most := dc.most.Load(); most > editWorkers {
		t.Errorf("%d edits in flight at once; want at most %d", most, editWorkers)
	}
	close(dc.release)
	released = true
	b.Close()
	if got := dc.done.Load(); got != n {
		t.Errorf("%d challenge messages edited; want all %d", got, n)
	}
}

// Background work that waits in the queue has editWithin from when it
// starts, not from when it was queued: behind a busy Discord it is not
// cancelled before, or in the middle of, its requests.
func TestQueuedEditsKeepTheirDeadline(t *testing.T) {
	b, _, _ := newTestBot(t)
	release := fillEditWorkers(b) // every worker is busy: the next one waits in the queue
	deadline := make(chan time.Time, 1)
	queued := time.Now()
	b.run.queue(func(ctx context.Context) {
		d, _ := ctx.Deadline()
		deadline <- d
	})
	released := time.Now()
	for !released.After(queued) { // the work waits in the queue a while
		released = time.Now()
	}
	release()
	if d := <-deadline; d.Before(released.Add(editWithin)) {
		t.Errorf("queued work has until %v after it was queued; want %v after it started", d.Sub(queued), editWithin)
	}
}

// fillEditWorkers keeps every background edit worker of b busy, so that
// the next work queued waits in the queue, until release is called.
func fillEditWorkers(b *Bot) (release func()) {
	hold := make(chan struct{})
	var busy sync.WaitGroup
	busy.Add(editWorkers)
	for range editWorkers {
		b.run.queue(func(context.Context) {
			busy.Done()
			<-hold
		})
	}
	busy.Wait()
	return func() { close(hold) }
}
