package game

// This file holds the judge for a win length k < n. A line of the board
// then holds many length-k windows, and a player wins by filling any of
// them. Counters per line no longer say whether someone won, so a move walks
// out from the new mark (at most k-1 cells each way) to find a run of k, and
// keeps 2 bits per window (which players have a mark in it) so that the
// number of windows still winnable, and hence a decided draw, is known in
// O(k) per move.

// dirs are the four directions of a line, in the order the judge checks them
// and the window masks are kept: row, column, diagonal, anti-diagonal.
var dirs = [4]struct{ dr, dc int }{{0, 1}, {1, 0}, {1, 1}, {1, -1}}

// windowTotal returns the number of length-k windows of an n×n board in the
// four directions: n(n-k+1) in each of rows and columns, (n-k+1)² on each of
// the two diagonal directions.
func windowTotal(n, k int) int {
	m := n - k + 1
	return 2*n*m + 2*m*m
}

// initWindows allocates the window masks, 2 bits a window. Window indices
// per direction are those of windowIndex.
func (g *Judge) initWindows() {
	n, m := g.n, g.n-g.k+1
	counts := [4]int{n * m, m * n, m * m, m * m}
	for d, c := range counts {
		g.masks[d] = make([]uint8, (c+3)/4)
	}
}

// markWindows records p's mark at (row, col) in the mask of every window
// through it — at most k per direction — and decrements winnable for each
// window that now holds marks of both players. O(k).
//
// Windows are numbered by their first cell (the one with the smallest row,
// then column): with m = n-k+1, a row window starting at (r, c) is r*m+c, a
// column window r*n+c, a diagonal window r*m+c and an anti-diagonal window
// (whose first cell is its top-right one) r*m+(c-k+1). The window starting
// i cells back from (row, col) contains it for 0 <= i < k; the bounds below
// are those i for which that window lies on the board.
func (g *Judge) markWindows(row, col int, p Player) {
	n, k, m := g.n, g.k, g.n-g.k+1
	bit := uint8(p) // X sets bit 0 and O bit 1

	// Row windows start at (row, col-i), 0 <= col-i < m.
	for i := max(0, col-m+1); i <= min(k-1, col); i++ {
		g.markWindow(0, row*m+col-i, bit)
	}
	// Column windows start at (row-i, col), 0 <= row-i < m.
	for i := max(0, row-m+1); i <= min(k-1, row); i++ {
		g.markWindow(1, (row-i)*n+col, bit)
	}
	// Diagonal windows start at (row-i, col-i).
	for i := max(0, row-m+1, col-m+1); i <= min(k-1, row, col); i++ {
		g.markWindow(2, (row-i)*m+col-i, bit)
	}
	// Anti-diagonal windows start at (row-i, col+i), k-1 <= col+i < n.
	for i := max(0, row-m+1, k-1-col); i <= min(k-1, row, n-1-col); i++ {
		g.markWindow(3, (row-i)*m+col+i-k+1, bit)
	}
}

// markWindow sets bit in the 2-bit mask of window w of direction d.
func (g *Judge) markWindow(d, w int, bit uint8) {
	b := &g.masks[d][w>>2]
	shift := uint(w&3) * 2
	old := *b >> shift & 3
	if old|bit != old {
		*b |= bit << shift
		if old|bit == 3 {
			g.winnable--
		}
	}
}

// scanWin walks out from p's new mark at (row, col) in each direction, at
// most k-1 cells each way, and reports whether it made a run of at least k;
// it records the first such run (first k cells) as the winning line. O(k).
func (g *Judge) scanWin(row, col int, p Player) bool {
	for _, d := range dirs {
		back := run(g.board, g.n, g.k-1, row, col, -d.dr, -d.dc, p)
		fwd := run(g.board, g.n, g.k-1, row, col, d.dr, d.dc, p)
		if back+1+fwd >= g.k {
			g.setWin(Cell{row - back*d.dr, col - back*d.dc}, d.dr, d.dc)
			return true
		}
	}
	return false
}

// run counts p's marks on the n×n board from (row, col) outward in
// direction (dr, dc), not counting (row, col) itself, up to limit.
func run(board []Player, n, limit, row, col, dr, dc int, p Player) int {
	i := 0
	for i < limit {
		r, c := row+(i+1)*dr, col+(i+1)*dc
		if r < 0 || r >= n || c < 0 || c >= n || board[r*n+c] != p {
			break
		}
		i++
	}
	return i
}
