package game

// This file holds Hard's search for five in a row (k = 5 < n), on the
// pattern board of pattern.go:
//
//   - a win, a block, an open four, as the patterns show them;
//   - its own forced win by fours (VCF), then by fours and threes (VCT),
//     each with a table of the positions proven or refuted;
//   - of the best fiveRoot moves, those after which the opponent has no
//     forced win by fours (all of them, if none is safe);
//   - a principal-variation search by iterative deepening over those
//     moves, and below the root over the fiveWidth best cells near the
//     play (by their patterns for both players), with late-move
//     reductions for quiet moves, a transposition table, and forced
//     replies to a four not counted as depth. When the opponent threatens
//     an open four (an open three, or two fours at one cell), only the
//     cells of the opponent's fours and the player's own fours are
//     searched: every other move loses. Positions are rated by the sum of
//     the ratings of the empty cells for each player.
//
// Every search is bounded by nodes, not by a clock, so that a position
// always gets the same move.

import "slices"

const (
	// fiveNodes bounds the nodes of one move of Hard at k = 5, the
	// searches for forced wins included: at 15×15 about 20 ms a move on
	// average and under 100 ms at worst on one core of a 2-core server
	// (BenchmarkHardGame, TestRapfi). Of it, the own VCF gets an eighth,
	// the own VCT a tenth, and the checks of the root moves for the
	// opponent's VCF an eighth.
	fiveNodes = 48_000
	// fiveMaxPly bounds the plies of the search, forced replies included.
	fiveMaxPly = 40
	// fiveRoot and fiveWidth bound the moves searched at the root and
	// below it, best first.
	fiveRoot  = 20
	fiveWidth = 10
	// fiveVCF and fiveVCT are the depths, in moves of the attacker, of
	// the searches for forced wins by fours and by fours and threes.
	fiveVCF = 16
	fiveVCT = 5
	// fiveMargin is how far search moves may go from the game's marks.
	fiveMargin = 6
)

// fsearch is one search of Hard for five in a row.
type fsearch struct {
	b     *pboard
	me    Player
	nodes int
	limit int
	abort bool
	// vcfLimit stops the current search for forced wins (spent).
	vcfLimit int
	spent    bool
	tt       []searchEntry
	vcfTT    []threatEntry
	bufs     [fiveMaxPly + 1][]int
	keys     [fiveMaxPly + 1][]int32
}

// searchFive picks the move of Hard for k = 5.
func (e *engine) searchFive() int {
	g := e.g
	if len(g.hist) == 0 {
		return g.n/2*g.n + g.n/2
	}
	b := newPboard(g, fiveMargin)
	s := &fsearch{b: b, me: e.me, limit: fiveNodes}
	i := s.root()
	if i < 0 {
		return randomEmpty(g, e.r) // every empty cell is off the rectangle
	}
	c := b.cell(i)
	return c.Row*g.n + c.Col
}

// root returns the local cell to play (see the top of the file), or -1 if
// the rectangle has no empty cell.
func (s *fsearch) root() int {
	b, me := s.b, s.me
	q, o := int(me-1), int(2-me)
	var buf [2]int
	if w := b.cellsAt(q, lvF5, 1, buf[:0]); len(w) > 0 {
		return w[0]
	}
	if w := b.cellsAt(o, lvF5, 1, buf[:0]); len(w) > 0 {
		return w[0]
	}
	if w := b.cellsAt(q, lvF4, 1, buf[:0]); len(w) > 0 {
		return w[0]
	}
	if m, won := s.vcfRoot(me, s.limit/8); won {
		return m
	}
	if m, won := s.threatRoot(me, fiveVCT, true, s.limit/10); won {
		return m
	}
	moves := slices.Clone(s.gen(me, 0, fiveRoot))
	if len(moves) == 0 {
		// No empty cell near the marks (a small, nearly full board).
		return slices.Index(b.cells, 0)
	}
	moves = moves[:min(len(moves), fiveRoot)]
	if safe := s.keepSafe(moves, s.limit/8/len(moves)); len(safe) > 0 {
		moves = safe
	}
	if len(moves) == 1 {
		return moves[0]
	}
	s.tt = make([]searchEntry, 1<<15)
	// The first move with the full window, the others with a null window
	// first (are they better?), then a full one if they are.
	return deepenRoot(moves, fiveMaxPly, func(m, depth int, alpha int32) (int32, bool) {
		b.play(m, me)
		defer b.unplay()
		if alpha == -infScore {
			return -s.negamax(me.Other(), depth-1, 1, -infScore, infScore), s.abort
		}
		v := -s.negamax(me.Other(), depth-1, 1, -alpha-1, -alpha)
		if v > alpha && !s.abort {
			v = -s.negamax(me.Other(), depth-1, 1, -infScore, -alpha)
		}
		return v, s.abort
	})
}

