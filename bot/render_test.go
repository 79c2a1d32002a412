package bot

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/table"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Discord's limits on a message.
const (
	maxContent    = 2000 // code points
	maxRows       = 5
	maxRowButtons = 5
	maxLabel      = 80
	// A select menu: its options, their labels and values, its
	// placeholder.
	maxOptions     = 25
	maxOptionLabel = 100
	maxOptionValue = 100
	maxPlaceholder = 150
)

// The longest ids Discord hands out today are 19 digits; 20 leaves room.
const (
	longX = "12345678901234567890"
	longO = "98765432109876543210"
)

func testMatch(t testing.TB, n, k int, moves ...game.Move) *table.Match {
	t.Helper()
	g, err := game.Replay(n, moves, game.WinLength(k))
	if err != nil {
		t.Fatalf("Replay(%d, %v, k=%d): %v", n, moves, k, err)
	}
	m := &table.Match{ID: "a1b2c3d4e5f6", Players: [3]string{game.X: longX, game.O: longO}, Judge: g, Serial: 1}
	switch g.Status() {
	case game.Won:
		m.End = game.EndWon
	case game.Draw:
		m.End = game.EndDraw
	case game.DecidedDraw:
		m.End = game.EndDecided
	}
	if !m.Over() {
		m.Deadline = time.Unix(1767225600, 0)
	}
	return m
}

// checkLimits fails the test if v breaks any of Discord's message limits,
// as a bot with or without the live board sends it.
func checkLimits(t *testing.T, what string, v view) {
	t.Helper()
	if n := utf8.RuneCountInString(v.content); n > maxContent {
		t.Errorf("%s: content is %d code points; want <= %d", what, n, maxContent)
	}
	checkComponents(t, what, v.buttons())
	checkComponents(t, what+" with Open board", v.buttonsFor(true))
}

// checkComponents fails the test if comps break Discord's limits.
func checkComponents(t *testing.T, what string, comps []discordgo.MessageComponent) {
	t.Helper()
	if len(comps) > maxRows {
		t.Errorf("%s: %d action rows; want <= %d", what, len(comps), maxRows)
	}
	seen := map[string]bool{}
	for i, c := range comps {
		row, ok := c.(discordgo.ActionsRow)
		if !ok {
			t.Fatalf("%s: component %d is %T; want an action row", what, i, c)
		}
		if len(row.Components) == 0 || len(row.Components) > maxRowButtons {
			t.Errorf("%s: row %d has %d buttons; want 1 to %d", what, i, len(row.Components), maxRowButtons)
		}
		for _, bc := range row.Components {
			if menu, ok := bc.(discordgo.SelectMenu); ok {
				checkMenu(t, what, menu, len(row.Components), seen)
				continue
			}
			b := bc.(discordgo.Button)
			if len(b.CustomID) == 0 || len(b.CustomID) > maxCustomID {
				t.Errorf("%s: custom_id %q has %d characters; want 1 to %d", what, b.CustomID, len(b.CustomID), maxCustomID)
			}
			if seen[b.CustomID] {
				t.Errorf("%s: custom_id %q used twice", what, b.CustomID)
			}
			seen[b.CustomID] = true
			if _, err := parseRoute(b.CustomID); err != nil {
				t.Errorf("%s: custom_id %q does not parse: %v", what, b.CustomID, err)
			}
			if b.Label == "" && b.Emoji == nil {
				t.Errorf("%s: button %q has neither label nor emoji", what, b.CustomID)
			}
			if utf8.RuneCountInString(b.Label) > maxLabel {
				t.Errorf("%s: label %q too long", what, b.Label)
			}
		}
	}
}

// checkMenu fails the test if a string select menu, one of n components
// of its row, breaks Discord's limits.
func checkMenu(t *testing.T, what string, m discordgo.SelectMenu, n int, seen map[string]bool) {
	t.Helper()
	if n != 1 {
		t.Errorf("%s: select menu %q shares its row with %d others; want it alone", what, m.CustomID, n-1)
	}
	if m.MenuType != discordgo.StringSelectMenu {
		t.Errorf("%s: select menu %q is of type %d; want a string select", what, m.CustomID, m.MenuType)
	}
	if len(m.CustomID) == 0 || len(m.CustomID) > maxCustomID || seen[m.CustomID] {
		t.Errorf("%s: select menu custom_id %q empty, too long or used twice", what, m.CustomID)
	}
	seen[m.CustomID] = true
	if _, err := parseRoute(m.CustomID); err != nil {
		t.Errorf("%s: custom_id %q does not parse: %v", what, m.CustomID, err)
	}
	if len(m.Options) == 0 || len(m.Options) > maxOptions {
		t.Errorf("%s: select menu %q has %d options; want 1 to %d", what, m.CustomID, len(m.Options), maxOptions)
	}
	if utf8.RuneCountInString(m.Placeholder) > maxPlaceholder {
		t.Errorf("%s: placeholder %q too long", what, m.Placeholder)
	}
	values := map[string]bool{}
	defaults := 0
	for _, o := range m.Options {
		if n := utf8.RuneCountInString(o.Label); n == 0 || n > maxOptionLabel {
			t.Errorf("%s: option label %q has %d code points; want 1 to %d", what, o.Label, n, maxOptionLabel)
		}
		if n := utf8.RuneCountInString(o.Value); n == 0 || n > maxOptionValue || values[o.Value] {
			t.Errorf("%s: option value %q empty, too long or used twice", what, o.Value)
		}
		values[o.Value] = true
		if o.Default {
			defaults++
		}
	}
	if defaults > 1 {
		t.Errorf("%s: select menu %q has %d default options; a menu of one choice takes at most 1", what, m.CustomID, defaults)
	}
}

