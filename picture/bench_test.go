package picture

import (
	"bytes"
	"image"
	"image/png"
	"io"
	"sync"
	"testing"
)

// BenchmarkDraw10x10 measures a whole picture as the bot sends it: drawing
// and PNG encoding. Compare it with BenchmarkRender10x10 to see the share
// of the encoder.
func BenchmarkDraw10x10(b *testing.B) {
	g := won10(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := Draw(io.Discard, g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRender10x10 measures drawing alone.
func BenchmarkRender10x10(b *testing.B) {
	g := won10(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDraw15x15 measures the picture of a 15×15 gomoku board 90
// moves in, as the bot sends it after each move of a big game: its CPU
// and allocations per picture, and the size of the PNG uploaded (bytes).
func BenchmarkDraw15x15(b *testing.B) {
	g := playing15(b)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := Draw(&buf, g); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes")
}

// BenchmarkRender15x15 measures drawing alone, without the encoder.
func BenchmarkRender15x15(b *testing.B) {
	g := playing15(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncode compares, on the picture of a 15×15 board 90 moves in,
// the encoder Draw uses with the standard library's at its fastest level:
// CPU per picture, and the file's size (bytes).
func BenchmarkEncode(b *testing.B) {
	img, err := Render(playing15(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, enc := range []struct {
		name   string
		encode func(io.Writer, *image.RGBA) error
	}{
		{"ours", encodePNG},
		{"stdlib", func(w io.Writer, img *image.RGBA) error {
			return (&png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &stdBuffers}).Encode(w, img)
		}},
	} {
		b.Run(enc.name, func(b *testing.B) {
			var buf bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				if err := enc.encode(&buf, img); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len()), "bytes")
		})
	}
}

// stdBuffers keeps the standard library's encoder buffers, as a caller
// that cares for its cost would.
var stdBuffers stdBufferPool

type stdBufferPool struct{ p sync.Pool }

func (s *stdBufferPool) Get() *png.EncoderBuffer {
	e, _ := s.p.Get().(*png.EncoderBuffer)
	return e
}

func (s *stdBufferPool) Put(e *png.EncoderBuffer) { s.p.Put(e) }
