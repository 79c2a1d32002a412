package bot

import (
	"context"
	"sync"
	"testing"
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
				tb := mustLock(t, &r, ch)
				*counts[ch]++ // guarded by the table lock, and only by it
				tb.unlock()
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

// A channel whose table is held does not hold up another channel.
func TestRegistryChannelsIndependent(t *testing.T) {
	var r registry
	held := mustLock(t, &r, "busy")
	defer held.unlock()
	done := make(chan *table)
	go func() {
		tb, _, err := r.lock(context.Background(), "other")
		if err != nil {
			panic(err)
		}
		tb.unlock()
		done <- tb
	}()
	if tb := <-done; tb == held {
		t.Fatal("two channels share one table")
	}
	mustLock(t, &r, "other").unlock()
}

func mustLock(t testing.TB, r *registry, channelID string) *table {
	t.Helper()
	tb, _, err := r.lock(context.Background(), channelID)
	if err != nil {
		t.Error(err)
	}
	return tb
}
