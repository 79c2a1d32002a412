package game

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// play makes the move and fails the test if it is rejected.
func play(t testing.TB, g *Judge, c Cell) {
	t.Helper()
	if _, err := g.Play(c.Row, c.Col, g.Turn()); err != nil {
		t.Fatalf("Play(%d,%d,%v) = %v; want nil", c.Row, c.Col, g.Turn(), err)
	}
}

// computer returns ComputerMove's cell, failing the test on an error or an
// illegal cell, and checks that g did not change.
func computer(t testing.TB, g *Judge, l Level, r *rand.Rand) Cell {
	t.Helper()
	before := g.Clone()
	c, err := ComputerMove(g, l, r)
	if err != nil {
		t.Fatalf("ComputerMove(%v) = %v; want nil\nhistory %v", l, err, g.History())
	}
	if c.Row < 0 || c.Row >= g.Size() || c.Col < 0 || c.Col >= g.Size() || g.At(c.Row, c.Col) != None {
		t.Fatalf("ComputerMove(%v) = %v: not an empty cell\nhistory %v", l, c, g.History())
	}
	if !reflect.DeepEqual(g, before) {
		t.Fatalf("ComputerMove(%v) changed the game", l)
	}
	return c
}

// randomCell is the uniformly random player.
func randomCell(g *Judge, r *rand.Rand) Cell {
	i := randomEmpty(g, r)
	return Cell{i / g.Size(), i % g.Size()}
}

// TestHardBeatsRandom plays Hard against a uniformly random player on 7×7
// with four in a row, 200 games (10 under the race detector), the random
// player moving first in half.
func TestHardBeatsRandom(t *testing.T) {
	t.Parallel()
	games := 200
	if raceEnabled {
		games = 10
	}
	r := rand.New(rand.NewPCG(7, 4))
	var won, drawn, lost int
	for i := range games {
		hard := X
		if i%2 == 0 {
			hard = O // X moves first: the random player
		}
		g, err := New(7, WinLength(4))
		if err != nil {
			t.Fatal(err)
		}
		for !g.Status().over() {
			if g.Turn() == hard {
				play(t, g, computer(t, g, Hard, r))
			} else {
				play(t, g, randomCell(g, r))
			}
		}
		switch g.Winner() {
		case hard:
			won++
		case None:
			drawn++
		default:
			lost++
			t.Logf("lost game %d: %v", i, g.History())
		}
	}
	rate := float64(won) / float64(games)
	t.Logf("7×7, k=4, Hard vs random: %d won, %d drawn, %d lost of %d: win rate %.1f%%", won, drawn, lost, games, 100*rate)
	if won != games {
		t.Errorf("win rate = %.3f; want 1", rate)
	}
}

// TestHardNeverLoses3x3 plays Hard against every possible line of play of
// its opponent on 3×3 — at each opponent turn the game branches on every
// empty cell — with Hard moving first and second, and under several seeds
// (Hard picks at random among equally good moves).
func TestHardNeverLoses3x3(t *testing.T) {
	for _, hard := range []Player{X, O} {
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("hard=%v,seed=%d", hard, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 1))
				var games, won int
				var walk func(g *Judge)
				walk = func(g *Judge) {
					if g.Status().over() {
						games++
						switch g.Winner() {
						case hard:
							won++
						case hard.Other():
							t.Fatalf("Hard (%v) lost: %v", hard, g.History())
						}
						return
					}
					if g.Turn() == hard {
						play(t, g, computer(t, g, Hard, r))
						walk(g)
						return
					}
					for i := range 9 {
						if g.At(i/3, i%3) == None {
							g2 := g.Clone()
							play(t, g2, Cell{i / 3, i % 3})
							walk(g2)
						}
					}
				}
				g := newGame(t, 3)
				walk(g)
				t.Logf("%d opponent lines, Hard won %d, drew the rest", games, won)
			})
		}
	}
}

