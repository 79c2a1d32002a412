package game

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Level is the strength of the computer opponent. Its zero value is not a
// level: ComputerMove returns ErrLevel for it.
type Level uint8

const (
	// Easy takes an immediate win or blocks an immediate loss only half of
	// the time; otherwise it plays a random cell near the marks already on
	// the board (anywhere when k = n).
	Easy Level = iota + 1
	// Medium always takes an immediate win or blocks an immediate loss;
	// otherwise it plays the best cell by the heuristic, or one time in four
	// a random cell near the play.
	Medium
	// Hard plays perfectly on boards up to 4×4 (whatever the win length)
	// and, on boards up to 16×16, once few enough cells are empty for an
	// exact search to finish: it never turns a won or drawn position into
	// a worse one. With five in a row (k = 5 < n, gomoku) it plays as the
	// classical gomoku engines do (five.go): it rates every cell by the
	// patterns a mark there makes (fives, fours, threes, twos, in each
	// direction), takes a win, blocks one, plays a forced win by fours
	// (VCF) or by fours and threes (VCT) when it finds one, keeps to the
	// moves after which the opponent has no forced win by fours, answers
	// an open three, and otherwise looks ahead by a principal-variation
	// search. With other 2 <= k <= 8 < n it searches threats by counting
	// windows (search.go): it takes a win, blocks one, plays a forced win
	// by fours or, with k >= 4, by fours and threes, keeps to the moves
	// after which the opponent has none (checking every candidate, not
	// only the best rated), and otherwise looks ahead by iterative
	// deepening alpha-beta over the cells near the play. Every search is
	// bounded by a number of positions (fiveNodes, searchNodes), not by a
	// clock, so that a position always gets the same move. With k = n, or
	// k > 8, it plays the heuristic of Medium without the random moves,
	// and makes or stops double threats.
	Hard
)

// String returns "easy", "medium" or "hard" ("Level(n)" for invalid values).
func (l Level) String() string {
	switch l {
	case Easy:
		return "easy"
	case Medium:
		return "medium"
	case Hard:
		return "hard"
	}
	return "Level(" + strconv.Itoa(int(l)) + ")"
}

// ParseLevel returns the level named s ("easy", "medium" or "hard", in any
// case, surrounding spaces ignored), or an error wrapping ErrLevel.
func ParseLevel(s string) (Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "easy":
		return Easy, nil
	case "medium":
		return Medium, nil
	case "hard":
		return Hard, nil
	}
	return 0, fmt.Errorf("level %q: %w", s, ErrLevel)
}

// ComputerMove returns the cell the computer plays at level l for the
// player whose turn it is in g. It reads g and does not modify it, so it may
// run concurrently with other reads of g, but not with a move.
//
// It returns ErrGameOver if the game is Won or Draw, and ErrLevel for an
// unknown level. In a DecidedDraw it returns a random empty cell. Randomness
// comes only from r, so a seeded r makes games reproducible; a nil r stands
// for a fixed seed.
//
// Cost: Easy and Medium, with k < n, O(M·k) for M marks on the board (the
// candidates are the empty cells within two cells of a mark); with k = n
// the heuristic rates every empty cell from the line counters, O(n²) with
// a small constant (a few milliseconds at n = MaxSize). Hard's searches are
// bounded by node counts, not by a clock: at most about 160,000 positions
// for the exact search of the empty 4×4 board, exactNodes on larger
// boards, and fiveNodes (k = 5) or searchNodes for the searches on
// larger boards (whose board is the bounding box of the marks plus a
// margin, O(area) to set up): on one core of a 2-core server at 15×15
// with k = 5, about 20 ms a move on average and under 100 ms at worst, see
// BenchmarkHardGame and TestRapfi.
func ComputerMove(g *Judge, l Level, r *rand.Rand) (Cell, error) {
	if l < Easy || l > Hard {
		return Cell{}, fmt.Errorf("computer move: level %d: %w", l, ErrLevel)
	}
	if g.status.over() {
		return Cell{}, fmt.Errorf("computer move: %w", ErrGameOver)
	}
	if r == nil {
		r = rand.New(rand.NewPCG(0, 0))
	}
	var i int
	if g.status == DecidedDraw {
		i = randomEmpty(g, r)
	} else {
		i = newEngine(g, r).move(l)
	}
	if i < 0 || i >= len(g.board) || g.board[i] != None {
		// Unreachable while the judge's invariants hold (a game that is
		// not over has an empty cell); an error is kinder to a bot than a
		// panic in its event handler.
		return Cell{}, errors.New("game: computer move: no empty cell found (internal error)")
	}
	return Cell{i / g.n, i % g.n}, nil
}

