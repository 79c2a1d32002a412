package game

// This file holds the threat-space search of Hard: does a player win by a
// sequence of threats the opponent must answer? A four leaves one cell
// where the attacker wins next, so the defender has one answer; with k >= 4
// a three leaves a cell where the attacker's next mark makes two wins at
// once (a double), so the defender must spoil every such cell or make a
// four of its own. Searching fours alone is VCF (victory by continuous
// fours), fours and threes VCT (by continuous threats). A win found is
// forced: the defender's answers tried are every move that does not lose
// at once. A search that runs out of its nodes proves nothing.

// Depths of the threat searches, in moves of the attacker.
const (
	vcfDepth = 10
	vctDepth = 6
	// vctThrees bounds the threes tried at a node of VCT, best first by
	// the cells' value to the attacker; fours are all tried.
	vctThrees = 8
)

// tick counts a node of the threat search and reports whether the search
// must stop: its own limit (callLimit) or the whole move's is spent.
func (s *searcher) tick() bool {
	s.nodes++
	if s.nodes > s.callLimit || s.nodes > s.limit {
		s.spent = true
	}
	return s.spent
}

// threatSearch runs the threat search of attacker a, to move, within
// nodes nodes (counted in s.nodes). It returns a move that starts a forced
// win, and whether the search proved one; spent says it stopped early.
func (s *searcher) threatSearch(a Player, depth int, threes bool, nodes int) (move int, won, spent bool) {
	return s.deepen(a, depth, depth, threes, nodes)
}

// shortestThreats is threatSearch by iterative deepening: depth 1, 2, and
// so on up to depth, so that a short forced win is found in a few hundred
// nodes even where the search at full depth would spend thousands in the
// deep lines of the first threats it tries; the table keeps what the
// shallower searches proved not won. It stops at the first win, or when
// nodes are spent.
func (s *searcher) shortestThreats(a Player, depth int, threes bool, nodes int) (move int, won, spent bool) {
	return s.deepen(a, 1, depth, threes, nodes)
}

// deepen runs the threat search of a at each depth from from to depth,
// all within nodes nodes, until one proves a win or the nodes are spent.
func (s *searcher) deepen(a Player, from, depth int, threes bool, nodes int) (move int, won, spent bool) {
	s.callLimit = s.nodes + nodes
	s.spent = false
	for d := from; d <= depth; d++ {
		move, won = s.attackRoot(a, d, threes)
		if won || s.spent {
			break
		}
	}
	return move, won, s.spent && !won
}

// attackRoot is attack at the root: it returns the winning move.
func (s *searcher) attackRoot(a Player, depth int, threes bool) (int, bool) {
	f := s.f
	if s.tick() {
		return -1, false
	}
	var buf [4]int
	if w := f.winCells(a, 1, buf[:0]); len(w) > 0 {
		return w[0], true
	}
	return s.attackMoves(a, depth, threes)
}

// threatEntry is a slot of the transposition table of the threat search:
// the position's key (its hash salted by attacker and kind of search), and
// the depths at which it is known won (any depth from won up) or known not
// won (any depth up to notWon), 0 for unknown.
type threatEntry struct {
	key           uint64
	won, notWon   int8
	_, _, _, _, _ uint8
}

// threatSlots is the size of the threat search's table: 512 KB.
const threatSlots = 1 << 15

// threatKey returns the key of the position for a's threat search.
func (s *searcher) threatKey(a Player, threes bool) uint64 {
	salt := uint64(a)
	if threes {
		salt += 2
	}
	return s.f.hash ^ salt*0x9e3779b97f4a7c15
}

