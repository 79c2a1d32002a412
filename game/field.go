package game

// This file holds the board as the threat search of Hard sees it: a copy
// of the part of the game's board around the marks, with, for every cell,
// counts of the windows through it by how full they are, kept up to date
// move by move so that threats are found in O(1) a cell.

import "slices"

// field is a rectangle of the game's board around its marks, with a border
// of cells that count as off the board. It is exact for every window that
// holds a mark of the game; search moves are played within margin cells of
// the marks, where windows reaching beyond the rectangle count as blocked.
type field struct {
	rect
	k      int
	weight []int64 // weight[m]: value of a window with m marks of one player only

	// For player p (index p-1) and cell i: val[p-1][i] sums weight[m] over
	// the windows through i that p can still complete (m of p's marks, none
	// of the other's); win, four and three count those windows with
	// m = k-1 (a mark at i wins), k-2 (makes a four), k-3 (makes a three).
	val              [2][]int32
	win, four, three [2][]uint8
	total            [2]int64

	// Stacks of cells, each pushed when its count went from 0 to 1 (win,
	// four; near: rect.cand) and popped when the move is undone; entries
	// that are no longer true are skipped by the readers. Every empty cell
	// with win or four above 0 is on the matching stack.
	wins, fors [2][]int32
	moves      []undo
	hash       uint64
}

// undo is what unplay needs to restore the stacks.
type undo struct {
	cell       int32
	p          Player
	cand       int32
	wins, fors [2]int32
}

// fieldMargin is how far (in cells) from the game's marks search moves may
// go: the rectangle is the marks' bounding box grown by it, plus a border
// of k-1 cells.
func fieldMargin(k int) int { return k + 1 }

// newField copies the part of g's board around its marks; g must have at
// least one mark and 2 <= k < n.
func newField(g *Judge) *field {
	k := g.k
	// The playable rectangle, then the border.
	f := &field{k: k, rect: newRect(g, fieldMargin(k), k-1)}
	size := len(f.cells)
	for p := range 2 {
		f.val[p] = make([]int32, size)
		f.win[p] = make([]uint8, size)
		f.four[p] = make([]uint8, size)
		f.three[p] = make([]uint8, size)
	}
	f.weight = make([]int64, k+1)
	for m := 1; m < k; m++ {
		f.weight[m] = 1 << (3 * m)
	}
	for j := range g.hist {
		m := g.moveAt(j)
		f.play(f.local(m.Row, m.Col), m.Player)
	}
	f.moves = f.moves[:0]
	return f
}

// play puts p's mark on the empty cell i.
func (f *field) play(i int, p Player) {
	f.moves = append(f.moves, undo{
		cell: int32(i), p: p, cand: int32(len(f.cand)),
		wins: [2]int32{int32(len(f.wins[0])), int32(len(f.wins[1]))},
		fors: [2]int32{int32(len(f.fors[0])), int32(len(f.fors[1]))},
	})
	f.update(i, p, 1)
	f.cells[i] = uint8(p)
	f.hash ^= zobrist(i, p)
	f.addNear(i)
}

// unplay takes back the last move.
func (f *field) unplay() {
	u := f.moves[len(f.moves)-1]
	f.moves = f.moves[:len(f.moves)-1]
	i := int(u.cell)
	f.removeNear(i)
	f.cells[i] = 0
	f.hash ^= zobrist(i, u.p)
	f.update(i, u.p, -1)
	f.cand = f.cand[:u.cand]
	for p := range 2 {
		f.wins[p] = f.wins[p][:u.wins[p]]
		f.fors[p] = f.fors[p][:u.fors[p]]
	}
}