// randomEmpty returns a uniformly random empty cell of g, or -1 if there
// is none.
func randomEmpty(g *Judge, r *rand.Rand) int {
	free := len(g.board) - len(g.hist)
	if free <= 0 {
		return -1
	}
	// Rejection sampling takes at most four tries on average while a
	// quarter of the board is free; after that, count.
	if 4*free >= len(g.board) {
		for {
			if i := r.IntN(len(g.board)); g.board[i] == None {
				return i
			}
		}
	}
	j := r.IntN(free)
	for i, p := range g.board {
		if p == None {
			if j == 0 {
				return i
			}
			j--
		}
	}
	return -1
}

// engine holds what one ComputerMove call needs.
type engine struct {
	g       *Judge
	r       *rand.Rand
	me, opp Player

	// attack[m] rates a move into a line or window holding m of my marks
	// and none of the opponent's; defend[t] a move into one holding t of
	// the opponent's marks and none of mine (which kills it). Weights grow
	// geometrically so that one window close to completion outweighs many
	// open ones.
	attack, defend []float64

	// k = n: what each line contributes to a cell on it.
	lines []lineInfo

	// k < n: scratch space for evalWindows.
	seg                 []uint8
	mineCell, theirCell []int
}

// lineInfo is what one row, column or diagonal contributes to the rating of
// an empty cell on it (k = n).
type lineInfo struct {
	score       float64
	win, block  bool // the cell completes the line for me / for the opponent
	mine, their bool // a mark here leaves me / the opponent one cell short
}

// cand is the rating of an empty cell.
type cand struct {
	cell       int
	win, block bool    // playing here wins / not playing here loses at once
	mine       int     // winning cells I would have after playing here
	their      int     // winning cells the opponent would have after playing here
	score      float64 // heuristic value, higher is better
}

// tier orders the kinds of moves of Hard: win, block, make a double threat,
// stop one, anything else. Medium uses only the score.
func (c *cand) tier(hard bool) int {
	switch {
	case c.win:
		return 4
	case c.block:
		return 3
	case !hard:
		return 0
	case c.mine >= 2:
		return 2
	case c.their >= 2:
		return 1
	}
	return 0
}

func newEngine(g *Judge, r *rand.Rand) *engine {
	e := &engine{g: g, r: r, me: g.Turn()}
	e.opp = e.me.Other()
	return e
}

// initHeuristic sets up the weights and scratch space of the heuristic,
// which Hard's exact search does without.
func (e *engine) initHeuristic() {
	g := e.g
	k := g.k
	// Keep base^k within float64 range for long lines.
	base := math.Min(8, math.Exp2(300/float64(k)))
	e.attack = make([]float64, k+1)
	e.defend = make([]float64, k+1)
	for m := range e.attack {
		w := math.Pow(base, float64(m))
		e.attack[m] = w
		e.defend[m] = 0.75 * w
	}
	e.defend[0] = 0 // an empty line has nothing to block
	if k == g.n {
		e.initLines()
	} else {
		e.seg = make([]uint8, 2*k-1)
	}
}

// move picks the cell for level l.
func (e *engine) move(l Level) int {
	if l == Hard {
		return e.hard()
	}
	e.initHeuristic()
	if e.g.k == e.g.n {
		return e.moveLines(l)
	}
	return e.moveWindows(l)
}

// hard picks the cell of Hard: the exact search where it fits, else the
// threat search for win lengths it handles, else the heuristic.
func (e *engine) hard() int {
	g := e.g
	free := len(g.board) - len(g.hist)
	if g.n <= exactAlways || g.n <= exactSize && free <= exactEmpty {
		limit := exactNodes
		if g.n <= exactAlways {
			limit = 0 // small enough to finish, always
		}
		if i, ok := e.solve(limit); ok && i >= 0 {
			return i
		}
	}
	if g.k == 5 && g.k < g.n {
		return e.searchFive()
	}
	if g.k >= 2 && g.k <= maxSearchK && g.k < g.n {
		return e.search()
	}
	e.initHeuristic()
	if g.k == g.n {
		return e.moveLines(Hard)
	}
	return e.moveWindows(Hard)
}

