package game

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The benchmarks of this file time one move of three judges at n = 3, 100
// and 1,000 (k = n), on the same sequence of moves:
//
//   - Judge.Move, with its line counters: O(1);
//   - the naive judge, which after every move recounts every row, column and
//     diagonal of the board: O(n²);
//   - the directional judge, which walks out from the new mark along its
//     row, column and diagonals while the marks are the mover's: O(n).
//
// The sequence fills the whole board without a winner (drawSequence), so
// that every move of it is legal and none ends the game early. Each timed
// iteration is exactly one move; creating and clearing boards happens with
// the timer stopped, once per batch of at least 8,192 moves (at n = 3 a
// batch is many games at once), so that StopTimer, which reads the memory
// statistics, costs nothing per move.

// drawSequence returns an order in which X (first) and O alternately fill
// the whole n×n board without completing a line, for n = 3 or n even, n >=
// 4. For even n, X takes the even rows and O the odd ones, except that in
// each row the cell in column (r + n/2) mod n goes to the other player: no
// row, column or diagonal is one player's, and the long runs along the rows
// are what the directional judge must walk.
func drawSequence(n int) []Cell {
	var xs, os []Cell
	if n == 3 {
		// X O X / X O O / O X X
		xs = []Cell{{0, 0}, {0, 2}, {1, 0}, {2, 1}, {2, 2}}
		os = []Cell{{0, 1}, {1, 1}, {1, 2}, {2, 0}}
	} else {
		for r := range n {
			for c := range n {
				x := r%2 == 0
				if c == (r+n/2)%n {
					x = !x
				}
				if x {
					xs = append(xs, Cell{r, c})
				} else {
					os = append(os, Cell{r, c})
				}
			}
		}
	}
	seq := make([]Cell, 0, n*n)
	for i := range xs {
		seq = append(seq, xs[i])
		if i < len(os) {
			seq = append(seq, os[i])
		}
	}
	return seq
}

// checkDraw fails b unless seq is a legal game that fills the board
// without a winner.
func checkDraw(b *testing.B, n int, seq []Cell) {
	b.Helper()
	g, err := New(n)
	if err != nil {
		b.Fatal(err)
	}
	for i, c := range seq {
		if w, err := g.Move(c.Row, c.Col, int(X)+i%2); w != 0 || err != nil {
			b.Fatalf("move %d %v = %d, %v; want 0, nil", i, c, w, err)
		}
	}
	if g.Status() != Draw {
		b.Fatalf("status after the sequence = %v; want %v", g.Status(), Draw)
	}
}

var benchSizes = []int{3, 100, 1000}

// batchGames returns how many games to play between two stops of the timer.
func batchGames(n int) int { return max(1, 8192/(n*n)) }

// BenchmarkMove times Judge.Move with k = n: O(1) a move, no allocation.
func BenchmarkMove(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			seq := drawSequence(n)
			checkDraw(b, n, seq)
			games := make([]*Judge, batchGames(n))
			for i := range games {
				games[i], _ = New(n)
				// One untimed game grows the history to its final size;
				// Reset keeps it, so timed moves never allocate.
				for j, c := range seq {
					games[i].Move(c.Row, c.Col, int(X)+j%2)
				}
				games[i].Reset()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for done := 0; done < b.N; {
				for _, g := range games {
					for j := 0; j < len(seq) && done < b.N; j++ {
						c := seq[j]
						g.Move(c.Row, c.Col, int(X)+j%2)
						done++
					}
				}
				b.StopTimer()
				for _, g := range games {
					g.Reset()
				}
				b.StartTimer()
			}
		})
	}
}

// noRunSequence returns an order in which X (first) and O alternately fill
// the n×n board, n a multiple of 4, without three marks of a kind in a row
// in any direction: cell (r, c) is X's when (c + 2r) mod 4 < 2. Along a row
// that reads XXOO, along a column XOXO, and along both diagonals a cycle
// through all four residues, so no run is longer than 2.
func noRunSequence(n int) []Cell {
	var xs, os []Cell
	for r := range n {
		for c := range n {
			if (c+2*r)%4 < 2 {
				xs = append(xs, Cell{r, c})
			} else {
				os = append(os, Cell{r, c})
			}
		}
	}
	seq := make([]Cell, 0, n*n)
	for i := range xs {
		seq = append(seq, xs[i], os[i])
	}
	return seq
}

