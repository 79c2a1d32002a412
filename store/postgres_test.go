package store

import (
	"context"
	"os"
	"testing"

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