// attack reports whether a, to move, wins by at most depth threats.
func (s *searcher) attack(a Player, depth int, threes bool) bool {
	f := s.f
	if s.tick() {
		return false
	}
	var buf [4]int
	if len(f.winCells(a, 1, buf[:0])) > 0 {
		return true
	}
	if depth <= 0 {
		return false
	}
	if s.threatTT == nil {
		s.threatTT = make([]threatEntry, threatSlots)
	}
	key := s.threatKey(a, threes)
	e := &s.threatTT[key&(threatSlots-1)]
	if won, known := e.known(key, depth); known {
		return won
	}
	_, won := s.attackMoves(a, depth, threes)
	e.record(key, depth, won, s.spent)
	return won
}

// known reports what the slot e knows of the position of key searched
// depth threats deep: whether it is won, and whether that is known.
func (e *threatEntry) known(key uint64, depth int) (won, known bool) {
	if e.key != key {
		return false, false
	}
	switch {
	case e.won > 0 && depth >= int(e.won):
		return true, true
	case depth <= int(e.notWon):
		return false, true
	}
	return false, false
}

// record keeps in the slot e what a search depth threats deep found of
// the position of key: won, or not won unless it was spent (which proves
// nothing).
func (e *threatEntry) record(key uint64, depth int, won, spent bool) {
	if !won && spent {
		return
	}
	if e.key != key {
		*e = threatEntry{key: key}
	}
	if won {
		if e.won == 0 || depth < int(e.won) {
			e.won = int8(depth)
		}
		return
	}
	e.notWon = max(e.notWon, int8(depth))
}

// attackMoves is attack after the table: it tries a's threats, and
// returns the first that wins.
func (s *searcher) attackMoves(a Player, depth int, threes bool) (int, bool) {
	f := s.f
	base := len(s.stack)
	defer func() { s.stack = s.stack[:base] }()
	moves, won := s.threatMoves(a, threes)
	if won >= 0 {
		return won, true
	}
	for _, m := range moves {
		f.play(m, a)
		ok := s.defend(a, depth, threes)
		f.unplay()
		if ok {
			return m, true
		}
		if s.spent {
			break
		}
	}
	return -1, false
}

// threatMoves returns the moves of a to try, a having no win at once: the
// one block when the defender has a win cell (it may be a threat too),
// else a's fours, then (with threes) its best threes. It returns a move
// that makes a double (two win cells at once), if any, as won. The list
// lives on s.stack.
func (s *searcher) threatMoves(a Player, threes bool) (moves []int, won int) {
	f := s.f
	d := a.Other()
	q := int(a - 1)
	var buf [4]int
	dw := f.winCells(d, 2, buf[:0])
	switch len(dw) {
	case 0:
	case 1:
		start := len(s.stack)
		s.stack = append(s.stack, dw[0])
		return s.stack[start:], -1
	default:
		return nil, -1 // two wins to block: lost
	}
	start := len(s.stack)
	for _, c := range f.fors[q] {
		if f.cells[c] != 0 || f.four[q][c] == 0 || containsFrom(s.stack, start, int(c)) {
			continue
		}
		if f.four[q][c] >= 2 && s.makesDouble(int(c), a) {
			return nil, int(c)
		}
		s.stack = append(s.stack, int(c))
	}
	if !threes {
		return s.stack[start:], -1
	}
	// Threes: cells adding a mark to at least two of a's windows that are
	// k-3 full, best first by value; each is checked by the defender's
	// node, which gives up at once if it threatens nothing.
	fours := len(s.stack)
	for _, c := range f.cand {
		if f.cells[c] != 0 || f.three[q][c] < 2 || f.four[q][c] != 0 || containsFrom(s.stack, fours, int(c)) {
			continue
		}
		s.stack = append(s.stack, int(c))
	}
	tail := s.stack[fours:]
	for a := range min(vctThrees, len(tail)) {
		b := a
		for j := a + 1; j < len(tail); j++ {
			if f.val[q][tail[j]] > f.val[q][tail[b]] {
				b = j
			}
		}
		tail[a], tail[b] = tail[b], tail[a]
	}
	s.stack = s.stack[:fours+min(vctThrees, len(tail))]
	return s.stack[start:], -1
}

