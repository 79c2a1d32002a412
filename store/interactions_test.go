package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tttbot/tttbot/store/storetest"
)

// interactionStore is what the bot asks of a store about interactions.
type interactionStore interface {
	SeeInteraction(ctx context.Context, id string, at time.Time) (bool, error)
	ForgetInteractions(ctx context.Context, before time.Time, limit int) (int, error)
	SettleInteraction(ctx context.Context, id string, state InteractionState) error
	SettleInteractionLater(id string, state InteractionState, then func(error))
	InteractionState(ctx context.Context, id string) (InteractionState, error)
}

// Each interaction id is first once, however many processes record it at
// once; ForgetInteractions deletes those seen before a time, in batches,
// and no others; an id forgotten is new again.
func TestSeeInteraction(t *testing.T) {
	for _, tt := range []struct {
		name string
		open func(t *testing.T) (interactionStore, interactionStore) // two processes on one database
	}{
		{"memory", func(t *testing.T) (interactionStore, interactionStore) { m := NewMemory(); return m, m }},
		{"sqlite", func(t *testing.T) (interactionStore, interactionStore) {
			path := filepath.Join(t.TempDir(), "t.db")
			a, err := OpenSQLite(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close() })
			b, err := OpenSQLite(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return a, b
		}},
		{"postgres", func(t *testing.T) (interactionStore, interactionStore) {
			url := storetest.PostgresURL(t)
			a, err := OpenPostgres(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close() })
			b, err := OpenPostgres(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return a, b
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			a, b := tt.open(t)
			// 20 ids, each recorded by 4 goroutines on each process.
			var firsts [20]atomic.Int32
			var wg sync.WaitGroup
			for k := range 8 {
				st := a
				if k%2 == 1 {
					st = b
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range firsts {
						first, err := st.SeeInteraction(ctx, fmt.Sprint(1000+i), t0.Add(time.Duration(i)*time.Minute))
						if err != nil {
							t.Error(err)
							return
						}
						if first {
							firsts[i].Add(1)
						}
					}
				}()
			}
			wg.Wait()
			for i := range firsts {
				if n := firsts[i].Load(); n != 1 {
					t.Errorf("interaction %d was first %d times; want once", 1000+i, n)
				}
			}
			// Seen before t0+15m: ids 1000…1014, forgotten 4 at a time.
			var batches []int
			for {
				n, err := b.ForgetInteractions(ctx, t0.Add(15*time.Minute), 4)
				if err != nil {
					t.Fatal(err)
				}
				batches = append(batches, n)
				if n < 4 {
					break
				}
			}
			if fmt.Sprint(batches) != "[4 4 4 3]" {
				t.Errorf("batches forgotten %v; want [4 4 4 3]", batches)
			}
			for i, want := range map[int]bool{1000: true, 1014: true, 1015: false, 1019: false} {
				if first, err := a.SeeInteraction(ctx, fmt.Sprint(i), t0.Add(time.Hour)); err != nil || first != want {
					t.Errorf("SeeInteraction(%d) after forgetting = %v, %v; want %v", i, first, err, want)
				}
			}
			// What became of an action is seen by the other process; an
			// action known not done is forgotten, and its id is new again.
			wantState := func(id string, want InteractionState) {
				t.Helper()
				if got, err := b.InteractionState(ctx, id); err != nil || got != want {
					t.Errorf("InteractionState(%s) = %v, %v; want %v", id, got, err, want)
				}
			}
			wantState("1019", InteractionActing)
			wantState("2000", InteractionNew)
			for id, st := range map[string]InteractionState{"1019": InteractionDone, "1018": InteractionUnknown, "1017": InteractionNew} {
				if err := a.SettleInteraction(ctx, id, st); err != nil {
					t.Fatal(err)
				}
				wantState(id, st)
			}
			if err := a.SettleInteraction(ctx, "1019", InteractionNew); err != nil {
				t.Fatal(err)
			}
			wantState("1019", InteractionDone) // done stays done
			if first, err := b.SeeInteraction(ctx, "1017", t0.Add(time.Hour)); err != nil || !first {
				t.Errorf("SeeInteraction(1017) after an action not done = %v, %v; want first", first, err)
			}
			// Recorded later: once told, the other process reads it.
			for id, st := range map[string]InteractionState{"1016": InteractionDone, "1015": InteractionUnknown} {
				told := make(chan error, 1)
				a.SettleInteractionLater(id, st, func(err error) { told <- err })
				if err := <-told; err != nil {
					t.Fatal(err)
				}
				wantState(id, st)
			}
		})
	}
}

// What SQLite was asked to record later is written before Close returns:
// a store opened again reads it.
func TestSettleInteractionLaterBeforeClose(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	for i := range n {
		if _, err := s.SeeInteraction(ctx, fmt.Sprint(i), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	var failed atomic.Int32
	for i := range n {
		s.SettleInteractionLater(fmt.Sprint(i), InteractionDone, func(err error) {
			if err != nil {
				failed.Add(1)
			}
		})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if f := failed.Load(); f != 0 {
		t.Errorf("%d of %d records made later failed", f, n)
	}
	s, err = OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		if got, err := s.InteractionState(ctx, fmt.Sprint(i)); err != nil || got != InteractionDone {
			t.Fatalf("interaction %d after Close and open = %v, %v; want done", i, got, err)
		}
	}
}