// board builds a game from rows of 'X', 'O' and '.', the marks played
// alternately (X first when the counts are equal or X has one more,
// otherwise O first). The position must not be won.
func board(t *testing.T, k int, rows ...string) *Judge {
	t.Helper()
	var xs, os []Cell
	for r, row := range rows {
		for c, ch := range row {
			switch ch {
			case 'X':
				xs = append(xs, Cell{r, c})
			case 'O':
				os = append(os, Cell{r, c})
			}
		}
	}
	first, a, b := X, xs, os
	if len(os) > len(xs) {
		first, a, b = O, os, xs
	}
	if len(a)-len(b) > 1 {
		t.Fatalf("board: %d X and %d O", len(xs), len(os))
	}
	g := newGame(t, len(rows), WinLength(k), FirstPlayer(first))
	for i := range a {
		playAll(t, g, a[i])
		if i < len(b) {
			playAll(t, g, b[i])
		}
	}
	if g.Status() == Won {
		t.Fatalf("board: position already won: %v", rows)
	}
	return g
}

// TestComputerWinsAndBlocks checks on positions of several sizes and win
// lengths that Medium and Hard take an immediate win when there is one,
// and otherwise block the opponent's immediate win.
func TestComputerWinsAndBlocks(t *testing.T) {
	tests := []struct {
		name string
		k    int
		rows []string
		want []Cell // acceptable answers
	}{
		{"3x3 win beats block", 3, []string{
			"XX.",
			"OO.",
			"...",
		}, []Cell{{0, 2}}},
		{"3x3 block", 3, []string{
			"X..",
			"OO.",
			"X..",
		}, []Cell{{1, 0}, {1, 2}}}, // X to move: (1,0) wins, as it happens
		{"3x3 block only", 3, []string{
			"X.O",
			".O.",
			"X..",
		}, []Cell{{1, 0}}}, // X wins at (1,0) (column 0)
		{"3x3 must block", 3, []string{
			"XO.",
			".O.",
			"..X",
		}, []Cell{{2, 1}}},
		{"3x3 double threat: block one", 3, []string{
			"OO.",
			"XO.",
			"X.X",
		}, []Cell{{2, 1}}}, // X to move wins on the bottom row
		{"3x3 lost anyway: block one of two", 3, []string{
			"OO.",
			".O.",
			"X.X",
		}, []Cell{{2, 1}}}, // X wins the bottom row first
		{"4x4 win on the anti-diagonal", 4, []string{
			"OO.X",
			"O.X.",
			".X..",
			"....",
		}, []Cell{{3, 0}}},
		{"7x7 k=4 win with a gap", 4, []string{
			".......",
			".X.....",
			"..X..O.",
			"....OO.",
			"....X..",
			".......",
			"..O....",
		}, []Cell{{3, 3}}},
		{"7x7 k=4 block a column", 4, []string{
			".......",
			".X.....",
			"...O...",
			"...O.X.",
			"...O...",
			".......",
			"X......",
		}, []Cell{{1, 3}, {5, 3}}},
		{"7x7 k=4 block at the edge", 4, []string{
			"OOO....",
			"X......",
			"...X...",
			".......",
			"......X",
			".......",
			".......",
		}, []Cell{{0, 3}}},
		{"10x10 k=10 win", 10, []string{
			"XXXXX.XXXX",
			"O.........",
			".O........",
			"..O.......",
			"...O......",
			".....O....",
			"......O...",
			".......O..",
			"........O.",
			"..........",
		}, []Cell{{0, 5}}},
		{"10x10 k=10 block the diagonal", 10, []string{
			"O........X",
			".O......X.",
			"..O.....X.",
			"...O..X...",
			"....O..X..",
			".....O....",
			"..X...O...",
			".......O..",
			"........O.",
			"X...X.....",
		}, []Cell{{9, 9}}},
		{"10x10 k=5 win", 5, []string{
			"..........",
			"..........",
			"...O......",
			"....X.....",
			".....X....",
			"......X..O",
			".......X..",
			"..........",
			"..O.......",
			"......O...",
		}, []Cell{{7, 8}}}, // the other end is blocked
		{"10x10 k=5 block a row", 5, []string{
			"..........",
			"..........",
			"..........",
			"...X......",
			".XOOOO....",
			"..X...X...",
			"..........",
			"..........",
			"..........",
			"..........",
		}, []Cell{{4, 6}}},
	}
	for _, tt := range tests {
		for _, l := range []Level{Medium, Hard} {
			t.Run(fmt.Sprintf("%s/%v", tt.name, l), func(t *testing.T) {
				g := board(t, tt.k, tt.rows...)
				for seed := range uint64(5) {
					c := computer(t, g, l, rand.New(rand.NewPCG(seed, 9)))
					if !slices.Contains(tt.want, c) {
						t.Fatalf("ComputerMove(%v) = %v; want one of %v", l, c, tt.want)
					}
				}
			})
		}
	}
}

