package picture

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tttbot/tttbot/game"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// play replays moves on an n×n board with win length k, X first.
func play(t testing.TB, n, k int, moves ...game.Cell) *game.Judge {
	t.Helper()
	hist := make([]game.Move, len(moves))
	p := game.X
	for i, m := range moves {
		hist[i] = game.Move{Row: m.Row, Col: m.Col, Player: p}
		p = p.Other()
	}
	g, err := game.Replay(n, hist, game.WinLength(k))
	if err != nil {
		t.Fatalf("Replay(%d, %v, WinLength(%d)): %v", n, hist, k, err)
	}
	return g
}

// playing10 is a 10×10 game, 5 in a row, in progress: X has four in row 7
// that O has blocked, X has just played the top-right corner (0, 9) and O
// the bottom-left one (9, 0), 0-based, the last move.
func playing10(t testing.TB) *game.Judge {
	return play(t, 10, 5,
		game.Cell{Row: 4, Col: 4}, game.Cell{Row: 4, Col: 5},
		game.Cell{Row: 5, Col: 5}, game.Cell{Row: 3, Col: 3},
		game.Cell{Row: 5, Col: 4}, game.Cell{Row: 5, Col: 3},
		game.Cell{Row: 6, Col: 4}, game.Cell{Row: 3, Col: 4},
		game.Cell{Row: 7, Col: 4}, game.Cell{Row: 8, Col: 4},
		game.Cell{Row: 6, Col: 6}, game.Cell{Row: 7, Col: 7},
		game.Cell{Row: 6, Col: 5}, game.Cell{Row: 6, Col: 3},
		game.Cell{Row: 6, Col: 7}, game.Cell{Row: 6, Col: 8},
		game.Cell{Row: 0, Col: 9}, game.Cell{Row: 9, Col: 0},
	)
}

// won10 is a 10×10 game, 5 in a row, that X won on a diagonal from (2, 3)
// to (6, 7), 0-based, the last move being (6, 7).
func won10(t testing.TB) *game.Judge {
	return play(t, 10, 5,
		game.Cell{Row: 4, Col: 5}, game.Cell{Row: 4, Col: 4},
		game.Cell{Row: 3, Col: 4}, game.Cell{Row: 5, Col: 5},
		game.Cell{Row: 5, Col: 6}, game.Cell{Row: 3, Col: 5},
		game.Cell{Row: 2, Col: 3}, game.Cell{Row: 7, Col: 7},
		game.Cell{Row: 6, Col: 7},
	)
}

// draw3 is a full 3×3 board that nobody won:
//
//	X O X
//	X O O
//	O X X
func draw3(t testing.TB) *game.Judge {
	return play(t, 3, 3,
		game.Cell{Row: 0, Col: 0}, game.Cell{Row: 0, Col: 1},
		game.Cell{Row: 0, Col: 2}, game.Cell{Row: 1, Col: 1},
		game.Cell{Row: 1, Col: 0}, game.Cell{Row: 2, Col: 0},
		game.Cell{Row: 2, Col: 1}, game.Cell{Row: 1, Col: 2},
		game.Cell{Row: 2, Col: 2},
	)
}

// wonRow9 is a 9×9 game, 5 in a row, that O won along row 5 (index 4).
func wonRow9(t testing.TB) *game.Judge {
	return play(t, 9, 5,
		game.Cell{Row: 0, Col: 0}, game.Cell{Row: 4, Col: 2},
		game.Cell{Row: 0, Col: 1}, game.Cell{Row: 4, Col: 3},
		game.Cell{Row: 0, Col: 2}, game.Cell{Row: 4, Col: 4},
		game.Cell{Row: 0, Col: 3}, game.Cell{Row: 0, Col: 4},
		game.Cell{Row: 8, Col: 8}, game.Cell{Row: 4, Col: 6},
		game.Cell{Row: 7, Col: 8}, game.Cell{Row: 4, Col: 5},
	)
}

// playing15 is a 15×15 gomoku game (5 in a row) in progress after 90
// moves, which nobody has won: cells of the middle 11×11, in a fixed
// shuffled order, skipping any that would end the game; the labels run to
// 15 and most marks crowd the middle, as in a long game.
func playing15(t testing.TB) *game.Judge {
	t.Helper()
	g, err := game.New(15, game.WinLength(5))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(15, 5))
	cells := rng.Perm(11 * 11)
	for _, i := range cells {
		if g.Len() == 90 {
			break
		}
		r, c := 2+i/11, 2+i%11
		try := g.Clone()
		if st, err := try.Play(r, c, try.Turn()); err != nil || st != game.InProgress {
			continue
		}
		if _, err := g.Play(r, c, g.Turn()); err != nil {
			t.Fatal(err)
		}
	}
	if g.Len() != 90 {
		t.Fatalf("playing15 has %d moves; want 90", g.Len())
	}
	return g
}

