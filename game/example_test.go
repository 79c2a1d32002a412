package game_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/tttbot/tttbot/game"
)

// The worked example of the problem: a 3×3 board, moves given as (row,
// col, player) with 0-based coordinates; Move returns 0 until player 1
// completes the bottom row.
func Example() {
	g, err := game.New(3)
	if err != nil {
		fmt.Println(err)
		return
	}
	moves := [][3]int{{0, 0, 1}, {0, 2, 2}, {2, 2, 1}, {1, 1, 2}, {2, 0, 1}, {1, 0, 2}, {2, 1, 1}}
	for _, m := range moves {
		winner, err := g.Move(m[0], m[1], m[2])
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("move(%d, %d, %d) -> %d\n", m[0], m[1], m[2], winner)
	}
	// Output:
	// move(0, 0, 1) -> 0
	// move(0, 2, 2) -> 0
	// move(2, 2, 1) -> 0
	// move(1, 1, 2) -> 0
	// move(2, 0, 1) -> 0
	// move(1, 0, 2) -> 0
	// move(2, 1, 1) -> 1
}

// Play is the typed variant of Move: it returns the status, and the
// winning line can be highlighted once the game is won.
func ExampleJudge_Play() {
	g, _ := game.New(7, game.WinLength(4), game.FirstPlayer(game.O))
	for _, c := range []game.Cell{{3, 3}, {0, 0}, {2, 4}, {0, 1}, {1, 5}, {6, 6}, {0, 6}} {
		p := g.Turn()
		st, err := g.Play(c.Row, c.Col, p)
		fmt.Println(p, c, st, err)
	}
	fmt.Println("winner:", g.Winner(), "line:", g.WinLine())
	_, err := g.Play(5, 5, game.X)
	fmt.Println(err)
	// Output:
	// O {3 3} in progress <nil>
	// X {0 0} in progress <nil>
	// O {2 4} in progress <nil>
	// X {0 1} in progress <nil>
	// O {1 5} in progress <nil>
	// X {6 6} in progress <nil>
	// O {0 6} won <nil>
	// winner: O line: [{0 6} {1 5} {2 4} {3 3}]
	// move 5,5: game: game is over
}

// A stored history rebuilds the game; a bad move in it is reported with its
// index.
func ExampleReplay() {
	history := []game.Move{{Row: 1, Col: 1, Player: game.X}, {Row: 0, Col: 0, Player: game.O}}
	g, err := game.Replay(3, history)
	fmt.Println(g.Len(), g.Turn(), err)

	history = append(history, game.Move{Row: 1, Col: 1, Player: game.X})
	_, err = game.Replay(3, history)
	fmt.Println(err)
	// Output:
	// 2 X <nil>
	// replay move 2: game: cell occupied
}

// The computer opponent takes the win in front of it; its randomness comes
// from the caller, so games are reproducible.
func ExampleComputerMove() {
	g, _ := game.New(3)
	for _, c := range []game.Cell{{0, 0}, {1, 0}, {1, 1}, {2, 0}} {
		g.Play(c.Row, c.Col, g.Turn())
	}
	c, err := game.ComputerMove(g, game.Hard, rand.New(rand.NewPCG(1, 2)))
	fmt.Println(c, err)
	// Output:
	// {2 2} <nil>
}

// A decided draw: nobody can complete a line any more although the board
// is not full. The bot ends such a game early.
func ExampleStatus_Decided() {
	g, _ := game.New(3)
	for _, c := range []game.Cell{{1, 1}, {0, 0}, {2, 2}, {0, 2}, {0, 1}, {2, 1}, {1, 0}, {1, 2}} {
		g.Play(c.Row, c.Col, g.Turn())
	}
	fmt.Println(g.Status(), g.Status().Decided(), g.Len())
	// Output:
	// decided draw true 8
}
