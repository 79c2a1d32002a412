package store

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tttbot/tttbot/game"
)

// database is what the migration tests need to look into a store.
type database struct {
	open  func() (storeUnderTest, error)
	exec  func(t *testing.T, s storeUnderTest, query string)
	query func(t *testing.T, s storeUnderTest, query string) [][2]int64 // rows of two integers
}

func TestMigrationsSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tttbot.db")
	testMigrations(t, "sqlite", database{
		open: func() (storeUnderTest, error) { return OpenSQLite(path) },
		exec: func(t *testing.T, s storeUnderTest, q string) {
			if _, err := s.(*SQLite).writer.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		},
		query: func(t *testing.T, s storeUnderTest, q string) (out [][2]int64) {
			rs, err := s.(*SQLite).reader.Query(q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			defer rs.Close()
			return scanPairs(t, rs)
		},
	})
}

func TestMigrationsPostgres(t *testing.T) {
	url := postgresSchema(t)
	testMigrations(t, "postgres", database{
		open: func() (storeUnderTest, error) { return OpenPostgres(context.Background(), url) },
		exec: func(t *testing.T, s storeUnderTest, q string) {
			if _, err := s.(*Postgres).pool.Exec(context.Background(), q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		},
		query: func(t *testing.T, s storeUnderTest, q string) (out [][2]int64) {
			rs, err := s.(*Postgres).pool.Query(context.Background(), q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			defer rs.Close()
			return scanPairs(t, rs)
		},
	})
}

func testMigrations(t *testing.T, dialect string, db database) {
	all, err := migrations(dialect)
	if err != nil || len(all) == 0 {
		t.Fatalf("migrations(%s) = %d, %v", dialect, len(all), err)
	}

	// Four processes start at once on a fresh database.
	const starters = 4
	var (
		wg     sync.WaitGroup
		start  = make(chan struct{})
		stores = make([]storeUnderTest, starters)
		errs   = make([]error, starters)
	)
	for i := range starters {
		wg.Go(func() {
			<-start
			stores[i], errs[i] = db.open()
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d of %d at once = %v", i+1, starters, err)
		}
	}
	// All of them work on the one schema.
	for i, s := range stores {
		g := newGame(string(rune('a'+i)), "guild", string(rune('a'+i)), "alice", "bob")
		mustSave(t, s, g)
	}
	applied := db.query(t, stores[0], `SELECT version, applied_at FROM schema_migrations ORDER BY version`)
	if len(applied) != len(all) {
		t.Fatalf("schema_migrations has %d rows; want %d, applied once", len(applied), len(all))
	}
	for i, s := range stores {
		if gs, err := s.Running(context.Background()); err != nil || len(gs) != starters {
			t.Errorf("store %d: Running() = %d games, %v; want %d", i, len(gs), err, starters)
		}
		s.Close()
	}

	// Reopening applies nothing.
	s, err := db.open()
	if err != nil {
		t.Fatalf("reopen = %v", err)
	}
	if again := db.query(t, s, `SELECT version, applied_at FROM schema_migrations ORDER BY version`); !slices.Equal(again, applied) {
		t.Errorf("after reopening, schema_migrations = %v; want %v", again, applied)
	}

	// A newer tttbot migrated the database: this one refuses it.
	db.exec(t, s, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future.sql', 0)`)
	s.Close()
	s, err = db.open()
	if err == nil {
		s.Close()
		t.Fatal("open of a database at schema version 9999 succeeded; want ErrTooNew")
	}
	if !errors.Is(err, ErrTooNew) {
		t.Fatalf("open of a database at schema version 9999 = %v; want ErrTooNew", err)
	}
	if want := "database schema version 9999 is newer than this tttbot"; !strings.Contains(err.Error(), want) {
		t.Errorf("error = %q; want it to say %q", err, want)
	}
}

// A SQLite store keeps what it saved across a restart.
func TestSQLiteReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tttbot.db")
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	g := newGame("g1", "guild", "chan", "alice", "bob")
	mustSave(t, s, g)
	mustSave(t, s, end(play(g, xWins...), game.EndWon, game.None, 1))
	run := play(newGame("g2", "guild", "chan2", "carol", "dave"), [2]int{1, 1})
	mustSave(t, s, run)
	wantStats := mustStats(t, s, "guild", "alice", 1)
	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}

	s2 := openSQLite(t, path)
	sameGame(t, "Game(g1) after reopening", mustGame(t, s2, "g1"), stored(g, 2))
	sameGame(t, "Current(chan2) after reopening", mustCurrent(t, s2, "chan2"), stored(run, 1))
	if got := mustStats(t, s2, "guild", "alice", 1); got != wantStats {
		t.Errorf("Stats(alice) after reopening = %+v; want %+v", got, wantStats)
	}
}

// scanPairs reads rows of two integers, from database/sql or pgx.
func scanPairs(t *testing.T, rs interface {
	Next() bool
	Scan(...any) error
}) (out [][2]int64) {
	t.Helper()
	for rs.Next() {
		var r [2]int64
		if err := rs.Scan(&r[0], &r[1]); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}
