package bot

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/store/storetest"
	"github.com/tttbot/tttbot/table"
)

// BenchmarkRecordedMove is BenchmarkStoredMove with the record of each
// interaction that the HTTP endpoint's interactions get (seen.go): each
// /ttt move is recorded before it is acted on and settled after its
// answer, as over HTTP. It reports the process's CPU per move beside the
// wall time. Run it as the bot runs on one core with:
// go test -run '^$' -bench RecordedMove -benchmem -cpu 1 ./bot
func BenchmarkRecordedMove(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		st, err := store.OpenSQLite(filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		benchmarkRecordedMove(b, st)
	})
	b.Run("postgres", func(b *testing.B) {
		st, err := store.OpenPostgres(context.Background(), storetest.PostgresURL(b))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		benchmarkRecordedMove(b, st)
	})
}

// recordedResponder is a benchResponder whose interactions could be
// replayed, as the HTTP endpoint's are: the bot records them.
type recordedResponder struct{ benchResponder }

func (recordedResponder) Replayable() bool { return true }

func benchmarkRecordedMove(b *testing.B, st wholeStore) {
	bot := New(&discardDiscord{}, StoresOf(st), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	bot.SetSelf("1000000000000000001")
	defer bot.Close()
	const n = 10
	players := [3]string{game.X: "1000000000000000010", game.O: "1000000000000000020"}
	moves := make([][]*discordgo.Interaction, benchChannels)
	for c := range moves {
		for i := range n * n {
			ic := slashPayload(b, "move", []map[string]any{intOpt("row", i/n+1), intOpt("col", i%n+1)}, nil)
			ic.ChannelID = fmt.Sprint(2000000000000000000 + c)
			ic.Member = &discordgo.Member{User: &discordgo.User{ID: players[game.X+game.Player(i%2)]}}
			moves[c] = append(moves[c], ic.Interaction)
		}
	}
	type channelState struct {
		sync.Mutex
		next int
	}
	states := make([]channelState, benchChannels)
	newGame := func(c int) {
		m, err := table.Start(bot.cfg.Table, newID(), table.Setup{ChannelID: moves[c][0].ChannelID, Players: players, Size: n, Win: n, First: game.X}, time.Now())
		if err == nil {
			err = bot.tables.put(context.Background(), &match{Match: m})
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	for c := range benchChannels {
		newGame(c)
	}
	var refused atomic.Int64
	var ch atomic.Int64
	ids := new(atomic.Int64)
	ids.Store(1<<61 + time.Now().UnixNano()%(1<<60)) // new ids on a database kept between runs
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c := int(ch.Add(1)) % benchChannels
			s := &states[c]
			s.Lock()
			if s.next == 91 {
				newGame(c)
				s.next = 0
			}
			in := *moves[c][s.next]
			in.ID = strconv.FormatInt(ids.Add(1), 10)
			bot.Handle(&in, recordedResponder{benchResponder{&refused}})
			s.next++
			s.Unlock()
		}
	})
	elapsed, cpu := time.Since(start), processCPU()-cpu0
	b.StopTimer()
	if r := refused.Load(); r > 0 {
		b.Fatalf("%d of %d moves were refused; want every one stored", r, b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "moves/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
}

// processCPU is the CPU time this process used so far, user and system
// (on PostgreSQL, the server's is not counted).
func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