// won15 is a 15×15 gomoku game that X won along the anti-diagonal from
// (10, 4) to (14, 0), 0-based, at the board's corner, with O's marks in
// row 15 (index 14) and the last labels' rows and columns in use.
func won15(t testing.TB) *game.Judge {
	return play(t, 15, 5,
		game.Cell{Row: 10, Col: 4}, game.Cell{Row: 14, Col: 14},
		game.Cell{Row: 11, Col: 3}, game.Cell{Row: 14, Col: 13},
		game.Cell{Row: 12, Col: 2}, game.Cell{Row: 14, Col: 12},
		game.Cell{Row: 13, Col: 1}, game.Cell{Row: 0, Col: 14},
		game.Cell{Row: 14, Col: 0},
	)
}

func TestGolden(t *testing.T) {
	for _, tt := range pictured {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Draw(&buf, tt.game(t)); err != nil {
				t.Fatalf("Draw: %v", err)
			}
			golden := filepath.Join("testdata", tt.name+".png")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			got, err := png.Decode(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("decode the PNG Draw wrote: %v", err)
			}
			want := decodeFile(t, golden)
			gotPath := filepath.Join("testdata", tt.name+".got.png")
			msg := comparePixels(got, want)
			if msg == "" {
				// A picture left by an earlier failure is stale now.
				if err := os.Remove(gotPath); err != nil && !errors.Is(err, os.ErrNotExist) {
					t.Error(err)
				}
				return
			}
			if err := os.WriteFile(gotPath, buf.Bytes(), 0o644); err != nil {
				t.Errorf("write %s: %v", gotPath, err)
			}
			t.Errorf("%s: %s; compare it with %s, or run go test -update if the change is intended", gotPath, msg, golden)
		})
	}
}

func decodeFile(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create the golden file)", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	return img
}

// tolerance is the largest difference in one colour channel that still
// counts as the same pixel: compilers for some architectures fuse
// floating-point operations, which may move an anti-aliased edge by a unit.
const tolerance = 2

// comparePixels describes how got differs from want, or returns "" if the
// two have the same size and pixels.
func comparePixels(got, want image.Image) string {
	if got.Bounds() != want.Bounds() {
		return fmt.Sprintf("bounds %v; want %v", got.Bounds(), want.Bounds())
	}
	var differ int
	var first image.Point
	b := got.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if !near(got.At(x, y), want.At(x, y)) {
				if differ == 0 {
					first = image.Pt(x, y)
				}
				differ++
			}
		}
	}
	if differ == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d pixels differ, the first at %v: got %v; want %v",
		differ, b.Dx()*b.Dy(), first, got.At(first.X, first.Y), want.At(first.X, first.Y))
}

func near(a, b color.Color) bool {
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	d := func(x, y uint32) bool { return max(x, y)-min(x, y) <= tolerance*0x101 }
	return d(ar, br) && d(ag, bg) && d(ab, bb) && d(aa, ba)
}

func TestDeterministic(t *testing.T) {
	draw := func() []byte {
		var buf bytes.Buffer
		if err := Draw(&buf, won10(t)); err != nil {
			t.Fatalf("Draw: %v", err)
		}
		return buf.Bytes()
	}
	a, b := draw(), draw()
	if !bytes.Equal(a, b) {
		t.Errorf("two Draws of the same game wrote %d and %d bytes that differ", len(a), len(b))
	}
}

func render(t *testing.T, g *game.Judge) *image.RGBA {
	t.Helper()
	img, err := Render(g)
	if err != nil {
		t.Fatalf("Render(%d×%d): %v", g.Size(), g.Size(), err)
	}
	return img
}

// centreOf returns the middle pixel of cell (r, c), 0-based.
func centreOf(l layout, r, c int) image.Point {
	in := l.inner(r, c)
	return image.Pt((in.Min.X+in.Max.X)/2, (in.Min.Y+in.Max.Y)/2)
}

