package bot

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// BenchmarkPickerStep measures, through the whole bot (Handle), what one
// tap costs: a click on a cell of a 5×5 board (a move, saved), a row
// picked in the picker of a 10×10 board (tap 1: the game read from the
// store, the board redrawn with the row open, nothing saved), and a cell
// of that row (tap 2: a move, saved, as a click). Taps come one after the
// other on one channel; games start over before they end. Besides ns/op
// (wall time, which for a save includes its fsync) it reports cpu-µs/op,
// the process's CPU time per tap (the bot's background work included).
// Run it with: go test -run '^$' -bench PickerStep -benchmem ./bot
func BenchmarkPickerStep(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) wholeStore
	}{
		{"memory", func(*testing.B) wholeStore { return new(store.Memory) }},
		{"sqlite", func(b *testing.B) wholeStore {
			st, err := store.OpenSQLite(filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			return st
		}},
	}
	for _, st := range stores {
		b.Run(st.name+"/click 5×5", func(b *testing.B) { benchmarkTaps(b, st.open(b), 5, tapCell) })
		b.Run(st.name+"/row 10×10", func(b *testing.B) { benchmarkTaps(b, st.open(b), 10, tapRow) })
		b.Run(st.name+"/cell 10×10", func(b *testing.B) { benchmarkTaps(b, st.open(b), 10, tapCell) })
		// 15×15: always a picture, drawn after each move. Taps one after
		// the other would have the board's slot draw only the newest
		// (what players do not do: a move takes them seconds), so each
		// tap's background work is done before the next: cpu-µs/op holds
		// the picture of each move.
		b.Run(st.name+"/row 15×15", func(b *testing.B) { benchmarkTaps(b, st.open(b), 15, tapRow|tapSettled) })
		b.Run(st.name+"/cell 15×15", func(b *testing.B) { benchmarkTaps(b, st.open(b), 15, tapCell|tapSettled) })
	}
}

type tapKind int

const (
	tapCell tapKind = iota // a move by a cell's button
	tapRow                 // a row picked in the picker's menu

	tapSettled tapKind = 1 << 4 // with either: the tap's background work done before the next tap
)

func benchmarkTaps(b *testing.B, st wholeStore, n int, kind tapKind) {
	settled := kind&tapSettled != 0
	kind &^= tapSettled
	bot := New(&discardDiscord{}, StoresOf(st), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	bot.SetSelf(botID)
	defer bot.Close()
	const channel = "2000000000000000001"
	players := [3]string{game.X: "1000000000000000010", game.O: "1000000000000000020"}
	// Cells in reading order, X and O alternately, up to the one that
	// ends the game (on 10×10, k = 10, the 91st: column 1 is X's).
	g, err := game.New(n, game.WinLength(n))
	if err != nil {
		b.Fatal(err)
	}
	moves := 0
	for g.Status() == game.InProgress {
		if _, err := g.Play(moves/n, moves%n, game.X+game.Player(moves%2)); err != nil {
			b.Fatal(err)
		}
		moves++
	}
	var m *match
	newGame := func() {
		tm, err := table.Start(bot.cfg.Table, newID(), table.Setup{ChannelID: channel, Players: players, Size: n, Win: n, First: game.X}, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		m = &match{Match: tm}
		m.Serial = 1
		if err := bot.tables.put(context.Background(), m); err != nil {
			b.Fatal(err)
		}
	}
	newGame()
	base := fixture(b, "button_component_interaction_legacy.json")
	base["channel_id"] = channel
	tap := func(i int, customID string, values []string, user string) *discordgo.Interaction {
		data := map[string]any{"custom_id": customID, "component_type": int(discordgo.ButtonComponent)}
		if values != nil {
			data["component_type"], data["values"] = int(discordgo.SelectMenuComponent), values
		}
		base["data"] = data
		base["member"].(map[string]any)["user"].(map[string]any)["id"] = user
		return decode(b, base).Interaction
	}
	// The taps, decoded before timing: for each move of a game, the row
	// picked and the cell, at the serial the board has then.
	type step struct{ row, cell *discordgo.Interaction }
	steps := make([]step, moves)
	for i := range steps {
		r, c := i/n+1, i%n+1
		user := players[game.X+game.Player(i%2)]
		serial := 1
		if n > MaxButtonSize {
			serial = 1 + i // a move on a picker's board is a new serial
		}
		steps[i] = step{
			row:  tap(i, route{action: actRow, id: m.ID, serial: serial}.String(), []string{strconv.Itoa(r)}, user),
			cell: tap(i, route{action: actMove, id: m.ID, serial: serial, row: r, col: c}.String(), nil, user),
		}
	}
	var refused atomic.Int64
	ids := int64(1 << 61)
	next := 0
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		if next == moves {
			b.StopTimer()
			newGame()
			for i := range steps { // the new game's id
				for _, in := range []*discordgo.Interaction{steps[i].row, steps[i].cell} {
					d := in.Data.(discordgo.MessageComponentInteractionData)
					r, _ := parseRoute(d.CustomID)
					r.id = m.ID
					d.CustomID = r.String()
					in.Data = d
				}
			}
			next = 0
			b.StartTimer()
		}
		var in discordgo.Interaction
		switch kind {
		case tapRow:
			in = *steps[next].row // the same row again: nothing changes
		case tapCell:
			in = *steps[next].cell
			next++
		}
		ids++
		in.ID, in.Token = strconv.FormatInt(ids, 10), "tok-"+strconv.FormatInt(ids, 10)
		bot.Handle(&in, benchResponder{&refused})
		if settled {
			bot.run.bg.Wait()
		}
	}
	cpu := cpuTime() - cpu0
	b.StopTimer()
	if r := refused.Load(); r > 0 {
		b.Fatalf("%d of %d taps were refused", r, b.N)
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
}
