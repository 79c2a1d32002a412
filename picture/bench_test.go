package picture

import (
	"bytes"
	"io"
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
