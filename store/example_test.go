package store_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
)

// Two handlers read the same game and both try to save a move: the second
// save finds that the game changed since it read it.
func Example_conflict() {
	ctx := context.Background()
	var s store.Memory // or OpenSQLite, OpenPostgres: the same semantics
	start := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	g := &store.Game{ID: "g1", GuildID: "guild", ChannelID: "chan",
		Players: [3]string{game.X: "alice", game.O: "bob"}, Size: 3, Win: 3, First: game.X, StartedAt: start}
	if err := s.Save(ctx, g); err != nil {
		panic(err)
	}

	a, _ := s.Current(ctx, "chan")
	b, _ := s.Current(ctx, "chan")
	a.Moves = append(a.Moves, store.Move{Move: game.Move{Row: 1, Col: 1, Player: game.X}, At: start.Add(time.Second)})
	b.Moves = append(b.Moves, store.Move{Move: game.Move{Row: 0, Col: 0, Player: game.X}, At: start.Add(time.Second)})
	fmt.Println("a:", s.Save(ctx, a), "version", a.Version)
	err := s.Save(ctx, b)
	fmt.Println("b conflicts:", errors.Is(err, store.ErrConflict))

	now, _ := s.Game(ctx, "g1")
	fmt.Println("stored:", now.Moves[0].Row, now.Moves[0].Col, "version", now.Version)
	// Output:
	// a: <nil> version 2
	// b conflicts: true
	// stored: 1 1 version 2
}
