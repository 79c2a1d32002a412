package game

import "slices"

// This file holds the threat search of Hard on boards larger than the
// exact search handles, for 2 <= k <= maxSearchK < n: threats first (a win,
// a block, a forced win by fours), then iterative deepening alpha-beta over
// the cells near the play, bounded by a number of nodes rather than by a
// clock, so that a position always gets the same move.

// Budget of the threat search.
//
// searchNodes bounds the nodes of one move, alpha-beta and forced-win
// searches together: about 15 ms on one core of a 2024 server at 15×15,
// k = 5 (see BenchmarkComputerMove); the cost of a node grows as k², so
// the budget shrinks by that factor above k = 5. vcfDepth bounds the
// attacker's moves in a search of forced wins by fours. beamRoot and beam
// bound the moves searched at the root and below it, best first by the
// move ordering; forced replies are always searched.
const (
	maxSearchK  = 8
	searchNodes = 20_000
	vcfDepth    = 10
	// vcfCallNodes bounds one search of a forced win by fours.
	vcfCallNodes = 1_000
	maxPly       = 24
	beamRoot     = 16
	beam         = 8
)

// Scores of the threat search, for the player to move.
const (
	winScore = 1 << 28
	infScore = winScore + 1
	// A score beyond mateBound is a win or loss a known number of plies
	// away.
	mateBound = winScore - 1000
)

// searcher is one threat search.
type searcher struct {
	f     *field
	me    Player
	nodes int
	limit int // nodes of the whole search
	// vcfLimit stops forced-win searches at this many nodes, so that
	// alpha-beta keeps at least half the budget.
	vcfLimit int
	// callLimit stops the current forced-win search.
	callLimit int
	abort     bool
	tt        []searchEntry
	bufs      [maxPly + 2][]int // move lists by ply
	scores    [maxPly + 2][]int64
}

// searchEntry is a slot of the transposition table of the threat search.
type searchEntry struct {
	key   uint64
	score int32
	move  int32
	depth int8
	flag  uint8
}

// search picks the move of Hard by the threat search.
func (e *engine) search() int {
	g := e.g
	if len(g.hist) == 0 {
		return g.n/2*g.n + g.n/2
	}
	f := newField(g)
	k := g.k
	s := &searcher{f: f, me: e.me, limit: searchNodes * 25 / max(25, k*k)}
	s.vcfLimit = s.limit / 2
	i := s.root(e)
	r, c := f.cell(i).Row, f.cell(i).Col
	return r*g.n + c
}

// root returns the local cell to play.
func (s *searcher) root(e *engine) int {
	f, me := s.f, s.me
	opp := me.Other()
	var buf [4]int
	if w := f.winCells(me, 1, buf[:0]); len(w) > 0 {
		return w[0]
	}
	if w := f.winCells(opp, 2, buf[:0]); len(w) > 0 {
		return w[0] // block; with two threats the game is lost anyway
	}
	s.callLimit = s.limit / 4
	if m, ok := s.vcfRoot(me); ok {
		return m
	}
	moves, _ := s.order(me, 0, beamRoot)
	if len(moves) == 0 {
		return s.anyEmpty()
	}
	moves = slices.Clone(moves[:min(len(moves), beamRoot)])
	// Moves after which the opponent wins by fours lose; keep the others,
	// unless every move loses. A search that ran out of nodes proves
	// nothing, so such moves are kept only if no move is proven safe.
	safe, unsure := moves[:0:0], moves[:0:0]
	for _, m := range moves {
		f.play(m, me)
		s.callLimit = s.nodes + vcfCallNodes
		lost := s.vcf(opp, vcfDepth)
		f.unplay()
		switch {
		case lost:
		case s.nodes > s.callLimit || s.nodes > s.vcfLimit:
			unsure = append(unsure, m)
		default:
			safe = append(safe, m)
		}
	}
	if len(safe) == 0 {
		safe = unsure
	}
	if len(safe) > 0 {
		moves = safe
	}
	if len(moves) == 1 {
		return moves[0]
	}
	s.tt = make([]searchEntry, 1<<15)
	best := moves[0]
	scores := make([]int32, len(moves))
	for depth := 1; depth <= maxPly; depth++ {
		alpha := int32(-infScore)
		iterBest := -1
		for j, m := range moves {
			f.play(m, me)
			v := -s.negamax(opp, depth-1, 1, -infScore, -alpha)
			f.unplay()
			if s.abort {
				break
			}
			scores[j] = v
			if v > alpha {
				alpha, iterBest = v, j
			}
		}
		// An unfinished iteration still counts: the moves it searched
		// were searched fully, the previous best first.
		if iterBest >= 0 {
			best = moves[iterBest]
		}
		if s.abort || alpha >= mateBound || alpha <= -mateBound {
			break
		}
		// Search the best moves of this depth first at the next.
		sortByScore(moves, scores[:len(moves)], iterBest)
	}
	return best
}