// update adds (sign 1) or removes (sign -1) the effect of p's mark on the
// empty cell i on every window through it: O(k²) in each direction.
func (f *field) update(i int, p Player, sign int) {
	k := f.k
	me, op := int(p-1), int(2-p)
	var seg [2*maxSearchK - 1]uint8
	for _, st := range f.step {
		// seg[j] is the cell (j-(k-1)) steps from i; seg[k-1] is i, empty.
		for j := range 2*k - 1 {
			seg[j] = f.cells[i+(j-(k-1))*st]
		}
		seg[k-1] = 0
		var cnt [4]int
		for _, v := range seg[:k] {
			cnt[v]++
		}
		for s := 0; ; s++ { // the window seg[s : s+k]
			if cnt[3] == 0 {
				first := i + (s-(k-1))*st
				if cnt[op+1] == 0 {
					// p's window goes from m to m+1 marks.
					m := cnt[me+1]
					f.shift(me, first, st, m, m+1, sign)
				}
				if cnt[me+1] == 0 && cnt[op+1] > 0 {
					// The other player's window is blocked (one
					// without marks counts for nothing).
					f.shift(op, first, st, cnt[op+1], -1, sign)
				}
			}
			if s == k-1 {
				break
			}
			cnt[seg[s]]--
			cnt[seg[s+k]]++
		}
	}
}

// shift moves a window of player index q, whose first cell is first, from
// from marks to to marks (-1: blocked), or back when sign is -1: it updates
// the counts of its k cells and the total.
func (f *field) shift(q, first, st, from, to, sign int) {
	if sign < 0 {
		from, to = to, from
	}
	k := f.k
	wf, wt := f.w8(from), f.w8(to)
	f.total[q] += wt - wf
	dv := int32(wt - wf)
	val := f.val[q]
	// The win, four or three counts the window leaves and joins, if any.
	dec, inc := f.counter(q, from), f.counter(q, to)
	for j := range k {
		c := first + j*st
		val[c] += dv
		if dec != nil {
			dec[c]--
		}
		if inc != nil {
			inc[c]++
			if inc[c] == 1 {
				f.pushCount(q, c, to)
			}
		}
	}
}

// w8 returns the weight of a window with m marks (0 for none or blocked).
func (f *field) w8(m int) int64 {
	if m <= 0 {
		return 0
	}
	return f.weight[m]
}

// counter returns the counts (win, four or three) of player index q that a
// window with m marks adds to, or nil: windows without marks, or with
// fewer than k-3, are not counted.
func (f *field) counter(q, m int) []uint8 {
	switch k := f.k; {
	case m <= 0:
		return nil
	case m == k-1:
		return f.win[q]
	case m == k-2:
		return f.four[q]
	case m == k-3:
		return f.three[q]
	}
	return nil
}

// pushCount pushes cell c, whose win or four count (by m, as in counter)
// just became 1, on the matching stack.
func (f *field) pushCount(q, c, m int) {
	switch m {
	case f.k - 1:
		f.wins[q] = append(f.wins[q], int32(c))
	case f.k - 2:
		f.fors[q] = append(f.fors[q], int32(c))
	}
}

// winCells returns up to max distinct empty cells where p wins at once,
// appending to buf.
func (f *field) winCells(p Player, max int, buf []int) []int {
	q := int(p - 1)
	for _, c := range f.wins[q] {
		if len(buf) >= max {
			break
		}
		if f.cells[c] != 0 || f.win[q][c] == 0 {
			continue
		}
		buf = appendNew(buf, int(c))
	}
	return buf
}

// fourCells appends to buf the distinct empty cells where a mark of p makes
// a four (a window one mark short).
func (f *field) fourCells(p Player, buf []int) []int {
	q := int(p - 1)
	for _, c := range f.fors[q] {
		if f.cells[c] != 0 || f.four[q][c] == 0 {
			continue
		}
		buf = appendNew(buf, int(c))
	}
	return buf
}

// appendNew appends c to buf unless buf holds it already.
func appendNew(buf []int, c int) []int {
	if slices.Contains(buf, c) {
		return buf
	}
	return append(buf, c)
}

// fourKinds reports whether player index q has an empty cell where a mark
// makes a four (any), and one where it makes two (double: most often two
// win cells at once).
func (f *field) fourKinds(q int) (any, double bool) {
	for _, c := range f.fors[q] {
		if f.cells[c] != 0 {
			continue
		}
		switch n := f.four[q][c]; {
		case n >= 2:
			return true, true
		case n == 1:
			any = true
		}
	}
	return any, false
}
