package game

import (
	"errors"
	"fmt"
	"go/build"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// newGame returns New(n, opts...) and fails the test on an error.
func newGame(t testing.TB, n int, opts ...Option) *Judge {
	t.Helper()
	g, err := New(n, opts...)
	if err != nil {
		t.Fatalf("New(%d) = %v; want nil", n, err)
	}
	return g
}

// playAll plays the cells in order, players alternating, and fails the test
// if a move is rejected.
func playAll(t testing.TB, g *Judge, cells ...Cell) {
	t.Helper()
	for _, c := range cells {
		play(t, g, c)
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		opts      []Option
		wantErr   error
		wantK     int
		wantFirst Player
	}{
		{"1x1", 1, nil, nil, 1, X},
		{"3x3", 3, nil, nil, 3, X},
		{"max", MaxSize, nil, nil, MaxSize, X},
		{"k=4,O first", 7, []Option{WinLength(4), FirstPlayer(O)}, nil, 4, O},
		{"k=1", 5, []Option{WinLength(1)}, nil, 1, X},
		{"k=n explicit", 5, []Option{WinLength(5)}, nil, 5, X},
		{"size 0", 0, nil, ErrSize, 0, 0},
		{"size -3", -3, nil, ErrSize, 0, 0},
		{"size max+1", MaxSize + 1, nil, ErrSize, 0, 0},
		{"size checked before options", 0, []Option{WinLength(9)}, ErrSize, 0, 0},
		{"k=0", 3, []Option{WinLength(0)}, ErrWinLength, 0, 0},
		{"k=-1", 3, []Option{WinLength(-1)}, ErrWinLength, 0, 0},
		{"k>n", 3, []Option{WinLength(4)}, ErrWinLength, 0, 0},
		{"first none", 3, []Option{FirstPlayer(None)}, ErrBadPlayer, 0, 0},
		{"first 3", 3, []Option{FirstPlayer(3)}, ErrBadPlayer, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := New(tt.n, tt.opts...)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || g != nil {
					t.Fatalf("New(%d) = %v, %v; want nil, %v", tt.n, g, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%d) = %v; want nil", tt.n, err)
			}
			if g.Size() != tt.n || g.WinLength() != tt.wantK || g.First() != tt.wantFirst {
				t.Errorf("Size, WinLength, First = %d, %d, %v; want %d, %d, %v",
					g.Size(), g.WinLength(), g.First(), tt.n, tt.wantK, tt.wantFirst)
			}
			if g.Status() != InProgress || g.Turn() != tt.wantFirst || g.Winner() != None || g.Len() != 0 ||
				g.History() != nil || g.WinLine() != nil {
				t.Errorf("new game: Status %v, Turn %v, Winner %v, Len %d, History %v, WinLine %v; want in progress, %v, none, 0, [], []",
					g.Status(), g.Turn(), g.Winner(), g.Len(), g.History(), g.WinLine(), tt.wantFirst)
			}
			if _, ok := g.LastMove(); ok {
				t.Errorf("LastMove() on a new game: ok = true; want false")
			}
		})
	}
}

