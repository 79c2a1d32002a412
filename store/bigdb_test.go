package store

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store/storetest"
)

// Databases of many finished games, for the benchmarks and the query-plan
// tests: what a bot that has run for a year holds.
//
//	go test ./store/ -run '^$' -bench BigDB -store.games 1000000 -store.keep /var/tmp/tttbig
//
// fills (once, then reuses) a SQLite file and a PostgreSQL schema of a
// million games; without -store.games the BigDB benchmarks skip.
var (
	bigGames = flag.Int("store.games", 0, "BigDB benchmarks: finished games in the database (e.g. 10000, 1000000); 0 skips them")
	bigKeep  = flag.String("store.keep", "", "BigDB benchmarks: directory where the SQLite file is kept, and reused, between runs (the PostgreSQL schema is kept too)")
)

// The shape of a big database: games are spread over bigGuilds guilds,
// skewed (the cube of a uniform number: a tenth of the games fall in the
// first guild); each guild has up to bigUsers players and bigChannels
// channels. Each finished game is a 3×3 game of bigMoves moves.
const (
	bigGuilds   = 1000
	bigUsers    = 1000
	bigChannels = 10
	bigMoves    = 7
	bigRunning  = 100 // running games besides the finished ones, in channels of their own
)

// bigToken is as long as a Discord interaction token.
var bigToken = strings.Repeat("aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDEyMzQ1Njc4OTp0b2tlbg", 4)[:180]

// fillSQL generates n finished games and bigRunning running ones, their
// moves, channels and players, in the dialect's SQL; the one parameter of
// each statement is n. Guild, channel and players of game i come from
// hashes of i; the players table gets one row per player with a rating
// and a record drawn from hashes too.
func fillSQL(dialect string) []string {
	// seq is a table of integers 0 … n-1 named s(i); mod, float as the
	// dialect spells them.
	seq, float := `(WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?) SELECT i FROM s) AS s`, `CAST(%s AS REAL)`
	str, cat := "printf('%%s%%d', %s, %s)", `printf('%%s%%08d', %s, %s)`
	if dialect == "postgres" {
		seq, float = `(SELECT i FROM generate_series(0::bigint, ?::bigint - 1) AS i) AS s`, `(%s)::double precision`
		str, cat = `%s || (%s)::text`, `%s || lpad((%s)::text, 8, '0')`
	}
	h1 := `((s.i * 2654435761) % 1000003)`
	frac := fmt.Sprintf(float, h1) + ` / 1000003.0`
	guild := fmt.Sprintf(`CAST(%d * (%s) * (%s) * (%s) AS INTEGER)`, bigGuilds, frac, frac, frac)
	if dialect == "postgres" {
		guild = fmt.Sprintf(`floor(%d * (%s) * (%s) * (%s))::bigint`, bigGuilds, frac, frac, frac)
	}
	user := func(salt int) string {
		return fmt.Sprintf(`((s.i * %d + %d) %% 999983) %% %d`, 40503+salt, salt, bigUsers)
	}
	base := int64(1_700_000_000_000_000) // microseconds: November 2023
	games := fmt.Sprintf(`INSERT INTO games (id, guild_id, channel_id, player_x, player_o, computer, level, size, win, first,
		ending, loser, stopped_by, started_at, ended_at, deadline, serial, board_app, board_token, board_at, version)
		SELECT %s, %s, %s, %s, %s, 0, 0, 3, 3, 1, %d, 0, '', %d + s.i * 1000000, %d + s.i * 1000000 + 60000000, NULL, 1, 'app', '%s', %d + s.i * 1000000 + 60000000, 2
		FROM %s`,
		fmt.Sprintf(cat, `'g'`, `s.i`), fmt.Sprintf(str, `'guild'`, guild), fmt.Sprintf(str, `'chan'`, guild+` * 100 + (s.i % `+fmt.Sprint(bigChannels)+`)`),
		fmt.Sprintf(str, `'u'`, user(1)), fmt.Sprintf(str, `'v'`, user(2)),
		int(game.EndWon), base, base, bigToken, base, seq)
	// Half the running games have their turn's reminder to come.
	running := fmt.Sprintf(`INSERT INTO games (id, guild_id, channel_id, player_x, player_o, computer, level, size, win, first,
		ending, loser, stopped_by, started_at, ended_at, deadline, serial, board_app, board_token, board_at, remind_at, version)
		SELECT %s, 'guild0', %s, 'u1', 'v1', 0, 0, 3, 3, 1, 0, 0, '', %d, NULL, %d, 1, 'app', '%s', %d,
			CASE WHEN s.i %% 2 = 0 THEN %d END, 2
		FROM (SELECT s.i AS i FROM %s WHERE s.i < %d) AS s`,
		fmt.Sprintf(cat, `'r'`, `s.i`), fmt.Sprintf(str, `'run'`, `s.i`), base, base+3_600_000_000, bigToken, base, base+1_800_000_000, seq, bigRunning)
	moves := fmt.Sprintf(`INSERT INTO moves (game_id, seq, row, col, player, at)
		SELECT g.id, m.i, m.i / 3, m.i %% 3, 1 + m.i %% 2, g.started_at + m.i * 1000000
		FROM games g, (%s) AS m
		WHERE g.ending <> 0 OR m.i < 3`, smallSeq(bigMoves))
	channels := `INSERT INTO channels (channel_id, game_id) SELECT channel_id, max(id) FROM games GROUP BY channel_id`
	// Each player's record: most players are rated, a third played the
	// computer too.
	players := fmt.Sprintf(`INSERT INTO players (guild_id, user_id, people_games, people_wins, people_losses, people_draws,
		streak, best_streak, rating, rd, vol, rated, computer_games, computer_wins, computer_losses, computer_draws)
		SELECT guild_id, user_id, n, n / 2, n - n / 2, 0, 0, 1, 1000 + (h %% 1000), 100, 0.06, n,
			CASE WHEN h %% 3 = 0 THEN h %% 20 ELSE 0 END, CASE WHEN h %% 3 = 0 THEN h %% 7 ELSE 0 END, CASE WHEN h %% 3 = 0 THEN h %% 13 - h %% 7 ELSE 0 END, 0
		FROM (SELECT guild_id, user_id, count(*) AS n, %s AS h FROM (
			SELECT guild_id, player_x AS user_id FROM games WHERE ending <> 0 UNION ALL SELECT guild_id, player_o FROM games WHERE ending <> 0) AS p
			GROUP BY guild_id, user_id) AS q`, hashOfUser(dialect))
	return []string{games, running, moves, channels, players}
}

