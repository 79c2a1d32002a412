package game

import "slices"

// This file holds the threat search of Hard on boards larger than the
// exact search handles, for 2 <= k <= maxSearchK < n except k = 5 (five in
// a row has its own search, five.go): threats first (a win,
// a block, a forced win by fours or threes, see threat.go), then iterative
// deepening alpha-beta over the cells near the play, bounded by a number of
// nodes rather than by a clock, so that a position always gets the same
// move.

// Budget of the threat search.
//
// searchNodes bounds the nodes of one move, alpha-beta and threat searches
// together, as it was set for k = 5 before five.go took that over: a node
// costs about a microsecond at 15×15 with k = 5, so a move took about 25 ms
// on average and at most about 100 ms; the cost of a node grows as k², so
// the budget shrinks by that factor above k = 5 (BenchmarkHardGame times
// 7×7 with k = 4). Below k = 5 it is smallSearchNodes: the deeper search of the
// larger budget prefers a losing block in some 7×7 openings with k = 4.
// Of the budget, Hard's own forced wins by fours and by threats get a
// tenth and a quarter (searched shortest first, see shortestThreats), the
// opponent's a tenth as if Hard passed, and a
// third more when that finds a threat, to check the candidate moves (with
// their own transposition table); alpha-beta gets the rest. beamRoot and beam bound the moves
// searched at the root and below it, best first by the move ordering;
// forced replies are always searched.
const (
	maxSearchK       = 8
	searchNodes      = 32_000
	smallSearchNodes = 20_000
	maxPly           = 24
	beamRoot         = 16
	beam             = 6
	// Positions up to vctPly plies below the root where Hard is to move
	// are searched for its forced win by threats, vctLeafDepth threats
	// deep within vctLeafNodes nodes.
	vctPly       = 2
	vctLeafDepth = 4
	vctLeafNodes = 60
	// safeMinNodes is the least budget of a check of a move for safety,
	// while the budget lasts.
	safeMinNodes = 200
)

// Scores of the threat search, for the player to move.
const (
	winScore = 1 << 28
	infScore = winScore + 1
	// A score beyond mateBound is a win or loss a known number of plies
	// away.
	mateBound = winScore - 1000
	// threatScore rates a position where the player to move can make a
	// double and the other has no four to answer with: won in practice,
	// but not proven.
	threatScore = 1 << 24
)

// searcher is one threat search.
type searcher struct {
	f     *field
	me    Player
	nodes int
	limit int // nodes of the whole search
	abort bool
	// callLimit stops the current threat search, which sets spent.
	callLimit int
	spent     bool
	stack     []int // move lists of the threat search
	threatTT  []threatEntry
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
	limit := searchNodes * 25 / max(25, k*k)
	if k < 5 {
		limit = smallSearchNodes
	}
	s := &searcher{f: f, me: e.me, limit: limit}
	i := s.root()
	r, c := f.cell(i).Row, f.cell(i).Col
	return r*g.n + c
}

// root returns the local cell to play: a win, a block, a forced win by
// threats, else the best of the moves that do not let the opponent win by
// threats, by iterative deepening alpha-beta.
func (s *searcher) root() int {
	f, me := s.f, s.me
	opp := me.Other()
	var buf [4]int
	if w := f.winCells(me, 1, buf[:0]); len(w) > 0 {
		return w[0]
	}
	if w := f.winCells(opp, 2, buf[:0]); len(w) > 0 {
		return w[0] // block; with two threats the game is lost anyway
	}
	threes := f.k >= 4
	// My own forced wins, the shortest first.
	if m, won, _ := s.shortestThreats(me, vcfDepth, false, s.limit/10); won {
		return m
	}
	if threes {
		if m, won, _ := s.shortestThreats(me, vctDepth, true, s.limit/4); won {
			return m
		}
	}
	depth := vcfDepth
	if threes {
		depth = vctDepth
	}
	// The opponent's threats, as if I passed: a mark of mine never helps
	// the opponent, so without them no move of mine loses to threats.
	_, threat, unsure := s.threatSearch(opp, depth, threes, s.limit/10)
	moves, _ := s.order(me, 0, beamRoot)
	if len(moves) == 0 {
		return s.anyEmpty()
	}
	if threat || unsure {
		// Every candidate, best first: the one move that stops the
		// threats may rate low. My fours answer threats too.
		all, _ := s.order(me, 0, len(f.cand))
		all = slices.Clone(all)
		var fours [64]int
		for _, m := range f.fourCells(me, fours[:0]) {
			if !slices.Contains(all, m) {
				all = append(all, m)
			}
		}
		moves = s.safeMoves(all, depth, threes)
	} else {
		moves = slices.Clone(moves[:min(len(moves), beamRoot)])
	}
	if len(moves) == 1 {
		return moves[0]
	}
	s.tt = make([]searchEntry, 1<<14)
	return deepenRoot(moves, maxPly, func(m, depth int, alpha int32) (int32, bool) {
		f.play(m, me)
		v := -s.negamax(opp, depth-1, 1, -infScore, -alpha)
		f.unplay()
		return v, s.abort
	})
}

