package game

import "slices"

// This file holds the exact search of Hard: a negamax alpha-beta search
// with a transposition table over win, draw and loss, used on every board
// up to 4×4 and on larger boards once few cells are empty.

// Limits of the exact search.
//
// On boards of at most exactAlways rows it always runs to the end: the
// largest tree, the empty 4×4 board with k = 4, takes about 160,000 nodes
// (under 30 ms, see BenchmarkComputerMove). On boards of up to exactSize
// rows it is tried once at most exactEmpty cells are empty, and abandoned
// for the heuristic search after exactNodes nodes (about 15 ms), so that a
// move stays in the budget of [ComputerMove] whatever the position. A node costs O(k) for each of the
// few windows through the cells it looks at.
const (
	exactAlways = 4
	exactSize   = 16
	exactEmpty  = 14
	exactNodes  = 50_000
	maxTT       = 1 << 17 // slots of the transposition table: 1 MB
)

// Values of a position for the player to move, under perfect play.
const (
	lossValue int8 = -1
	drawValue int8 = 0
	winValue  int8 = 1
)

// solver searches the game tree to the end. The windows that either
// player can still complete are numbered; a position is hashed (Zobrist)
// into a transposition table of bounds.
type solver struct {
	n, k  int
	board []Player // a copy of the game's board, changed during the search

	// The windows through cell i that were winnable at the root are
	// wins[start[i]:start[i+1]]; cnt[w] counts X's ([0]) and O's ([1])
	// marks in window w; open[p-1] is the number of windows p can still
	// complete (no mark of the other player), live the number either can.
	start []int32
	wins  []int32
	cnt   [][2]uint8
	open  [2]int
	live  int

	empties []int // the cells empty at the root, in a fixed order
	hash    uint64
	tt      []ttEntry

	nodes, limit int // nodes searched; the search gives up beyond limit
	aborted      bool

	order [][]int // scratch move lists, one per depth
}

// ttEntry is a transposition table slot, 8 bytes: the high 56 bits of the
// position's hash, the kind of bound (bits 2-3: 0 for an empty slot,
// ttExact, ttLower or ttUpper) and the value plus one (bits 0-1).
type ttEntry uint64

const (
	ttExact = 1 + iota
	ttLower
	ttUpper
)

// ttFlag says what a search result best, found in the window (alpha0,
// beta), tells of the position: its exact value, or only an upper or a
// lower bound.
func ttFlag[V int8 | int32](best, alpha0, beta V) uint8 {
	switch {
	case best <= alpha0:
		return ttUpper
	case best >= beta:
		return ttLower
	}
	return ttExact
}

const ttKeyMask = ^uint64(0xff)

func newEntry(hash uint64, val int8, flag uint8) ttEntry {
	return ttEntry(hash&ttKeyMask | uint64(flag)<<2 | uint64(val+1))
}

// probe returns the bound stored for hash, if any.
func (t ttEntry) probe(hash uint64) (val int8, flag uint8) {
	if uint64(t)&ttKeyMask != hash&ttKeyMask {
		return 0, 0
	}
	return int8(t&3) - 1, uint8(t >> 2 & 3)
}

