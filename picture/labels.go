package picture

import (
	"fmt"
	"image"
	"strconv"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// labelFont is Go Bold, parsed once: its digits are wide and even, and the
// font is compiled into the binary, so the picture needs no file at run time
// and looks the same everywhere.
var labelFont = sync.OnceValues(func() (*opentype.Font, error) {
	return opentype.Parse(gobold.TTF)
})

// drawLabels writes the column numbers above the grid and the row numbers
// to its left, 1-based, each centred on its row or column.
func drawLabels(img *image.RGBA, l layout) error {
	f, err := labelFont()
	if err != nil {
		return fmt.Errorf("picture: parse font: %w", err)
	}
	// A face holds a buffer and is not safe for concurrent use, so each
	// picture makes its own; that costs a few small allocations.
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: l.font, DPI: 72})
	if err != nil {
		return fmt.Errorf("picture: font face: %w", err)
	}
	defer face.Close()
	d := font.Drawer{Dst: img, Src: image.NewUniform(colLabel), Face: face}
	var buf [4]byte
	for i := range l.n {
		s := strconv.AppendInt(buf[:0], int64(i+1), 10)
		mid := l.margin + i*l.pitch + (l.pitch+l.line)/2
		centre(&d, s, mid, l.margin/2) // column i, above the grid
		centre(&d, s, l.margin/2, mid) // row i, left of the grid
	}
	return nil
}

// centre draws s with the middle of its ink at (x, y). Centring the ink
// rather than the advance keeps a narrow "1" in the middle of its cell.
func centre(d *font.Drawer, s []byte, x, y int) {
	b, _ := font.BoundBytes(d.Face, s)
	d.Dot = fixed.Point26_6{
		X: fixed.I(x) - (b.Min.X+b.Max.X)/2,
		Y: fixed.I(y) - (b.Min.Y+b.Max.Y)/2,
	}
	d.DrawBytes(s)
}
