package store

import (
	"context"
	"os"
	"testing"

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
