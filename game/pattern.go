package game

// This file holds the board of Hard's five-in-a-row search (k = 5, five or
// more in a row wins): for every empty cell and player, what a mark there
// would make in each of the four directions (a pattern: a five, an open
// four, a four, an open three, …, as the classical gomoku engines rate
// them), kept up to date move by move through a table lookup per touched
// cell and direction.

// Patterns of one direction: what a mark on the cell makes along it. A
// five wins; a four leaves one cell that makes a five (F4, open: two);
// a three leaves a cell that makes a four (F3: an open four); and so on
// down to ones. The order is the order of strength.
const (
	patNone uint8 = iota
	patB1
	patF1
	patB2
	patF2
	patB3
	patF3
	patB4
	patF4
	patF5
)

// Levels of a cell for a player, from the patterns of its four directions:
// what a mark there threatens as a whole.
const (
	lvNone uint8 = iota
	lvF3         // an open three
	lvF3P        // an open three and a three
	lvF33        // two open threes
	lvB4         // a four
	lvB4P        // a four and a three or an open two
	lvB43        // a four and an open three
	lvF4         // an open four or two fours: wins unless the other makes five
	lvF5         // a five
	levels
)

// patScore is what a pattern adds to the rating of its cell, levelScore
// what the level adds: move ordering and the evaluation both sum them.
var (
	patScore   = [...]int32{patNone: 0, patB1: 1, patF1: 3, patB2: 6, patF2: 16, patB3: 18, patF3: 60, patB4: 70, patF4: 500, patF5: 4000}
	levelScore = [levels]int32{lvF3P: 40, lvF33: 250, lvB4P: 60, lvB43: 600, lvF4: 1500, lvF5: 8000}
)

// pow3 are the powers of 3 that index lineClass.
var pow3 = [8]int{1, 3, 9, 27, 81, 243, 729, 2187}

// lineClass is the pattern of a mark on the centre of a line of nine
// cells, indexed by the states of the other eight (offsets -4 to -1 and 1
// to 4, in that order) in base 3: 0 empty, 1 the player's, 2 the other's
// or off the board.
var lineClass = classifyLines()

// linePat[p-1][code] is lineClass for player p of a cell whose neighbours
// along one direction are coded two bits each (0 empty, 1 X, 2 O, 3 off the
// board), in the order of lineClass.
var linePat = buildLinePat()

func classifyLines() *[6561]uint8 {
	var t [6561]uint8
	var done [6561]bool
	var class func(idx int) uint8
	class = func(idx int) uint8 {
		if done[idx] {
			return t[idx]
		}
		var line [9]uint8
		x := idx
		for j := range 8 {
			line[linePos(j)] = uint8(x % 3)
			x /= 3
		}
		line[4] = 1
		r := patNone
		switch fives := lineFives(&line); {
		case lineFive(&line):
			r = patF5
		case fives >= 2:
			r = patF4
		case fives == 1:
			r = patB4
		default:
			up := [...]uint8{patF4: patF3, patB4: patB3, patF3: patF2, patB3: patB2, patF2: patF1, patB2: patB1}
			for j := range 8 {
				if line[linePos(j)] != 0 {
					continue
				}
				if sub := class(idx + pow3[j]); int(sub) < len(up) {
					r = max(r, up[sub])
				}
			}
		}
		t[idx], done[idx] = r, true
		return r
	}
	for idx := range t {
		class(idx)
	}
	return &t
}

// linePos is the index in a line of nine of neighbour j of the centre.
func linePos(j int) int {
	if j >= 4 {
		return j + 1
	}
	return j
}

// lineFive reports whether the centre's run of the player's marks is five
// or longer.
func lineFive(line *[9]uint8) bool {
	n := 1
	for i := 3; i >= 0 && line[i] == 1; i-- {
		n++
	}
	for i := 5; i < 9 && line[i] == 1; i++ {
		n++
	}
	return n >= 5
}

// lineFives counts the empty cells of the line where a mark makes a five
// through the centre.
func lineFives(line *[9]uint8) int {
	n := 0
	for i := range line {
		if line[i] != 0 {
			continue
		}
		line[i] = 1
		if lineFive(line) {
			n++
		}
		line[i] = 0
	}
	return n
}