// moveWindows picks a cell when k < n: only cells within two of a mark are
// candidates, which covers every immediate win or block (the cell
// completing a window is next to one of its marks) and every double threat.
func (e *engine) moveWindows(l Level) int {
	cands := e.near(2)
	if l == Easy && e.r.IntN(2) == 0 {
		return cands[e.r.IntN(len(cands))]
	}
	evals := make([]cand, len(cands))
	for i, c := range cands {
		evals[i] = e.evalWindows(c)
	}
	if c, ok := urgent(evals); ok {
		return c
	}
	switch {
	case l == Easy, l == Medium && e.r.IntN(4) == 0:
		return cands[e.r.IntN(len(cands))]
	}
	return e.pick(evals, l == Hard)
}

// near returns the empty cells within Chebyshev distance d of a mark, in
// board order, and the centre when it is empty (so that the list is never
// empty on a board that is not full near the marks: then it falls back to
// every empty cell).
func (e *engine) near(d int) []int {
	g := e.g
	n := g.n
	seen := make([]uint64, (len(g.board)+63)/64)
	var cells []int
	add := func(i int) {
		if g.board[i] == None && seen[i/64]&(1<<(i%64)) == 0 {
			seen[i/64] |= 1 << (i % 64)
			cells = append(cells, i)
		}
	}
	add(n/2*n + n/2)
	for _, h := range g.hist {
		r0, c0 := int(h)/n, int(h)%n
		for r := max(0, r0-d); r <= min(n-1, r0+d); r++ {
			for c := max(0, c0-d); c <= min(n-1, c0+d); c++ {
				add(r*n + c)
			}
		}
	}
	if len(cells) == 0 {
		for i := range g.board {
			add(i)
		}
	}
	return cells
}

// urgent returns a winning cell if there is one, else a cell the opponent
// would win at, else false.
func urgent(evals []cand) (int, bool) {
	block := -1
	for i := range evals {
		if evals[i].win {
			return evals[i].cell, true
		}
		if evals[i].block && block < 0 {
			block = evals[i].cell
		}
	}
	return block, block >= 0
}

// pick returns the best candidate by tier (Hard) and score, ties broken at
// random.
func (e *engine) pick(evals []cand, hard bool) int {
	best, ties := -1, 0
	var bt int
	var bs float64
	for i := range evals {
		t, s := evals[i].tier(hard), evals[i].score
		switch {
		case best < 0 || t > bt || t == bt && s > bs:
			best, bt, bs, ties = i, t, s, 1
		case t == bt && s == bs:
			// Reservoir sampling: each of the tied cells ends up chosen
			// with equal probability.
			ties++
			if e.r.IntN(ties) == 0 {
				best = i
			}
		}
	}
	return evals[best].cell
}

// evalWindows rates the empty cell i when k < n by every length-k window
// through it, walking the 2k-1 cells around it in each direction once.
func (e *engine) evalWindows(i int) cand {
	g := e.g
	n, k := g.n, g.k
	r0, c0 := i/n, i%n
	c := cand{cell: i}
	e.mineCell, e.theirCell = e.mineCell[:0], e.theirCell[:0]
	seg := e.seg
	for _, d := range dirs {
		// seg[j] is the cell j-(k-1) steps along d: 0 empty, 1 mine,
		// 2 the opponent's, 3 off the board. seg[k-1] is cell i itself.
		for j := range seg {
			off := j - (k - 1)
			r, cc := r0+off*d.dr, c0+off*d.dc
			switch {
			case r < 0 || r >= n || cc < 0 || cc >= n:
				seg[j] = 3
			case g.board[r*n+cc] == None:
				seg[j] = 0
			case g.board[r*n+cc] == e.me:
				seg[j] = 1
			default:
				seg[j] = 2
			}
		}
		var cnt [4]int
		for _, v := range seg[:k] {
			cnt[v]++
		}
		for s := 0; ; s++ { // the window seg[s : s+k]
			if cnt[3] == 0 {
				m, t := cnt[1], cnt[2]
				switch {
				case t == 0:
					c.score += e.attack[m]
					if m == k-1 {
						c.win = true
					}
					if m == k-2 {
						e.mineCell = e.addThreat(e.mineCell, i, s, d.dr*n+d.dc)
					}
				case m == 0:
					c.score += e.defend[t]
					if t == k-1 {
						c.block = true
					}
					if t == k-2 {
						e.theirCell = e.addThreat(e.theirCell, i, s, d.dr*n+d.dc)
					}
				}
			}
			if s == k-1 {
				break
			}
			cnt[seg[s]]--
			cnt[seg[s+k]]++
		}
	}
	c.mine, c.their = len(e.mineCell), len(e.theirCell)
	return c
}