func TestMarks(t *testing.T) {
	g := playing10(t) // X at (4, 4), O at (4, 5), (0, 0) empty
	img := render(t, g)
	l := newLayout(g.Size())
	at := func(p image.Point) color.RGBA { return img.RGBAAt(p.X, p.Y) }

	if got := at(centreOf(l, 0, 0)); got != colCell {
		t.Errorf("centre of empty cell (0, 0) = %v; want the cell colour %v", got, colCell)
	}
	if got := at(centreOf(l, 4, 4)); got != colX {
		t.Errorf("centre of X's cell (4, 4) = %v; want X's colour %v", got, colX)
	}
	// A ring is hollow: its centre is the cell colour and its band, halfway
	// between the inner and the outer radius, is O's colour.
	o := centreOf(l, 4, 5)
	if got := at(o); got != colCell {
		t.Errorf("centre of O's cell (4, 5) = %v; want the cell colour %v (a ring)", got, colCell)
	}
	band := image.Pt(o.X+int((ringRadius-ringWidth/2)*float64(l.inner(4, 5).Dx())), o.Y)
	if got := at(band); got != colO {
		t.Errorf("ring of O's cell (4, 5) at %v = %v; want O's colour %v", band, got, colO)
	}
	// A cross is open on its sides: the middle of the cell's top edge
	// region, between the bars' ends, is the cell colour.
	in := l.inner(4, 4)
	top := image.Pt((in.Min.X+in.Max.X)/2, in.Min.Y+in.Dy()/5)
	if got := at(top); got != colCell {
		t.Errorf("pixel %v above the crossing of X's cell (4, 4) = %v; want the cell colour %v", top, got, colCell)
	}
}

func TestLastMove(t *testing.T) {
	g := playing10(t)
	last, _ := g.LastMove()
	img := render(t, g)
	l := newLayout(g.Size())
	in := l.inner(last.Row, last.Col)
	if got := img.RGBAAt(in.Min.X, in.Min.Y); got != colLastEdge {
		t.Errorf("corner of the last move (%d, %d) = %v; want the frame colour %v", last.Row, last.Col, got, colLastEdge)
	}
	if got := img.RGBAAt(in.Max.X-1, (in.Min.Y+in.Max.Y)/2); got != colLastEdge {
		t.Errorf("right edge of the last move (%d, %d) = %v; want the frame colour %v", last.Row, last.Col, got, colLastEdge)
	}
	inside := in.Min.Add(image.Pt(l.frame+1, l.frame+1))
	if got := img.RGBAAt(inside.X, inside.Y); got != colLastCell {
		t.Errorf("inside the frame of the last move at %v = %v; want the highlight %v", inside, got, colLastCell)
	}
	// The previous move, X at (0, 9), is not highlighted.
	prev := l.inner(0, 9).Min
	if got := img.RGBAAt(prev.X, prev.Y); got != colCell {
		t.Errorf("corner of the previous move (0, 9) = %v; want the cell colour %v", got, colCell)
	}
}

func TestWinLine(t *testing.T) {
	g := won10(t)
	img := render(t, g)
	l := newLayout(g.Size())
	line := g.WinLine()
	if len(line) != 5 {
		t.Fatalf("WinLine() = %v; want 5 cells", line)
	}
	on := make(map[game.Cell]bool)
	for _, c := range line {
		on[c] = true
		// The corner away from the diagonal bar, inside any frame.
		in := l.inner(c.Row, c.Col)
		p := image.Pt(in.Max.X-l.frame-2, in.Min.Y+l.frame+1)
		if got := img.RGBAAt(p.X, p.Y); got != colWinCell {
			t.Errorf("corner %v of winning cell %v = %v; want the win colour %v", p, c, got, colWinCell)
		}
		// The mark stays whole on top of the bar.
		if got := img.RGBAAt(centreOf(l, c.Row, c.Col).X, centreOf(l, c.Row, c.Col).Y); got != colX {
			t.Errorf("centre of winning cell %v = %v; want X's colour %v", c, got, colX)
		}
	}
	// The bar crosses the grid corner between two diagonal cells: there the
	// grid line is tinted, not plain.
	a := l.inner(line[0].Row, line[0].Col)
	if got := img.RGBAAt(a.Max.X, a.Max.Y); got == colGrid {
		t.Errorf("grid corner %v between winning cells = %v, the plain grid colour; want it tinted by the bar", a.Max, got)
	}
	for r := range g.Size() {
		for c := range g.Size() {
			if on[game.Cell{Row: r, Col: c}] {
				continue
			}
			in := l.inner(r, c)
			if got := img.RGBAAt(in.Min.X+1, in.Min.Y+1); got == colWinCell {
				t.Errorf("cell (%d, %d), not on the line, has the win colour", r, c)
			}
		}
	}
}

func TestNoWinLineInDraw(t *testing.T) {
	img := render(t, draw3(t))
	l := newLayout(3)
	for r := range 3 {
		for c := range 3 {
			p := l.inner(r, c).Min.Add(image.Pt(l.frame+1, l.frame+1))
			if got := img.RGBAAt(p.X, p.Y); got == colWinCell {
				t.Errorf("cell (%d, %d) of a drawn game has the win colour", r, c)
			}
		}
	}
}