// TestMoveErrors checks each rejection, the order in which they are
// checked, and that a rejected move changes nothing.
func TestMoveErrors(t *testing.T) {
	inProgress := func(t *testing.T) *Judge { // X at (0,0), O to move
		g := newGame(t, 3)
		playAll(t, g, Cell{0, 0})
		return g
	}
	won := func(t *testing.T) *Judge { // X won on the top row
		g := newGame(t, 3)
		playAll(t, g, Cell{0, 0}, Cell{1, 0}, Cell{0, 1}, Cell{1, 1}, Cell{0, 2})
		return g
	}
	drawn := func(t *testing.T) *Judge {
		g := newGame(t, 3)
		playAll(t, g, drawSequence(3)...)
		return g
	}
	tests := []struct {
		name             string
		game             func(*testing.T) *Judge
		row, col, player int
		want             error
	}{
		{"player 0", inProgress, 1, 1, 0, ErrBadPlayer},
		{"player 3", inProgress, 1, 1, 3, ErrBadPlayer},
		{"player -1", inProgress, 1, 1, -1, ErrBadPlayer},
		{"player 257 (X mod 256)", inProgress, 1, 1, 257, ErrBadPlayer},
		{"bad player before game over", won, 9, 9, 7, ErrBadPlayer},
		{"after a win", won, 2, 2, 2, ErrGameOver},
		{"after a draw", drawn, 0, 0, 2, ErrGameOver},
		{"game over before out of bounds", won, -1, 5, 2, ErrGameOver},
		{"row -1", inProgress, -1, 0, 2, ErrOutOfBounds},
		{"row 3", inProgress, 3, 0, 2, ErrOutOfBounds},
		{"col -1", inProgress, 0, -1, 2, ErrOutOfBounds},
		{"col 3", inProgress, 0, 3, 2, ErrOutOfBounds},
		{"huge row", inProgress, 1 << 62, 0, 2, ErrOutOfBounds},
		{"out of bounds before turn", inProgress, 5, 5, 1, ErrOutOfBounds},
		{"not your turn", inProgress, 1, 1, 1, ErrNotYourTurn},
		{"turn before occupied", inProgress, 0, 0, 1, ErrNotYourTurn},
		{"occupied", inProgress, 0, 0, 2, ErrOccupied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.game(t)
			before := g.Clone()
			w, err := g.Move(tt.row, tt.col, tt.player)
			if w != 0 || !errors.Is(err, tt.want) {
				t.Errorf("Move(%d,%d,%d) = %d, %v; want 0, %v", tt.row, tt.col, tt.player, w, err, tt.want)
			}
			if !reflect.DeepEqual(g, before) {
				t.Errorf("Move(%d,%d,%d) changed the game:\n got %+v\nwant %+v", tt.row, tt.col, tt.player, g, before)
			}
			// The typed call rejects the same moves (except numbers that
			// are not a Player at all) and returns the unchanged status.
			if tt.player >= 0 && tt.player < 256 {
				st, err := g.Play(tt.row, tt.col, Player(tt.player))
				if st != before.Status() || !errors.Is(err, tt.want) {
					t.Errorf("Play(%d,%d,%d) = %v, %v; want %v, %v", tt.row, tt.col, tt.player, st, err, before.Status(), tt.want)
				}
			}
			if !reflect.DeepEqual(g, before) {
				t.Errorf("Play(%d,%d,%d) changed the game", tt.row, tt.col, tt.player)
			}
		})
	}
}

func TestMoveErrorText(t *testing.T) {
	g := newGame(t, 3)
	playAll(t, g, Cell{1, 2})
	_, err := g.Move(1, 2, 2)
	if got, want := fmt.Sprint(err), "move 1,2: game: cell occupied"; got != want {
		t.Errorf("Move(1,2,2) error = %q; want %q", got, want)
	}
}

// TestWorkedExample is the example of the problem, with the status,
// winner, turn and winning line after every move.
func TestWorkedExample(t *testing.T) {
	g := newGame(t, 3)
	steps := []struct {
		row, col, player, want int
		status                 Status
		turn                   Player
	}{
		{0, 0, 1, 0, InProgress, O},
		{0, 2, 2, 0, InProgress, X},
		{2, 2, 1, 0, InProgress, O},
		{1, 1, 2, 0, InProgress, X},
		{2, 0, 1, 0, InProgress, O},
		{1, 0, 2, 0, InProgress, X},
		{2, 1, 1, 1, Won, None},
	}
	for _, s := range steps {
		w, err := g.Move(s.row, s.col, s.player)
		if w != s.want || err != nil {
			t.Fatalf("Move(%d,%d,%d) = %d, %v; want %d, nil", s.row, s.col, s.player, w, err, s.want)
		}
		if g.Status() != s.status || g.Turn() != s.turn {
			t.Fatalf("after Move(%d,%d,%d): Status, Turn = %v, %v; want %v, %v", s.row, s.col, s.player, g.Status(), g.Turn(), s.status, s.turn)
		}
	}
	if got, want := g.WinLine(), []Cell{{2, 0}, {2, 1}, {2, 2}}; !slices.Equal(got, want) {
		t.Errorf("WinLine() = %v; want %v", got, want)
	}
	if g.Winner() != X {
		t.Errorf("Winner() = %v; want X", g.Winner())
	}
}

