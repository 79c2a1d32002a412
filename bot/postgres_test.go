package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// postgresSchema returns a URL of the PostgreSQL named by
// TTT_TEST_POSTGRES_URL whose connections use a fresh schema, dropped at
// the end of the test; without the variable it skips, saying how to run.
func postgresSchema(t testing.TB) string {
	t.Helper()
	base := os.Getenv("TTT_TEST_POSTGRES_URL")
	if base == "" {
		t.Skip("PostgreSQL skipped: set TTT_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test?sslmode=disable to run it")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal("TTT_TEST_POSTGRES_URL is not a URL")
	}
	var b [8]byte
	rand.Read(b[:])
	schema := "tttbot_bot_" + hex.EncodeToString(b[:])
	ctx := context.Background()
	admin, err := pgxpool.New(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