// sortByScore moves the best move to the front and orders the rest by
// score, stable.
func sortByScore(moves []int, scores []int32, best int) {
	type ms struct {
		m int
		s int32
	}
	all := make([]ms, len(moves))
	for j := range moves {
		all[j] = ms{moves[j], scores[j]}
	}
	slices.SortStableFunc(all, func(a, b ms) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return 0
	})
	for j := range all {
		moves[j], scores[j] = all[j].m, all[j].s
	}
}

// anyEmpty returns some empty cell of the field (never needed while the
// marks leave a cell free near them).
func (s *searcher) anyEmpty() int {
	for i, v := range s.f.cells {
		if v == 0 {
			return i
		}
	}
	return -1
}

// order returns the candidate moves of p at ply, the best top first and in
// order: the empty cells within two of a mark, rated by how much they add
// to p's windows and take from the opponent's, threats first. The list is
// scratch space of the ply.
func (s *searcher) order(p Player, ply, top int) ([]int, []int64) {
	f := s.f
	me, op := int(p-1), int(2-p)
	list := s.bufs[ply][:0]
	sc := s.scores[ply][:0]
	for _, c := range f.cand {
		if f.cells[c] != 0 {
			continue
		}
		v := 4*int64(f.val[me][c]) + 3*int64(f.val[op][c])
		switch {
		case f.four[me][c] >= 2:
			v += 1 << 40 // a double four, or a four and more
		case f.four[op][c] >= 2:
			v += 1 << 36
		}
		if f.four[me][c] >= 1 && f.three[me][c] >= 2 {
			v += 1 << 34 // a four with a three
		}
		if f.three[me][c] >= 2 {
			v += 1 << 32 // a double three
		}
		if f.four[op][c] >= 1 && f.three[op][c] >= 2 || f.three[op][c] >= 2 {
			v += 1 << 31
		}
		list = append(list, int(c))
		sc = append(sc, v)
	}
	// Selection of the best top moves, in order; the rest stay unsorted.
	for a := range min(top, len(list)) {
		b := a
		for j := a + 1; j < len(list); j++ {
			if sc[j] > sc[b] {
				b = j
			}
		}
		sc[a], sc[b] = sc[b], sc[a]
		list[a], list[b] = list[b], list[a]
	}
	s.bufs[ply], s.scores[ply] = list, sc
	return list, sc
}

// eval rates the position for p to move, from the windows both players
// can still complete; the player to move gets the benefit of the tempo.
func (s *searcher) eval(p Player) int32 {
	f := s.f
	me, op := int(p-1), int(2-p)
	v := f.total[me]*3/2 - f.total[op]
	// Keep clear of the scores of wins.
	return int32(max(-mateBound+1, min(mateBound-1, v)))
}