// deepenRoot searches the root moves by iterative deepening, 1 to
// maxDepth plies, and returns the best: value(m, depth, alpha) is the
// score of move m searched depth plies deep, where alpha is the best score
// of the moves before it in this iteration (a score not above it needs
// not be exact), and whether the nodes ran out, which ends the search. It
// stops at a proven win or loss. An unfinished iteration still counts:
// the moves it searched were searched fully, the previous best first.
// The moves are reordered, the best of each depth first at the next.
func deepenRoot(moves []int, maxDepth int, value func(m, depth int, alpha int32) (int32, bool)) int {
	best := moves[0]
	scores := make([]int32, len(moves))
	for depth := 1; depth <= maxDepth; depth++ {
		alpha := int32(-infScore)
		iterBest := -1
		spent := false
		for j, m := range moves {
			var v int32
			if v, spent = value(m, depth, alpha); spent {
				break
			}
			scores[j] = v
			if v > alpha {
				alpha, iterBest = v, j
			}
		}
		if iterBest >= 0 {
			best = moves[iterBest]
		}
		if spent || alpha >= mateBound || alpha <= -mateBound {
			break
		}
		sortByScore(moves, scores, iterBest)
	}
	return best
}

// safeMoves returns the moves, best first, after which the opponent does
// not win by threats (VCT, or VCF when threes is false): every move proven
// safe among the first ones checked, up to beamRoot of them, within a
// third of the budget. Each move is checked for the opponent's fours
// first, which is cheap, then for its threats. A search that ran out of
// nodes proves nothing, so such moves are kept only if no move is proven
// safe. If no move is, the opponent probably wins, but may not find a long
// win by threes: it keeps the moves not proven lost, and of those the ones
// not lost to fours, and of those the ones that threaten a double of my
// own, which give the opponent the most chances to go wrong. If every move
// loses, the first beamRoot are kept, for the search to find the one that
// makes the opponent's win hardest to find.
func (s *searcher) safeMoves(moves []int, depth int, threes bool) []int {
	f, me := s.f, s.me
	opp := me.Other()
	budget := s.limit / 3
	start := s.nodes
	var safe, open, byFours, threats []int
	for j, m := range moves {
		left := budget - (s.nodes - start)
		if left <= 0 || len(safe) >= beamRoot {
			break
		}
		per := max(left/(len(moves)-j), min(left, safeMinNodes))
		f.play(m, me)
		_, lost4, spent4 := s.threatSearch(opp, vcfDepth, false, per)
		if lost4 {
			f.unplay()
			continue
		}
		lost, spent := false, spent4
		if threes {
			_, lost, spent = s.threatSearch(opp, depth, true, per)
		}
		switch {
		case !lost && !spent:
			safe = append(safe, m)
		case !lost:
			open = append(open, m)
		case !spent4:
			byFours = append(byFours, m)
			if s.hasDouble(me) {
				threats = append(threats, m)
			}
		}
		f.unplay()
	}
	for _, l := range [][]int{safe, open, threats, byFours} {
		if len(l) > 0 {
			return l
		}
	}
	return moves[:min(len(moves), beamRoot)]
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
	selectTop(list, sc, top)
	s.bufs[ply], s.scores[ply] = list, sc
	return list, sc
}