// keepSafe returns the moves of s.me after which the opponent is not
// proven to win by fours, each searched within per nodes.
func (s *fsearch) keepSafe(moves []int, per int) []int {
	var safe []int
	for _, m := range moves {
		s.b.play(m, s.me)
		_, lost := s.vcfRoot(s.me.Other(), per)
		s.b.unplay()
		if !lost {
			safe = append(safe, m)
		}
	}
	return safe
}

// gen returns the moves of p at ply, best first: when the opponent
// threatens an open four (it has a cell that makes one, or two fours), the
// answers: the cells of the opponent's fours, and p's own fours; else every
// empty cell near the play.
// Only the best top are in order. The list is scratch space of the ply.
func (s *fsearch) gen(p Player, ply, top int) []int {
	b := s.b
	q, o := int(p-1), int(2-p)
	defend := b.atLeast(o, lvF4)
	list, keys := s.bufs[ply][:0], s.keys[ply][:0]
	for _, c := range b.cand {
		if b.cells[c] != 0 {
			continue
		}
		if defend && b.info[c].best[o] < patB4 && b.info[c].level[q] < lvB4 {
			continue
		}
		list = append(list, int(c))
		keys = append(keys, b.info[c].score[q]*6/5+b.info[c].score[o])
	}
	selectTop(list, keys, top)
	s.bufs[ply], s.keys[ply] = list, keys
	return list
}

// eval rates the position for p to move.
func (s *fsearch) eval(p Player) int32 {
	b := s.b
	q, o := int(p-1), int(2-p)
	return clampEval(b.sum[q]*6/5 - b.sum[o])
}