// winningCells returns the empty cells where a mark of p would make k in a
// row, found by walking out from each cell (independently of the engine's
// window counts).
func winningCells(g *Judge, p Player) []Cell {
	n, k := g.Size(), g.WinLength()
	var cells []Cell
	for r := range n {
		for c := range n {
			if g.At(r, c) != None {
				continue
			}
			for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
				count := 1
				for _, s := range []int{1, -1} {
					for i := 1; g.At(r+s*i*d[0], c+s*i*d[1]) == p; i++ {
						count++
					}
				}
				if count >= k {
					cells = append(cells, Cell{r, c})
					break
				}
			}
		}
	}
	return cells
}

// TestComputerTakesWinsAndBlocksRandom plays random games on boards from
// 3×3 to 12×12 with random k >= 2, and at every position checks that
// Medium and Hard take an immediate win whenever there is one, and
// otherwise block an immediate loss whenever there is one; 300 games, 60
// under the race detector.
func TestComputerTakesWinsAndBlocksRandom(t *testing.T) {
	t.Parallel()
	games := 300
	if raceEnabled {
		games = 60
	}
	r := rand.New(rand.NewPCG(11, 12))
	wins, blocks := 0, 0
	for range games {
		n := 3 + r.IntN(10)
		k := 2 + r.IntN(n-1)
		g := newGame(t, n, WinLength(k))
		for !g.Status().Decided() {
			me := g.Turn()
			win, loss := winningCells(g, me), winningCells(g, me.Other())
			for _, l := range []Level{Medium, Hard} {
				if l == Hard && len(win)+len(loss) == 0 {
					continue // nothing to check, and Hard's search is slow
				}
				c := computer(t, g, l, r)
				switch {
				case len(win) > 0 && !slices.Contains(win, c):
					t.Fatalf("n=%d k=%d %v: ComputerMove(%v) = %v; want a win %v", n, k, g.History(), l, c, win)
				case len(win) == 0 && len(loss) > 0 && !slices.Contains(loss, c):
					t.Fatalf("n=%d k=%d %v: ComputerMove(%v) = %v; want a block %v", n, k, g.History(), l, c, loss)
				}
			}
			if len(win) > 0 {
				wins++
			} else if len(loss) > 0 {
				blocks++
			}
			// Random play makes for varied positions with threats.
			play(t, g, randomCell(g, r))
		}
	}
	t.Logf("checked %d positions with a win and %d with a loss to block", wins, blocks)
	if wins == 0 || blocks == 0 {
		t.Errorf("no position with a win (%d) or with a block (%d) was checked", wins, blocks)
	}
}

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in   string
		want Level
		err  error
	}{
		{"easy", Easy, nil}, {"medium", Medium, nil}, {"hard", Hard, nil},
		{"Hard", Hard, nil}, {" MEDIUM ", Medium, nil},
		{"", 0, ErrLevel}, {"expert", 0, ErrLevel}, {"1", 0, ErrLevel},
	}
	for _, tt := range tests {
		got, err := ParseLevel(tt.in)
		if got != tt.want || !sameErr(err, tt.err) {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	for l, want := range map[Level]string{Easy: "easy", Medium: "medium", Hard: "hard", 0: "Level(0)", 4: "Level(4)"} {
		if got := l.String(); got != want {
			t.Errorf("Level(%d).String() = %q; want %q", l, got, want)
		}
		if back, err := ParseLevel(l.String()); err == nil && back != l {
			t.Errorf("ParseLevel(%q) = %v; want %v", l.String(), back, l)
		}
	}
}

func TestComputerMoveErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	g := newGame(t, 3)
	for _, l := range []Level{0, Hard + 1, 255} {
		if _, err := ComputerMove(g, l, r); !errors.Is(err, ErrLevel) {
			t.Errorf("ComputerMove(level %d) = %v; want %v", l, err, ErrLevel)
		}
	}
	won := newGame(t, 3)
	playAll(t, won, Cell{0, 0}, Cell{1, 0}, Cell{0, 1}, Cell{1, 1}, Cell{0, 2})
	drawn := newGame(t, 3)
	playAll(t, drawn, drawSequence(3)...)
	for _, g := range []*Judge{won, drawn} {
		for _, l := range []Level{Easy, Medium, Hard} {
			if _, err := ComputerMove(g, l, r); !errors.Is(err, ErrGameOver) {
				t.Errorf("ComputerMove(%v) on a %v game = %v; want %v", l, g.Status(), err, ErrGameOver)
			}
		}
	}
}