func buildLinePat() *[2][1 << 16]uint8 {
	var t [2][1 << 16]uint8
	// fill sets the codes whose neighbours before j are given (code), with
	// the lineClass indexes they make so far for X (i0) and O (i1).
	var fill func(j, code, i0, i1 int)
	fill = func(j, code, i0, i1 int) {
		if j == 8 {
			t[0][code], t[1][code] = lineClass[i0], lineClass[i1]
			return
		}
		for v, s := range [4][2]int{{0, 0}, {1, 2}, {2, 1}, {2, 2}} {
			fill(j+1, code|v<<(2*j), i0+s[0]*pow3[j], i1+s[1]*pow3[j])
		}
	}
	fill(0, 0, 0, 0)
	return &t
}

// pboard is the board of the five-in-a-row search: a rect of the game's
// board around its marks, with four cells of border that count as off the
// board.
type pboard struct {
	rect
	code [4][]uint16 // code[d][i]: the neighbours of i along d, two bits each

	// What a mark on each empty cell makes, for both players; for empty
	// cells only, cnt counts the cells of each level and sum adds up the
	// ratings.
	info []cellInfo
	cnt  [2][levels]int32
	sum  [2]int64

	moves []pundo
	hash  uint64
}

// cellInfo is what a mark on a cell makes, for each player index q: the
// patterns of the four directions, the level, the rating and the strongest
// pattern.
type cellInfo struct {
	score [2]int32
	pat   [2][4]uint8
	level [2]uint8
	best  [2]uint8
}

// pundo is what unplay needs: the cell, and the length of cand before.
type pundo struct {
	cell int32
	cand int32
}

// pboardPad is the border: the nine-cell lines of every cell inside reach
// four cells out.
const pboardPad = 4

// newPboard copies the part of g's board around its marks (at least one):
// their bounding box grown by margin cells, clipped to the board.
func newPboard(g *Judge, margin int) *pboard {
	b := &pboard{rect: newRect(g, margin, pboardPad)}
	size := len(b.cells)
	for d := range b.code {
		b.code[d] = make([]uint16, size)
	}
	b.info = make([]cellInfo, size)
	// Cells more than four from the border see only empty cells: their
	// codes are 0, and what they rate is the same for all of them.
	var open cellInfo
	h := len(b.cells) / b.w
	for i, v := range b.cells {
		if v == 3 {
			continue
		}
		if r, c := i/b.w, i%b.w; r >= 2*pboardPad && r < h-2*pboardPad && c >= 2*pboardPad && c < b.w-2*pboardPad {
			if open.pat[0][0] == patNone {
				b.rate(i)
				open = b.info[i]
			}
			b.info[i] = open
			b.count(i, 1)
			continue
		}
		for d, st := range b.step {
			for j := range 8 {
				if b.cells[i+lineOff(j)*st] == 3 {
					b.code[d][i] |= 3 << (2 * j)
				}
			}
		}
		b.rate(i)
		b.count(i, 1)
	}
	for j := range g.hist {
		m := g.moveAt(j)
		b.play(b.local(m.Row, m.Col), m.Player)
	}
	b.moves = b.moves[:0]
	return b
}

// lineOff is the offset from the centre of neighbour j.
func lineOff(j int) int {
	if j >= 4 {
		return j - 3
	}
	return j - 4
}

// rate computes the patterns, levels, ratings and best patterns of the
// cell i from its codes.
func (b *pboard) rate(i int) {
	for q := range 2 {
		for d := range 4 {
			b.info[i].pat[q][d] = linePat[q][b.code[d][i]]
		}
		b.combine(q, i)
	}
}

// combine sets the level, rating and best pattern of player index q on the
// cell i from its four patterns.
func (b *pboard) combine(q, i int) {
	in := &b.info[i]
	t := &in.pat[q]
	c := combos[((int(t[0])*10+int(t[1]))*10+int(t[2]))*10+int(t[3])]
	in.level[q], in.score[q], in.best[q] = c.level, c.score, c.best
}

