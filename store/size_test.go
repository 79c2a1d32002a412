package store

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/tttbot/tttbot/store/storetest"
)

var sizeGames = flag.Int("store.size", 0, "TestSizePerGame: measure the bytes per game of databases of this many finished games")

// TestSizePerGame measures what a finished game costs on disk, table by
// table with its indexes, on both stores: with the interaction tokens of
// before (kept forever), and once they are forgotten (and the space
// reclaimed: VACUUM). Measured on 100k games of 7 moves (3×3), a 180-byte
// token each:
//
//	sqlite:   731 bytes per game with tokens, 517 without (games 195, moves 200, players 115)
//	postgres: 1576 with tokens, 1376 without (games 314, moves 699, players 349)
//
// Moves packed into the game's row (about 10 bytes a move) would save
// about 130 bytes a game on SQLite and 630 on PostgreSQL.
//
//	go test ./store/ -run TestSizePerGame -store.size 100000 -v
func TestSizePerGame(t *testing.T) {
	if *sizeGames == 0 {
		t.Skip("set -store.size (e.g. 100000) to measure the bytes per game")
	}
	n := *sizeGames
	stores := []bigDB{{"sqlite", openSQLite(t, t.TempDir()+"/tttbot.db")}}
	if os.Getenv(storetest.PostgresEnv) != "" {
		stores = append(stores, bigDB{"postgres", openPostgres(t, postgresSchema(t))})
	} else {
		t.Logf("PostgreSQL skipped: set %s to measure it too", storetest.PostgresEnv)
	}
	ctx := context.Background()
	for _, db := range stores {
		for _, q := range fillSQL(db.s.dialect()) {
			args := make([]any, strings.Count(q, "?"))
			for i := range args {
				args[i] = n
			}
			if err := db.s.rawExec(ctx, q, args...); err != nil {
				t.Fatal(err)
			}
		}
		vacuum := `VACUUM`
		if db.s.dialect() == "postgres" {
			vacuum = `VACUUM FULL`
		}
		for _, step := range []struct{ name, sql string }{
			{"with tokens", vacuum},
			{"tokens forgotten", `UPDATE games SET board_token = ''`},
		} {
			if err := db.s.rawExec(ctx, step.sql); err != nil {
				t.Fatal(err)
			}
			if step.sql != vacuum {
				if err := db.s.rawExec(ctx, vacuum); err != nil {
					t.Fatal(err)
				}
			}
			sizes := tableSizes(t, db)
			var names []string
			total := int64(0)
			for k, v := range sizes {
				names = append(names, k)
				total += v
			}
			sort.Strings(names)
			var b strings.Builder
			for _, k := range names {
				if sizes[k] >= 1<<16 {
					fmt.Fprintf(&b, " %s %d,", k, sizes[k]/int64(n))
				}
			}
			t.Logf("%s, %s: %d bytes per game:%s", db.name, step.name, total/int64(n), strings.TrimSuffix(b.String(), ","))
		}
	}
}

// tableSizes returns the bytes each table takes on disk, its indexes
// included.
func tableSizes(t *testing.T, db bigDB) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	switch s := db.s.(type) {
	case *SQLite:
		rs, err := s.writer.Query(`SELECT m.tbl_name, sum(d.pgsize) FROM dbstat d JOIN sqlite_schema m ON m.name = d.name GROUP BY m.tbl_name`)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		for rs.Next() {
			var name string
			var n int64
			if err := rs.Scan(&name, &n); err != nil {
				t.Fatal(err)
			}
			out[name] = n
		}
	case *Postgres:
		rs, err := s.pool.Query(context.Background(), `SELECT relname::text, pg_total_relation_size(oid) FROM pg_class
			WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r'`)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		for rs.Next() {
			var name string
			var n int64
			if err := rs.Scan(&name, &n); err != nil {
				t.Fatal(err)
			}
			out[name] = n
		}
	}
	return out
}
