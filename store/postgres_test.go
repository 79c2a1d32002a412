package store

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/tttbot/tttbot/store/storetest"
)

// postgresSchema is a fresh schema of the PostgreSQL named by
// TTT_TEST_POSTGRES_URL, or a skip that says how to run.
func postgresSchema(t testing.TB) string { return storetest.PostgresURL(t) }

func openPostgres(t testing.TB, url string) *Postgres {
	t.Helper()
	p, err := OpenPostgres(context.Background(), url)
	if err != nil {
		t.Fatalf("OpenPostgres = %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestPostgres(t *testing.T) {
	t.Parallel() // waits on the server, in a schema of its own per test
	if os.Getenv(storetest.PostgresEnv) == "" {
		postgresSchema(t) // skips, saying how to run
	}
	runContract(t, func(t *testing.T) storeUnderTest {
		return openPostgres(t, postgresSchema(t))
	})
}

func TestPostgresTwoProcesses(t *testing.T) {
	url := postgresSchema(t)
	testTwoProcesses(t, openPostgres(t, url), openPostgres(t, url))
}

func TestPostgresChallengeLimitShared(t *testing.T) {
	url := postgresSchema(t)
	testChallengeLimitShared(t, openPostgres(t, url), openPostgres(t, url))
}

// Ping fails when the database cannot be written (here every transaction
// is read-only, as on a standby), so that /readyz says so.
func TestPostgresPingReadOnly(t *testing.T) {
	ctx := context.Background()
	url := postgresSchema(t)
	openPostgres(t, url) // migrates
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ro := newPostgres(pool)
	defer ro.Close()
	if err := ro.Ping(ctx); err == nil {
		t.Error("Ping of a read-only database = nil; want an error")
	}
	if err := openPostgres(t, url).Ping(ctx); err != nil {
		t.Errorf("Ping of a writable database = %v; want nil", err)
	}
}

// expiring is a context whose deadline passes when expire is called.
type expiring struct {
	context.Context
	done chan struct{}
}

func (c *expiring) Done() <-chan struct{} { return c.done }
func (c *expiring) expire()               { close(c.done) }
func (c *expiring) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// The deadline OpenPostgres is given bounds connecting, not migrating: a
// start whose migrations wait for another process's (or take long on a big
// database) opens the store once they are done, instead of failing and
// leaving the next start to begin again.
func TestPostgresMigrationOutlastsConnectDeadline(t *testing.T) {
	url := postgresSchema(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	const app = "tttbot-migration-deadline-test"
	ctx := context.Background()
	other, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	tx, err := other.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
		t.Fatal(err)
	}
	start := &expiring{Context: ctx, done: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		p, err := OpenPostgres(start, url+sep+"application_name="+app)
		if err == nil {
			p.Close()
		}
		done <- err
	}()
	// Wait until the start waits for the lock, then let its deadline pass.
	// (Asked outside other's transaction, which would see pg_stat_activity
	// as it was when the transaction began.)
	watch, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		var waiting int
		if err := watch.QueryRow(wait, `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = $1`, app).Scan(&waiting); err != nil {
			t.Fatalf("waiting for the start to wait for the migration lock: %v", err)
		}
		if waiting > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	start.expire()
	select {
	case err := <-done:
		t.Fatalf("OpenPostgres gave up while waiting for another process's migration, as its deadline passed: %v", err)
	case <-time.After(time.Second):
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("OpenPostgres once the other migration was done = %v; want nil", err)
	}
}