// TestRenderLimits draws every allowed size and win length in every state a
// game can end in, and a few in between, and checks each against Discord's
// limits.
func TestRenderLimits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	endings := []game.Ending{game.EndNone, game.EndResigned, game.EndTimeout, game.EndStopped}
	for n := MinSize; n <= MaxSize; n++ {
		for k := MinWin; k <= n; k++ {
			// Random games played to the end, plus their prefixes.
			for trial := 0; trial < 3; trial++ {
				g, err := game.New(n, game.WinLength(k))
				if err != nil {
					t.Fatal(err)
				}
				var moves []game.Move
				for g.Status() != game.Won && g.Status() != game.Draw {
					c, err := game.ComputerMove(g, game.Easy, r)
					if err != nil {
						t.Fatal(err)
					}
					p := g.Turn()
					if _, err := g.Play(c.Row, c.Col, p); err != nil {
						t.Fatal(err)
					}
					moves = append(moves, game.Move{Row: c.Row, Col: c.Col, Player: p})
				}
				for _, cut := range []int{0, len(moves) / 2, len(moves) - 1, len(moves)} {
					m := testMatch(t, n, k, moves[:cut]...)
					what := fmt.Sprintf("%d×%d k=%d after %d moves", n, n, k, cut)
					if m.Over() {
						checkLimits(t, what, renderMatch(english(), m))
						continue
					}
					for _, e := range endings {
						m.End, m.Loser, m.StoppedBy = e, game.X, longO
						if e != game.EndNone {
							m.Deadline = time.Time{}
						}
						checkLimits(t, fmt.Sprintf("%s, game.Ending %d", what, e), renderMatch(english(), m))
					}
				}
			}
		}
	}
	c := &table.Challenge{ID: newID(), From: longX, To: longO, Size: MaxSize, Win: MaxSize, Expires: time.Unix(1767225600, 0)}
	for st := challengeOpen; st <= challengeSuperseded; st++ {
		checkLimits(t, fmt.Sprintf("challenge state %d", st), renderChallenge(english(), c, st, 14*time.Minute))
	}
}

