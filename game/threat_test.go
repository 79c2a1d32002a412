package game

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestThreatSearchSound checks that every forced win the threat search
// claims, by fours (VCF) or by threats (VCT), is a win by the exact
// search, on positions of small boards with few enough empty cells for the
// exact search: games of Medium against itself, stopped at random.
func TestThreatSearchSound(t *testing.T) {
	t.Parallel()
	positions := 300
	if raceEnabled {
		positions = 15
	}
	for _, tt := range []struct{ n, k int }{{5, 4}, {6, 4}, {6, 5}, {7, 5}} {
		t.Run(fmt.Sprintf("%dx%d,k=%d", tt.n, tt.n, tt.k), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tt.n), uint64(tt.k)))
			var claims [2]int
			for found := 0; found < positions; {
				g := newGame(t, tt.n, WinLength(tt.k))
				for !g.Status().Decided() && len(g.board)-g.Len() > 12+r.IntN(3) {
					play(t, g, computer(t, g, Medium, r))
				}
				if g.Status().Decided() || g.Len() == 0 {
					continue
				}
				found++
				p := g.Turn()
				for j, threes := range []bool{false, true} {
					s := &searcher{f: newField(g), me: p, limit: 1 << 30}
					depth := vcfDepth
					if threes {
						depth = vctDepth
					}
					m, won, _ := s.threatSearch(p, depth, threes, 100_000)
					if !won {
						continue
					}
					claims[j]++
					checkExactWin(t, g, s.f.cell(m), fmt.Sprintf("the threat search (threes %v)", threes))
				}
			}
			t.Logf("%d positions: %d wins by fours, %d by threats, all exact", positions, claims[0], claims[1])
		})
	}
}

// checkExactWin fails the test unless the player to move in g wins by
// playing c, by the exact search; who says so names the claim.
func checkExactWin(t *testing.T, g *Judge, c Cell, who string) {
	t.Helper()
	p := g.Turn()
	g2 := g.Clone()
	play(t, g2, c)
	if g2.Status() == Won {
		return
	}
	sv := newSolver(g2, 0)
	if v := sv.negamax(p.Other(), 0, lossValue-1, winValue+1); v != lossValue {
		t.Fatalf("%v: %s says %v wins by %v; the exact value after it is %d for the opponent, want %d",
			g.History(), who, p, c, v, lossValue)
	}
}

// playMedium plays Medium for both players until g has stop moves or is
// decided: positions for the tests of Hard.
func playMedium(t testing.TB, g *Judge, r *rand.Rand, stop int) {
	t.Helper()
	for !g.Status().Decided() && g.Len() < stop {
		play(t, g, computer(t, g, Medium, r))
	}
}

// TestHardStopsFours: in positions of 15×15 with k = 5 where the opponent
// would win by fours (VCF) if Hard passed, and some move of Hard stops
// every such win, Hard plays one of those moves. Positions come from games
// of Medium against itself (with its random moves), stopped at random;
// each claim is checked by a large threat search.
func TestHardStopsFours(t *testing.T) {
	t.Parallel()
	positions := 60
	if raceEnabled {
		positions = 4 // Hard's search is most of the time; .ci/run checks 60 without -race
	}
	r := rand.New(rand.NewPCG(15, 5))
	vcf := func(g *Judge, a Player) bool {
		s := &searcher{f: newField(g), me: a, limit: 1 << 30}
		_, won, _ := s.threatSearch(a, vcfDepth, false, 200_000)
		return won
	}
	checked := 0
	for tries := 0; checked < positions && tries < 100*positions; tries++ {
		g := newGame(t, 15, WinLength(5))
		playMedium(t, g, r, 8+r.IntN(30))
		me := g.Turn()
		if g.Status().Decided() || len(winningCells(g, me)) > 0 || len(winningCells(g, me.Other())) > 0 || vcf(g, me) {
			continue
		}
		// The opponent's fours, as if Hard passed.
		if !vcf(g, me.Other()) {
			continue
		}
		var stoppers []Cell
		for i := range g.board {
			if g.board[i] != None {
				continue
			}
			g2 := g.Clone()
			play(t, g2, Cell{i / 15, i % 15})
			if !vcf(g2, me.Other()) {
				stoppers = append(stoppers, Cell{i / 15, i % 15})
			}
		}
		if len(stoppers) == 0 {
			continue
		}
		checked++
		c := computer(t, g, Hard, r)
		if !slices.Contains(stoppers, c) {
			t.Errorf("%v: Hard (%v) played %v, after which the opponent wins by fours; these moves stop it: %v", g.History(), me, c, stoppers)
		}
	}
	if checked < positions {
		t.Errorf("found %d positions to check; want %d", checked, positions)
	}
}

// TestHardTakesThreatWins: positions of 15×15 with k = 5, from games Hard
// lost to Rapfi (issue 20), where Hard to move had a forced win by threats
// and played elsewhere (at 6,9): its search at full depth spent its nodes
// (about 33,000) in the deep lines of other threats before it reached the
// short win, which searching by iterative deepening finds in about 600. Hard must play a move after which it still wins
// whatever the opponent answers, by fours or by threats, as an unbounded
// threat search proves.
func TestHardTakesThreatWins(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ moves string }{
		{"4,9 7,10 9,4 7,7 4,10 7,8 7,9 8,9 4,8 4,11 4,6 4,7 5,7 6,8"},
	} {
		g := newGame(t, 15, WinLength(5))
		for _, f := range strings.Fields(tt.moves) {
			var c Cell
			if _, err := fmt.Sscanf(f, "%d,%d", &c.Row, &c.Col); err != nil {
				t.Fatal(err)
			}
			play(t, g, c)
		}
		me := g.Turn()
		c := computer(t, g, Hard, nil)
		g2 := g.Clone()
		play(t, g2, c)
		if g2.Status() == Won {
			continue
		}
		won := false
		for _, threes := range []bool{false, true} {
			s := &searcher{f: newField(g2), me: me, limit: 1 << 30}
			s.callLimit = 1 << 30
			depth := vcfDepth
			if threes {
				depth = vctDepth
			}
			won = won || s.defend(me, depth, threes)
		}
		if !won {
			t.Errorf("%s: Hard (%v) played %v, which starts no forced win by threats", tt.moves, me, c)
		}
	}
}
