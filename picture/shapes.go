package picture

import (
	"image"
	"image/color"
	"math"
	"sync"

	"github.com/tttbot/tttbot/game"
	"golang.org/x/image/vector"
)

// painter draws anti-aliased shapes. Its zero value is ready to use; it
// keeps one rasterizer so that drawing a board's marks allocates its
// coverage buffer once.
//
// The rasterizer adds the signed areas of all the paths it is given: shapes
// traced in the same direction merge (the two bars of a cross), and a shape
// traced the other way cuts a hole (the inside of a ring). polygon and
// circle take care of the direction.
type painter struct {
	z vector.Rasterizer
}

// Proportions of a mark, as fractions of the inner side of its cell.
const (
	crossReach = 0.29 // from the centre to the end of a bar, along each axis
	crossWidth = 0.14 // width of a bar
	ringRadius = 0.34 // outer radius of the ring
	ringWidth  = 0.13 // thickness of the ring
)

// mark draws X or O in r.
func (p *painter) mark(img *image.RGBA, r image.Rectangle, mark game.Player) {
	if mark == game.X {
		p.cross(img, r, colX)
	} else {
		p.ring(img, r, colO)
	}
}

// useTiles says whether Render copies the marks of plain cells from
// tiles (tile); tests turn it off to compare with marks drawn in place.
var useTiles = true

// tiles keeps, by mark and cell side, the pixels of a plain cell (colCell)
// with that mark drawn: a few KB each, for the few sizes of boards.
var tiles sync.Map // tileKey → []byte

type tileKey struct {
	mark game.Player
	side int
}

// tile returns the pixels of a side×side cell of colCell with mark drawn
// on it, as mark would draw it on such a cell anywhere in a picture: the
// rasterizer's coverage depends on the cell's size alone.
func (p *painter) tile(mark game.Player, side int) []byte {
	k := tileKey{mark, side}
	if t, ok := tiles.Load(k); ok {
		return t.([]byte)
	}
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	fill(img, img.Rect, colCell)
	p.mark(img, img.Rect, mark)
	tiles.Store(k, img.Pix)
	return img.Pix
}

// stamp copies tile, the pixels of an r-sized square image, into r.
func stamp(img *image.RGBA, r image.Rectangle, tile []byte) {
	w := 4 * r.Dx()
	for y := range r.Dy() {
		copy(img.Pix[img.PixOffset(r.Min.X, r.Min.Y+y):][:w], tile[y*w:][:w])
	}
}

// cross draws X in r: two bars corner to corner.
func (p *painter) cross(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	s := float32(r.Dx())
	p.z.Reset(r.Dx(), r.Dy())
	m, d := s/2, crossReach*s
	p.segment(m-d, m-d, m+d, m+d, crossWidth*s)
	p.segment(m-d, m+d, m+d, m-d, crossWidth*s)
	p.z.Draw(img, r, image.NewUniform(c), image.Point{})
}

// ring draws O in r: a circle with a hole.
func (p *painter) ring(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	s := float32(r.Dx())
	p.z.Reset(r.Dx(), r.Dy())
	m := s / 2
	p.circle(m, m, ringRadius*s, false)
	p.circle(m, m, (ringRadius-ringWidth)*s, true)
	p.z.Draw(img, r, image.NewUniform(c), image.Point{})
}

// segment adds a rectangle of width w along the segment from (ax, ay) to
// (bx, by); nothing if the two ends are the same point.
func (p *painter) segment(ax, ay, bx, by, w float32) {
	dx, dy := bx-ax, by-ay
	length := float32(math.Hypot(float64(dx), float64(dy)))
	if length == 0 {
		return
	}
	// (nx, ny) is half the width, perpendicular to the segment.
	nx, ny := -dy/length*w/2, dx/length*w/2
	p.polygon([4][2]float32{
		{ax + nx, ay + ny}, {bx + nx, by + ny},
		{bx - nx, by - ny}, {ax - nx, ay - ny},
	})
}

// polygon adds a quadrilateral, traced in the same direction as a circle
// that is not reversed, whatever the order of its corners.
func (p *painter) polygon(pts [4][2]float32) {
	var area float32 // twice the signed area (shoelace formula)
	for i, a := range pts {
		b := pts[(i+1)%len(pts)]
		area += a[0]*b[1] - b[0]*a[1]
	}
	if area < 0 {
		pts[1], pts[3] = pts[3], pts[1]
	}
	p.z.MoveTo(pts[0][0], pts[0][1])
	for _, q := range pts[1:] {
		p.z.LineTo(q[0], q[1])
	}
	p.z.ClosePath()
}

// kappa places the control points of a cubic Bézier curve that follows a
// quarter circle to within 0.03% of the radius.
const kappa = 0.5522847

// circle adds a circle of radius r around (cx, cy), traced with the angle
// increasing (positive signed area) or, if reverse, decreasing.
func (p *painter) circle(cx, cy, r float32, reverse bool) {
	k := kappa * r
	p.z.MoveTo(cx+r, cy)
	if !reverse {
		p.z.CubeTo(cx+r, cy+k, cx+k, cy+r, cx, cy+r)
		p.z.CubeTo(cx-k, cy+r, cx-r, cy+k, cx-r, cy)
		p.z.CubeTo(cx-r, cy-k, cx-k, cy-r, cx, cy-r)
		p.z.CubeTo(cx+k, cy-r, cx+r, cy-k, cx+r, cy)
	} else {
		p.z.CubeTo(cx+r, cy-k, cx+k, cy-r, cx, cy-r)
		p.z.CubeTo(cx-k, cy-r, cx-r, cy-k, cx-r, cy)
		p.z.CubeTo(cx-r, cy+k, cx-k, cy+r, cx, cy+r)
		p.z.CubeTo(cx+k, cy+r, cx+r, cy+k, cx+r, cy)
	}
	p.z.ClosePath()
}