// selectTop puts the top moves of the list with the highest keys first,
// in order, by selection; the rest stay unsorted.
func selectTop[K int32 | int64](list []int, keys []K, top int) {
	for a := range min(top, len(list)) {
		b := a
		for j := a + 1; j < len(list); j++ {
			if keys[j] > keys[b] {
				b = j
			}
		}
		keys[a], keys[b] = keys[b], keys[a]
		list[a], list[b] = list[b], list[a]
	}
}

// eval rates the position for p to move, from the windows both players
// can still complete; the player to move gets the benefit of the tempo.
func (s *searcher) eval(p Player) int32 {
	f := s.f
	me, op := int(p-1), int(2-p)
	v := f.total[me]*3/2 - f.total[op]
	// A player to move with a cell that makes two fours at once (mostly a
	// double), against an opponent with no four to answer, wins in
	// practice; the other way round the player to move must defend.
	myFours, myDouble := f.fourKinds(me)
	theirFours, theirDouble := f.fourKinds(op)
	switch {
	case myDouble && !theirFours:
		v += threatScore
	case theirDouble && !myFours:
		v -= threatScore / 4
	}
	return clampEval(v)
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
	if p == s.me && ply <= vctPly && f.k >= 4 {
		// A forced win by threats a move or two away: the search sees
		// the moves that prepare one. (The opponent's are the root's
		// business: when every move loses to them, such scores would
		// make every move look alike.)
		if _, won, _ := s.threatSearch(p, vctLeafDepth, true, vctLeafNodes); won {
			return winScore - int32(ply) - 2*vctLeafDepth
		}
	}
	if depth <= 0 {
		return s.eval(p)
	}
	// Transposition table.
	e := &s.tt[f.hash&uint64(len(s.tt)-1)]
	ttMove, v, cut := e.probe(f.hash, depth, ply, &alpha, &beta)
	if cut {
		return v
	}
	moves, _ := s.order(p, ply, beam)
	if len(moves) == 0 {
		return 0
	}
	width := ttFirst(moves, ttMove, min(len(moves), beam))
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
	e.store(f.hash, best, bestMove, depth, ply, a0, beta)
	return best
}

// ttFirst moves the table's move ttMove (-1: none) to the front of the
// moves searched, the first width, and returns their number: one more if
// it was not among them.
func ttFirst(moves []int, ttMove, width int) int {
	if ttMove < 0 {
		return width
	}
	if j := slices.Index(moves, ttMove); j > 0 {
		copy(moves[1:j+1], moves[:j])
		moves[0] = ttMove
		if j >= width {
			width = min(len(moves), width+1)
		}
	}
	return width
}

// probe reads the slot e for the position of hash, to be searched depth
// plies deep at ply within (*alpha, *beta): it returns the best move
// stored for the position (-1 for none), and its score and true when that
// settles the search; otherwise it narrows the window by the bound stored.
func (e *searchEntry) probe(hash uint64, depth, ply int, alpha, beta *int32) (move int, v int32, cut bool) {
	if e.key != hash || e.flag == 0 {
		return -1, 0, false
	}
	if int(e.depth) < depth {
		return int(e.move), 0, false
	}
	v = fromTT(e.score, ply)
	switch e.flag {
	case ttExact:
		return int(e.move), v, true
	case ttLower:
		*alpha = max(*alpha, v)
	case ttUpper:
		*beta = min(*beta, v)
	}
	return int(e.move), v, *alpha >= *beta
}

// store keeps in the slot e the result of searching the position of hash
// depth plies deep at ply within (alpha, beta): its score best and its
// best move.
func (e *searchEntry) store(hash uint64, best int32, move, depth, ply int, alpha, beta int32) {
	*e = searchEntry{key: hash, score: toTT(best, ply), move: int32(move), depth: int8(depth), flag: ttFlag(best, alpha, beta)}
}

// clampEval returns an evaluation v kept clear of the scores of wins.
func clampEval(v int64) int32 {
	return int32(max(-mateBound+1, min(mateBound-1, v)))
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
