package game

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLinePatterns checks the pattern of a mark on the centre (C) of lines
// of nine cells: x the player's marks, o the other's (or off the board),
// _ empty.
func TestLinePatterns(t *testing.T) {
	for _, tt := range []struct {
		line string
		want uint8
	}{
		{"xxxxC____", patF5},
		{"__xxCxx__", patF5}, // five in the middle
		{"_xxxCxx_o", patF5}, // six in a row also wins
		{"___xCxx__", patF4}, // _xxxx_: two cells make five
		{"_x_xCx_x_", patF4}, // x_xxx_x: the gaps make five
		{"oxxxC____", patB4}, // blocked on one side
		{"__x_Cxx__", patB4}, // x_xxx: one cell makes five
		{"____Cxx__", patF3}, // _xxx_: an open three
		{"___xC_x__", patF3}, // _xx_x_: a broken open three
		{"___oCxx__", patB3}, // oxxx__: makes a four only
		{"o_x_Cx_o_", patF3}, // _x_xx_: the gap makes an open four
		{"oxx_C___o", patB3}, // xx_x with one side blocked: a four at most
		{"____Cx___", patF2},
		{"___oCx___", patB2},
		{"____C____", patF1},
		{"ooo_C_ooo", patNone}, // no room for five
		{"oo__C_ooo", patNone}, // four cells between blocks
		{"ooo_Cxooo", patNone},
	} {
		idx := 0
		j := 0
		for i, ch := range tt.line {
			if i == 4 {
				if ch != 'C' {
					t.Fatalf("%q: the centre must be C", tt.line)
				}
				continue
			}
			switch ch {
			case 'x':
				idx += pow3[j]
			case 'o':
				idx += 2 * pow3[j]
			}
			j++
		}
		if got := lineClass[idx]; got != tt.want {
			t.Errorf("%s: pattern %d, want %d", tt.line, got, tt.want)
		}
	}
}

// TestPboardIncremental plays and takes back random moves on the pattern
// board and checks, after each, that what it keeps move by move (codes,
// patterns, levels, ratings, counts, sums) equals what is computed from its
// cells afresh.
func TestPboardIncremental(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 15))
	games := 40
	if raceEnabled {
		games = 5
	}
	for range games {
		g := newGame(t, 15, WinLength(5))
		playMedium(t, g, r, 2+r.IntN(10))
		if g.Status().Decided() {
			continue
		}
		b := newPboard(g, fiveMargin)
		p := g.Turn()
		depth := 0
		for step := range 60 {
			if depth > 0 && (r.IntN(3) == 0 || depth > 25) {
				b.unplay()
				p = p.Other()
				depth--
			} else {
				var empty []int
				for _, c := range b.cand {
					if b.cells[c] == 0 {
						empty = append(empty, int(c))
					}
				}
				if len(empty) == 0 {
					break
				}
				b.play(empty[r.IntN(len(empty))], p)
				p = p.Other()
				depth++
			}
			checkPboard(t, b, fmt.Sprintf("%v, step %d", g.History(), step))
		}
		for ; depth > 0; depth-- {
			b.unplay()
		}
		checkPboard(t, b, fmt.Sprintf("%v, all taken back", g.History()))
		fresh := newPboard(g, fiveMargin)
		if b.hash != fresh.hash || b.sum != fresh.sum || b.cnt != fresh.cnt || !slices.Equal(b.info, fresh.info) {
			t.Fatalf("%v: after taking every move back, the board differs from a fresh one", g.History())
		}
	}
}

// checkPboard compares b with what its cells say.
func checkPboard(t *testing.T, b *pboard, where string) {
	t.Helper()
	var cnt [2][levels]int32
	var sum [2]int64
	for i, v := range b.cells {
		if v == 3 {
			continue
		}
		for d, st := range b.step {
			var want uint16
			for j := range 8 {
				want |= uint16(b.cells[i+lineOff(j)*st]) << (2 * j)
			}
			if b.code[d][i] != want {
				t.Fatalf("%s: cell %v, direction %d: code %#x, want %#x", where, b.cell(i), d, b.code[d][i], want)
			}
		}
		if v != 0 {
			continue
		}
		kept := b.info[i]
		b.rate(i)
		if b.info[i] != kept {
			t.Fatalf("%s: cell %v: kept %+v, want %+v", where, b.cell(i), kept, b.info[i])
		}
		for q := range 2 {
			cnt[q][kept.level[q]]++
			sum[q] += int64(kept.score[q])
		}
	}
	if cnt != b.cnt || sum != b.sum {
		t.Fatalf("%s: counts %v sums %v, want %v %v", where, b.cnt, b.sum, cnt, sum)
	}
}

