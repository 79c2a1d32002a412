// Package picture draws a game board as a PNG image, for boards too wide for
// the emoji grid on a phone.
//
// The picture shows the row and column labels (1-based: rows top to bottom,
// columns left to right, as on the emoji board), X as a blue cross and O as
// an orange ring (so that the shape alone tells them apart), the last move as
// a yellow cell with a dark frame, and a winning line as green cells joined
// by a translucent green bar drawn under the marks. The background is opaque
// and light, so the picture reads the same on Discord's dark and light
// themes.
//
// picture imports the rules package game; game never imports picture.
// Output is deterministic: the same game gives byte-identical PNG files.
package picture

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"sync"

	"github.com/tttbot/tttbot/game"
)

// MaxSize is the largest board size n that [Render] and [Draw] accept. At
// this size a cell is 16 pixels wide, about as small as a phone shows
// legibly; larger boards would need a larger image or unreadable cells.
const MaxSize = 30

// ErrSize is returned, wrapped, for a board larger than MaxSize.
var ErrSize = errors.New("picture: board too large to draw")

// Sizes, in pixels, that fix the layout; see newLayout.
const (
	// boardWidth is the target width of the grid: cells shrink to fit it as
	// n grows, so that with its labels a 9×9 or 10×10 picture is just under
	// the 550 pixels Discord gives an attachment, and is shown unscaled.
	boardWidth = 500
	// maxCell keeps small boards (3×3) from becoming needlessly large.
	maxCell = 88
)

// Colours. X and O take blue and vermilion from the Okabe–Ito palette, which
// stay distinct for the common kinds of colour blindness; the shapes differ
// as well, and the highlights are backgrounds and frames, never a change of
// the mark's own colour.
var (
	colMargin   = color.RGBA{0xe9, 0xe5, 0xdc, 0xff} // behind the labels
	colGrid     = color.RGBA{0x8f, 0x89, 0x7d, 0xff}
	colCell     = color.RGBA{0xfd, 0xfc, 0xf9, 0xff}
	colLabel    = color.RGBA{0x33, 0x30, 0x2b, 0xff}
	colX        = color.RGBA{0x0b, 0x5c, 0xad, 0xff}
	colO        = color.RGBA{0xd2, 0x4e, 0x00, 0xff}
	colLastCell = color.RGBA{0xff, 0xe6, 0x85, 0xff}
	colLastEdge = color.RGBA{0x26, 0x22, 0x1c, 0xff}
	colWinCell  = color.RGBA{0xb4, 0xe4, 0xcc, 0xff}
	// colWinBar is translucent: the cells and the grid show through it.
	colWinBar = color.NRGBA{0x00, 0x9e, 0x73, 0x8c}
)

// Draw writes the picture of g to w as a PNG image; see [Render] for what it
// shows and its size. It returns an error wrapping ErrSize if g.Size() is
// above MaxSize, and any error from w.
//
// For a 15×15 board 90 moves in, Draw writes 31 KB in about 2.2 ms of
// CPU, nine tenths of it compressing (BenchmarkDraw15x15,
// BenchmarkRender15x15, BenchmarkEncode); a 10×10 board's picture, 15 to
// 25 KB, costs about as much. The image is drawn in a buffer kept from
// one picture to the next.
func Draw(w io.Writer, g *game.Judge) error {
	img, err := renderIn(images.Get().(*image.RGBA), g)
	if err != nil {
		return err
	}
	defer images.Put(img)
	if err := encodePNG(w, img); err != nil {
		return fmt.Errorf("picture: encode: %w", err)
	}
	return nil
}

// images keeps the images Draw draws in (1.1 MB at 15×15), to draw the
// next picture in.
var images = sync.Pool{New: func() any { return new(image.RGBA) }}

// Render draws g, which must not be nil, and returns an opaque image. It
// returns an error wrapping ErrSize if g.Size() is above MaxSize.
//
// The image is square. A cell is 500/n pixels wide, but at most 88, and the
// labels take a margin of half a cell to 42 pixels: the picture is 552×552
// for 10×10, 549×549 for 9×9, 528×528 for 15×15 (33-pixel cells, labels
// of 16.5 pixels), 319×319 for 3×3, and never wider than 560 pixels up to
// MaxSize. Render costs O(n²) and allocates the image, 4 bytes
// a pixel (1.2 MB for 10×10), and a few small buffers.
//
// Render only reads g; like any reader of a game.Judge it must not run
// concurrently with a move. It is safe to call concurrently on different
// games, or on the same game between moves.
func Render(g *game.Judge) (*image.RGBA, error) {
	return renderIn(nil, g)
}

