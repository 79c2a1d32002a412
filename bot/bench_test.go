package bot

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/store/storetest"
	"github.com/tttbot/tttbot/table"
)

// BenchmarkStoredMove measures one /ttt move through the whole bot: decode,
// lock the channel, load its game from the store, judge, save (versioned,
// durable), draw the board and answer. Moves are spread over 100 channels
// played at once; each channel plays a 10×10 game whose 91st move wins,
// then starts over. It reports stored moves per second and the p99 of one
// move. Run it with: go test -run '^$' -bench StoredMove -benchmem ./bot
// (PostgreSQL when TTT_TEST_POSTGRES_URL is set).
func BenchmarkStoredMove(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		st, err := store.OpenSQLite(filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		benchmarkStoredMove(b, st, false)
	})
	b.Run("postgres", func(b *testing.B) {
		st, err := store.OpenPostgres(context.Background(), storetest.PostgresURL(b))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		benchmarkStoredMove(b, st, false)
	})
}

// BenchmarkRecordedMove is BenchmarkStoredMove with the record of each
// interaction that the HTTP endpoint's interactions get (seen.go): each
// /ttt move is recorded before it is acted on and settled after its
// answer, as over HTTP. Run it as the bot runs on one core with:
// go test -run '^$' -bench RecordedMove -benchmem -cpu 1 ./bot
func BenchmarkRecordedMove(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		st, err := store.OpenSQLite(filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		benchmarkStoredMove(b, st, true)
	})
	b.Run("postgres", func(b *testing.B) {
		st, err := store.OpenPostgres(context.Background(), storetest.PostgresURL(b))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		benchmarkStoredMove(b, st, true)
	})
}

const benchChannels = 100

// benchResponder checks that every answer is a board.
type benchResponder struct{ refused *atomic.Int64 }

// recordedResponder is a benchResponder whose interactions could be
// replayed, as the HTTP endpoint's are: the bot records them.
type recordedResponder struct{ benchResponder }

func (recordedResponder) Replayable() bool { return true }

func (r benchResponder) Respond(_ context.Context, resp *discordgo.InteractionResponse) error {
	if resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		r.refused.Add(1)
	}
	return nil
}

// benchmarkStoredMove plays the moves on st, each interaction recorded
// as the HTTP endpoint's are when recorded is set. Beside moves/s and the
// p99 it reports the process's CPU per move (on PostgreSQL, the server's
// is not counted).
func benchmarkStoredMove(b *testing.B, st wholeStore, recorded bool) {
	bot := New(&discardDiscord{}, StoresOf(st), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	bot.SetSelf("1000000000000000001")
	defer bot.Close()
	const n = 10
	players := [3]string{game.X: "1000000000000000010", game.O: "1000000000000000020"}
	// One decoded /ttt move per channel and cell, made before timing.
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
		next int // the next cell; 0 starts a new game
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
	var latMu sync.Mutex
	var lat []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		mine := make([]time.Duration, 0, 1024)
		for pb.Next() {
			c := int(ch.Add(1)) % benchChannels
			s := &states[c]
			s.Lock()
			if s.next == 91 { // column 1 is X's: the game was won
				newGame(c)
				s.next = 0
			}
			// A fresh id, as every interaction from Discord has: the bot
			// acts on an id once.
			in := *moves[c][s.next]
			in.ID = strconv.FormatInt(ids.Add(1), 10)
			t0 := time.Now()
			var resp Responder = benchResponder{&refused}
			if recorded {
				resp = recordedResponder{benchResponder{&refused}}
			}
			bot.Handle(&in, resp)
			mine = append(mine, time.Since(t0))
			s.next++
			s.Unlock()
		}
		latMu.Lock()
		lat = append(lat, mine...)
		latMu.Unlock()
	})
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	b.StopTimer()
	if r := refused.Load(); r > 0 {
		b.Fatalf("%d of %d moves were refused; want every one stored", r, b.N)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "moves/s")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
	}
}