func TestRenderGolden(t *testing.T) {
	X, O := game.X, game.O
	seed := []game.Move{{Row: 0, Col: 0, Player: X}, {Row: 0, Col: 2, Player: O}, {Row: 2, Col: 2, Player: X},
		{Row: 1, Col: 1, Player: O}, {Row: 2, Col: 0, Player: X}, {Row: 1, Col: 0, Player: O}, {Row: 2, Col: 1, Player: X}}
	draw := []game.Move{{Row: 0, Col: 0, Player: X}, {Row: 1, Col: 1, Player: O}, {Row: 2, Col: 2, Player: X},
		{Row: 0, Col: 1, Player: O}, {Row: 2, Col: 1, Player: X}, {Row: 2, Col: 0, Player: O}, {Row: 0, Col: 2, Player: X},
		{Row: 1, Col: 2, Player: O}, {Row: 1, Col: 0, Player: X}}
	tests := []struct {
		name string
		m    *table.Match
	}{
		{"3x3-empty", testMatch(t, 3, 3)},
		{"3x3-midgame", testMatch(t, 3, 3, seed[:4]...)},
		{"3x3-won", testMatch(t, 3, 3, seed...)},
		{"3x3-draw", testMatch(t, 3, 3, draw...)},
		{"7x7-k4-midgame", testMatch(t, 7, 4, game.Move{Row: 3, Col: 3, Player: X}, game.Move{Row: 2, Col: 4, Player: O})},
		{"7x7-k4-row3", testMatch(t, 7, 4, game.Move{Row: 3, Col: 3, Player: X}, game.Move{Row: 2, Col: 4, Player: O})},
		{"6x6-k6-row1", testMatch(t, 6, 6, func() []game.Move {
			// Row 1 open with four marks of X (disabled) and two
			// free cells (their column numbers).
			var ms []game.Move
			for c := range 5 {
				ms = append(ms, game.Move{Row: 0, Col: c, Player: X}, game.Move{Row: 5, Col: c, Player: O})
			}
			ms[8], ms[9] = game.Move{Row: 2, Col: 4, Player: X}, game.Move{Row: 4, Col: 0, Player: O}
			return ms
		}()...)},
		{"5x5-k3-won", testMatch(t, 5, 3, game.Move{Row: 0, Col: 0, Player: X}, game.Move{Row: 0, Col: 4, Player: O},
			game.Move{Row: 1, Col: 1, Player: X}, game.Move{Row: 1, Col: 4, Player: O}, game.Move{Row: 2, Col: 2, Player: X})},
		{"10x10-k5-row5", testMatch(t, 10, 5, game.Move{Row: 4, Col: 4, Player: X}, game.Move{Row: 4, Col: 5, Player: O},
			game.Move{Row: 5, Col: 5, Player: X}, game.Move{Row: 3, Col: 3, Player: O})},
		{"15x15-k5-row8", testMatch(t, 15, 5, game.Move{Row: 7, Col: 7, Player: X}, game.Move{Row: 7, Col: 8, Player: O},
			game.Move{Row: 6, Col: 6, Player: X}, game.Move{Row: 8, Col: 8, Player: O})},
		{"10x10-timeout", func() *table.Match {
			m := testMatch(t, 10, 10, game.Move{Row: 9, Col: 9, Player: X})
			m.End, m.Loser, m.Deadline = game.EndTimeout, O, time.Time{}
			return m
		}()},
	}
	open := map[string]int{"7x7-k4-row3": 3, "6x6-k6-row1": 1, "10x10-k5-row5": 5, "15x15-k5-row8": 8} // the row open in the picker
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := renderPicker(english(), tt.m, open[tt.name], false)
			var got bytes.Buffer
			got.WriteString(v.content)
			got.WriteString("\n---\n")
			for _, c := range v.components {
				for _, bc := range c.(discordgo.ActionsRow).Components {
					if menu, ok := bc.(discordgo.SelectMenu); ok {
						fmt.Fprintf(&got, "<%s %s:", menu.Placeholder, menu.CustomID)
						for _, o := range menu.Options {
							def := ""
							if o.Default {
								def = "*"
							}
							fmt.Fprintf(&got, " %s%s=%s", def, o.Label, o.Value)
						}
						got.WriteString(">")
						continue
					}
					b := bc.(discordgo.Button)
					label := b.Label
					if b.Emoji != nil {
						label = b.Emoji.Name
					}
					fmt.Fprintf(&got, "[%s %d %v %s] ", label, b.Style, b.Disabled, b.CustomID)
				}
				got.WriteString("\n")
			}
			golden(t, filepath.Join("testdata", tt.name+".golden"), got.Bytes())
		})
	}
}

// golden compares got with the file at path, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./bot -run TestRenderGolden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update if the change is intended):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff lists the lines that differ, want first.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, wl, gl)
		}
	}
	return b.String()
}

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Minute: "1 minute", 5 * time.Minute: "5 minutes", 90 * time.Second: "90 seconds",
		time.Second: "1 second", 1500 * time.Millisecond: "1.5s",
	} {
		if got := humanDuration(english(), d); got != want {
			t.Errorf("humanDuration(%v) = %q; want %q", d, got, want)
		}
	}
}

// BenchmarkRenderBoard draws the board a move answers with, running, in
// English: a 10×10 board (picker), and a 5×5 board of buttons. Run it
// with -benchmem: its allocations are most of a move's outside the store.
func BenchmarkRenderBoard(b *testing.B) {
	for _, n := range []int{10, 5} {
		var moves []game.Move
		for i := range n - 1 { // a few moves, nobody wins
			moves = append(moves, game.Move{Player: game.X + game.Player(i%2), Row: i % n, Col: (i * 3) % n})
		}
		m := testMatch(b, n, n, moves...)
		l := english()
		b.Run(fmt.Sprintf("%dx%d", n, n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				renderMatch(l, m)
			}
		})
	}
}

// The custom_ids of a board's cells, made in one string, are the routes'
// own (route.String), for every size and serial.
func TestCellIDs(t *testing.T) {
	for n := MinSize; n <= MaxSize; n++ {
		for _, serial := range []int{0, 7, 1 << 30} {
			m := testMatch(t, n, n)
			m.Serial = serial
			rows := min(n, MaxButtonSize) // a board of buttons: all of them; a picker: one row
			for from := 1; from+rows-1 <= n; from++ {
				ids := make([]string, rows*n)
				cellIDs(m, from, from+rows-1, ids)
				for k, id := range ids {
					want := route{action: actMove, id: m.ID, serial: serial, row: from + k/n, col: k%n + 1}.String()
					if id != want {
						t.Fatalf("%d×%d, serial %d, rows %d to %d: id %d is %q; want %q", n, n, serial, from, from+rows-1, k, id, want)
					}
				}
			}
		}
	}
}
