package store

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tttbot/tttbot/game"
)

// The query-plan tests: on a database of planGames finished games, each
// query the bot runs often must find its rows through an index, never by
// reading a whole big table (games, moves, channels, players), and a
// leaderboard must read its rows in order rather than sort a whole guild.
// Every statement a store method runs is explained as it runs, with its
// real arguments (see explainTx), so a new query cannot escape the test.

// Under -race SQLite's database has planGamesRace games: the race
// detector's instrumentation makes SQLite's own C (transpiled to Go) about
// 30 times slower (the fill took 12 s), and its planner reads the same
// plans at that size; .ci/run also runs these tests without -race at the
// full size. PostgreSQL's planner needs the size (at 2,000 games it reads
// small tables whole), and fills it in a second.
const (
	planGames     = 10000
	planGamesRace = 2000
)

// explainTx explains every statement before it runs it, and records the
// plan.
type explainTx struct {
	tx
	dialect string
	record  func(query, plan string)
}

func (e explainTx) explain(ctx context.Context, query string, args ...any) {
	prefix := "EXPLAIN QUERY PLAN "
	if e.dialect == "postgres" {
		prefix = "EXPLAIN "
	}
	rs, err := e.tx.query(ctx, prefix+query, args...)
	if err != nil {
		e.record(query, "EXPLAIN failed: "+err.Error())
		return
	}
	defer rs.Close()
	var b strings.Builder
	for rs.Next() {
		if e.dialect == "postgres" {
			var line string
			if err := rs.Scan(&line); err != nil {
				e.record(query, "EXPLAIN failed: "+err.Error())
				return
			}
			b.WriteString(line + "\n")
			continue
		}
		var id, parent, unused int
		var detail string
		if err := rs.Scan(&id, &parent, &unused, &detail); err != nil {
			e.record(query, "EXPLAIN failed: "+err.Error())
			return
		}
		b.WriteString(detail + "\n")
	}
	e.record(query, b.String())
}

func (e explainTx) exec(ctx context.Context, query string, args ...any) (int64, error) {
	if !strings.HasPrefix(query, "SAVEPOINT") && !strings.HasPrefix(query, "RELEASE") && !strings.HasPrefix(query, "ROLLBACK") {
		e.explain(ctx, query, args...)
	}
	return e.tx.exec(ctx, query, args...)
}

func (e explainTx) query(ctx context.Context, query string, args ...any) (rows, error) {
	e.explain(ctx, query, args...)
	return e.tx.query(ctx, query, args...)
}

func (e explainTx) queryRow(ctx context.Context, query string, args ...any) row {
	e.explain(ctx, query, args...)
	return e.tx.queryRow(ctx, query, args...)
}

// plans records the plans of what a store runs.
type plans struct {
	mu   sync.Mutex
	seen []plan
}

type plan struct{ query, plan string }

// explaining makes s explain and record every statement it runs.
func (p *plans) explaining(s *sqlStore, dialect string) {
	wrap := func(run func(context.Context, func(tx) error) error) func(context.Context, func(tx) error) error {
		return func(ctx context.Context, fn func(tx) error) error {
			return run(ctx, func(t tx) error {
				return fn(explainTx{t, dialect, p.record})
			})
		}
	}
	s.read, s.direct, s.write = wrap(s.read), wrap(s.direct), wrap(s.write)
}

func (p *plans) record(query, plan_ string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, plan{query, plan_})
}

func (p *plans) take() []plan {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.seen
	p.seen = nil
	return out
}

// bigTables are the tables that grow with the games played.
var bigTables = `games|moves|channels|players|g|c`

// What a plan must not say, by dialect.
type planRules struct {
	// scan: a whole big table is read. An index of running games only
	// (games_running, partial) is as small as the games being played.
	scan *regexp.Regexp
	// sort: the rows selected are sorted, where the order could come from
	// an index and the LIMIT stop the reading early.
	sort *regexp.Regexp
	// guildWide: players are searched by their guild alone: the whole
	// guild is read.
	guildWide *regexp.Regexp
}

var rules = map[string]planRules{
	"sqlite": {
		scan:      regexp.MustCompile(`(?m)^SCAN (` + bigTables + `)\b( USING (COVERING )?INDEX (\w+))?`),
		sort:      regexp.MustCompile(`USE TEMP B-TREE FOR ORDER BY`),
		guildWide: regexp.MustCompile(`(?m)^SEARCH players USING .*\(guild_id=\?\)$`),
	},
	"postgres": {
		scan:      regexp.MustCompile(`Seq Scan on (` + bigTables + `)\b`),
		sort:      regexp.MustCompile(`(?m)^\s*(->\s*)?Sort\b`),
		guildWide: regexp.MustCompile(`(?m)Index Cond: \(guild_id = '[^']*'::text\)$`),
	},
}