// TestFiveVCFAgreesWithThreatSearch: on positions of 15×15 with k = 5,
// the five-in-a-row search's forced wins by fours are exactly those of the
// window-counting threat search (threat.go), a separate implementation of
// the same rule, at the same depth and without a node limit; and the first
// move of every win claimed is checked by the other search.
func TestFiveVCFAgreesWithThreatSearch(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(55, 15))
	positions := 400
	if raceEnabled {
		positions = 40
	}
	wins := 0
	for found := 0; found < positions; {
		g := newGame(t, 15, WinLength(5))
		playMedium(t, g, r, 6+r.IntN(40))
		if g.Status().Decided() {
			continue
		}
		found++
		a := g.Turn()
		fs := &fsearch{b: newPboard(g, fiveMargin), me: a, limit: 1 << 30}
		m, won := fs.threatRoot(a, fiveVCF, false, 1<<30)
		old := &searcher{f: newField(g), me: a, limit: 1 << 30}
		_, oldWon, spent := old.threatSearch(a, fiveVCF, false, 1<<30)
		if spent {
			t.Fatalf("%v: the threat search ran out of nodes", g.History())
		}
		if won != oldWon {
			t.Fatalf("%v: %v wins by fours: %v by the five search, %v by the threat search", g.History(), a, won, oldWon)
		}
		if !won {
			continue
		}
		wins++
		c := fs.b.cell(m)
		g2 := g.Clone()
		play(t, g2, c)
		if g2.Status() == Won {
			continue
		}
		check := &searcher{f: newField(g2), me: a, limit: 1 << 30}
		check.callLimit = 1 << 30
		if !check.defend(a, fiveVCF, false) {
			t.Fatalf("%v: the five search says %v wins by fours starting at %v; the threat search finds no win after it", g.History(), a, c)
		}
	}
	t.Logf("%d positions, %d wins by fours, all agreed", positions, wins)
}

// TestFiveThreatsSound: every forced win by fours and threes (VCT) the
// five-in-a-row search claims is a win by the exact search, on positions
// of small boards with k = 5 and few enough empty cells for it.
func TestFiveThreatsSound(t *testing.T) {
	t.Parallel()
	positions := 300
	if raceEnabled {
		positions = 15
	}
	for _, n := range []int{6, 7} {
		t.Run(fmt.Sprintf("%dx%d,k=5", n, n), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(n), 5))
			claims := 0
			for found := 0; found < positions; {
				g := newGame(t, n, WinLength(5))
				for !g.Status().Decided() && len(g.board)-g.Len() > 12+r.IntN(3) {
					play(t, g, computer(t, g, Medium, r))
				}
				if g.Status().Decided() || g.Len() == 0 {
					continue
				}
				found++
				p := g.Turn()
				fs := &fsearch{b: newPboard(g, fiveMargin), me: p, limit: 1 << 30}
				m, won := fs.threatRoot(p, fiveVCT, true, 1<<30)
				if !won {
					continue
				}
				claims++
				checkExactWin(t, g, fs.b.cell(m), "the five search's VCT")
			}
			t.Logf("%d positions: %d wins by threats, all exact", positions, claims)
		})
	}
}

// TestHardAvoidsQuickLosses: on positions of 15×15 with k = 5 where some
// move of Hard keeps the opponent from winning within its next two moves
// (an open four, a double four, a four-three it can make at once), Hard
// plays such a move, as X and as O. The check is a brute force over the
// judge.
func TestHardAvoidsQuickLosses(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 15))
	positions := 30
	if raceEnabled {
		positions = 4
	}
	checked := 0
	var as [2]int // positions with Hard as X, as O
	for tries := 0; (checked < positions || as[0] == 0 || as[1] == 0) && tries < 200*positions; tries++ {
		// Either player may move first: the pass below needs the player
		// to move to have as many marks as the other.
		g := newGame(t, 15, WinLength(5), FirstPlayer(Player(1+r.IntN(2))))
		playMedium(t, g, r, 8+r.IntN(30))
		me := g.Turn()
		if g.Status().Decided() || len(winningCells(g, me)) > 0 || len(winningCells(g, me.Other())) > 0 {
			continue
		}
		// Only positions where passing would lose: the opponent threatens.
		if !losesQuickly(t, g, me, Cell{-1, -1}) {
			continue
		}
		var safe []Cell
		for i := range g.board {
			c := Cell{i / 15, i % 15}
			if g.board[i] == None && nearMark(g, i) && !losesQuickly(t, g, me, c) {
				safe = append(safe, c)
			}
		}
		if len(safe) == 0 {
			continue
		}
		checked++
		as[me-1]++
		if c := computer(t, g, Hard, r); !slices.Contains(safe, c) {
			t.Errorf("%v: Hard (%v) played %v, after which the opponent wins within two moves; these moves do not lose so: %v", g.History(), me, c, safe)
		}
	}
	if checked < positions || as[0] == 0 || as[1] == 0 {
		t.Errorf("found %d positions to check (Hard as X %d, as O %d); want %d, both", checked, as[0], as[1], positions)
	}
}