// TestDecidedDraw plays a 3×3 game that nobody can win any more after
// seven moves, on to the full board.
func TestDecidedDraw(t *testing.T) {
	g := newGame(t, 3)
	// O X O
	// X X O
	// X O X
	moves := []struct {
		c      Cell
		status Status
	}{
		{Cell{1, 1}, InProgress}, // X takes the centre here
		{Cell{0, 0}, InProgress},
		{Cell{2, 2}, InProgress},
		{Cell{0, 2}, InProgress},
		{Cell{0, 1}, InProgress},
		{Cell{2, 1}, InProgress},
		{Cell{1, 0}, InProgress},
		{Cell{1, 2}, DecidedDraw}, // only (2,0) left: X can no longer make a line
		{Cell{2, 0}, Draw},
	}
	for i, m := range moves {
		p := g.Turn()
		st, err := g.Play(m.c.Row, m.c.Col, p)
		if st != m.status || err != nil {
			t.Fatalf("move %d: Play(%d,%d,%v) = %v, %v; want %v, nil", i, m.c.Row, m.c.Col, p, st, err, m.status)
		}
		if got, want := st.Decided(), m.status != InProgress; got != want {
			t.Errorf("%v.Decided() = %v; want %v", st, got, want)
		}
	}
	if g.Winner() != None || g.Turn() != None || g.WinLine() != nil {
		t.Errorf("after a draw: Winner, Turn, WinLine = %v, %v, %v; want none, none, nil", g.Winner(), g.Turn(), g.WinLine())
	}
}

// TestDecidedDrawEarly: a decided draw is found with cells still empty,
// the judge keeps accepting moves (turns alternating), and the status ends
// as Draw when the board fills.
func TestDecidedDrawEarly(t *testing.T) {
	g := newGame(t, 4)
	// After these 12 moves every row, column and diagonal holds both marks:
	// X X X O
	// O O O X
	// X O . .
	// X O . .
	xs := []Cell{{0, 0}, {0, 1}, {0, 2}, {1, 3}, {2, 0}, {3, 0}}
	os := []Cell{{1, 1}, {1, 2}, {0, 3}, {1, 0}, {2, 1}, {3, 1}}
	for i := range xs {
		for j, c := range []Cell{xs[i], os[i]} {
			st, err := g.Play(c.Row, c.Col, g.Turn())
			if err != nil {
				t.Fatalf("Play(%d,%d) = %v", c.Row, c.Col, err)
			}
			last := i == len(xs)-1 && j == 1
			if got, want := st, map[bool]Status{false: InProgress, true: DecidedDraw}[last]; got != want {
				t.Fatalf("Play(%d,%d) = %v; want %v", c.Row, c.Col, got, want)
			}
		}
	}
	if g.Turn() != X {
		t.Fatalf("Turn() = %v; want X", g.Turn())
	}
	playAll(t, g, Cell{2, 2}, Cell{2, 3}, Cell{3, 3})
	if g.Status() != DecidedDraw || g.Turn() != O {
		t.Fatalf("Status, Turn = %v, %v; want %v, O", g.Status(), g.Turn(), DecidedDraw)
	}
	playAll(t, g, Cell{3, 2})
	if g.Status() != Draw || g.Turn() != None {
		t.Fatalf("Status, Turn = %v, %v; want %v, none", g.Status(), g.Turn(), Draw)
	}
}

