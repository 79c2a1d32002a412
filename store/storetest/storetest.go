// Package storetest gives tests a real PostgreSQL of their own, in the
// spirit of net/http/httptest: a fresh schema on the server named by
// TTT_TEST_POSTGRES_URL, dropped when the test ends.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// PostgresEnv names the variable that points tests at a PostgreSQL server
// they may create schemas in.
const PostgresEnv = "TTT_TEST_POSTGRES_URL"

// PostgresURL creates a fresh schema on the server of PostgresEnv and
// returns a URL whose connections use it; the schema is dropped at the end
// of the test. Without the variable the test is skipped, with a message
// that says how to run it.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skip("PostgreSQL tests skipped: set " + PostgresEnv + "=postgres://postgres@127.0.0.1:5432/test?sslmode=disable to run them")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s is not a URL", PostgresEnv)
	}
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails
	schema := "tttbot_test_" + hex.EncodeToString(b[:])
	if err := exec(base, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create a schema on %s: %v", PostgresEnv, err)
	}
	t.Cleanup(func() {
		if err := exec(base, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func exec(url, sql string) error {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, sql)
	return err
}
