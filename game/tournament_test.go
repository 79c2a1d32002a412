package game

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

var (
	tournament      = flag.Bool("tournament", false, "play the full tournament of Hard (TestTournament) and print its table")
	tournamentBoard = flag.String("tournament.board", "", "play the tournament on this board only, e.g. 7x7,k=4")
	tournamentOpp   = flag.String("tournament.opponent", "", "play the tournament against this opponent only: medium, greedy or random")
	tournamentSeed  = flag.Uint64("tournament.seed", 0, "added to the seeds of the tournament's games, to try other games than the table's")
)

// player chooses a move in a game; r is its source of randomness.
type player struct {
	name string
	move func(g *Judge, r *rand.Rand) Cell
}

func levelPlayer(l Level) player {
	return player{l.String(), func(g *Judge, r *rand.Rand) Cell {
		c, err := ComputerMove(g, l, r)
		if err != nil {
			panic(err) // the tournament only asks in games in progress
		}
		return c
	}}
}

// greedy is the baseline: take a win, block a win, else the empty cell
// with the most windows through it that it can still complete (ties at
// random). It reads the board cell by cell and shares no code with the
// engine.
var greedy = player{"greedy", func(g *Judge, r *rand.Rand) Cell {
	me := g.Turn()
	if w := winningCells(g, me); len(w) > 0 {
		return w[r.IntN(len(w))]
	}
	if w := winningCells(g, me.Other()); len(w) > 0 {
		return w[r.IntN(len(w))]
	}
	n, k := g.Size(), g.WinLength()
	var best []Cell
	bestOpen := -1
	for row := range n {
		for col := range n {
			if g.At(row, col) != None {
				continue
			}
			open := 0
			for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
				for s := range k { // windows starting s cells before
					ok := true
					for j := range k {
						rr, cc := row+(j-s)*d[0], col+(j-s)*d[1]
						if rr < 0 || rr >= n || cc < 0 || cc >= n || g.At(rr, cc) == me.Other() {
							ok = false
							break
						}
					}
					if ok {
						open++
					}
				}
			}
			switch {
			case open > bestOpen:
				best, bestOpen = append(best[:0], Cell{row, col}), open
			case open == bestOpen:
				best = append(best, Cell{row, col})
			}
		}
	}
	return best[r.IntN(len(best))]
}}

var randomPlayer = player{"random", randomCell}

// record counts the games of Hard against one opponent on one board, by
// the side Hard played.
type record struct {
	won, drawn, lost [2]int // [0]: Hard moved first, [1]: second
}

func (rc record) games() int {
	return rc.won[0] + rc.won[1] + rc.drawn[0] + rc.drawn[1] + rc.lost[0] + rc.lost[1]
}

// playMatch plays games games of hard against opp on an n×n board with
// win length k, hard moving first in the even ones.
func playMatch(t testing.TB, hard, opp player, n, k, games int, seed uint64) record {
	t.Helper()
	var rc record
	r := rand.New(rand.NewPCG(seed, uint64(n*100+k)))
	for i := range games {
		side := i % 2
		hardP := X
		if side == 1 {
			hardP = O
		}
		g := newGame(t, n, WinLength(k))
		for !g.Status().Decided() {
			if g.Turn() == hardP {
				play(t, g, hard.move(g, r))
			} else {
				play(t, g, opp.move(g, r))
			}
		}
		switch g.Winner() {
		case hardP:
			rc.won[side]++
		case None:
			rc.drawn[side]++
			t.Logf("%d×%d k=%d: %s drew with %s as %v: %v", n, n, k, hard.name, opp.name, hardP, g.History())
		default:
			rc.lost[side]++
			t.Logf("%d×%d k=%d: %s lost to %s as %v: %v", n, n, k, hard.name, opp.name, hardP, g.History())
		}
	}
	return rc
}

// tournamentBoards are the boards of the targets of Hard.
var tournamentBoards = []struct{ n, k int }{{7, 4}, {10, 5}, {15, 5}}

// runTournament plays Hard against Medium, the greedy baseline and the
// random player on each board, games games each (half of them first),
// checks the targets — at least 95% won against Medium and greedy, every
// game won against random, no loss as the first player — and returns the
// W/D/L table.
func runTournament(t *testing.T, games int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s %-8s %18s %18s %8s\n", "board", "opponent", "hard first W/D/L", "hard second W/D/L", "won")
	hard := levelPlayer(Hard)
	for _, bd := range tournamentBoards {
		name := fmt.Sprintf("%dx%d,k=%d", bd.n, bd.n, bd.k)
		if *tournamentBoard != "" && *tournamentBoard != name || raceEnabled && !*tournament && bd.n > 7 {
			continue
		}
		for j, opp := range []player{levelPlayer(Medium), greedy, randomPlayer} {
			if *tournamentOpp != "" && *tournamentOpp != opp.name {
				continue
			}
			rc := playMatch(t, hard, opp, bd.n, bd.k, games, uint64(j)+*tournamentSeed*1000)
			won := rc.won[0] + rc.won[1]
			rate := float64(won) / float64(rc.games())
			fmt.Fprintf(&b, "%-10s %-8s %18s %18s %7.1f%%\n", name, opp.name,
				fmt.Sprintf("%d/%d/%d", rc.won[0], rc.drawn[0], rc.lost[0]),
				fmt.Sprintf("%d/%d/%d", rc.won[1], rc.drawn[1], rc.lost[1]), 100*rate)
			want := 0.95
			if opp.name == "random" {
				want = 1
			}
			if rate < want {
				t.Errorf("%dx%d k=%d: Hard won %d of %d against %s; want at least %.0f%%", bd.n, bd.n, bd.k, won, rc.games(), opp.name, 100*want)
			}
			if rc.lost[0] > 0 {
				t.Errorf("%dx%d k=%d: Hard lost %d games as the first player against %s; want none", bd.n, bd.n, bd.k, rc.lost[0], opp.name)
			}
		}
	}
	return b.String()
}

// TestTournament checks the targets of Hard on a few games per board and
// opponent (four; under the race detector two, on 7×7 only); with
// -tournament it plays
// the full table, 100 games per board and opponent, and prints it:
//
//	go test ./game -run Tournament -v -tournament
//
// (the package before the flags: go test takes what follows an unknown
// flag for the test binary). -tournament.board and -tournament.opponent
// narrow it, -tournament.seed plays other games than the table's:
//
//	go test ./game -run Tournament -v -tournament -tournament.board 7x7,k=4 -tournament.seed 2
func TestTournament(t *testing.T) {
	t.Parallel()
	games := 4
	if raceEnabled {
		games = 2 // one game each side
	}
	if *tournament {
		games = 100
	}
	table := runTournament(t, games)
	t.Logf("Hard, %d games per board and opponent:\n%s", games, table)
}
