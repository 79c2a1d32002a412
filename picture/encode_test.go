package picture

import (
	"bytes"
	"image"
	"image/png"
	"testing"

	"github.com/tttbot/tttbot/game"
)

// pictured are the games whose pictures the tests check (TestGolden's
// files are named after them).
var pictured = []struct {
	name string
	game func(testing.TB) *game.Judge
}{
	{"15x15-playing", playing15},
	{"15x15-won", won15},
	{"10x10-playing", playing10},
	{"10x10-won", won10},
	{"9x9-won-row", wonRow9},
	{"3x3-draw", draw3},
}

// Draw's PNG decodes to exactly the image Render draws, and is within
// 2 KB of what the standard library's encoder writes at its fastest level
// (which chooses a filter for each row, at twice the cost).
func TestEncodeMatchesStandardLibrary(t *testing.T) {
	for _, tt := range pictured {
		g := tt.game(t)
		img, err := Render(g)
		if err != nil {
			t.Fatal(err)
		}
		var ours, std bytes.Buffer
		if err := Draw(&ours, g); err != nil {
			t.Fatal(err)
		}
		if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&std, img); err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(bytes.NewReader(ours.Bytes()))
		if err != nil {
			t.Fatalf("%s: decode Draw's PNG: %v", tt.name, err)
		}
		if !bytes.Equal(asRGBA(got).Pix, img.Pix) || got.Bounds() != img.Bounds() {
			t.Errorf("%s: Draw's PNG decodes to another image than Render draws", tt.name)
		}
		if ours.Len() > std.Len()+2048 {
			t.Errorf("%s: Draw wrote %d bytes; want at most 2 KB more than the standard library's %d", tt.name, ours.Len(), std.Len())
		}
		t.Logf("%s: %d bytes (standard library at BestSpeed: %d)", tt.name, ours.Len(), std.Len())
	}
}

// A picture drawn in an image that held another one (Draw keeps its
// images) is the one drawn afresh: every pixel is painted.
func TestRenderInUsedImage(t *testing.T) {
	for _, tt := range pictured {
		g := tt.game(t)
		want, err := Render(g)
		if err != nil {
			t.Fatal(err)
		}
		// An image bigger than needed, full of a colour the picture has
		// nowhere.
		used := image.NewRGBA(image.Rect(0, 0, 600, 600))
		for i := range used.Pix {
			used.Pix[i] = 0x5a
		}
		got, err := renderIn(used, g)
		if err != nil {
			t.Fatal(err)
		}
		if got.Bounds() != want.Bounds() || !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("%s: the picture drawn in a used image differs from the one drawn afresh", tt.name)
		}
	}
}

// asRGBA returns img's pixels as an *image.RGBA.
func asRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok {
		return r
	}
	b := img.Bounds()
	out := image.NewRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			out.Set(x, y, img.At(x, y))
		}
	}
	return out
}

// The marks copied from tiles are the pixels the rasterizer draws in
// place, in every picture.
func TestTilesDrawLikeTheRasterizer(t *testing.T) {
	defer func() { useTiles = true }()
	for _, tt := range pictured {
		g := tt.game(t)
		useTiles = false
		want, err := Render(g)
		if err != nil {
			t.Fatal(err)
		}
		useTiles = true
		got, err := Render(g)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("%s: the picture with marks from tiles differs from the one with marks drawn in place", tt.name)
		}
	}
}