// containsFrom reports whether list[from:] holds c.
func containsFrom(list []int, from, c int) bool {
	for _, x := range list[from:] {
		if x == c {
			return true
		}
	}
	return false
}

// makesDouble reports whether a mark of p on the empty cell c leaves p two
// distinct win cells.
func (s *searcher) makesDouble(c int, p Player) bool {
	s.nodes++
	f := s.f
	var buf [4]int
	f.play(c, p)
	n := len(f.winCells(p, 2, buf[:0]))
	f.unplay()
	return n >= 2
}

// hasDouble reports whether p, without a win cell, has a cell that makes a
// double.
func (s *searcher) hasDouble(p Player) bool {
	f := s.f
	q := int(p - 1)
	for _, c := range f.fors[q] {
		if f.cells[c] == 0 && f.four[q][c] >= 2 && s.makesDouble(int(c), p) {
			return true
		}
	}
	return false
}

// defend reports whether a, who just moved, wins whatever the defender
// answers, within depth-1 more threats.
func (s *searcher) defend(a Player, depth int, threes bool) bool {
	f := s.f
	if s.tick() {
		return false
	}
	d := a.Other()
	var buf [4]int
	if len(f.winCells(d, 1, buf[:0])) > 0 {
		return false
	}
	aw := f.winCells(a, 2, buf[:0])
	base := len(s.stack)
	defer func() { s.stack = s.stack[:base] }()
	switch {
	case len(aw) >= 2:
		return true
	case len(aw) == 1:
		s.stack = append(s.stack, aw[0])
	case !threes:
		return false
	default:
		if !s.threeAnswers(a) {
			return false // a threatens nothing
		}
		if len(s.stack) == base {
			return true // no answer stops the double
		}
	}
	replies := s.stack[base:]
	for _, r := range replies {
		f.play(r, d)
		ok := s.attack(a, depth-1, threes)
		f.unplay()
		if !ok {
			return false
		}
	}
	return true
}

// threeAnswers pushes on s.stack the defender's answers to a's threes:
// every cell after which a has no double any more, and every four of the
// defender. It reports false if a has no double to make (no threat).
func (s *searcher) threeAnswers(a Player) bool {
	f := s.f
	k := f.k
	q := int(a - 1)
	d := a.Other()
	base := len(s.stack)
	threat := false
	for _, x := range f.fors[q] {
		if f.cells[x] != 0 || f.four[q][x] < 2 || !s.makesDouble(int(x), a) {
			continue
		}
		threat = true
		// Blocks of x: x itself and the empty cells of a's windows
		// through x that x would leave one short.
		if !containsFrom(s.stack, base, int(x)) {
			s.stack = append(s.stack, int(x))
		}
		for _, st := range f.step {
			for back := range k {
				first := int(x) - back*st
				m, ok := 0, true
				for j := range k {
					switch f.cells[first+j*st] {
					case uint8(a):
						m++
					case 0:
					default:
						ok = false
					}
				}
				if !ok || m != k-2 {
					continue
				}
				for j := range k {
					if c := first + j*st; f.cells[c] == 0 && !containsFrom(s.stack, base, c) {
						s.stack = append(s.stack, c)
					}
				}
			}
		}
	}
	if !threat {
		return false
	}
	// Keep the blocks that spoil every double.
	keep := base
	for _, c := range s.stack[base:] {
		f.play(c, d)
		still := s.hasDouble(a)
		f.unplay()
		if !still {
			s.stack[keep] = c
			keep++
		}
	}
	s.stack = s.stack[:keep]
	dq := int(d - 1)
	for _, c := range f.fors[dq] {
		if f.cells[c] == 0 && f.four[dq][c] > 0 && !containsFrom(s.stack, base, int(c)) {
			s.stack = append(s.stack, int(c))
		}
	}
	return true
}