// smallSeq is a table of the integers 0 … n-1, named i, written out: a
// series of the size of the games, filtered, would be read again for
// every game.
func smallSeq(n int) string {
	parts := make([]string, n)
	for i := range n {
		parts[i] = fmt.Sprintf("SELECT %d AS i", i)
	}
	return strings.Join(parts, " UNION ALL ")
}

// hashOfUser is a number from a player's guild and user id, for records
// that differ from player to player.
func hashOfUser(dialect string) string {
	if dialect == "postgres" {
		return `abs(hashtext(guild_id || user_id))`
	}
	return `abs(length(guild_id) * 7919 + CAST(substr(user_id, 2) AS INTEGER) * 104729 + CAST(substr(guild_id, 6) AS INTEGER) * 31)`
}

// bigDB is a store holding n finished games (see fillSQL), and the name
// it goes by in benchmarks.
type bigDB struct {
	name string
	s    interface {
		storeUnderTest
		dialect() string
		rawExec(ctx context.Context, query string, args ...any) error
	}
}

func (s *SQLite) dialect() string   { return "sqlite" }
func (p *Postgres) dialect() string { return "postgres" }

func (s *SQLite) rawExec(ctx context.Context, query string, args ...any) error {
	_, err := s.writer.ExecContext(ctx, query, args...)
	return err
}

func (p *Postgres) rawExec(ctx context.Context, query string, args ...any) error {
	_, err := p.pool.Exec(ctx, rebind(query), args...)
	return err
}

// fill fills an empty store with n finished games, and analyzes it so
// that the query planner knows its size.
func fill(tb testing.TB, s bigDB, n int) {
	tb.Helper()
	ctx := context.Background()
	start := time.Now()
	for _, q := range fillSQL(s.s.dialect()) {
		var args []any
		for range strings.Count(q, "?") {
			args = append(args, n)
		}
		if err := s.s.rawExec(ctx, q, args...); err != nil {
			tb.Fatalf("fill %s with %d games: %v\n%s", s.name, n, err, q)
		}
	}
	for _, q := range afterFill(s.s.dialect()) {
		if err := s.s.rawExec(ctx, q); err != nil {
			tb.Fatalf("fill %s with %d games: %v\n%s", s.name, n, err, q)
		}
	}
	tb.Logf("filled %s with %d finished games in %v", s.name, n, time.Since(start).Round(time.Millisecond))
}

// afterFill brings what the store keeps about its rows up to date after
// fill wrote them directly, and updates the planner's statistics.
func afterFill(dialect string) []string {
	return []string{
		`UPDATE game_count SET n = CASE WHEN shard = 0 THEN (SELECT count(*) FROM games) ELSE 0 END`,
		`UPDATE games SET board_token = ''`, // as Due keeps it: tokens of boards drawn 15 minutes ago are forgotten
		`ANALYZE`,
	}
}

