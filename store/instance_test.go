package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/store/storetest"
)

// Both stores' locks: an exclusive holder excludes everyone, shared
// holders exclude only exclusive ones, and Close lets go.
func TestLocks(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			var take func(name string, shared bool) (*store.Lock, error)
			if kind == "sqlite" {
				path := filepath.Join(t.TempDir(), "tttbot.db")
				take = func(name string, shared bool) (*store.Lock, error) { return store.LockSQLite(path, name, shared) }
			} else {
				url := storetest.PostgresURL(t)
				take = func(name string, shared bool) (*store.Lock, error) { return store.LockPostgres(ctx, url, name, shared) }
			}
			name := fmt.Sprintf("test-%d", time.Now().UnixNano()) // PostgreSQL's locks are per database, not schema
			held := func(what string, shared bool) {
				t.Helper()
				l, err := take(name, shared)
				if !errors.Is(err, store.ErrLockHeld) {
					l.Close()
					t.Errorf("%s: %v; want ErrLockHeld", what, err)
				}
			}
			ex, err := take(name, false)
			if err != nil {
				t.Fatal(err)
			}
			held("exclusive beside exclusive", false)
			held("shared beside exclusive", true)
			if other, err := take(name+"-other", false); err != nil {
				t.Errorf("another name: %v; want it taken", err)
			} else {
				other.Close()
			}
			ex.Close()
			a, err := take(name, true)
			if err != nil {
				t.Fatalf("shared after Close: %v", err)
			}
			defer a.Close()
			b, err := take(name, true)
			if err != nil {
				t.Fatalf("shared beside shared: %v", err)
			}
			defer b.Close()
			held("exclusive beside shared", false)
		})
	}
}