func TestWinLine(t *testing.T) {
	tests := []struct {
		name  string
		n, k  int
		moves []Cell // alternating from X; the last one wins
		want  []Cell
	}{
		{"row", 3, 3, []Cell{{1, 0}, {0, 0}, {1, 1}, {0, 1}, {1, 2}}, []Cell{{1, 0}, {1, 1}, {1, 2}}},
		{"column", 3, 3, []Cell{{0, 2}, {0, 0}, {1, 2}, {0, 1}, {2, 2}}, []Cell{{0, 2}, {1, 2}, {2, 2}}},
		{"diagonal", 3, 3, []Cell{{2, 2}, {0, 1}, {0, 0}, {0, 2}, {1, 1}}, []Cell{{0, 0}, {1, 1}, {2, 2}}},
		{"anti-diagonal", 3, 3, []Cell{{1, 1}, {0, 0}, {2, 0}, {0, 1}, {0, 2}}, []Cell{{0, 2}, {1, 1}, {2, 0}}},
		{"row and column at once: row first", 3, 3,
			[]Cell{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {1, 2}, {2, 0}, {2, 2}, {2, 1}, {0, 2}}, []Cell{{0, 0}, {0, 1}, {0, 2}}},
		{"1x1", 1, 1, []Cell{{0, 0}}, []Cell{{0, 0}}},
		{"k=1", 5, 1, []Cell{{3, 4}}, []Cell{{3, 4}}},
		{"k=4 row", 7, 4, []Cell{{3, 1}, {0, 0}, {3, 2}, {0, 2}, {3, 3}, {0, 4}, {3, 4}}, []Cell{{3, 1}, {3, 2}, {3, 3}, {3, 4}}},
		{"k=4 filling a gap of a run of 5: first 4 cells", 7, 4,
			[]Cell{{2, 0}, {0, 0}, {2, 1}, {0, 2}, {2, 3}, {0, 4}, {2, 4}, {6, 6}, {2, 2}}, []Cell{{2, 0}, {2, 1}, {2, 2}, {2, 3}}},
		{"k=4 column at the bottom edge", 7, 4, []Cell{{6, 6}, {0, 0}, {5, 6}, {0, 2}, {3, 6}, {0, 4}, {4, 6}}, []Cell{{3, 6}, {4, 6}, {5, 6}, {6, 6}}},
		{"k=3 diagonal", 6, 3, []Cell{{3, 3}, {0, 5}, {5, 5}, {1, 5}, {4, 4}}, []Cell{{3, 3}, {4, 4}, {5, 5}}},
		{"k=3 anti-diagonal", 6, 3, []Cell{{0, 5}, {5, 5}, {2, 3}, {5, 4}, {1, 4}}, []Cell{{0, 5}, {1, 4}, {2, 3}}},
		{"O wins", 4, 4, []Cell{{0, 0}, {0, 3}, {1, 1}, {1, 2}, {3, 1}, {2, 1}, {1, 0}, {3, 0}}, []Cell{{0, 3}, {1, 2}, {2, 1}, {3, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGame(t, tt.n, WinLength(tt.k))
			for i, c := range tt.moves {
				p := g.Turn()
				st, err := g.Play(c.Row, c.Col, p)
				if err != nil {
					t.Fatalf("Play(%d,%d,%v) = %v", c.Row, c.Col, p, err)
				}
				if got, want := st == Won, i == len(tt.moves)-1; got != want {
					t.Fatalf("move %d Play(%d,%d,%v) = %v; want won only at the last move", i, c.Row, c.Col, p, st)
				}
			}
			if got := g.WinLine(); !slices.Equal(got, tt.want) {
				t.Errorf("WinLine() = %v; want %v", got, tt.want)
			}
			last, _ := g.LastMove()
			if g.Winner() != last.Player {
				t.Errorf("Winner() = %v; want %v", g.Winner(), last.Player)
			}
			// WinLine returns a copy.
			g.WinLine()[0] = Cell{-1, -1}
			if got := g.WinLine(); !slices.Equal(got, tt.want) {
				t.Errorf("WinLine() after changing a returned slice = %v; want %v", got, tt.want)
			}
		})
	}
}

// TestLargeBoards plays to a win on the largest board, with k = n and k = 5.
func TestLargeBoards(t *testing.T) {
	g := newGame(t, MaxSize)
	for c := range MaxSize - 1 {
		playAll(t, g, Cell{0, c}, Cell{1 + c%(MaxSize-1), (c + 1) % MaxSize})
	}
	if g.Status() != InProgress {
		t.Fatalf("Status() = %v; want %v", g.Status(), InProgress)
	}
	playAll(t, g, Cell{0, MaxSize - 1})
	if g.Status() != Won || g.Winner() != X || len(g.WinLine()) != MaxSize || g.WinLine()[MaxSize-1] != (Cell{0, MaxSize - 1}) {
		t.Errorf("after X fills row 0: Status %v, Winner %v, len(WinLine) %d; want won, X, %d", g.Status(), g.Winner(), len(g.WinLine()), MaxSize)
	}

	g = newGame(t, MaxSize, WinLength(5))
	playAll(t, g, Cell{999, 995}, Cell{0, 0}, Cell{998, 996}, Cell{0, 1}, Cell{997, 997}, Cell{0, 2}, Cell{996, 998}, Cell{0, 3}, Cell{995, 999})
	if want := []Cell{{995, 999}, {996, 998}, {997, 997}, {998, 996}, {999, 995}}; g.Status() != Won || !slices.Equal(g.WinLine(), want) {
		t.Errorf("Status, WinLine = %v, %v; want won, %v", g.Status(), g.WinLine(), want)
	}
}

// TestMoveAllocs checks that a move allocates nothing once the history has
// room (for k = n and k < n).
func TestMoveAllocs(t *testing.T) {
	for _, k := range []int{100, 5} {
		seq := drawSequence(100)
		if k < 100 {
			seq = noRunSequence(100)
		}
		g := newGame(t, 100, WinLength(k))
		i := 0
		allocs := testing.AllocsPerRun(200, func() {
			c := seq[i]
			g.Move(c.Row, c.Col, int(g.Turn()))
			i++
		})
		if allocs != 0 {
			t.Errorf("k=%d: allocations per Move = %v; want 0", k, allocs)
		}
	}
}

// TestHistoryReplay plays random games — valid and invalid moves — and
// checks History, Len, LastMove, that Replay of the history gives the same
// game, and that Replay rejects a rejected move with the same error.
func TestHistoryReplay(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 48))
	for game := range 300 {
		n := 1 + r.IntN(7)
		k := 1 + r.IntN(n)
		first := Player(1 + r.IntN(2))
		opts := []Option{WinLength(k), FirstPlayer(first)}
		g := newGame(t, n, opts...)
		var want []Move
		for range 3 * n * n {
			m := Move{Row: r.IntN(n+2) - 1, Col: r.IntN(n+2) - 1, Player: g.Turn()}
			if r.IntN(8) == 0 {
				m.Player = Player(r.IntN(4))
			}
			_, err := g.Play(m.Row, m.Col, m.Player)
			// Replaying the history with this move appended fails exactly
			// when the move failed, with the same sentinel, at its index.
			h := append(g.History(), m)
			if err == nil {
				want = append(want, m)
				h = g.History()
			}
			rg, rerr := Replay(n, h, opts...)
			switch {
			case err == nil && (rerr != nil || !reflect.DeepEqual(rg, g)):
				t.Fatalf("game %d: Replay(%v) = %+v, %v; want %+v, nil", game, h, rg, rerr, g)
			case err != nil:
				wantText := fmt.Sprintf("replay move %d: %v", len(h)-1, errors.Unwrap(err))
				if rg != nil || rerr == nil || errors.Unwrap(rerr) != errors.Unwrap(err) || rerr.Error() != wantText {
					t.Fatalf("game %d: Replay(%v) = %v, %v; want nil, %q", game, h, rg, rerr, wantText)
				}
			}
		}
		if got := g.History(); !slices.Equal(got, want) {
			t.Fatalf("History() = %v; want %v", got, want)
		}
		if g.Len() != len(want) {
			t.Fatalf("Len() = %d; want %d", g.Len(), len(want))
		}
		if last, ok := g.LastMove(); ok != (len(want) > 0) || ok && last != want[len(want)-1] {
			t.Fatalf("LastMove() = %v, %v; want the last of %v", last, ok, want)
		}
	}
}