// losesQuickly reports whether, after me plays c (no move: c.Row < 0), the
// opponent has a move after which me has no win at once and the opponent
// has two cells that win, or a four that me must block after which it has
// two again.
//
// It is winningCells' brute force, scanning only where a cell can change:
// a move takes one cell from the other player's wins, and adds wins of
// its own player only on the four lines through it (winsThrough), so on
// a board where that player had none, those are all its wins.
func losesQuickly(t *testing.T, g *Judge, me Player, c Cell) bool {
	t.Helper()
	g = g.Clone()
	if c.Row >= 0 {
		play(t, g, c)
		if g.Status() == Won {
			return false
		}
	} else {
		var ok bool
		if g, ok = passTurn(t, g); !ok {
			return false
		}
	}
	opp := me.Other()
	if len(winningCells(g, opp)) > 0 {
		return true
	}
	mine := winningCells(g, me) // me's wins, less the cell the opponent takes
	winsBut := func(wins []Cell, taken Cell) bool {
		return len(wins) > 1 || len(wins) == 1 && wins[0] != taken
	}
	for i := range g.board {
		if g.board[i] != None || !nearMark(g, i) {
			continue
		}
		at := Cell{i / 15, i % 15}
		if winsBut(mine, at) {
			continue
		}
		g2 := g.Clone()
		play(t, g2, at)
		w := winsThrough(g2, opp, at) // opp had no win in g
		if len(w) >= 2 {
			return true
		}
		if len(w) == 1 {
			// A four: me must block, then the opponent moves again.
			g3 := g2.Clone()
			play(t, g3, w[0])
			if g3.Status() == Won || len(winningCells(g3, opp)) > 0 {
				continue
			}
			mine3 := winningCells(g3, me)
			for j := range g3.board {
				if g3.board[j] != None || !nearMark(g3, j) {
					continue
				}
				at := Cell{j / 15, j % 15}
				if winsBut(mine3, at) {
					continue
				}
				g4 := g3.Clone()
				play(t, g4, at)
				if len(winsThrough(g4, opp, at)) >= 2 { // opp had no win in g3
					return true
				}
			}
		}
	}
	return false
}

// winsThrough returns the empty cells within k-1 of at on the four lines
// through it where p wins at once, by winningCells' count: after p plays
// at on a board where p had no winning cell, all of them.
func winsThrough(g *Judge, p Player, at Cell) []Cell {
	n, k := g.Size(), g.WinLength()
	var cells []Cell
	for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
		for s := -(k - 1); s <= k-1; s++ {
			r, c := at.Row+s*d[0], at.Col+s*d[1]
			if s == 0 || r < 0 || r >= n || c < 0 || c >= n || g.At(r, c) != None {
				continue
			}
			if winsAt(g, p, r, c) {
				cells = append(cells, Cell{r, c})
			}
		}
	}
	return cells
}

// winsAt reports whether p wins at once by playing the empty cell (r, c),
// counted as winningCells counts.
func winsAt(g *Judge, p Player, r, c int) bool {
	for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
		count := 1
		for _, s := range []int{1, -1} {
			for i := 1; g.At(r+s*i*d[0], c+s*i*d[1]) == p; i++ {
				count++
			}
		}
		if count >= g.WinLength() {
			return true
		}
	}
	return false
}

// nearMark reports whether cell i has a mark within two cells.
func nearMark(g *Judge, i int) bool {
	n := g.n
	r0, c0 := i/n, i%n
	for r := max(0, r0-2); r <= min(n-1, r0+2); r++ {
		for c := max(0, c0-2); c <= min(n-1, c0+2); c++ {
			if g.board[r*n+c] != None {
				return true
			}
		}
	}
	return false
}

