package game

import (
	"fmt"
	"math/rand/v2"
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
					c := s.f.cell(m)
					g2 := g.Clone()
					play(t, g2, c)
					if g2.Status() == Won {
						continue
					}
					sv := newSolver(g2, 0)
					if v := sv.negamax(p.Other(), 0, lossValue-1, winValue+1); v != lossValue {
						t.Fatalf("%v: threat search (threes %v) says %v wins by %v; the exact value after it is %d for the opponent, want %d",
							g.History(), threes, p, c, v, lossValue)
					}
				}
			}
			t.Logf("%d positions: %d wins by fours, %d by threats, all exact", positions, claims[0], claims[1])
		})
	}
}
