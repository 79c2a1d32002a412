package picture

import (
	"image"
	"image/color"
	"math"

	"github.com/tttbot/tttbot/game"
)

// barWidth is the width of the winning bar, as a fraction of the pitch.
const barWidth = 0.18

// bar draws the translucent bar of a winning line, with round ends, from
// the centre of cell a to the centre of cell b; c is its colour, not
// premultiplied. It is drawn under the marks, so that they stay whole.
//
// A rasterizer would cover the bar's whole bounding box, the full board
// for a long diagonal, and cost milliseconds; instead each pixel of the
// band around the line takes its coverage from its distance to the
// segment, which is as smooth and visits a few pixels a row.
func bar(img *image.RGBA, l layout, a, b game.Cell, c color.NRGBA) {
	centre := func(cell game.Cell) (x, y float64) {
		r := l.inner(cell.Row, cell.Col)
		return float64(r.Min.X+r.Max.X) / 2, float64(r.Min.Y+r.Max.Y) / 2
	}
	ax, ay := centre(a)
	bx, by := centre(b)
	dx, dy := bx-ax, by-ay
	length2 := dx*dx + dy*dy
	half := barWidth * float64(l.pitch) / 2
	// Pixels that the bar touches, anti-aliasing included.
	box := image.Rect(
		int(math.Floor(min(ax, bx)-half-1)), int(math.Floor(min(ay, by)-half-1)),
		int(math.Ceil(max(ax, bx)+half+1)), int(math.Ceil(max(ay, by)+half+1)),
	).Intersect(l.board())
	for y := box.Min.Y; y < box.Max.Y; y++ {
		py := float64(y) + 0.5
		x0, x1 := box.Min.X, box.Max.X
		if dy != 0 {
			// The bar lies within half+1 of the line, measured across
			// it: on this row, within reach of the line's crossing xc.
			xc := ax + (py-ay)*dx/dy
			reach := (half + 1) * math.Sqrt(length2) / math.Abs(dy)
			x0 = max(x0, int(math.Floor(xc-reach)))
			x1 = min(x1, int(math.Ceil(xc+reach)))
		}
		for x := x0; x < x1; x++ {
			px := float64(x) + 0.5
			t := 0.0
			if length2 > 0 {
				t = min(max(((px-ax)*dx+(py-ay)*dy)/length2, 0), 1)
			}
			d := math.Hypot(ax+t*dx-px, ay+t*dy-py)
			cover := min(half+0.5-d, 1)
			if cover <= 0 {
				continue
			}
			blend(img, x, y, c, uint32(cover*float64(c.A)+0.5))
		}
	}
}

// blend paints the colour c, with opacity a out of 255, over the pixel at
// (x, y), which is opaque.
func blend(img *image.RGBA, x, y int, c color.NRGBA, a uint32) {
	p := img.Pix[img.PixOffset(x, y):][:3]
	mix := func(dst *uint8, src uint8) {
		*dst = uint8((uint32(src)*a + uint32(*dst)*(255-a) + 127) / 255)
	}
	mix(&p[0], c.R)
	mix(&p[1], c.G)
	mix(&p[2], c.B)
}