// scans reports whether a plan reads a whole big table.
func (r planRules) scans(plan string) bool {
	for _, m := range r.scan.FindAllStringSubmatch(plan, -1) {
		if len(m) < 5 || m[4] != "games_running" {
			return true
		}
	}
	return false
}

func TestQueryPlansSQLite(t *testing.T) {
	t.Parallel() // its fill's CPU beside the lock tests' waits
	s := openSQLite(t, t.TempDir()+"/tttbot.db")
	games := planGames
	if raceBuild {
		games = planGamesRace
	}
	fill(t, bigDB{"sqlite", s}, games)
	testQueryPlans(t, s, &s.sqlStore, "sqlite")
}

func TestQueryPlansPostgres(t *testing.T) {
	t.Parallel()
	p := openPostgres(t, postgresSchema(t))
	fill(t, bigDB{"postgres", p}, planGames)
	testQueryPlans(t, p, &p.sqlStore, "postgres")
}

func testQueryPlans(t *testing.T, s storeUnderTest, inner *sqlStore, dialect string) {
	ctx := context.Background()
	const guild = "guild0"
	board, err := s.Leaderboard(ctx, guild, 1, 0)
	if err != nil || len(board) < 10 {
		t.Fatalf("Leaderboard(%s) = %d players, %v; want a big guild", guild, len(board), err)
	}
	mid := board[len(board)/2]
	var p plans
	p.explaining(inner, dialect)
	r := rules[dialect]
	stamp := time.Now().UnixNano()
	tests := []struct {
		name string
		run  func() error
		// sorted: the statements must read their rows in the order asked
		// for (a leaderboard of a few players out of a guild's).
		sorted bool
		// narrow: the statements must not read a whole guild's players.
		narrow bool
	}{
		{name: "Current", run: func() error { _, err := s.Current(ctx, "chan5"); return err }},
		{name: "Game", run: func() error { _, err := s.Game(ctx, "g00000005"); return err }},
		{name: "Running", run: func() error { _, err := s.Running(ctx); return err }},
		{name: "Due", run: func() error { _, err := s.Due(ctx, time.Now()); return err }},
		{name: "DueReminders", run: func() error { _, err := s.DueReminders(ctx, time.Now()); return err }},
		{name: "CountRunning", run: func() error { _, err := s.CountRunning(ctx); return err }},
		{name: "CountGames", run: func() error { _, err := s.CountGames(ctx); return err }},
		{name: "History", run: func() error { _, err := s.History(ctx, guild, mid.UserID, 10); return err }},
		{name: "Leaderboard", sorted: true, run: func() error { _, err := s.Leaderboard(ctx, guild, 1, 10); return err }},
		{name: "ComputerLeaderboard", sorted: true, run: func() error { _, err := s.ComputerLeaderboard(ctx, guild, 10); return err }},
		{name: "Rank", run: func() error {
			st, err := s.Stats(ctx, guild, mid.UserID, 1)
			if err == nil && st.Rank != mid.Rank {
				err = fmt.Errorf("Stats(%s).Rank = %d; want %d", mid.UserID, st.Rank, mid.Rank)
			}
			return err
		}, narrow: true},
		{name: "SaveNewAndEnd", run: func() error {
			g := play(newGame(fmt.Sprintf("plan-%d", stamp), guild, fmt.Sprintf("plan-%d", stamp), mid.UserID, board[0].UserID),
				[2]int{0, 0}, [2]int{1, 0}, [2]int{0, 1}, [2]int{1, 1})
			if err := s.Save(ctx, g); err != nil {
				return err
			}
			play(g, [2]int{0, 2})
			end(g, game.EndWon, game.None, 1)
			return s.Save(ctx, g)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run(); err != nil {
				t.Fatal(err)
			}
			seen := p.take()
			if len(seen) == 0 {
				t.Fatal("no statement was explained")
			}
			for _, pl := range seen {
				bad := ""
				switch {
				case strings.HasPrefix(pl.plan, "EXPLAIN failed"):
					bad = "cannot be explained"
				case r.scans(pl.plan):
					bad = "reads a whole table"
				case tt.sorted && r.sort.MatchString(pl.plan):
					bad = "sorts all the rows it selects"
				case tt.narrow && r.guildWide.MatchString(pl.plan):
					bad = "reads every player of the guild"
				}
				if bad != "" {
					t.Errorf("%s: a statement %s:\n%s\nplan:\n%s", tt.name, bad, pl.query, pl.plan)
				} else if testing.Verbose() {
					t.Logf("%s:\n%s\n%s", tt.name, pl.query, pl.plan)
				}
			}
		})
	}
}
