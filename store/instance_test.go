package store_test

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/store/storetest"
)

// Both stores' locks: an exclusive holder excludes everyone, shared
// holders exclude only exclusive ones, and Close lets go, at once: a
// PostgreSQL lock is taken through a proxy that keeps the server's
// sessions after their clients leave, as a server slow to notice does
// (under load, for a moment), so Close must let the lock go itself.
func TestLocks(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			var take func(name string, shared bool) (*store.Lock, error)
			if kind == "sqlite" {
				path := filepath.Join(t.TempDir(), "tttbot.db")
				take = func(name string, shared bool) (*store.Lock, error) { return store.LockSQLite(path, name, shared) }
			} else {
				u, err := neturl.Parse(storetest.PostgresURL(t))
				if err != nil {
					t.Fatal(err)
				}
				p := storetest.NewProxy(t, u.Host)
				p.HoldSessions(true)
				u.Host = p.Addr
				url := u.String()
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
			if err := ex.Close(); err != nil {
				t.Errorf("Close = %v", err)
			}
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
// name (an advisory lock, on a connection of its application_name), or 0
// if none does.
func lockBackend(t *testing.T, url, name string) int {
	t.Helper()
	var pid int
	err := query(t, url, `SELECT coalesce(max(a.pid), 0) FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid
		WHERE a.application_name = $1 AND l.locktype = 'advisory' AND l.granted`, "tttbot lock "+name).Scan(&pid)
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

// letGo waits until the PostgreSQL backend pid holds no advisory lock:
// a terminated backend sends its error to its client before it exits and
// lets its locks go.
func letGo(t *testing.T, url string, pid int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds a hang; decides nothing
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	for {
		var held bool
		if err := c.QueryRow(ctx, `SELECT count(*) > 0 FROM pg_locks WHERE pid = $1 AND locktype = 'advisory'`, pid).Scan(&held); err != nil {
			t.Fatalf("waiting for the terminated backend %d to let its lock go: %v", pid, err)
		}
		if !held {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the terminated backend %d still holds its lock", pid)
		case <-time.After(10 * time.Millisecond): // polling the backend's exit
		}
	}
}

// A PostgreSQL lock whose backend is terminated (as by a restart, a
// failover, or an idle-connection killer) says so at once, with the
// cause; the server lets it go as the backend exits, a moment later, and
// it can then be taken again.
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
	letGo(t, url, pid)
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
	t.Parallel() // waits out the lock's 5 s ping
	url := storetest.PostgresURL(t)
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	p := storetest.NewProxy(t, u.Host)
	u.Host = p.Addr
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
	p.Freeze(0)
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

// A lock whose connection went silent is lost, but the server keeps the
// session, and the lock, until TCP keepalive ends it (hours): TakeAgain
// ends that old session of its own and takes the lock, on a new
// connection; the lock is then held against others again.
func TestPostgresLockTakenAgainFromSilentSession(t *testing.T) {
	t.Parallel() // waits out the lock's 5 s ping
	url := storetest.PostgresURL(t)
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	p := storetest.NewProxy(t, u.Host)
	u.Host = p.Addr
	name := fmt.Sprintf("test-silent-again-%d", time.Now().UnixNano())
	l, err := store.LockPostgres(context.Background(), u.String(), name, false, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	old := lockBackend(t, url, name)
	p.Freeze(0)
	select {
	case <-l.Lost():
	case <-time.After(30 * time.Second): // bounds a hang
		t.Fatal("the lock's connection went silent, and Lost is still open")
	}
	if pid := lockBackend(t, url, name); pid != old {
		t.Fatalf("after the silence the lock's session is %d; want the old one, %d, still there (the server has not noticed)", pid, old)
	}
	again, err := l.TakeAgain(context.Background(), url)
	if err != nil {
		t.Fatalf("TakeAgain while the old session still holds the lock: %v; want it taken", err)
	}
	defer again.Close()
	if pid := lockBackend(t, url, name); pid == old || pid == 0 {
		t.Errorf("after TakeAgain the lock's session is %d (the old was %d); want a new one", pid, old)
	}
	if other, err := store.LockPostgres(context.Background(), url, name, false, 0); !errors.Is(err, store.ErrLockHeld) {
		other.Close()
		t.Errorf("another holder after TakeAgain: %v; want ErrLockHeld", err)
	}
}

// A lock lost and then taken by another session is not taken from it:
// TakeAgain says ErrLockHeld, and the other session keeps the lock.
func TestPostgresLockTakenAgainHeldByAnother(t *testing.T) {
	url := storetest.PostgresURL(t)
	name := fmt.Sprintf("test-again-other-%d", time.Now().UnixNano())
	l, err := store.LockPostgres(context.Background(), url, name, false, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var ok bool
	if err := query(t, url, "SELECT pg_terminate_backend($1)", lockBackend(t, url, name)).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend = %v, %v", ok, err)
	}
	<-l.Lost() // the server ends the connection: heard at once
	var other *store.Lock
	for other == nil { // the terminated backend lets the lock go a moment after it says so
		other, err = store.LockPostgres(context.Background(), url, name, false, time.Hour)
		if err != nil && !errors.Is(err, store.ErrLockHeld) {
			t.Fatal(err)
		}
	}
	defer other.Close()
	holder := lockBackend(t, url, name)
	again, err := l.TakeAgain(context.Background(), url)
	if !errors.Is(err, store.ErrLockHeld) {
		again.Close()
		t.Fatalf("TakeAgain while another session holds the lock: %v; want ErrLockHeld", err)
	}
	var alive bool
	if err := query(t, url, "SELECT count(*) = 1 FROM pg_stat_activity WHERE pid = $1", holder).Scan(&alive); err != nil || !alive {
		t.Errorf("the other holder's session %d after TakeAgain: alive %v, %v; want it left alone", holder, alive, err)
	}
}