// openBig opens the SQLite and PostgreSQL stores of n finished games:
// kept under -store.keep (and reused) when it is set, fresh otherwise.
func openBig(tb testing.TB, n int) []bigDB {
	tb.Helper()
	var out []bigDB
	dir := *bigKeep
	if dir == "" {
		dir = tb.TempDir()
	}
	path := filepath.Join(dir, fmt.Sprintf("sqlite-%d.db", n))
	_, err := os.Stat(path)
	exists := err == nil
	start := time.Now()
	lite := openSQLite(tb, path)
	tb.Logf("opened %s in %v", path, time.Since(start).Round(time.Millisecond))
	db := bigDB{"sqlite", lite}
	if !exists {
		fill(tb, db, n)
	}
	out = append(out, db)

	if os.Getenv(storetest.PostgresEnv) == "" {
		tb.Logf("PostgreSQL skipped: set %s to measure it too", storetest.PostgresEnv)
		return out
	}
	var url string
	fresh := true
	if *bigKeep != "" {
		url, fresh = keptSchema(tb, fmt.Sprintf("tttbig_%d", n))
	} else {
		url = storetest.PostgresURL(tb)
	}
	start = time.Now()
	pg := openPostgres(tb, url)
	tb.Logf("opened the PostgreSQL schema in %v", time.Since(start).Round(time.Millisecond))
	db = bigDB{"postgres", pg}
	if fresh {
		fill(tb, db, n)
	}
	return append(out, db)
}

// keptSchema returns the URL of a schema of that name on the server of
// TTT_TEST_POSTGRES_URL, creating it if needed (fresh reports whether it
// was created); it is not dropped.
func keptSchema(tb testing.TB, schema string) (url string, fresh bool) {
	tb.Helper()
	base := os.Getenv(storetest.PostgresEnv)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, base)
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close(ctx)
	var exists bool
	if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
		tb.Fatal(err)
	}
	if !exists {
		if _, err := c.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
			tb.Fatal(err)
		}
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema, !exists
}

// BenchmarkBigDB measures the queries whose cost could grow with the
// number of games, on databases of -store.games finished games.
func BenchmarkBigDB(b *testing.B) {
	if *bigGames == 0 {
		b.Skip("set -store.games (e.g. 10000 or 1000000) to run the BigDB benchmarks")
	}
	for _, db := range openBig(b, *bigGames) {
		b.Run(db.name, func(b *testing.B) { benchBig(b, db.s) })
	}
}

func benchBig(b *testing.B, s storeUnderTest) {
	ctx := context.Background()
	const guild = "guild0" // the biggest
	board, err := s.Leaderboard(ctx, guild, 1, 0)
	if err != nil || len(board) == 0 {
		b.Fatalf("Leaderboard(%s) = %d players, %v", guild, len(board), err)
	}
	mid := board[len(board)/2]
	b.Logf("%s: %d ranked players; the benchmarks rank %s (rank %d)", guild, len(board), mid.UserID, mid.Rank)
	run := func(name string, f func() error) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	run("Current", func() error { _, err := s.Current(ctx, "chan"+"5"); return err })
	run("Running", func() error {
		gs, err := s.Running(ctx)
		if err == nil && len(gs) < bigRunning {
			err = fmt.Errorf("Running = %d games; want at least %d", len(gs), bigRunning)
		}
		return err
	})
	run("CountGames", func() error {
		n, err := s.CountGames(ctx)
		if err == nil && n < *bigGames+bigRunning {
			err = fmt.Errorf("CountGames = %d; want at least %d", n, *bigGames+bigRunning)
		}
		return err
	})
	run("Rank", func() error {
		st, err := s.Stats(ctx, guild, mid.UserID, 1)
		if err == nil && st.Rank != mid.Rank {
			err = fmt.Errorf("Stats(%s).Rank = %d; want %d", mid.UserID, st.Rank, mid.Rank)
		}
		return err
	})
	run("Leaderboard", func() error { _, err := s.Leaderboard(ctx, guild, 1, 10); return err })
	run("ComputerLeaderboard", func() error { _, err := s.ComputerLeaderboard(ctx, guild, 10); return err })
	run("History", func() error { _, err := s.History(ctx, guild, mid.UserID, 10); return err })
	run("Due", func() error { _, err := s.Due(ctx, time.Now()); return err })
	run("DueReminders", func() error {
		chs, err := s.DueReminders(ctx, time.Now())
		if err == nil && len(chs) != bigRunning/2 {
			err = fmt.Errorf("DueReminders = %d channels; want %d", len(chs), bigRunning/2)
		}
		return err
	})
	// The save that ends a game: a new game (not timed) gets its winning
	// move.
	b.Run("SaveEnd", func(b *testing.B) {
		b.ReportAllocs()
		stamp := time.Now().UnixNano()
		i := 0
		for b.Loop() {
			b.StopTimer()
			i++
			g := play(newGame(fmt.Sprintf("bench-%d-%d", stamp, i), guild, fmt.Sprintf("bench-%d-%d", stamp, i), mid.UserID, board[0].UserID),
				[2]int{0, 0}, [2]int{1, 0}, [2]int{0, 1}, [2]int{1, 1})
			mustSave(b, s, g)
			b.StartTimer()
			play(g, [2]int{0, 2})
			end(g, game.EndWon, game.None, 1)
			if err := s.Save(ctx, g); err != nil {
				b.Fatal(err)
			}
		}
	})
}
