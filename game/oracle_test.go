package game

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// oracle is a brute-force judge: it keeps only the board and, after every
// move, scans every length-k window of the board in the four directions for
// a win and for windows still winnable. It is slow (O(n²k) a move) and too
// simple to be wrong, which makes it the reference for Judge.
type oracle struct {
	n, k   int
	first  Player
	board  [][]Player
	moves  int
	status Status
	winner Player
}

func newOracle(n, k int, first Player) *oracle {
	o := &oracle{n: n, k: k, first: first, board: make([][]Player, n)}
	for r := range o.board {
		o.board[r] = make([]Player, n)
	}
	return o
}

func (o *oracle) clone() *oracle {
	c := *o
	c.board = make([][]Player, o.n)
	for r := range c.board {
		c.board[r] = append([]Player(nil), o.board[r]...)
	}
	return &c
}

func (o *oracle) turn() Player {
	if o.status == Won || o.status == Draw {
		return None
	}
	if o.moves%2 == 0 {
		return o.first
	}
	return o.first.Other()
}

// move checks the move in the documented order of precedence and, if it is
// valid, plays it and rescans the board.
func (o *oracle) move(row, col, player int) (int, error) {
	switch {
	case player != 1 && player != 2:
		return 0, ErrBadPlayer
	case o.status == Won || o.status == Draw:
		return 0, ErrGameOver
	case row < 0 || row >= o.n || col < 0 || col >= o.n:
		return 0, ErrOutOfBounds
	case Player(player) != o.turn():
		return 0, ErrNotYourTurn
	case o.board[row][col] != None:
		return 0, ErrOccupied
	}
	o.board[row][col] = Player(player)
	o.moves++
	winnable := 0
	o.windows(func(cells []Cell) {
		var seen [3]bool
		for _, c := range cells {
			seen[o.board[c.Row][c.Col]] = true
		}
		if !seen[X] || !seen[O] {
			winnable++
		}
		if !seen[None] && seen[X] != seen[O] {
			o.status, o.winner = Won, o.board[cells[0].Row][cells[0].Col]
		}
	})
	switch {
	case o.status == Won:
		return int(o.winner), nil
	case o.moves == o.n*o.n:
		o.status = Draw
	case winnable == 0:
		o.status = DecidedDraw
	}
	return 0, nil
}

// windows calls f with the cells of every length-k window of the board.
func (o *oracle) windows(f func([]Cell)) {
	cells := make([]Cell, o.k)
	for r := 0; r < o.n; r++ {
		for c := 0; c < o.n; c++ {
			for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
				er, ec := r+(o.k-1)*d[0], c+(o.k-1)*d[1]
				if er < 0 || er >= o.n || ec < 0 || ec >= o.n {
					continue
				}
				for i := range cells {
					cells[i] = Cell{r + i*d[0], c + i*d[1]}
				}
				f(cells)
			}
		}
	}
}

// checkAgainst compares every observable part of g with the oracle after a
// move attempt that returned (gotW, gotErr) from g and (wantW, wantErr) from
// the oracle, and checks that a rejected move changed nothing (before is a
// clone of g taken before the attempt). describe names the attempt; it is
// called only on failure, which keeps the exhaustive walk fast.
func checkAgainst(t *testing.T, describe func() string, g, before *Judge, o *oracle, gotW int, gotErr error, wantW int, wantErr error) {
	t.Helper()
	if gotW != wantW || !sameErr(gotErr, wantErr) {
		t.Fatalf("%s = %d, %v; want %d, %v", describe(), gotW, gotErr, wantW, wantErr)
	}
	if gotErr != nil && !reflect.DeepEqual(g, before) {
		t.Fatalf("%s: rejected move changed the game:\n got %+v\nwant %+v", describe(), g, before)
	}
	if got, want := g.Status(), o.status; got != want {
		t.Fatalf("%s: Status() = %v; want %v", describe(), got, want)
	}
	if got, want := g.Winner(), o.winner; got != want {
		t.Fatalf("%s: Winner() = %v; want %v", describe(), got, want)
	}
	if got, want := g.Turn(), o.turn(); got != want {
		t.Fatalf("%s: Turn() = %v; want %v", describe(), got, want)
	}
	if got, want := g.Len(), o.moves; got != want {
		t.Fatalf("%s: Len() = %d; want %d", describe(), got, want)
	}
	if err := validWinLine(g); err != nil {
		t.Fatalf("%s: %v", describe(), err)
	}
}

// sameErr reports whether got wraps want (both nil counts as the same).
func sameErr(got, want error) bool {
	if want == nil {
		return got == nil
	}
	return errors.Is(got, want)
}