// renderIn is Render, drawing in img's pixels when they are enough (img
// may be nil, or any image Render returned), else in a new image. The
// background paints every pixel.
func renderIn(img *image.RGBA, g *game.Judge) (*image.RGBA, error) {
	n := g.Size()
	if n > MaxSize {
		return nil, fmt.Errorf("size %d (want at most %d): %w", n, MaxSize, ErrSize)
	}
	l := newLayout(n)
	if img == nil || cap(img.Pix) < 4*l.size*l.size {
		img = image.NewRGBA(image.Rect(0, 0, l.size, l.size))
	} else {
		*img = image.RGBA{Pix: img.Pix[:4*l.size*l.size], Stride: 4 * l.size, Rect: image.Rect(0, 0, l.size, l.size)}
	}
	l.background(img)

	var win []game.Cell
	if g.Status() == game.Won {
		win = g.WinLine()
	}
	// Win colours go over the last move's: that move is on the line, and
	// its frame still marks it.
	last, hasLast := g.LastMove()
	if hasLast {
		fill(img, l.inner(last.Row, last.Col), colLastCell)
	}
	for _, w := range win {
		fill(img, l.inner(w.Row, w.Col), colWinCell)
	}
	if hasLast {
		frame(img, l.inner(last.Row, last.Col), l.frame, colLastEdge)
	}

	if len(win) > 0 {
		bar(img, l, win[0], win[len(win)-1], colWinBar)
	}
	var p painter
	for r := range n {
		for c := range n {
			mark := g.At(r, c)
			if mark != game.X && mark != game.O {
				continue
			}
			cell := l.inner(r, c)
			// A mark on a plain cell is the same pixels wherever it is: it
			// is copied from a tile drawn once. The last move's cell has
			// its frame, and a win line's bar may cross any cell.
			if useTiles && len(win) == 0 && (!hasLast || last.Row != r || last.Col != c) {
				stamp(img, cell, p.tile(mark, cell.Dx()))
				continue
			}
			p.mark(img, cell, mark)
		}
	}
	if err := drawLabels(img, l); err != nil {
		return nil, err
	}
	return img, nil
}

// layout is the geometry of the picture of an n×n board. The grid starts
// at (margin, margin), and cell (r, c) at (margin+c*pitch, margin+r*pitch):
// a grid line of width line, then the cell's inside, pitch-line wide.
type layout struct {
	n      int
	pitch  int     // distance between grid lines
	line   int     // width of a grid line
	frame  int     // width of the last move's frame
	margin int     // width of the label column, and height of the label row
	size   int     // width and height of the image
	font   float64 // label size in pixels
}

func newLayout(n int) layout {
	pitch := min(boardWidth/max(n, 1), maxCell)
	l := layout{
		n:     n,
		pitch: pitch,
		line:  min(max(1, (pitch+12)/25), 3),
		frame: max(2, pitch/12),
		// Half a cell, but no larger than a comfortable 26 pixels and no
		// smaller than 10, where two digits still fit a 16-pixel cell.
		font: min(max(float64(pitch)*0.5, 10), 26),
	}
	// Room for two digits and some air on either side.
	l.margin = int(l.font*1.6 + 0.5)
	// The right and bottom edges get a closing grid line and a thin
	// border of margin colour so that the grid does not touch the edge.
	l.size = l.margin + n*pitch + l.line + l.margin/4
	return l
}

// board returns the rectangle of the grid, closing lines included.
func (l layout) board() image.Rectangle {
	side := l.n*l.pitch + l.line
	return image.Rect(l.margin, l.margin, l.margin+side, l.margin+side)
}

// background paints the margins, the grid lines and the empty cells,
// writing each pixel once: the image is large enough that further passes
// over it would show in the cost.
func (l layout) background(img *image.RGBA) {
	b := l.board()
	fill(img, image.Rect(0, 0, l.size, b.Min.Y), colMargin)
	fill(img, image.Rect(0, b.Min.Y, b.Min.X, l.size), colMargin)
	fill(img, image.Rect(b.Max.X, b.Min.Y, l.size, l.size), colMargin)
	fill(img, image.Rect(b.Min.X, b.Max.Y, b.Max.X, l.size), colMargin)
	for i := range l.n + 1 {
		at := i * l.pitch
		fill(img, image.Rect(b.Min.X, b.Min.Y+at, b.Max.X, b.Min.Y+at+l.line), colGrid)
		fill(img, image.Rect(b.Min.X+at, b.Min.Y, b.Min.X+at+l.line, b.Max.Y), colGrid)
	}
	for r := range l.n {
		for c := range l.n {
			fill(img, l.inner(r, c), colCell)
		}
	}
}

// inner returns the rectangle of cell (r, c) inside its grid lines.
func (l layout) inner(r, c int) image.Rectangle {
	x, y := l.margin+c*l.pitch+l.line, l.margin+r*l.pitch+l.line
	return image.Rect(x, y, x+l.pitch-l.line, y+l.pitch-l.line)
}

// fill paints r with the opaque colour c.
func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Rect)
	if r.Empty() {
		return
	}
	row := img.Pix[img.PixOffset(r.Min.X, r.Min.Y):]
	// Write the first row, then copy it to the others.
	w := r.Dx() * 4
	for i := 0; i < w; i += 4 {
		row[i], row[i+1], row[i+2], row[i+3] = c.R, c.G, c.B, c.A
	}
	for y := r.Min.Y + 1; y < r.Max.Y; y++ {
		copy(img.Pix[img.PixOffset(r.Min.X, y):][:w], row[:w])
	}
}

// frame paints a border of width t just inside r.
func frame(img *image.RGBA, r image.Rectangle, t int, c color.RGBA) {
	fill(img, image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+t), c)
	fill(img, image.Rect(r.Min.X, r.Max.Y-t, r.Max.X, r.Max.Y), c)
	fill(img, image.Rect(r.Min.X, r.Min.Y, r.Min.X+t, r.Max.Y), c)
	fill(img, image.Rect(r.Max.X-t, r.Min.Y, r.Max.X, r.Max.Y), c)
}
