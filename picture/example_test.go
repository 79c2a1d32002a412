package picture_test

import (
	"fmt"
	"image/png"
	"log"
	"os"
	"path/filepath"

	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/picture"
)

// Draw writes the picture to any io.Writer; here a file, which the bot
// would rather attach to its message.
func ExampleDraw() {
	g, err := game.New(10, game.WinLength(5))
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range []game.Cell{{Row: 4, Col: 4}, {Row: 4, Col: 5}, {Row: 5, Col: 5}} {
		if _, err := g.Play(m.Row, m.Col, g.Turn()); err != nil {
			log.Fatal(err)
		}
	}

	dir, err := os.MkdirTemp("", "board")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "board.png")
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := picture.Draw(f, g); err != nil {
		f.Close()
		log.Fatal(err)
	}
	// Close reports a failed write that Draw could not see.
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}

	f, err = os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d×%d PNG\n", filepath.Base(path), cfg.Width, cfg.Height)
	// Output: board.png: 552×552 PNG
}

// Render returns the image itself, to be encoded or composed further.
func ExampleRender() {
	g, err := game.New(3)
	if err != nil {
		log.Fatal(err)
	}
	img, err := picture.Render(g)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(img.Bounds())
	// Output: (0,0)-(319,319)
}