// passTurn returns g as if its player to move passed: the same marks, the
// other player to move; false if that cannot be replayed (the player to
// move has fewer marks than the other).
func passTurn(t *testing.T, g *Judge) (*Judge, bool) {
	t.Helper()
	me := g.Turn()
	var mine, theirs []Cell
	for i, p := range g.board {
		switch p {
		case me:
			mine = append(mine, Cell{i / g.n, i % g.n})
		case me.Other():
			theirs = append(theirs, Cell{i / g.n, i % g.n})
		}
	}
	if len(mine) != len(theirs) {
		return nil, false
	}
	g2, err := New(g.n, WinLength(g.k), FirstPlayer(me.Other()))
	if err != nil {
		t.Fatal(err)
	}
	for j := range mine {
		play(t, g2, theirs[j])
		play(t, g2, mine[j])
	}
	return g2, true
}

// TestFiveKeepSafe: the root's check of its moves keeps exactly those
// after which the opponent has no forced win by fours, by the window
// threat search (threat.go) as the oracle, on positions of 15×15 with
// k = 5 where some but not all of the moves lose so.
func TestFiveKeepSafe(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 15))
	positions := 40
	if raceEnabled {
		positions = 5
	}
	checked := 0
	for tries := 0; checked < positions && tries < 200*positions; tries++ {
		g := newGame(t, 15, WinLength(5))
		playMedium(t, g, r, 8+r.IntN(40))
		if g.Status().Decided() {
			continue
		}
		me := g.Turn()
		fs := &fsearch{b: newPboard(g, fiveMargin), me: me, limit: 1 << 40}
		moves := slices.Clone(fs.gen(me, 0, fiveRoot))
		moves = moves[:min(len(moves), fiveRoot)]
		var lose []int
		for _, m := range moves {
			c := fs.b.cell(m)
			g2 := g.Clone()
			play(t, g2, c)
			if g2.Status().Decided() {
				continue
			}
			old := &searcher{f: newField(g2), me: me.Other(), limit: 1 << 30}
			if _, won, spent := old.threatSearch(me.Other(), fiveVCF, false, 1<<30); spent {
				t.Fatalf("%v: the threat search ran out of nodes", g.History())
			} else if won {
				lose = append(lose, m)
			}
		}
		if len(lose) == 0 || len(lose) == len(moves) {
			continue
		}
		checked++
		safe := fs.keepSafe(moves, 1<<30)
		for _, m := range moves {
			if slices.Contains(lose, m) == slices.Contains(safe, m) {
				t.Errorf("%v: after %v at %v the opponent wins by fours: %v; keepSafe keeps it: %v",
					g.History(), me, fs.b.cell(m), slices.Contains(lose, m), slices.Contains(safe, m))
			}
		}
	}
	if checked < positions {
		t.Errorf("found %d positions to check; want %d", checked, positions)
	}
}

// TestFiveAnswersComplete: when the five search claims a forced win that
// starts with a three, every empty cell of the board as the defender's
// reply still leaves a forced win, not only the answers the search tries.
// (With the fours, whose one answer is forced, this makes every win it
// claims a win.)
func TestFiveAnswersComplete(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	want := 25
	if raceEnabled {
		want = 3
	}
	claims, maxReplies := 0, 0
	for tries := 0; claims < want && tries < 400*want; tries++ {
		g := newGame(t, 15, WinLength(5))
		playMedium(t, g, r, 6+r.IntN(40))
		if g.Status().Decided() {
			continue
		}
		p := g.Turn()
		q, o := int(p-1), int(2-p)
		fs := &fsearch{b: newPboard(g, fiveMargin), me: p, limit: 1 << 40}
		m, won := fs.threatRoot(p, fiveVCT, true, 1<<40)
		b := fs.b
		if !won || b.info[m].level[q] >= lvB4 {
			continue // no win, or one that starts with a four
		}
		claims++
		replies := 0
		b.play(m, p)
		for c, v := range b.cells {
			if v != 0 {
				continue
			}
			if b.info[c].best[q] >= patB4 || b.info[c].level[o] >= lvB4 {
				replies++
			}
			b.play(c, p.Other())
			fs.vcfLimit, fs.spent = 1<<40, false
			_, ok := fs.threats(p, fiveVCT-1, true, false)
			b.unplay()
			if !ok {
				t.Errorf("%v: %v's three at %v, claimed to win, is refuted by %v, which the search never tried", g.History(), p, b.cell(m), b.cell(c))
			}
		}
		maxReplies = max(maxReplies, replies)
		b.unplay()
	}
	if claims < want {
		t.Errorf("found %d wins that start with a three; want %d", claims, want)
	}
	t.Logf("%d wins that start with a three, every reply checked; the search tries at most %d", claims, maxReplies)
}
