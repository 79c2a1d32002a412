package bot

import (
	"context"
	"fmt"
	"time"

	"sync"
	"testing"

	"github.com/tttbot/tttbot/table"
)

// Many goroutines changing one channel's table never lose an update: the
// table lock serialises them (run with -race).
func TestRegistrySerialisesAChannel(t *testing.T) {
	var r registry
	const workers, each = 8, 200
	counts := map[string]*int{"a": new(int), "b": new(int)} // the map itself is only read
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			ch := []string{"a", "b"}[w%2]
			for i := 0; i < each; i++ {
				c := mustLock(t, &r, ch)
				*counts[ch]++ // guarded by the channel lock, and only by it
				r.unlock(c)
			}
		}(w)
	}
	wg.Wait()
	for _, ch := range []string{"a", "b"} {
		if got, want := *counts[ch], workers/2*each; got != want {
			t.Errorf("count[%s] = %d; want %d", ch, got, want)
		}
	}
}

// A channel that is held does not hold up another channel.
func TestRegistryChannelsIndependent(t *testing.T) {
	var r registry
	held := mustLock(t, &r, "busy")
	defer r.unlock(held)
	done := make(chan *channel)
	go func() {
		c, err := r.lock(context.Background(), "other")
		if err != nil {
			panic(err)
		}
		r.unlock(c)
		done <- c
	}()
	if c := <-done; c == held {
		t.Fatal("two channels share one entry")
	}
	r.unlock(mustLock(t, &r, "other"))
}

// A channel is forgotten once nothing holds, awaits or needs it, and kept
// while it has an open challenge or a turn timer.
func TestRegistryForgetsIdleChannels(t *testing.T) {
	var r registry
	for i := range 100 {
		r.unlock(mustLock(t, &r, fmt.Sprint("c", i)))
	}
	if n := r.len(); n != 0 {
		t.Fatalf("after 100 idle channels the registry holds %d; want 0", n)
	}
	c := mustLock(t, &r, "challenged")
	c.challenge = &openChallenge{Challenge: &table.Challenge{ID: "x"}, timer: time.NewTimer(time.Hour)}
	r.unlock(c)
	c2 := mustLock(t, &r, "timed")
	c2.turnTimer = time.NewTimer(time.Hour)
	r.unlock(c2)
	if n := r.len(); n != 2 {
		t.Fatalf("registry holds %d channels; want the 2 with a challenge or a timer", n)
	}
	c = mustLock(t, &r, "challenged")
	c.clearChallenge()
	r.unlock(c)
	c2 = mustLock(t, &r, "timed")
	c2.stopTurnTimer()
	r.unlock(c2)
	if n := r.len(); n != 0 {
		t.Fatalf("registry holds %d channels after they went idle; want 0", n)
	}
}

func mustLock(t testing.TB, r *registry, channelID string) *channel {
	t.Helper()
	c, err := r.lock(context.Background(), channelID)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