// validWinLine checks WinLine: nil unless Won; otherwise k cells, in order
// along one of the four directions, all of the winner's, including the last
// move.
func validWinLine(g *Judge) error {
	line := g.WinLine()
	if g.Status() != Won {
		if line != nil {
			return fmt.Errorf("WinLine() = %v with status %v; want nil", line, g.Status())
		}
		return nil
	}
	if len(line) != g.WinLength() {
		return fmt.Errorf("WinLine() = %v; want %d cells", line, g.WinLength())
	}
	last, _ := g.LastMove()
	hasLast := false
	for i, c := range line {
		if g.At(c.Row, c.Col) != g.Winner() {
			return fmt.Errorf("WinLine() = %v: cell %v holds %v; want %v", line, c, g.At(c.Row, c.Col), g.Winner())
		}
		if c.Row == last.Row && c.Col == last.Col {
			hasLast = true
		}
		if i > 0 {
			d := [2]int{c.Row - line[i-1].Row, c.Col - line[i-1].Col}
			d0 := [2]int{line[1].Row - line[0].Row, line[1].Col - line[0].Col}
			if d != d0 || (d != [2]int{0, 1} && d != [2]int{1, 0} && d != [2]int{1, 1} && d != [2]int{1, -1}) {
				return fmt.Errorf("WinLine() = %v: not a straight line in order", line)
			}
		}
	}
	if !hasLast {
		return fmt.Errorf("WinLine() = %v: does not contain the last move %v", line, last)
	}
	return nil
}

// TestExhaustive3x3 plays every 3×3 game to its end (a win or a full board)
// and compares the judge with the oracle after every move. The numbers of
// games are the published ones: 255,168 games, of which X wins 131,184,
// O wins 77,904 and 46,080 are draws. Under the race detector, ten times
// slower, it plays only the games that open in the centre, against the
// oracle, and does not count them.
func TestExhaustive3x3(t *testing.T) {
	t.Parallel()
	var got [3]int // draws, X wins, O wins
	var walk func(g *Judge, o *oracle)
	walk = func(g *Judge, o *oracle) {
		p := g.Turn()
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				if g.At(r, c) != None || raceEnabled && g.Len() == 0 && (r != 1 || c != 1) {
					continue
				}
				g2, o2 := g.Clone(), o.clone()
				gw, gerr := g2.Move(r, c, int(p))
				ow, oerr := o2.move(r, c, int(p))
				checkAgainst(t, func() string { return fmt.Sprintf("after %v: Move(%d,%d,%d)", g.History(), r, c, p) }, g2, nil, o2, gw, gerr, ow, oerr)
				if g2.Status() == Won || g2.Status() == Draw {
					got[g2.Winner()]++
					continue
				}
				walk(g2, o2)
			}
		}
	}
	g, _ := New(3)
	walk(g, newOracle(3, 3, X))
	if raceEnabled {
		return
	}
	total := got[0] + got[1] + got[2]
	want := [3]int{46080, 131184, 77904}
	if total != 255168 || got != want {
		t.Errorf("games = %d (draws, X wins, O wins = %v); want 255168 (%v)", total, got, want)
	}
}

// TestExhaustiveSmall plays out every game on the boards small enough to
// enumerate with other win lengths and first players, against the oracle.
// Under the race detector it leaves out the 3×3 boards with k > 1, which
// take it tens of seconds (TestRandomGamesAgainstOracle plays some of
// their games).
func TestExhaustiveSmall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n, k  int
		first Player
	}{
		{1, 1, X}, {2, 1, X}, {2, 2, X}, {2, 2, O}, {3, 1, O}, {3, 2, X}, {3, 3, O},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("n=%d,k=%d,first=%v", tt.n, tt.k, tt.first), func(t *testing.T) {
			if raceEnabled && tt.n == 3 && tt.k > 1 {
				t.Skip("too slow under the race detector; run without -race")
			}
			games := 0
			var walk func(g *Judge, o *oracle)
			walk = func(g *Judge, o *oracle) {
				for i := range tt.n * tt.n {
					r, c := i/tt.n, i%tt.n
					if g.At(r, c) != None {
						continue
					}
					g2, o2 := g.Clone(), o.clone()
					gw, gerr := g2.Move(r, c, int(g.Turn()))
					ow, oerr := o2.move(r, c, int(o.turn()))
					checkAgainst(t, func() string { return fmt.Sprintf("after %v: Move(%d,%d)", g.History(), r, c) }, g2, nil, o2, gw, gerr, ow, oerr)
					if g2.Status() == Won || g2.Status() == Draw {
						games++
						continue
					}
					walk(g2, o2)
				}
			}
			g, err := New(tt.n, WinLength(tt.k), FirstPlayer(tt.first))
			if err != nil {
				t.Fatal(err)
			}
			walk(g, newOracle(tt.n, tt.k, tt.first))
			if games == 0 {
				t.Errorf("no games played")
			}
		})
	}
}