func TestLabels(t *testing.T) {
	for _, n := range []int{3, 9, 10, 15, 30} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			img := render(t, play(t, n, 3))
			l := newLayout(n)
			inked := func(r image.Rectangle) bool {
				for y := r.Min.Y; y < r.Max.Y; y++ {
					for x := r.Min.X; x < r.Max.X; x++ {
						if img.RGBAAt(x, y) != colMargin {
							return true
						}
					}
				}
				return false
			}
			if corner := image.Rect(0, 0, l.margin, l.margin); inked(corner) {
				t.Errorf("top-left corner %v has ink; want it blank", corner)
			}
			for i := range n {
				in := l.inner(i, i)
				col := image.Rect(in.Min.X, 0, in.Max.X, l.margin)
				if !inked(col) {
					t.Errorf("label of column %d, %v, is blank", i+1, col)
				}
				row := image.Rect(0, in.Min.Y, l.margin, in.Max.Y)
				if !inked(row) {
					t.Errorf("label of row %d, %v, is blank", i+1, row)
				}
			}
		})
	}
}

func TestSize(t *testing.T) {
	documented := map[int]int{3: 319, 9: 549, 10: 552, 15: 528}
	for n := 1; n <= MaxSize; n++ {
		g := play(t, n, 1)
		img := render(t, g)
		l := newLayout(n)
		want := image.Rect(0, 0, l.size, l.size)
		if img.Bounds() != want {
			t.Errorf("Render(%d×%d).Bounds() = %v; want %v", n, n, img.Bounds(), want)
		}
		if want, ok := documented[n]; ok && l.size != want {
			t.Errorf("%d×%d: image is %d pixels wide; want %d as Render's documentation says", n, n, l.size, want)
		}
		if end := l.board().Max; !end.In(img.Bounds()) {
			t.Errorf("%d×%d: grid ends at %v, outside the image %v", n, n, end, img.Bounds())
		}
		// Discord shows an attachment up to about 550 pixels wide.
		if l.size > 560 || (n >= 9 && n <= 10 && l.size < 500) {
			t.Errorf("%d×%d: image is %d pixels wide; want at most 560, and at least 500 for 9×9 and 10×10", n, n, l.size)
		}
	}
}

// TestEveryCell renders boards of every size, empty and with both marks, a
// last move and a winning line down column 1, so that no drawing steps
// outside the image.
func TestEveryCell(t *testing.T) {
	for n := 1; n <= MaxSize; n++ {
		empty, err := game.New(n)
		if err != nil {
			t.Fatal(err)
		}
		render(t, empty)
		// X fills column 0 (0-based), O all but the last cell of column 1.
		var moves []game.Cell
		for r := range n {
			moves = append(moves, game.Cell{Row: r, Col: 0})
			if n > 1 && r < n-1 {
				moves = append(moves, game.Cell{Row: r, Col: 1})
			}
		}
		g := play(t, n, n, moves...)
		if g.Status() != game.Won {
			t.Fatalf("%d×%d: status %v; want won", n, n, g.Status())
		}
		render(t, g)
	}
}

func TestTooLarge(t *testing.T) {
	g, err := game.New(MaxSize + 1)
	if err != nil {
		t.Fatal(err)
	}
	if img, err := Render(g); img != nil || !errors.Is(err, ErrSize) {
		t.Errorf("Render(%d×%d) = %v, %v; want nil, ErrSize", MaxSize+1, MaxSize+1, img, err)
	}
	var buf bytes.Buffer
	if err := Draw(&buf, g); !errors.Is(err, ErrSize) || buf.Len() != 0 {
		t.Errorf("Draw(%d×%d) = %v after writing %d bytes; want ErrSize and nothing written", MaxSize+1, MaxSize+1, err, buf.Len())
	}
}

type failWriter struct{}

var errWrite = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestDrawWriteError(t *testing.T) {
	if err := Draw(failWriter{}, draw3(t)); !errors.Is(err, errWrite) {
		t.Errorf("Draw to a failing writer = %v; want an error wrapping %v", err, errWrite)
	}
}

func TestConcurrent(t *testing.T) {
	g := won10(t)
	want := render(t, g)
	done := make(chan *image.RGBA)
	for range 4 {
		go func() {
			img, _ := Render(g)
			done <- img
		}()
	}
	for range 4 {
		if got := <-done; got == nil || !bytes.Equal(got.Pix, want.Pix) {
			t.Error("concurrent Render differs from a lone one")
		}
	}
}