func TestReplayErrors(t *testing.T) {
	h := []Move{{0, 0, X}, {1, 1, O}, {0, 1, X}, {1, 1, X}}
	g, err := Replay(3, h)
	if g != nil || !errors.Is(err, ErrNotYourTurn) {
		t.Errorf("Replay(%v) = %v, %v; want nil, %v", h, g, err, ErrNotYourTurn)
	}
	h[3].Player = O
	g, err = Replay(3, h)
	if want := "replay move 3: game: cell occupied"; g != nil || !errors.Is(err, ErrOccupied) || err.Error() != want {
		t.Errorf("Replay(%v) = %v, %v; want nil, %q", h, g, err, want)
	}
	// The first player is an option, not guessed from the history.
	h = []Move{{0, 0, O}}
	if _, err := Replay(3, h); !errors.Is(err, ErrNotYourTurn) {
		t.Errorf("Replay(%v) = %v; want %v", h, err, ErrNotYourTurn)
	}
	if _, err := Replay(3, h, FirstPlayer(O)); err != nil {
		t.Errorf("Replay(%v, FirstPlayer(O)) = %v; want nil", h, err)
	}
	if _, err := Replay(0, nil); !errors.Is(err, ErrSize) {
		t.Errorf("Replay(0, nil) = %v; want %v", err, ErrSize)
	}
}

