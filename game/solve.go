package game

import (
	"math"
	"slices"
)

// This file holds the exact search of Hard: once few cells are empty
// (always on 3×3), it plays every continuation to the end.

// solve returns the best move by exact search: a win as soon as possible,
// else a draw, else a loss as late as possible; among equally good moves the
// heuristic decides, then chance. Immediate wins and blocks come first, so
// that a lost position is still defended against the obvious threat.
func (e *engine) solve() int {
	g := e.g
	var empties []int
	for i, p := range g.board {
		if p == None {
			empties = append(empties, i)
		}
	}
	evals := make([]cand, len(empties))
	for j, i := range empties {
		evals[j] = e.eval(i)
	}
	if c, ok := urgent(evals); ok {
		return c
	}
	s := newSolver(g, empties)
	bestV := int8(math.MinInt8)
	var best []cand
	for j := range empties {
		v := s.child(j, 0, len(empties), e.me)
		switch {
		case v > bestV:
			bestV, best = v, append(best[:0], evals[j])
		case v == bestV:
			best = append(best, evals[j])
		}
	}
	return e.pick(best, true)
}

// eval rates the empty cell i.
func (e *engine) eval(i int) cand {
	if e.g.k == e.g.n {
		return e.evalLines(i)
	}
	return e.evalWindows(i)
}

// unknown marks a position not yet searched in solver.memo.
const unknown = math.MinInt8

// solver searches the game tree over a few empty cells. A position is
// identified by the contents of those cells, a base-3 number (digit j is
// the mark on empties[j]), so the memo is a plain array of 3^len(empties)
// values: a transposition table that makes the search visit each position
// once. With exact values memoised, alpha-beta pruning would save little
// and complicate the memo, so there is none.
type solver struct {
	n, k    int
	board   []Player // a copy of the game's board, changed during the search
	empties []int
	pow3    []int
	memo    []int8 // value of the position for the player to move
}

func newSolver(g *Game, empties []int) *solver {
	s := &solver{n: g.n, k: g.k, board: slices.Clone(g.board), empties: empties}
	s.pow3 = make([]int, len(empties)+1)
	s.pow3[0] = 1
	for j := range empties {
		s.pow3[j+1] = 3 * s.pow3[j]
	}
	s.memo = make([]int8, s.pow3[len(empties)])
	for i := range s.memo {
		s.memo[i] = unknown
	}
	return s
}

// value returns the value of position state, with left empty cells, for p
// to move: positive for a win (the larger, the sooner), 0 for a draw,
// negative for a loss.
func (s *solver) value(state, left int, p Player) int8 {
	if v := s.memo[state]; v != unknown {
		return v
	}
	best := int8(math.MinInt8 + 1)
	for j, i := range s.empties {
		if s.board[i] == None {
			best = max(best, s.child(j, state, left, p))
		}
	}
	s.memo[state] = best
	return best
}

// child returns the value for p of p playing empties[j] in position state.
func (s *solver) child(j, state, left int, p Player) int8 {
	i := s.empties[j]
	s.board[i] = p
	var v int8
	switch {
	case s.wins(i, p):
		v = int8(left) // left >= 1, larger when the win comes sooner
	case left == 1:
		v = 0 // the board is full
	default:
		v = -s.value(state+int(p)*s.pow3[j], left-1, p.Other())
	}
	s.board[i] = None
	return v
}

// wins reports whether p's mark at cell i makes k in a row. O(k).
func (s *solver) wins(i int, p Player) bool {
	row, col := i/s.n, i%s.n
	for _, d := range dirs {
		back := run(s.board, s.n, s.k-1, row, col, -d.dr, -d.dc, p)
		fwd := run(s.board, s.n, s.k-1, row, col, d.dr, d.dc, p)
		if back+1+fwd >= s.k {
			return true
		}
	}
	return false
}