// zobrist returns the hash key of p's mark on cell i: splitmix64 of the
// pair, so that no table of keys is needed on a board of a million cells.
func zobrist(i int, p Player) uint64 {
	z := uint64(i)<<1 | uint64(p&1)
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// newSolver prepares the exact search of g, giving up after limit nodes
// (limit <= 0: never).
func newSolver(g *Judge, limit int) *solver {
	n, k := g.n, g.k
	s := &solver{n: n, k: k, board: slices.Clone(g.board), limit: limit}
	s.empties = make([]int, 0, len(g.board)-len(g.hist))
	for i, p := range g.board {
		if p == None {
			s.empties = append(s.empties, i)
		} else {
			s.hash ^= zobrist(i, p)
		}
	}
	// Number the windows that neither player has blocked; the others can
	// never be completed and play no part in the search.
	type window struct{ first, step int }
	ws := make([]window, 0, 4*n*n)
	s.cnt = make([][2]uint8, 0, 4*n*n)
	for r := range n {
		for c := range n {
			for _, d := range dirs {
				er, ec := r+(k-1)*d.dr, c+(k-1)*d.dc
				if er < 0 || er >= n || ec < 0 || ec >= n {
					continue
				}
				w := window{r*n + c, d.dr*n + d.dc}
				var cnt [2]uint8
				for j := range k {
					if p := g.board[w.first+j*w.step]; p != None {
						cnt[p-1]++
					}
				}
				if cnt[0] > 0 && cnt[1] > 0 {
					continue
				}
				ws = append(ws, w)
				s.cnt = append(s.cnt, cnt)
				if cnt[1] == 0 {
					s.open[0]++
				}
				if cnt[0] == 0 {
					s.open[1]++
				}
			}
		}
	}
	s.live = len(ws)
	// List the windows through each cell in one array: count, then fill.
	s.start = make([]int32, len(g.board)+1)
	for _, w := range ws {
		for j := range k {
			s.start[w.first+j*w.step+1]++
		}
	}
	for i := range g.board {
		s.start[i+1] += s.start[i]
	}
	s.wins = make([]int32, s.start[len(g.board)])
	fill := slices.Clone(s.start[:len(g.board)])
	for x, w := range ws {
		for j := range k {
			i := w.first + j*w.step
			s.wins[fill[i]] = int32(x)
			fill[i]++
		}
	}
	e := len(s.empties)
	buf := make([]int, (e+1)*e)
	s.order = make([][]int, e+1)
	for d := range s.order {
		s.order[d] = buf[d*e : d*e : (d+1)*e]
	}
	return s
}

// place puts p's mark on cell i, or removes it (p = None after it was
// old's), keeping the window counts and the hash.
func (s *solver) place(i int, p Player) {
	s.board[i] = p
	s.hash ^= zobrist(i, p)
	for _, w := range s.wins[s.start[i]:s.start[i+1]] {
		c := &s.cnt[w]
		c[p-1]++
		if c[p-1] == 1 {
			// The window is no longer the other player's to complete.
			if c[2-p] > 0 {
				s.live--
			} else {
				s.open[2-p]--
			}
		}
	}
}

func (s *solver) remove(i int, p Player) {
	s.board[i] = None
	s.hash ^= zobrist(i, p)
	for _, w := range s.wins[s.start[i]:s.start[i+1]] {
		c := &s.cnt[w]
		c[p-1]--
		if c[p-1] == 0 {
			if c[2-p] > 0 {
				s.live++
			} else {
				s.open[2-p]++
			}
		}
	}
}

// rate orders the moves of p: a cell counts the windows through it that
// p or the opponent could still complete, weighted by how full they are.
func (s *solver) rate(i int, p Player) int {
	v := 0
	for _, w := range s.wins[s.start[i]:s.start[i+1]] {
		c := s.cnt[w]
		mine, theirs := int(c[p-1]), int(c[2-p])
		switch {
		case theirs == 0:
			v += 2 << (2 * mine)
		case mine == 0:
			v += 1 << (2 * theirs)
		}
	}
	return v
}

// moves returns the moves of p to search at depth d, best first, and its
// value if the position is decided without searching: a win at once (the
// list holds the winning cell), a loss to two threats (the list holds one
// of them to block), or a draw when no window can be completed or the
// board is full (an empty list). One pass over the windows through each
// empty cell finds wins, blocks and the rating of rate.
func (s *solver) moves(p Player, d int) ([]int, int8, bool) {
	if s.live == 0 {
		return nil, drawValue, true
	}
	k1 := uint8(s.k - 1)
	me, op := p-1, 2-p
	block, blocks := -1, 0
	list := s.order[d][:0]
	var buf [exactEmpty + 2]int
	rates := buf[:0]
	for _, i := range s.empties {
		if s.board[i] != None {
			continue
		}
		v, threat := 0, false
		for _, w := range s.wins[s.start[i]:s.start[i+1]] {
			c := s.cnt[w]
			mine, theirs := c[me], c[op]
			switch {
			case theirs == 0:
				if mine == k1 {
					return append(list[:0], i), winValue, true
				}
				v += 2 << (2 * mine)
			case mine == 0:
				threat = threat || theirs == k1
				v += 1 << (2 * theirs)
			}
		}
		if threat {
			block = i
			blocks++
		}
		list = append(list, i)
		rates = append(rates, v)
	}
	switch {
	case len(list) == 0:
		return nil, drawValue, true
	case blocks > 1:
		return append(list[:0], block), lossValue, true
	case blocks == 1:
		list = append(list[:0], block)
	default:
		// Insertion sort by rating: at most a few dozen cells.
		for a := 1; a < len(list); a++ {
			for b := a; b > 0 && rates[b] > rates[b-1]; b-- {
				rates[b], rates[b-1] = rates[b-1], rates[b]
				list[b], list[b-1] = list[b-1], list[b]
			}
		}
	}
	s.order[d] = list
	return list, 0, false
}

// negamax returns the value of the position for p to move, searched with
// the window (alpha, beta): exact inside it, a bound outside (fail-soft).
func (s *solver) negamax(p Player, d int, alpha, beta int8) int8 {
	s.nodes++
	if s.limit > 0 && s.nodes > s.limit {
		s.aborted = true
		return drawValue
	}
	if s.tt == nil {
		// About two slots a node: the tree grows about threefold with
		// each empty cell, to 160,000 nodes on the empty 4×4 board.
		size := 1 << 6
		for size < maxTT && size < 1<<(len(s.empties)+1) {
			size <<= 1
		}
		s.tt = make([]ttEntry, size)
	}
	e := &s.tt[s.hash&uint64(len(s.tt)-1)]
	switch val, flag := e.probe(s.hash); flag {
	case ttExact:
		return val
	case ttLower:
		if alpha = max(alpha, val); alpha >= beta {
			return val
		}
	case ttUpper:
		if beta = min(beta, val); alpha >= beta {
			return val
		}
	}
	// A player without a window to complete cannot win: the value is at
	// most a draw for p if p has none, at least one if the opponent has
	// none.
	if s.open[p-1] == 0 {
		if beta = min(beta, drawValue); alpha >= beta {
			return drawValue
		}
	}
	if s.open[2-p] == 0 {
		if alpha = max(alpha, drawValue); alpha >= beta {
			return drawValue
		}
	}
	list, v, done := s.moves(p, d)
	if done {
		*e = newEntry(s.hash, v, ttExact)
		return v
	}
	a0 := alpha
	best := lossValue - 1
	for _, i := range list {
		s.place(i, p)
		v := -s.negamax(p.Other(), d+1, -beta, -alpha)
		s.remove(i, p)
		if s.aborted {
			return drawValue
		}
		best = max(best, v)
		alpha = max(alpha, v)
		if alpha >= beta {
			break
		}
	}
	flag := ttFlag(best, a0, beta)
	// The table is indexed by the hash, so the slot is still e.
	*e = newEntry(s.hash, best, flag)
	return best
}

// solve returns a move that keeps the value of the position for the player
// to move (a win stays a win, a draw a draw), the best such move by the
// ordering, and false if the search gave up after its node limit. Among
// equally rated moves the order, and so the choice, is random.
func (e *engine) solve(limit int) (int, bool) {
	s := newSolver(e.g, limit)
	p := e.me
	list, _, done := s.moves(p, 0)
	if done {
		if len(list) == 0 {
			return -1, true // no window left: any cell will do
		}
		return list[0], true
	}
	list = slices.Clone(list)
	// Shuffle moves of equal rating, so that Hard varies its play.
	rates := make([]int, len(list))
	for j, i := range list {
		rates[j] = s.rate(i, p)
	}
	for a := 0; a < len(list); {
		b := a + 1
		for b < len(list) && rates[b] == rates[a] {
			b++
		}
		e.r.Shuffle(b-a, func(x, y int) { list[a+x], list[a+y] = list[a+y], list[a+x] })
		a = b
	}
	best, bestV := list[0], lossValue-1
	alpha, beta := lossValue-1, winValue+1
	for _, i := range list {
		s.place(i, p)
		v := -s.negamax(p.Other(), 1, -beta, -alpha)
		s.remove(i, p)
		if s.aborted {
			return -1, false
		}
		if v > bestV {
			best, bestV = i, v
		}
		alpha = max(alpha, v)
		if v == winValue {
			break
		}
	}
	return best, true
}
