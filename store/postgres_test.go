package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// postgresEnv names the variable that points the tests at a PostgreSQL
// server. Each test gets a schema of its own there, dropped at its end.
const postgresEnv = "TTT_TEST_POSTGRES_URL"

// postgresSchema creates a fresh schema and returns a URL whose
// connections use it.
func postgresSchema(t testing.TB) string {
	t.Helper()
	base := os.Getenv(postgresEnv)
	if base == "" {
		t.Skip("PostgreSQL tests skipped: set " + postgresEnv + "=postgres://postgres@127.0.0.1:5432/test?sslmode=disable to run them")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s is not a URL", postgresEnv)
	}
	var b [8]byte
	rand.Read(b[:])
	schema := "tttbot_test_" + hex.EncodeToString(b[:])
	ctx := context.Background()
	admin, err := pgxpool.New(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", postgresEnv, err)
	}
	defer admin.Close()
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		admin, err := pgxpool.New(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer admin.Close()
		if _, err := admin.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

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
	if os.Getenv(postgresEnv) == "" {
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
