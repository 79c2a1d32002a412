package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tttbot/tttbot/game"
)

// benchMoves measures stored moves as the bot makes them: each operation
// reads a channel's current game, appends one move and saves it; a game
// ends when its 5×5 board is full (a draw, counted in both players' stats
// and ratings), and the next move in that channel starts a new game. The
// moves are spread over 100 channels, taken in turn by 16 goroutines.
// It reports stored moves per second, the 99th percentile of one stored
// move's latency, and how many saves lost a race and were retried.
func benchMoves(b *testing.B, s storeUnderTest) {
	const channels, size = 100, 5
	ctx := context.Background()
	for c := range channels {
		g := newGame(fmt.Sprintf("c%d-0", c), "guild", fmt.Sprintf("c%d", c), fmt.Sprintf("x%d", c), fmt.Sprintf("o%d", c))
		g.Size, g.Win = size, size
		if err := s.Save(ctx, g); err != nil {
			b.Fatal(err)
		}
	}
	var (
		next      atomic.Int64
		retries   atomic.Int64
		mu        sync.Mutex
		latencies []time.Duration
	)
	move := func(ch string) error {
		g, err := s.Current(ctx, ch)
		if err != nil {
			return err
		}
		now := time.Now()
		if !g.Running() {
			g = newGame(fmt.Sprintf("%s-%d", ch, now.UnixNano()), "guild", ch, g.Players[game.X], g.Players[game.O])
			g.Size, g.Win, g.StartedAt = size, size, now
		}
		n := len(g.Moves)
		p := game.X
		if n%2 == 1 {
			p = game.O
		}
		g.Moves = append(g.Moves, Move{Move: game.Move{Row: n / size, Col: n % size, Player: p}, At: now})
		g.Deadline = now.Add(time.Minute)
		if len(g.Moves) == size*size {
			g.End, g.EndedAt = game.EndDraw, now
		}
		return s.Save(ctx, g)
	}
	b.SetParallelism(8) // 16 goroutines on 2 cores
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			start := time.Now()
			for {
				ch := fmt.Sprintf("c%d", next.Add(1)%channels)
				err := move(ch)
				if err == nil {
					break
				}
				if !errors.Is(err, ErrConflict) {
					b.Error(err)
					return
				}
				retries.Add(1)
			}
			mine = append(mine, time.Since(start))
		}
		mu.Lock()
		latencies = append(latencies, mine...)
		mu.Unlock()
	})
	b.StopTimer()
	cpu := cpuTime() - cpu0
	if len(latencies) == 0 {
		return
	}
	slices.Sort(latencies)
	p99 := latencies[min(len(latencies)-1, len(latencies)*99/100)]
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "moves/s")
	b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
	b.ReportMetric(float64(retries.Load())/float64(b.N), "retries/op")
	// CPU time of this process (not the PostgreSQL server's) per move:
	// unlike moves/s, it does not change much when other work shares the
	// machine.
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func BenchmarkMovesMemory(b *testing.B) { benchMoves(b, new(Memory)) }

func BenchmarkMovesSQLite(b *testing.B) {
	benchMoves(b, openSQLite(b, filepath.Join(b.TempDir(), "tttbot.db")))
}

func BenchmarkMovesPostgres(b *testing.B) {
	benchMoves(b, openPostgres(b, postgresSchema(b)))
}

// The change feed's cost per save (feed.go), beside BenchmarkMovesSQLite
// and BenchmarkMovesPostgres, whose channels nobody watches: NoFeed is the
// save without the feed at all (as before it: no look-up on SQLite, no
// trigger on PostgreSQL), Watched with every channel watched (each save
// tells a watcher here; on PostgreSQL through NOTIFY and the listening
// connection).

func BenchmarkMovesSQLiteNoFeed(b *testing.B) {
	s := openSQLite(b, filepath.Join(b.TempDir(), "tttbot.db"))
	s.localFeed = false
	benchMoves(b, s)
}

func BenchmarkMovesSQLiteWatched(b *testing.B) {
	s := openSQLite(b, filepath.Join(b.TempDir(), "tttbot.db"))
	watchAll(b, s)
	benchMoves(b, s)
}

func BenchmarkMovesPostgresNoFeed(b *testing.B) {
	p := openPostgres(b, postgresSchema(b))
	if _, err := p.pool.Exec(context.Background(), `DROP TRIGGER games_live ON games`); err != nil {
		b.Fatal(err)
	}
	benchMoves(b, p)
}

func BenchmarkMovesPostgresWatched(b *testing.B) {
	p := openPostgres(b, postgresSchema(b))
	heard := watchAll(b, p)
	benchMoves(b, p)
	b.ReportMetric(float64(heard.Load())/float64(b.N), "heard/op")
}

// watchAll watches the 100 channels of benchMoves, counting what is heard.
func watchAll(b *testing.B, s storeUnderTest) *atomic.Int64 {
	var heard atomic.Int64
	for c := range 100 {
		stop, err := s.Watch(context.Background(), fmt.Sprintf("c%d", c), func(Change) { heard.Add(1) })
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(stop)
	}
	return &heard
}

// BenchmarkFeedLatency measures how long after a save returns its watcher
// hears of it: in the process (SQLite, after the commit) and across
// processes (PostgreSQL: NOTIFY at commit, heard on another store's
// listening connection), from the start of the save: one save at a time,
// reporting the save's p50 and the p50 and p99 of hearing it.
func BenchmarkFeedLatency(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		s := openSQLite(b, filepath.Join(b.TempDir(), "tttbot.db"))
		benchFeedLatency(b, s, s)
	})
	b.Run("postgres", func(b *testing.B) {
		url := postgresSchema(b)
		benchFeedLatency(b, openPostgres(b, url), openPostgres(b, url))
	})
}

func benchFeedLatency(b *testing.B, saver, watcher storeUnderTest) {
	heard := make(chan Change, 1)
	stop, err := watcher.Watch(context.Background(), "chan", func(c Change) { heard <- c })
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	g := newGame("g0", "guild", "chan", "x", "o")
	g.Size, g.Win = 15, 15
	mustSave(b, saver, g)
	<-heard
	var took, saves []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if len(g.Moves) == 15*15 {
			g.End, g.EndedAt = game.EndDraw, time.Now()
			mustSave(b, saver, g)
			<-heard
			g = newGame(fmt.Sprintf("g%d", i), "guild", "chan", "x", "o")
			g.Size, g.Win = 15, 15
			mustSave(b, saver, g)
			<-heard
		}
		n := len(g.Moves)
		p := game.X
		if n%2 == 1 {
			p = game.O
		}
		g.Moves = append(g.Moves, Move{Move: game.Move{Row: n / 15, Col: n % 15, Player: p}, At: time.Now()})
		start := time.Now()
		mustSave(b, saver, g)
		saved := time.Since(start)
		if c := <-heard; c.Version != g.Version {
			b.Fatalf("heard %+v; want version %d", c, g.Version)
		}
		took = append(took, time.Since(start))
		saves = append(saves, saved)
	}
	b.StopTimer()
	slices.Sort(took)
	slices.Sort(saves)
	b.ReportMetric(float64(saves[len(saves)/2].Microseconds()), "save-p50-µs")
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "heard-p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "heard-p99-µs")
}
