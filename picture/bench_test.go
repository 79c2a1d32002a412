package picture

import (
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