// negamax returns the score of the position for p to move at ply, searched
// depth plies deep (forced replies do not count) within (alpha, beta).
func (s *fsearch) negamax(p Player, depth, ply int, alpha, beta int32) int32 {
	b := s.b
	s.nodes++
	if s.nodes > s.limit {
		s.abort = true
		return 0
	}
	q, o := int(p-1), int(2-p)
	if b.cnt[q][lvF5] > 0 {
		return winScore - int32(ply) - 1
	}
	if b.cnt[o][lvF5] > 0 {
		var buf [2]int
		w := b.cellsAt(o, lvF5, 2, buf[:0])
		if len(w) >= 2 || len(w) == 0 {
			return -(winScore - int32(ply) - 2)
		}
		if ply >= fiveMaxPly {
			return s.eval(p)
		}
		b.play(w[0], p)
		v := -s.negamax(p.Other(), depth, ply+1, -beta, -alpha)
		b.unplay()
		return v
	}
	if b.cnt[q][lvF4] > 0 {
		return winScore - int32(ply) - 3
	}
	if depth <= 0 || ply >= fiveMaxPly {
		return s.eval(p)
	}
	e := &s.tt[b.hash&uint64(len(s.tt)-1)]
	ttMove, v, cut := e.probe(b.hash, depth, ply, &alpha, &beta)
	if cut {
		return v
	}
	moves := s.gen(p, ply, fiveWidth)
	if len(moves) == 0 {
		return s.eval(p)
	}
	width := ttFirst(moves, ttMove, min(len(moves), fiveWidth))
	a0 := alpha
	best, bestMove := int32(-infScore), moves[0]
	for j, m := range moves[:width] {
		quiet := b.info[m].level[q] < lvF3 && b.info[m].level[o] < lvF3
		b.play(m, p)
		var v int32
		if j == 0 {
			v = -s.negamax(p.Other(), depth-1, ply+1, -beta, -alpha)
		} else {
			r := 0
			if depth >= 3 && j >= 3 && quiet {
				r = 1
				if j >= 6 {
					r = 2
				}
			}
			v = -s.negamax(p.Other(), depth-1-r, ply+1, -alpha-1, -alpha)
			if v > alpha && r > 0 && !s.abort {
				v = -s.negamax(p.Other(), depth-1, ply+1, -alpha-1, -alpha)
			}
			if v > alpha && v < beta && !s.abort {
				v = -s.negamax(p.Other(), depth-1, ply+1, -beta, -alpha)
			}
		}
		b.unplay()
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
	e.store(b.hash, best, bestMove, depth, ply, a0, beta)
	return best
}

// threatRoot searches a's forced win by fours (VCF), or by fours and
// threes when threes is set (VCT), a to move, at most depth moves of a,
// within nodes nodes: it returns the first move of a win, and whether it
// found one.
func (s *fsearch) threatRoot(a Player, depth int, threes bool, nodes int) (int, bool) {
	s.vcfLimit = s.nodes + nodes
	s.spent = false
	return s.threats(a, depth, threes, true)
}

// vcfRoot is threatRoot by fours alone.
func (s *fsearch) vcfRoot(a Player, nodes int) (int, bool) {
	return s.threatRoot(a, fiveVCF, false, nodes)
}

// threats returns a move of a, to move, that wins by at most depth
// threats, and whether there is one. A four leaves the defender one
// answer; a three (a mark after which a can make an open four) leaves the
// defender the cells of a's fours and the defender's own fours. Below the
// root (root false) the move may be -1 for a win the table knows.
func (s *fsearch) threats(a Player, depth int, threes, root bool) (int, bool) {
	b := s.b
	s.nodes++
	if s.nodes > s.vcfLimit || s.nodes > s.limit {
		s.spent = true
		return -1, false
	}
	q, o := int(a-1), int(2-a)
	var buf [2]int
	if w := b.cellsAt(q, lvF5, 1, buf[:0]); len(w) > 0 {
		return w[0], true
	}
	var one [1]int
	var moves []int
	if b.cnt[o][lvF5] > 0 {
		// a must block; it goes on only if the block is a four.
		w := b.cellsAt(o, lvF5, 2, buf[:0])
		if len(w) != 1 || b.info[w[0]].level[q] < lvB4 {
			return -1, false
		}
		moves = append(one[:0], w[0])
	} else {
		if w := b.cellsAt(q, lvF4, 1, buf[:0]); len(w) > 0 {
			return w[0], true
		}
		if depth <= 0 || !b.atLeast(q, lvB4) && !(threes && b.atLeast(q, lvF3)) {
			return -1, false
		}
	}
	// The table, below the root (whose move is needed) and for depths it
	// can hold (a forced block may come at depth 0).
	var e threatEntry
	slot := &e
	salt := uint64(a)
	if threes {
		salt += 2
	}
	key := b.hash ^ salt*0x9e3779b97f4a7c15
	if !root && depth > 0 {
		if s.vcfTT == nil {
			s.vcfTT = make([]threatEntry, threatSlots)
		}
		slot = &s.vcfTT[key&(threatSlots-1)]
		if won, known := slot.known(key, depth); known {
			return -1, won
		}
	}
	var list [48]int
	if moves == nil {
		moves = b.cellsAt(q, lvB4, 32, list[:0])
		fours := len(moves)
		if threes {
			for _, c := range b.cand {
				if b.cells[c] == 0 && b.info[c].level[q] >= lvF3 && b.info[c].level[q] < lvB4 && len(moves) < len(list) {
					moves = append(moves, int(c))
				}
			}
		}
		// The threats with the most behind them first, fours before
		// threes; only the best threes are tried.
		slices.SortFunc(moves, func(x, y int) int {
			if d := int(b.info[y].level[q]) - int(b.info[x].level[q]); d != 0 {
				return d
			}
			return int(b.info[y].score[q] - b.info[x].score[q])
		})
		moves = moves[:min(len(moves), fours+vctThrees)]
	}
	won, move := false, -1
	for _, m := range moves {
		four := b.info[m].level[q] >= lvB4
		b.play(m, a)
		if four {
			w := b.cellsAt(q, lvF5, 2, buf[:0])
			switch len(w) {
			case 0:
			case 1:
				b.play(w[0], a.Other())
				_, won = s.threats(a, depth-1, threes, false)
				b.unplay()
			default:
				won = true
			}
		} else if b.cnt[q][lvF4] > 0 && b.cnt[o][lvF5] == 0 {
			won = s.answers(a, depth)
		}
		b.unplay()
		if won {
			move = m
			break
		}
		if s.spent {
			break
		}
	}
	slot.record(key, depth, won, s.spent)
	return move, won
}

// answers reports whether a, who just made a three, wins whatever the
// defender answers, within depth-1 more threats.
func (s *fsearch) answers(a Player, depth int) bool {
	b := s.b
	q, o := int(a-1), int(2-a)
	var list [64]int
	replies := list[:0]
	for _, c := range b.cand {
		if b.cells[c] == 0 && (b.info[c].best[q] >= patB4 || b.info[c].level[o] >= lvB4) {
			if len(replies) == len(list) {
				return false // more answers than it tries: not proven
			}
			replies = append(replies, int(c))
		}
	}
	for _, r := range replies {
		b.play(r, a.Other())
		_, ok := s.threats(a, depth-1, true, false)
		b.unplay()
		if !ok {
			return false
		}
	}
	return true
}