// BenchmarkMoveWindows times Judge.Move with k = 5 < n = 1,000: O(k) a move
// (20 window masks and a walk of at most 4 cells each way), on
// noRunSequence, which fills the board without a winner.
func BenchmarkMoveWindows(b *testing.B) {
	const n, k = 1000, 5
	seq := noRunSequence(n)
	g, err := New(n, WinLength(k))
	if err != nil {
		b.Fatal(err)
	}
	for j, c := range seq {
		if w, err := g.Move(c.Row, c.Col, int(X)+j%2); w != 0 || err != nil {
			b.Fatalf("move %d %v = %d, %v; want 0, nil", j, c, w, err)
		}
	}
	g.Reset()
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; {
		for j := 0; j < len(seq) && done < b.N; j++ {
			c := seq[j]
			g.Move(c.Row, c.Col, int(X)+j%2)
			done++
		}
		b.StopTimer()
		g.Reset()
		b.StartTimer()
	}
}

// naiveJudge recounts every line of the board after each move, as the
// simplest solution of the problem does: O(n²) a move whatever the board.
type naiveJudge struct {
	n     int
	board []int8
}

func (j *naiveJudge) Move(row, col, player int) int {
	n := j.n
	j.board[row*n+col] = int8(player)
	p := int8(player)
	var diag, anti int
	for r := range n {
		var rowCount, colCount int
		for c := range n {
			if j.board[r*n+c] == p {
				rowCount++
			}
			if j.board[c*n+r] == p {
				colCount++
			}
		}
		if rowCount == n || colCount == n {
			return player
		}
		if j.board[r*n+r] == p {
			diag++
		}
		if j.board[r*n+n-1-r] == p {
			anti++
		}
	}
	if diag == n || anti == n {
		return player
	}
	return 0
}

func (j *naiveJudge) Reset() { clear(j.board) }

// directionalJudge walks out from the new mark along each line through it
// while the cells are the mover's: O(n) a move in the worst case, and as
// long as the runs of the mover's marks.
type directionalJudge struct {
	n     int
	board []int8
}

func (j *directionalJudge) Move(row, col, player int) int {
	n := j.n
	j.board[row*n+col] = int8(player)
	for _, d := range dirs {
		count := 1
		for _, s := range [2]int{1, -1} {
			r, c := row+s*d.dr, col+s*d.dc
			for r >= 0 && r < n && c >= 0 && c < n && j.board[r*n+c] == int8(player) {
				count++
				r, c = r+s*d.dr, c+s*d.dc
			}
		}
		if count == n {
			return player
		}
	}
	return 0
}

func (j *directionalJudge) Reset() { clear(j.board) }

// scanJudge is what the two reference judges have in common.
type scanJudge interface {
	Move(row, col, player int) int
	Reset()
}