// addThreat adds to cells, unless already there, the empty cell other than
// i of the window seg[s:s+k] (which has exactly two empty cells): after a
// mark at i, that cell completes the window.
func (e *engine) addThreat(cells []int, i, s, step int) []int {
	k := e.g.k
	for j := s; j < s+k; j++ {
		if j == k-1 || e.seg[j] != 0 {
			continue
		}
		t := i + (j-(k-1))*step
		for _, x := range cells {
			if x == t {
				return cells
			}
		}
		return append(cells, t)
	}
	return cells
}

// initLines rates every line once (k = n), so that rating a cell is the sum
// of at most four entries.
func (e *engine) initLines() {
	g := e.g
	n := g.n
	me, opp := int(e.me-1), int(e.opp-1)
	e.lines = make([]lineInfo, len(g.lines))
	for l, c := range g.lines {
		m, t := int(c[me]), int(c[opp])
		li := &e.lines[l]
		switch {
		case t == 0:
			li.score = e.attack[m]
			li.win = m == n-1
			li.mine = m == n-2
		case m == 0:
			li.score = e.defend[t]
			li.block = t == n-1
			li.their = t == n-2
		}
	}
}

// evalLines rates the empty cell i when k = n from the lines through it.
func (e *engine) evalLines(i int) cand {
	n := e.g.n
	r, c := i/n, i%n
	ls := [4]int{r, n + c, -1, -1}
	if r == c {
		ls[2] = 2 * n
	}
	if r+c == n-1 {
		ls[3] = 2*n + 1
	}
	ev := cand{cell: i}
	for _, l := range ls {
		if l < 0 {
			continue
		}
		li := &e.lines[l]
		ev.score += li.score
		ev.win = ev.win || li.win
		ev.block = ev.block || li.block
		if li.mine {
			ev.mine++
		}
		if li.their {
			ev.their++
		}
	}
	return ev
}

// moveLines picks a cell when k = n.
func (e *engine) moveLines(l Level) int {
	g := e.g
	if l == Easy && e.r.IntN(2) == 0 {
		return randomEmpty(g, e.r)
	}
	if c, ok := e.urgentLines(); ok {
		return c
	}
	switch {
	case l == Easy, l == Medium && e.r.IntN(4) == 0:
		return randomEmpty(g, e.r)
	}
	return e.bestLines(l == Hard)
}

// urgentLines finds a winning or blocking cell from the line counters:
// O(n) to find the line, O(n) to find its empty cell.
func (e *engine) urgentLines() (int, bool) {
	block := -1
	for l := range e.lines {
		if e.lines[l].win {
			return e.emptyOn(l), true
		}
		if e.lines[l].block && block < 0 {
			block = l
		}
	}
	if block < 0 {
		return 0, false
	}
	return e.emptyOn(block), true
}

// emptyOn returns the first empty cell of line l (k = n), or -1 if it has
// none (never, when the counts say the line has room).
func (e *engine) emptyOn(l int) int {
	n := e.g.n
	start, step := 0, 0
	switch {
	case l < n:
		start, step = l*n, 1
	case l < 2*n:
		start, step = l-n, n
	case l == 2*n:
		start, step = 0, n+1
	default:
		start, step = n-1, n-1
	}
	for j := range n {
		if i := start + j*step; e.g.board[i] == None {
			return i
		}
	}
	return -1
}

// bestLines rates every empty cell (k = n) and returns the best, ties
// broken at random. It is the one O(n²) part of the opponent, kept to a
// few additions a cell.
func (e *engine) bestLines(hard bool) int {
	g := e.g
	n := g.n
	best, ties, bt := -1, 0, 0
	var bs float64
	for r := range n {
		row := g.board[r*n : r*n+n]
		rl := &e.lines[r]
		for c, p := range row {
			if p != None {
				continue
			}
			var t int
			var s float64
			if r == c || r+c == n-1 {
				ev := e.evalLines(r*n + c)
				t, s = ev.tier(hard), ev.score
			} else {
				cl := &e.lines[n+c]
				s = rl.score + cl.score
				if hard {
					switch {
					case rl.mine && cl.mine:
						t = 2
					case rl.their && cl.their:
						t = 1
					}
				}
			}
			switch {
			case best < 0 || t > bt || t == bt && s > bs:
				best, bt, bs, ties = r*n+c, t, s, 1
			case t == bt && s == bs:
				ties++
				if e.r.IntN(ties) == 0 {
					best = r*n + c
				}
			}
		}
	}
	return best
}