func TestCloneAndReset(t *testing.T) {
	for _, k := range []int{5, 3} {
		g := newGame(t, 5, WinLength(k), FirstPlayer(O))
		playAll(t, g, Cell{0, 0}, Cell{1, 1}, Cell{2, 2})
		c := g.Clone()
		if !reflect.DeepEqual(c, g) {
			t.Fatalf("k=%d: Clone() = %+v; want %+v", k, c, g)
		}
		snapshot := g.Clone()
		playAll(t, c, Cell{3, 3}, Cell{4, 4})
		if !reflect.DeepEqual(g, snapshot) {
			t.Errorf("k=%d: moves on a clone changed the original", k)
		}
		playAll(t, g, Cell{0, 4})
		if c.At(0, 4) != None || c.Len() != 5 {
			t.Errorf("k=%d: a move on the original changed the clone", k)
		}
		c.Reset()
		if fresh := newGame(t, 5, WinLength(k), FirstPlayer(O)); !reflect.DeepEqual(c, fresh) {
			t.Errorf("k=%d: Reset() = %+v; want %+v", k, c, fresh)
		}
	}
}

// TestRandomGamesAgainstOracle plays 50 random games for every n from 1 to
// 9 and every k, comparing the judge with the oracle after every move (a
// quick complement to FuzzMove in every test run).
func TestRandomGamesAgainstOracle(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 5))
	decidedEarly := 0
	for n := 1; n <= 9; n++ {
		for k := 1; k <= n; k++ {
			for range 50 {
				g := newGame(t, n, WinLength(k))
				o := newOracle(n, k, X)
				for !g.Status().over() {
					c := randomCell(g, r)
					p := int(g.Turn())
					gw, gerr := g.Move(c.Row, c.Col, p)
					ow, oerr := o.move(c.Row, c.Col, p)
					checkAgainst(t, func() string { return fmt.Sprintf("n=%d k=%d %v", n, k, g.History()) }, g, nil, o, gw, gerr, ow, oerr)
					if g.Status() == DecidedDraw && k < n && g.Len() < n*n-1 {
						decidedEarly++
					}
				}
			}
		}
	}
	if decidedEarly == 0 {
		t.Errorf("no random game with k < n reached a decided draw before the last two moves")
	}
}

func TestStrings(t *testing.T) {
	tests := []struct{ got, want string }{
		{None.String(), "none"}, {X.String(), "X"}, {O.String(), "O"}, {Player(9).String(), "Player(9)"},
		{InProgress.String(), "in progress"}, {Won.String(), "won"}, {Draw.String(), "draw"},
		{DecidedDraw.String(), "decided draw"}, {Status(9).String(), "Status(9)"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("String() = %q; want %q", tt.got, tt.want)
		}
	}
	for _, p := range []struct{ p, want Player }{{X, O}, {O, X}, {None, None}, {7, None}} {
		if got := p.p.Other(); got != p.want {
			t.Errorf("%v.Other() = %v; want %v", p.p, got, p.want)
		}
	}
	for s, want := range map[Status]bool{InProgress: false, Won: true, Draw: true, DecidedDraw: true} {
		if got := s.Decided(); got != want {
			t.Errorf("%v.Decided() = %v; want %v", s, got, want)
		}
	}
}

func TestAt(t *testing.T) {
	g := newGame(t, 3)
	playAll(t, g, Cell{2, 1}, Cell{0, 0})
	tests := []struct {
		row, col int
		want     Player
	}{{2, 1, X}, {0, 0, O}, {1, 1, None}, {-1, 0, None}, {0, 3, None}, {3, 0, None}, {0, -1, None}}
	for _, tt := range tests {
		if got := g.At(tt.row, tt.col); got != tt.want {
			t.Errorf("At(%d,%d) = %v; want %v", tt.row, tt.col, got, tt.want)
		}
	}
}

// TestImportsArePure keeps the package free of I/O, clocks and Discord: its
// (non-test) imports must be on this list.
func TestImportsArePure(t *testing.T) {
	allowed := map[string]bool{
		"errors": true, "fmt": true, "math": true, "math/bits": true, "math/rand/v2": true,
		"slices": true, "strconv": true, "strings": true,
	}
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkg.GoFiles) == 0 {
		t.Fatal("no Go files found")
	}
	for _, imp := range pkg.Imports {
		if !allowed[imp] {
			t.Errorf("package game imports %q; allowed: only pure standard packages %v", imp, slices.Sorted(maps.Keys(allowed)))
		}
	}
}