// negamax returns the score of the position for p to move at ply, searched
// depth plies deep (threat replies do not count) within (alpha, beta).
func (s *searcher) negamax(p Player, depth, ply int, alpha, beta int32) int32 {
	f := s.f
	s.nodes++
	if s.nodes > s.limit {
		s.abort = true
		return 0
	}
	opp := p.Other()
	var buf [4]int
	if len(f.winCells(p, 1, buf[:0])) > 0 {
		return winScore - int32(ply)
	}
	threats := f.winCells(opp, 2, buf[:0])
	if len(threats) >= 2 {
		return -(winScore - int32(ply) - 1)
	}
	if ply >= maxPly {
		return s.eval(p)
	}
	if len(threats) == 1 {
		// The one move that does not lose at once; not counted as a ply
		// of depth.
		f.play(threats[0], p)
		v := -s.negamax(opp, depth, ply+1, -beta, -alpha)
		f.unplay()
		return v
	}
	if depth <= 0 {
		return s.eval(p)
	}
	// Transposition table.
	e := &s.tt[f.hash&uint64(len(s.tt)-1)]
	ttMove := -1
	if e.key == f.hash && e.flag != 0 {
		ttMove = int(e.move)
		if int(e.depth) >= depth {
			v := fromTT(e.score, ply)
			switch e.flag {
			case ttExact:
				return v
			case ttLower:
				alpha = max(alpha, v)
			case ttUpper:
				beta = min(beta, v)
			}
			if alpha >= beta {
				return v
			}
		}
	}
	moves, _ := s.order(p, ply, beam)
	if len(moves) == 0 {
		return 0
	}
	width := min(len(moves), beam)
	if ttMove >= 0 {
		// The best move found before is searched first.
		if j := slices.Index(moves, ttMove); j > 0 {
			copy(moves[1:j+1], moves[:j])
			moves[0] = ttMove
			if j >= width {
				width = min(len(moves), width+1)
			}
		}
	}
	a0 := alpha
	best, bestMove := int32(-infScore), moves[0]
	for _, m := range moves[:width] {
		f.play(m, p)
		v := -s.negamax(opp, depth-1, ply+1, -beta, -alpha)
		f.unplay()
		if s.abort {
			return 0
		}
		if v > best {
			best, bestMove = v, m
		}
		alpha = max(alpha, v)
		if alpha >= beta {
			break
		}
	}
	flag := ttFlag(best, a0, beta)
	*e = searchEntry{key: f.hash, score: toTT(best, ply), move: int32(bestMove), depth: int8(depth), flag: flag}
	return best
}

// toTT and fromTT store win and loss scores relative to the position, not
// to the root.
func toTT(v int32, ply int) int32 {
	switch {
	case v >= mateBound:
		return v + int32(ply)
	case v <= -mateBound:
		return v - int32(ply)
	}
	return v
}

func fromTT(v int32, ply int) int32 {
	switch {
	case v >= mateBound:
		return v - int32(ply)
	case v <= -mateBound:
		return v + int32(ply)
	}
	return v
}

// vcfRoot returns the first move of a win of p by fours, if there is one.
func (s *searcher) vcfRoot(p Player) (int, bool) {
	f := s.f
	var fours [64]int
	for _, m := range f.fourCells(p, fours[:0]) {
		f.play(m, p)
		var buf [4]int
		aw := f.winCells(p, 2, buf[:0])
		won := len(aw) >= 2
		if len(aw) == 1 {
			f.play(aw[0], p.Other())
			won = s.vcf(p, vcfDepth-1)
			f.unplay()
		}
		f.unplay()
		if won {
			return m, true
		}
	}
	return 0, false
}

// vcf reports whether a, to move, wins by a sequence of at most depth
// fours, each answered by the one reply that does not lose at once.
func (s *searcher) vcf(a Player, depth int) bool {
	f := s.f
	s.nodes++
	var buf [4]int
	if len(f.winCells(a, 1, buf[:0])) > 0 {
		return true
	}
	d := a.Other()
	dw := f.winCells(d, 2, buf[:0])
	if len(dw) >= 2 || depth <= 0 || s.nodes > s.vcfLimit || s.nodes > s.callLimit {
		return false
	}
	var moves []int
	var fours [64]int
	if len(dw) == 1 {
		if f.four[a-1][dw[0]] == 0 {
			return false // a must block, and the block is not a four
		}
		moves = append(fours[:0], dw[0])
	} else {
		moves = f.fourCells(a, fours[:0])
	}
	for _, m := range moves {
		f.play(m, a)
		aw := f.winCells(a, 2, buf[:0])
		won := len(aw) >= 2
		if len(aw) == 1 {
			f.play(aw[0], d)
			won = s.vcf(a, depth-1)
			f.unplay()
		}
		f.unplay()
		if won {
			return true
		}
	}
	return false
}