// benchScanJudge times a reference judge on the sequence of BenchmarkMove,
// set up and reset outside the timed part, as BenchmarkMove does.
func benchScanJudge(b *testing.B, name string, newJudge func(n int) scanJudge) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			seq := drawSequence(n)
			games := make([]scanJudge, batchGames(n))
			for i := range games {
				games[i] = newJudge(n)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for done := 0; done < b.N; {
				for _, g := range games {
					for j := 0; j < len(seq) && done < b.N; j++ {
						c := seq[j]
						if g.Move(c.Row, c.Col, 1+j%2) != 0 {
							b.Fatalf("%s judge: move %d %v wins", name, j, c)
						}
						done++
					}
				}
				b.StopTimer()
				for _, g := range games {
					g.Reset()
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkMoveNaive times the naive judge, O(n²) per move.
func BenchmarkMoveNaive(b *testing.B) {
	benchScanJudge(b, "naive", func(n int) scanJudge { return &naiveJudge{n: n, board: make([]int8, n*n)} })
}

// BenchmarkMoveDirectional times the directional judge, O(n) per move.
func BenchmarkMoveDirectional(b *testing.B) {
	benchScanJudge(b, "directional", func(n int) scanJudge { return &directionalJudge{n: n, board: make([]int8, n*n)} })
}

// midGame returns a game of the given size and win length after about
// moves moves, still undecided: Medium against Medium when k < n, so that
// the marks cluster as in a real game (and the positions do not depend on
// Hard, whose cost is measured), and random moves when k = n.
func midGame(b *testing.B, n, k, moves int) *Judge {
	b.Helper()
	for seed := uint64(1); seed < 100; seed++ {
		r := rand.New(rand.NewPCG(seed, 0))
		g, err := New(n, WinLength(k))
		if err != nil {
			b.Fatal(err)
		}
		for g.Len() < moves && !g.Status().Decided() {
			var c Cell
			if k == n {
				c = randomCell(g, r)
			} else {
				c, _ = ComputerMove(g, Medium, r)
			}
			g.Play(c.Row, c.Col, g.Turn())
		}
		if !g.Status().Decided() {
			return g
		}
	}
	b.Fatalf("no undecided %d×%d game with k=%d after %d moves", n, n, k, moves)
	return nil
}

// BenchmarkComputerMove times Hard's choice of a move. At 3×3 and 4×4 on
// the empty board that is the exact search of the whole game; with k = n
// on larger boards the heuristic; elsewhere the threat search in the
// middle of a game, which uses its whole node budget unless it finds a
// forced win.
func BenchmarkComputerMove(b *testing.B) {
	tests := []struct {
		name        string
		n, k, moves int
	}{
		{"3x3", 3, 3, 0},
		{"4x4,k=4", 4, 4, 0},
		{"4x4,k=3", 4, 3, 0},
		{"7x7,k=4", 7, 4, 10},
		{"10x10,k=10", 10, 10, 30},
		{"10x10,k=5", 10, 5, 20},
		{"15x15,k=5", 15, 5, 20},
		{"1000x1000,k=1000", 1000, 1000, 200},
		{"1000x1000,k=5", 1000, 5, 30},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			g := midGame(b, tt.n, tt.k, tt.moves)
			r := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := ComputerMove(g, Hard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHardGame times Hard's moves in whole games against Medium, so
// that the positions are those of real play rather than one chosen
// position (which may hold a quick forced win): four games per board,
// Hard moving first in two, seeded, so every run times the same
// positions. ns/op is the mean over them; max-ns/op the slowest move of
// the run, which the budget of the threat search must keep under 50 ms.
func BenchmarkHardGame(b *testing.B) {
	for _, tt := range []struct{ n, k int }{{7, 4}, {10, 5}, {15, 5}} {
		b.Run(fmt.Sprintf("%dx%d,k=%d", tt.n, tt.n, tt.k), func(b *testing.B) {
			var positions []*Judge
			r := rand.New(rand.NewPCG(3, 4))
			for game := range 4 {
				g, err := New(tt.n, WinLength(tt.k))
				if err != nil {
					b.Fatal(err)
				}
				hard := Player(X + Player(game%2))
				for !g.Status().Decided() {
					l := Medium
					if g.Turn() == hard {
						l = Hard
						positions = append(positions, g.Clone())
					}
					c, err := ComputerMove(g, l, r)
					if err != nil {
						b.Fatal(err)
					}
					g.Play(c.Row, c.Col, g.Turn())
				}
			}
			var worst time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				t0 := time.Now()
				if _, err := ComputerMove(positions[i%len(positions)], Hard, r); err != nil {
					b.Fatal(err)
				}
				worst = max(worst, time.Since(t0))
			}
			b.ReportMetric(float64(worst.Nanoseconds()), "max-ns/op")
		})
	}
}