// TestComputerDecidedDraw: in a decided draw the computer still returns a
// legal cell, for every level.
func TestComputerDecidedDraw(t *testing.T) {
	g := board(t, 4,
		"XXXO",
		"OOOX",
		"XO..",
		"XO..")
	if g.Status() != DecidedDraw {
		t.Fatalf("Status() = %v; want %v", g.Status(), DecidedDraw)
	}
	r := rand.New(rand.NewPCG(2, 2))
	for _, l := range []Level{Easy, Medium, Hard} {
		for !g.Status().over() {
			play(t, g, computer(t, g, l, r))
		}
		g = board(t, 4, "XXXO", "OOOX", "XO..", "XO..")
	}
}

// TestComputerReproducible: the same seed gives the same game, and a nil
// source is a fixed seed.
func TestComputerReproducible(t *testing.T) {
	playGame := func(seed uint64, nilRand bool) []Move {
		g := newGame(t, 9, WinLength(4))
		r := rand.New(rand.NewPCG(seed, seed))
		for i := 0; !g.Status().Decided(); i++ {
			l := []Level{Easy, Medium, Hard}[i%3]
			if nilRand {
				r = nil
			}
			play(t, g, computer(t, g, l, r))
		}
		return g.History()
	}
	a, b := playGame(42, false), playGame(42, false)
	if !slices.Equal(a, b) {
		t.Errorf("two games with seed 42 differ:\n%v\n%v", a, b)
	}
	if c := playGame(43, false); slices.Equal(a, c) {
		t.Errorf("games with seeds 42 and 43 are the same: %v", a)
	}
	if a, b := playGame(0, true), playGame(0, true); !slices.Equal(a, b) {
		t.Errorf("two games with a nil source differ:\n%v\n%v", a, b)
	}
}

// TestComputerLargeBoards plays a few moves of each level on the largest
// board, with k = n and k = 5: legal, and the game left untouched.
func TestComputerLargeBoards(t *testing.T) {
	for _, k := range []int{MaxSize, 5} {
		g := newGame(t, MaxSize, WinLength(k))
		r := rand.New(rand.NewPCG(uint64(k), 0))
		for i := range 6 {
			play(t, g, computer(t, g, []Level{Easy, Medium, Hard}[i%3], r))
		}
	}
}

// TestComputerLevelsOrdered: on 7×7 with four in a row, each level beats
// the one below it more often than it loses (100 games, 20 for Hard, first
// move alternating; under the race detector 40, and 6 for Hard).
func TestComputerLevelsOrdered(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(8, 8))
	for _, pair := range [][2]Level{{Medium, Easy}, {Hard, Easy}, {Hard, Medium}} {
		var won, lost int
		games := 100
		switch {
		case pair[0] == Hard && raceEnabled:
			games = 6
		case pair[0] == Hard:
			games = 20
		case raceEnabled:
			games = 40
		}
		for i := range games {
			g := newGame(t, 7, WinLength(4))
			strong := Player(1 + i%2)
			for !g.Status().Decided() {
				l := pair[1]
				if g.Turn() == strong {
					l = pair[0]
				}
				play(t, g, computer(t, g, l, r))
			}
			switch g.Winner() {
			case strong:
				won++
			case strong.Other():
				lost++
			}
		}
		t.Logf("%v vs %v: won %d, lost %d of %d", pair[0], pair[1], won, lost, games)
		if won <= lost {
			t.Errorf("%v vs %v: won %d, lost %d; want more wins than losses", pair[0], pair[1], won, lost)
		}
	}
}
