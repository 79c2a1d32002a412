package game

import (
	"fmt"
	"math"
	"reflect"
	"testing"
)

// FuzzMove plays a game of random size (1 to 8), win length and first
// player from the fuzzer's bytes — valid and invalid moves alike — and
// compares the judge with the brute-force oracle after every attempt: the
// returned winner and error, Status, Winner, Turn, Len, the board, the
// winning line, and that a rejected move changed nothing. At the end the
// history replayed must give the same game.
//
// Each move takes three bytes: row, column and player. Row and column map
// mostly onto the board, sometimes just outside it, and 254/255 onto
// math.MinInt/MaxInt; the player byte mostly picks the player whose turn it
// is, so that games get long, and otherwise the wrong player or an invalid
// number.
func FuzzMove(f *testing.F) {
	// seed encodes moves given as row, col, player byte with the mapping
	// below: coordinates shift by one, player byte 5 means "whose turn it is".
	seed := func(moves ...[3]int) []byte {
		var b []byte
		for _, m := range moves {
			b = append(b, byte(m[0]+1), byte(m[1]+1), byte(m[2]))
		}
		return b
	}
	const turn = 5
	// The worked example (moves of X and O alternate from X).
	f.Add(uint8(2), uint8(2), false, seed([3]int{0, 0, turn}, [3]int{0, 2, turn}, [3]int{2, 2, turn},
		[3]int{1, 1, turn}, [3]int{2, 0, turn}, [3]int{1, 0, turn}, [3]int{2, 1, turn}))
	// Invalid moves of every kind: bad players, out of turn, occupied,
	// outside, extreme coordinates, and moves after the end.
	f.Add(uint8(2), uint8(2), true, append(seed([3]int{1, 1, 0}, [3]int{1, 1, 1}, [3]int{1, 1, 2},
		[3]int{1, 1, turn}, [3]int{1, 1, turn}, [3]int{-1, 0, turn}, [3]int{3, 0, turn}),
		append([]byte{255, 1, turn, 1, 254, turn}, seed([3]int{0, 0, turn}, [3]int{0, 1, turn},
			[3]int{2, 2, turn}, [3]int{0, 2, turn}, [3]int{2, 0, turn}, [3]int{2, 1, turn}, [3]int{1, 0, turn})...)...))
	// Gomoku-style: 7×7, four in a row.
	f.Add(uint8(6), uint8(3), false, seed([3]int{3, 3, turn}, [3]int{3, 4, turn}, [3]int{2, 2, turn},
		[3]int{4, 4, turn}, [3]int{2, 3, turn}, [3]int{1, 1, turn}, [3]int{4, 3, turn}, [3]int{5, 3, turn},
		[3]int{1, 3, turn}, [3]int{0, 3, turn}, [3]int{2, 4, turn}, [3]int{2, 5, turn}, [3]int{4, 2, turn},
		[3]int{5, 1, turn}, [3]int{1, 5, turn}))
	// A 3×3 game that reaches a decided draw and is played out to a full
	// board, and an anti-diagonal win on 8×8 with k = 3.
	f.Add(uint8(2), uint8(2), false, seed([3]int{0, 0, turn}, [3]int{1, 1, turn}, [3]int{2, 2, turn},
		[3]int{0, 1, turn}, [3]int{2, 1, turn}, [3]int{2, 0, turn}, [3]int{0, 2, turn}, [3]int{1, 2, turn},
		[3]int{1, 0, turn}))
	f.Add(uint8(7), uint8(2), true, seed([3]int{0, 7, turn}, [3]int{7, 7, turn}, [3]int{1, 6, turn},
		[3]int{6, 6, turn}, [3]int{2, 5, turn}, [3]int{5, 5, turn}))
	f.Add(uint8(0), uint8(0), false, seed([3]int{0, 0, turn}, [3]int{0, 0, turn}))
	f.Add(uint8(3), uint8(1), false, []byte{0, 1, 5, 1, 1, 5, 0, 2, 5, 2, 2, 5, 3, 3, 5, 3, 2, 5})

	f.Fuzz(func(t *testing.T, size, win uint8, oFirst bool, data []byte) {
		n := 1 + int(size)%8
		k := 1 + int(win)%n
		first := X
		if oFirst {
			first = O
		}
		opts := []Option{WinLength(k), FirstPlayer(first)}
		g, err := New(n, opts...)
		if err != nil {
			t.Fatalf("New(%d, WinLength(%d), FirstPlayer(%v)) = %v", n, k, first, err)
		}
		o := newOracle(n, k, first)
		coord := func(b byte) int {
			switch b {
			case 255:
				return math.MaxInt
			case 254:
				return math.MinInt
			}
			return int(b)%(n+2) - 1
		}
		for i := 0; i+2 < len(data) && i < 3*128; i += 3 {
			row, col := coord(data[i]), coord(data[i+1])
			var player int
			switch b := data[i+2] % 16; b {
			case 0, 1:
				player = int(b) * 3 // 0 or 3: never a player
			case 2:
				player = int(o.turn().Other()) // the wrong one (or none)
			case 3:
				player = -1
			default:
				player = int(o.turn())
				if player == 0 {
					player = 1
				}
			}
			before := g.Clone()
			gw, gerr := g.Move(row, col, player)
			ow, oerr := o.move(row, col, player)
			checkAgainst(t, func() string {
				return fmt.Sprintf("n=%d k=%d first=%v after %v: Move(%d,%d,%d)", n, k, first, before.History(), row, col, player)
			}, g, before, o, gw, gerr, ow, oerr)
			for r := range n {
				for c := range n {
					if got, want := g.At(r, c), o.board[r][c]; got != want {
						t.Fatalf("At(%d,%d) = %v; want %v", r, c, got, want)
					}
				}
			}
		}
		r, err := Replay(n, g.History(), opts...)
		if err != nil {
			t.Fatalf("Replay(History()) = %v", err)
		}
		if !reflect.DeepEqual(r, g) {
			t.Fatalf("Replay(History()) = %+v; want %+v", r, g)
		}
	})
}
