package game

// rect is the part of the game's board that a search of Hard plays on: the
// bounding box of the marks grown by a margin, clipped to the board, with
// a border of cells that count as off the board, and for every cell the
// number of marks within two cells (the candidate moves).
type rect struct {
	w      int     // columns, border included
	r0, c0 int     // game coordinates of local cell 0 (maybe off the board)
	cells  []uint8 // 0 empty, 1 X, 2 O, 3 off the board or the rectangle
	step   [4]int  // local index steps of the four directions

	near []uint8 // marks within two cells (Chebyshev)
	// cand is a stack of the cells whose near count went from 0 to 1,
	// popped back when the move is undone: every cell near a mark is on
	// it once.
	cand []int32
}

// newRect returns the rectangle of g's board (at least one mark) within
// margin cells of the marks, with a border of pad cells, all empty.
func newRect(g *Judge, margin, pad int) rect {
	n := g.n
	minR, minC, maxR, maxC := n, n, -1, -1
	for _, h := range g.hist {
		r, c := int(h)/n, int(h)%n
		minR, maxR = min(minR, r), max(maxR, r)
		minC, maxC = min(minC, c), max(maxC, c)
	}
	pr0, pc0 := max(0, minR-margin), max(0, minC-margin)
	pr1, pc1 := min(n-1, maxR+margin), min(n-1, maxC+margin)
	t := rect{r0: pr0 - pad, c0: pc0 - pad}
	t.w = pc1 - pc0 + 1 + 2*pad
	h := pr1 - pr0 + 1 + 2*pad
	t.step = [4]int{1, t.w, t.w + 1, t.w - 1}
	t.cells = make([]uint8, t.w*h)
	for i := range t.cells {
		r, c := i/t.w, i%t.w
		if r < pad || r >= h-pad || c < pad || c >= t.w-pad {
			t.cells[i] = 3
		}
	}
	t.near = make([]uint8, len(t.cells))
	return t
}

// local returns the local index of the game's cell (r, c).
func (t *rect) local(r, c int) int { return (r-t.r0)*t.w + c - t.c0 }

// cell returns the game's cell of local index i.
func (t *rect) cell(i int) Cell { return Cell{t.r0 + i/t.w, t.c0 + i%t.w} }

// addNear counts a mark on cell i in the near counts of the cells around
// it, pushing those that become near a mark on cand.
func (t *rect) addNear(i int) {
	w := t.w
	for dr := -2; dr <= 2; dr++ {
		for dc := -2; dc <= 2; dc++ {
			j := i + dr*w + dc
			if j < 0 || j >= len(t.cells) || t.cells[j] == 3 {
				continue
			}
			t.near[j]++
			if t.near[j] == 1 {
				t.cand = append(t.cand, int32(j))
			}
		}
	}
}

// removeNear undoes addNear(i); the caller pops cand back to its length
// before.
func (t *rect) removeNear(i int) {
	w := t.w
	for dr := -2; dr <= 2; dr++ {
		for dc := -2; dc <= 2; dc++ {
			if j := i + dr*w + dc; j >= 0 && j < len(t.cells) && t.cells[j] != 3 {
				t.near[j]--
			}
		}
	}
}
