package store_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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
				take = func(name string, shared bool) (*store.Lock, error) {
					return store.LockPostgres(ctx, url, name, shared, 0)
				}
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

// A symbolic link or a hard link to the database is the same database:
// a lock taken through one path is held through the others.
func TestSQLiteLockFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tttbot.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	symlink := filepath.Join(other, "via-symlink.db")
	if err := os.Symlink(path, symlink); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	hardlink := filepath.Join(dir, "via-hardlink.db")
	if err := os.Link(path, hardlink); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	for _, first := range []string{path, symlink, hardlink} {
		l, err := store.LockSQLite(first, "gateway", false)
		if err != nil {
			t.Fatalf("LockSQLite(%s) = %v", first, err)
		}
		for _, second := range []string{path, symlink, hardlink} {
			if l2, err := store.LockSQLite(second, "gateway", false); !errors.Is(err, store.ErrLockHeld) {
				l2.Close()
				t.Errorf("locked through %s, then LockSQLite(%s) = %v; want ErrLockHeld", filepath.Base(first), filepath.Base(second), err)
			}
		}
		l.Close()
	}
}

// lockBackend is the pid of the PostgreSQL backend that holds the lock
// name (its connection's application_name), or 0 if none does.
func lockBackend(t *testing.T, url, name string) int {
	t.Helper()
	var pid int
	err := query(t, url, "SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE application_name = $1", "tttbot lock "+name).Scan(&pid)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// query runs one query on a connection of its own to url.
func query(t *testing.T, url, sql string, args ...any) pgx.Row {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c.QueryRow(ctx, sql, args...)
}

// A PostgreSQL lock whose backend is terminated (as by a restart, a
// failover, or an idle-connection killer) says so at once, with the
// cause; the server has let it go, so it can be taken again.
func TestPostgresLockLost(t *testing.T) {
	url := storetest.PostgresURL(t)
	name := fmt.Sprintf("test-lost-%d", time.Now().UnixNano())
	l, err := store.LockPostgres(context.Background(), url, name, false, time.Hour) // no ping: the end of the connection is heard
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Cause() != nil {
		t.Errorf("Cause of a held lock = %v; want nil", l.Cause())
	}
	pid := lockBackend(t, url, name)
	if pid == 0 {
		t.Fatal("no backend has the lock's application_name")
	}
	var ok bool
	if err := query(t, url, "SELECT pg_terminate_backend($1)", pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend(%d) = %v, %v", pid, ok, err)
	}
	select {
	case <-l.Lost():
	case <-time.After(30 * time.Second): // bounds a hang; decides nothing
		t.Fatal("the lock's backend was terminated, and Lost is still open")
	}
	if l.Cause() == nil || !strings.Contains(l.Cause().Error(), name) {
		t.Errorf("Cause = %v; want an error naming the lock", l.Cause())
	}
	again, err := store.LockPostgres(context.Background(), url, name, false, 0)
	if err != nil {
		t.Fatalf("taking the lost lock again: %v", err)
	}
	again.Close()
}

// A lock whose connection goes silent (the network drops everything, the
// server hangs) is lost once a ping goes unanswered; Close ends the watch
// of a lock that is not lost.
func TestPostgresLockSilent(t *testing.T) {
	url := storetest.PostgresURL(t)
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	p := newFreezer(t, u.Host)
	u.Host = p.addr
	name := fmt.Sprintf("test-silent-%d", time.Now().UnixNano())
	l, err := store.LockPostgres(context.Background(), u.String(), name, false, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	quiet, err := store.LockPostgres(context.Background(), url, name+"-quiet", false, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	p.freeze()
	select {
	case <-l.Lost():
	case <-time.After(30 * time.Second):
		t.Fatal("the lock's connection went silent, and Lost is still open")
	}
	select {
	case <-quiet.Lost():
		t.Errorf("a lock whose connection answers was lost: %v", quiet.Cause())
	default:
	}
	if err := quiet.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

// freezer is a TCP proxy that forwards until freeze, then drops every
// byte in both directions without closing anything.
type freezer struct {
	addr   string
	frozen atomic.Bool
}

func newFreezer(t *testing.T, target string) *freezer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &freezer{addr: ln.Addr().String()}
	var conns sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	closed := false
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		closed = true
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		conns.Wait()
	})
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 && !p.frozen.Load() {
				if _, err := dst.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	conns.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			if closed {
				c.Close()
				s.Close()
			}
			open = append(open, c, s)
			mu.Unlock()
			conns.Go(func() { pipe(s, c) })
			conns.Go(func() { pipe(c, s) })
		}
	})
	return p
}

func (p *freezer) freeze() { p.frozen.Store(true) }
