package bot

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
)

// BenchmarkLiveState measures the state of a 15×15 game of 100 moves (15
// in a row, so that nobody has won) as
// one more page sees it, once a change was read for the pages before: what
// each page's socket costs the bot after a move (the game is read from
// the store once per change, not once per page).
func BenchmarkLiveState(b *testing.B) {
	rec := new(recorder)
	bt := New(withUsers{recorder: rec}, StoresOf(new(store.Memory)), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	bt.SetSelf(botID)
	defer bt.Close()
	var moves []game.Move
	for i := range 100 {
		p := game.X
		if i%2 == 1 {
			p = game.O
		}
		moves = append(moves, game.Move{Row: i / 15, Col: i % 15, Player: p})
	}
	m := bigGame(b, bt, 15, 15, bob, moves...)
	l := bt.Live()
	_, stop, err := l.Watch(context.Background(), fixtureChannel)
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	v := viewer(bob, "de")
	if st, err := l.State(context.Background(), v); err != nil || st.Version != m.Version || len(st.Moves) != 100 {
		b.Fatalf("State = %d moves, %v", len(st.Moves), err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := l.State(context.Background(), v); err != nil {
			b.Fatal(err)
		}
	}
}