// combo is what four patterns make together.
type combo struct {
	score       int32
	level, best uint8
}

// combos holds the combo of every four patterns t0..t3 at index
// ((t0*10+t1)*10+t2)*10+t3.
var combos = buildCombos()

func buildCombos() *[10000]combo {
	var t [10000]combo
	for idx := range t {
		var n [patF5 + 1]uint8
		var s int32
		top := patNone
		x := idx
		for range 4 {
			p := uint8(x % 10)
			x /= 10
			n[p]++
			s += patScore[p]
			top = max(top, p)
		}
		lv := lvNone
		switch {
		case n[patF5] > 0:
			lv = lvF5
		case n[patF4] > 0 || n[patB4] >= 2:
			lv = lvF4
		case n[patB4] > 0 && n[patF3] > 0:
			lv = lvB43
		case n[patB4] > 0 && n[patB3]+n[patF2] > 0:
			lv = lvB4P
		case n[patB4] > 0:
			lv = lvB4
		case n[patF3] >= 2:
			lv = lvF33
		case n[patF3] > 0 && n[patB3] > 0:
			lv = lvF3P
		case n[patF3] > 0:
			lv = lvF3
		}
		t[idx] = combo{score: s + levelScore[lv], level: lv, best: top}
	}
	return &t
}

// count adds (sign 1) or removes (-1) the empty cell i to the counts and
// sums.
func (b *pboard) count(i int, sign int32) {
	in := &b.info[i]
	b.cnt[0][in.level[0]] += sign
	b.cnt[1][in.level[1]] += sign
	b.sum[0] += int64(sign * in.score[0])
	b.sum[1] += int64(sign * in.score[1])
}

// play puts p's mark on the empty cell i.
func (b *pboard) play(i int, p Player) {
	b.moves = append(b.moves, pundo{cell: int32(i), cand: int32(len(b.cand))})
	b.count(i, -1)
	b.cells[i] = uint8(p)
	b.hash ^= zobrist(i, p)
	b.touch(i, uint16(p))
	b.addNear(i)
}

// unplay takes back the last move.
func (b *pboard) unplay() {
	u := b.moves[len(b.moves)-1]
	b.moves = b.moves[:len(b.moves)-1]
	i := int(u.cell)
	b.removeNear(i)
	b.cand = b.cand[:u.cand]
	b.hash ^= zobrist(i, Player(b.cells[i]))
	b.cells[i] = 0
	b.touch(i, 0)
	b.rate(i)
	b.count(i, 1)
}

// touch sets the code of cell i, as the neighbour of the cells within four
// along each direction, to v, and rates again those that are empty.
func (b *pboard) touch(i int, v uint16) {
	for d, st := range b.step {
		code := b.code[d]
		for j := range 8 {
			x := i + lineOff(j)*st
			if b.cells[x] == 3 {
				continue
			}
			// i is neighbour 7-j of x.
			sh := 2 * (7 - j)
			c := code[x]&^(3<<sh) | v<<sh
			code[x] = c
			if b.cells[x] != 0 {
				continue
			}
			t0, t1 := linePat[0][c], linePat[1][c]
			in := &b.info[x]
			if t0 == in.pat[0][d] && t1 == in.pat[1][d] {
				continue
			}
			b.count(x, -1)
			in.pat[0][d], in.pat[1][d] = t0, t1
			b.combine(0, x)
			b.combine(1, x)
			b.count(x, 1)
		}
	}
}

// cellsAt appends to buf up to max empty cells where player index q's
// level is at least lv, from the candidate cells.
func (b *pboard) cellsAt(q int, lv uint8, max int, buf []int) []int {
	for _, c := range b.cand {
		if len(buf) >= max {
			break
		}
		if b.cells[c] == 0 && b.info[c].level[q] >= lv {
			buf = append(buf, int(c))
		}
	}
	return buf
}

// atLeast reports whether player index q has an empty cell of level lv or
// more.
func (b *pboard) atLeast(q int, lv uint8) bool {
	for l := lv; l < levels; l++ {
		if b.cnt[q][l] > 0 {
			return true
		}
	}
	return false
}
