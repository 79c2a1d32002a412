package game

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
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
// every position. Under the race detector, whose brute-force walk of 4×4
// alone takes minutes, it walks and checks on 4×4 only the positions that
// follow raceRoots random openings of raceOpening moves each.
const (
	proofStride = 16
	raceRoots   = 3
	raceOpening = 6
)

// TestHardPerfectSmallBoards is the proof that Hard plays perfectly on small
// boards: over every position reachable from the empty board (X first) on
// 3×3, 4×4 with k = 3 and 4×4 with k = 4 (and the simpler k = 2 boards),
// Hard never plays a move that lowers the value of the position for itself
// — a won position stays won and a drawn one drawn — by the brute-force
// solver. Without -exhaustive it checks one position in proofStride on 4×4
// with k = 3 and 4; under the race detector, the positions after a few
// random openings (see raceRoots). CI runs it with -exhaustive, without
// -race.
//
// The brute-force walk runs on the test's goroutine; the positions it has
// valued go to one checker per CPU, which asks Hard for its move (with a
// source of randomness seeded by the position, so that the result does not
// depend on which checker gets it) and values that move.
func TestHardPerfectSmallBoards(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ n, k int }{{3, 3}, {2, 2}, {3, 2}, {4, 2}, {4, 3}, {4, 4}} {
		t.Run(fmt.Sprintf("%dx%d,k=%d", tt.n, tt.n, tt.k), func(t *testing.T) {
			stride, sampled := 1, false
			switch {
			case *exhaustive || tt.n < 4 || tt.k == 2:
			case raceEnabled:
				sampled = true
			default:
				stride = proofStride
			}
			b := newBruteSolver(tt.n, tt.k)
			jobs := make(chan proofJob, 1024)
			var wg sync.WaitGroup
			var mu sync.Mutex
			var failure string
			for range runtime.GOMAXPROCS(0) {
				c := &proofChecker{b: b, n: tt.n, k: tt.k, board: make([]Player, tt.n*tt.n)}
				wg.Go(func() {
					for j := range jobs {
						if msg := c.check(j); msg != "" {
							mu.Lock()
							if failure == "" {
								failure = msg
							}
							mu.Unlock()
						}
					}
				})
			}
			var positions, checked int
			var count [3]int // lost, drawn, won for the player to move
			b.visit = func(board []Player, state int, p Player, hist []int, v int8) {
				positions++
				if state%stride != 0 {
					return
				}
				checked++
				count[v+1]++
				jobs <- proofJob{state: state, p: p, v: v, hist: slices.Clone(hist)}
			}
			if sampled {
				r := rand.New(rand.NewPCG(uint64(tt.n), uint64(tt.k)))
				for range raceRoots {
					b.walkFrom(randomOpening(b, r, raceOpening))
				}
			} else {
				b.value(make([]Player, tt.n*tt.n), 0, X, nil)
			}
			close(jobs)
			wg.Wait()
			if failure != "" {
				t.Fatal(failure)
			}
			t.Logf("%d positions, %d checked: %d won, %d drawn, %d lost for the player to move", positions, checked, count[2], count[1], count[0])
		})
	}
}

// randomOpening returns the moves of a random game of b's board, X first,
// of moves moves that nobody has won.
func randomOpening(b *bruteSolver, r *rand.Rand, moves int) []int {
	for {
		board := make([]Player, b.n*b.n)
		var hist []int
		p := X
		for len(hist) < moves {
			i := r.IntN(len(board))
			if board[i] != None {
				continue
			}
			board[i] = p
			hist = append(hist, i)
			if b.wins(board, i) {
				break
			}
			p = p.Other()
		}
		if len(hist) == moves && !b.wins(board, hist[len(hist)-1]) {
			return hist
		}
	}
}

// walkFrom values the position after the moves hist (X first), visiting
// every position reachable from it as value does.
func (b *bruteSolver) walkFrom(hist []int) {
	board := make([]Player, b.n*b.n)
	state := 0
	p := X
	for _, i := range hist {
		board[i] = p
		state += int(p) * b.pow3[i]
		p = p.Other()
	}
	b.value(board, state, p, slices.Clone(hist))
}

// proofJob is a position of the brute-force walk to check: its base-3
// number, the player to move, its value for that player and the moves that
// led to it.
type proofJob struct {
	state int
	p     Player
	v     int8
	hist  []int
}

// proofChecker checks Hard's moves in positions of the brute-force walk.
// It keeps the games along the last history it built (games[d] after d
// moves), so that the next position, which mostly shares a long prefix
// with it, costs a clone and a move or two.
type proofChecker struct {
	b     *bruteSolver
	n, k  int
	games []*Judge
	hist  []int
	board []Player
}

// check returns why Hard's move in j's position is wrong, or "".
func (c *proofChecker) check(j proofJob) string {
	g, err := c.game(j.hist)
	if err != nil {
		return fmt.Sprintf("%v: replay: %v", j.hist, err)
	}
	r := rand.New(rand.NewPCG(uint64(j.state), uint64(c.n*10+c.k)))
	cell, err := ComputerMove(g, Hard, r)
	if err != nil {
		return fmt.Sprintf("%v: ComputerMove = %v; want nil", g.History(), err)
	}
	i := cell.Row*c.n + cell.Col
	copy(c.board, g.board)
	if c.board[i] != None {
		return fmt.Sprintf("%v: ComputerMove = %v, an occupied cell", g.History(), cell)
	}
	// The brute-force solver has valued every position after this one, so
	// moveValue only reads its memo.
	if got := c.b.moveValue(c.board, j.state, j.p, i, j.hist); got != j.v {
		return fmt.Sprintf("%v: Hard (%v) played %v, of value %d; the position has value %d", g.History(), j.p, cell, got, j.v)
	}
	return ""
}

// game returns the game after the moves hist, from X's first move.
func (c *proofChecker) game(hist []int) (*Judge, error) {
	if c.games == nil {
		g, err := New(c.n, WinLength(c.k))
		if err != nil {
			return nil, err
		}
		c.games = []*Judge{g}
	}
	same := 0
	for same < len(hist) && same < len(c.hist) && hist[same] == c.hist[same] {
		same++
	}
	c.games, c.hist = c.games[:same+1], c.hist[:same]
	for _, i := range hist[same:] {
		g := c.games[len(c.games)-1].Clone()
		if _, err := g.Play(i/c.n, i%c.n, g.Turn()); err != nil {
			return nil, err
		}
		c.games = append(c.games, g)
		c.hist = append(c.hist, i)
	}
	return c.games[len(hist)], nil
}
