package game

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
)

// bruteSolver knows the game-theoretic value of every position of a small
// board (X first), by plain minimax over all positions, memoised in an
// array indexed by the position read as a base-3 number. It shares no code
// with the engine: it finds wins by checking every length-k window through
// the new mark.
type bruteSolver struct {
	n, k int
	pow3 []int
	// through[i] lists the windows through cell i, each as its k cells.
	through [][][]int
	memo    []int8 // value+2 for the player to move; 0 unknown
	visit   func(board []Player, state int, p Player, hist []int, v int8)
}

func newBruteSolver(n, k int) *bruteSolver {
	b := &bruteSolver{n: n, k: k, pow3: make([]int, n*n+1), through: make([][][]int, n*n)}
	b.pow3[0] = 1
	for i := range n * n {
		b.pow3[i+1] = 3 * b.pow3[i]
	}
	for r := range n {
		for c := range n {
			for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
				var w []int
				for j := range k {
					rr, cc := r+j*d[0], c+j*d[1]
					if rr < 0 || rr >= n || cc < 0 || cc >= n {
						w = nil
						break
					}
					w = append(w, rr*n+cc)
				}
				for _, i := range w {
					b.through[i] = append(b.through[i], w)
				}
			}
		}
	}
	b.memo = make([]int8, b.pow3[n*n])
	return b
}

// wins reports whether the mark on cell i completes a window of board.
func (b *bruteSolver) wins(board []Player, i int) bool {
	for _, w := range b.through[i] {
		all := true
		for _, j := range w {
			if board[j] != board[i] {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// value returns the value of the position (state is board in base 3) for
// p to move: 1 win, 0 draw, -1 loss. The position must not be over. It
// visits every position reachable from this one once, and calls
// b.visit, if set, on each after its value and its children's are known;
// hist holds the moves that led to it.
func (b *bruteSolver) value(board []Player, state int, p Player, hist []int) int8 {
	if m := b.memo[state]; m != 0 {
		return m - 2
	}
	best := int8(-2)
	for i := range board {
		if board[i] == None {
			best = max(best, b.moveValue(board, state, p, i, hist))
		}
	}
	if best == -2 {
		best = 0 // full board
	}
	b.memo[state] = best + 2
	if b.visit != nil {
		b.visit(board, state, p, hist, best)
	}
	return best
}

// moveValue returns the value for p of p playing the empty cell i.
func (b *bruteSolver) moveValue(board []Player, state int, p Player, i int, hist []int) int8 {
	board[i] = p
	defer func() { board[i] = None }()
	switch {
	case b.wins(board, i):
		return 1
	case len(hist)+1 == len(board):
		return 0
	}
	return -b.value(board, state+int(p)*b.pow3[i], p.Other(), append(hist, i))
}

var exhaustive = flag.Bool("exhaustive", false, "check Hard on every reachable position of the small boards, not one in proofStride")

// proofStride: without -exhaustive, TestHardPerfectSmallBoards checks Hard
// on the positions of 4×4 whose base-3 number is a multiple of it (all
// positions of the smaller boards); the brute-force solver still visits
// every position. Under the race detector it checks 4×4 with k = 3 only
// (one position in raceStride) and skips k = 4, whose brute-force walk
// alone takes minutes there.
const (
	proofStride = 16
	raceStride  = 64
)

// TestHardPerfectSmallBoards is the proof that Hard plays perfectly on small
// boards: over every position reachable from the empty board (X first) on
// 3×3, 4×4 with k = 3 and 4×4 with k = 4 (and the simpler k = 2 boards),
// Hard never plays a move that lowers the value of the position for itself
// — a won position stays won and a drawn one drawn — by the brute-force
// solver. Without -exhaustive it checks one position in proofStride on 4×4
// with k = 3 and 4.
func TestHardPerfectSmallBoards(t *testing.T) {
	for _, tt := range []struct{ n, k int }{{3, 3}, {2, 2}, {3, 2}, {4, 2}, {4, 3}, {4, 4}} {
		t.Run(fmt.Sprintf("%dx%d,k=%d", tt.n, tt.n, tt.k), func(t *testing.T) {
			stride := 1
			switch {
			case *exhaustive || tt.n < 4 || tt.k == 2:
			case raceEnabled && tt.k == 4:
				t.Skip("too slow under the race detector; run without -race")
			case raceEnabled:
				stride = raceStride
			default:
				stride = proofStride
			}
			b := newBruteSolver(tt.n, tt.k)
			r := rand.New(rand.NewPCG(uint64(tt.n), uint64(tt.k)))
			var positions, checked int
			var count [3]int // lost, drawn, won for the player to move
			b.visit = func(board []Player, state int, p Player, hist []int, v int8) {
				positions++
				if state%stride != 0 {
					return
				}
				checked++
				count[v+1]++
				g := newGame(t, tt.n, WinLength(tt.k))
				for _, i := range hist {
					play(t, g, Cell{i / tt.n, i % tt.n})
				}
				c, err := ComputerMove(g, Hard, r)
				if err != nil {
					t.Fatalf("%v: ComputerMove = %v; want nil", g.History(), err)
				}
				i := c.Row*tt.n + c.Col
				if board[i] != None {
					t.Fatalf("%v: ComputerMove = %v, an occupied cell", g.History(), c)
				}
				if got := b.moveValue(board, state, p, i, hist); got != v {
					t.Fatalf("%v: Hard (%v) played %v, of value %d; the position has value %d", g.History(), p, c, got, v)
				}
			}
			b.value(make([]Player, tt.n*tt.n), 0, X, nil)
			t.Logf("%d positions, %d checked: %d won, %d drawn, %d lost for the player to move", positions, checked, count[2], count[1], count[0])
		})
	}
}
