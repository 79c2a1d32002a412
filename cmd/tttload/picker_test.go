package main

import (
	"fmt"
	"io"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// A pick is a string select on the board message: the menu's custom_id and
// the row, as Discord sends a choice.
func TestPickPayload(t *testing.T) {
	b := testBuilder()
	board := `[{"type":1,"components":[{"type":3,"custom_id":"row/g1/4","options":[{"label":"Row 2","value":"2"}]}]}]`
	in := decode(t, b.pick(nil, channelID, bob, "1500000000000000001", "row/g1/4", board, 2))
	if in.Type != discordgo.InteractionMessageComponent || in.Message == nil || in.Message.ID != "1500000000000000001" {
		t.Fatalf("type %v, message %+v; want a component interaction on message 1500000000000000001", in.Type, in.Message)
	}
	d := in.MessageComponentData()
	if d.CustomID != "row/g1/4" || d.ComponentType != discordgo.SelectMenuComponent || len(d.Values) != 1 || d.Values[0] != "2" {
		t.Errorf("data %+v; want the select row/g1/4 with the value 2", d)
	}
	if in.Member == nil || in.Member.User.ID != bob.id {
		t.Errorf("member %+v; want bob", in.Member)
	}
}

func TestRowsID(t *testing.T) {
	for body, want := range map[string]string{
		`[{"type":3,"custom_id":"row/g1/4"}]`:         "row/g1/4",
		`[{"type":2,"custom_id":"move/g1/4/1/2"}]`:    "",
		`[{"type":3,"custom_id":"row/g1/4/5"}]`:       "", // not a picker's menu
		`[{"type":3,"custom_id":"row/g1/4","x":"row/`: "row/g1/4",
	} {
		if got := rowsID([]byte(body)); got != want {
			t.Errorf("rowsID(%s) = %q; want %q", body, got, want)
		}
	}
}

// With picker a move is the row, then the cell: only the cell is a move,
// and each answer's board is the one the next tap is on.
func TestAdvanceWithPicker(t *testing.T) {
	var n int
	newID := func() string { n++; return fmt.Sprintf("14000000000000000%02d", n) }
	c := &chanState{size: 6, picker: true}
	c.begin(newID)
	steps := []struct {
		o    outcome
		want stepKind
		ok   bool
		k    int
	}{
		{outcome{answered: true, challenge: "c1"}, stepAccept, true, 0},
		{outcome{answered: true, rows: "row/g1/0", board: "[0]"}, stepPick, true, 0},
		{outcome{answered: true, rows: "row/g1/0", cells: "move/g1/0/", board: "[0 open]"}, stepMove, true, 0},
		{outcome{answered: true, rows: "row/g1/1", board: "[1]"}, stepPick, true, 1},
		{outcome{answered: true, ephemeral: true}, stepResign, false, 1}, // a pick refused
	}
	for i, s := range steps {
		ok := c.advance(s.o, newID)
		if c.next != s.want || ok != s.ok || c.k != s.k {
			t.Fatalf("step %d: next %v, expected %v, k %d; want %v, %v, %d", i, c.next, ok, c.k, s.want, s.ok, s.k)
		}
		if i == 3 && (c.rows != "row/g1/1" || c.board != "[1]") {
			t.Errorf("after the move: rows %q board %q; want the new board's menu, row/g1/1 and [1]", c.rows, c.board)
		}
	}
	if _, err := parseFlags([]string{"-picker", "-size", "5"}, io.Discard); err == nil {
		t.Error("-picker -size 5: no error; want one (a 5×5 board has no picker)")
	}
}

// Played by the picker on both transports, every tap is answered and none
// refused, and a move costs two interactions.
func TestRunWithPicker(t *testing.T) {
	t.Parallel()
	bin := botBinary(t)
	for _, kind := range []string{"http", "gateway"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			st := cleanRun(t, kind, bin, "-rate", "0", "-concurrency", "2", "-interactions", "160", "-size", "6", "-picker").st
			// 160 interactions over two channels: each game is a start,
			// an accept and 31 moves of two taps; the first two games win.
			if st.games.Load() < 2 {
				t.Errorf("%d games won; want at least 2", st.games.Load())
			}
			// Beside the moves' two taps each, a channel sends a start
			// and an accept per game begun (a game won, or the one it
			// plays at the end) and perhaps a pick whose cell is not
			// sent yet.
			const channels = 2
			sent, moves, won := st.sent.Load(), st.moves.Load(), st.games.Load()
			if others := sent - 2*moves; others < 0 || others > 2*(won+channels)+channels {
				t.Errorf("%d moves in %d interactions, %d games won: %d interactions beside the moves' two taps; want at most %d", moves, sent, won, others, 2*(won+channels)+channels)
			}
		})
	}
}

// With picker, the move after a pick is a tap on the cell's button of the
// row the pick opened, not /ttt move.
func TestPickerMoveIsACellTap(t *testing.T) {
	tr := &httpTransport{build: *testBuilder()}
	c := &chanState{id: channelID, size: 6, picker: true, a: alice, b: bob, messageID: "1500000000000000001",
		rows: "row/g1/4", cells: "move/g1/4/", board: `[{"type":1,"components":[{"type":2,"custom_id":"move/g1/4/2/3"}]}]`}
	in := decode(t, tr.appendStep(nil, c, stepMove, 8)) // move 8 on 6×6: row 2, column 3, X's
	if in.Type != discordgo.InteractionMessageComponent || in.MessageComponentData().CustomID != "move/g1/4/2/3" {
		t.Fatalf("move after a pick: type %v; want a tap on move/g1/4/2/3", in.Type)
	}
	if in.Member.User.ID != alice.id {
		t.Errorf("tapped by %s; want alice, X", in.Member.User.ID)
	}
	pick := decode(t, tr.appendStep(nil, c, stepPick, 8))
	if d := pick.MessageComponentData(); d.CustomID != "row/g1/4" || len(d.Values) != 1 || d.Values[0] != "2" {
		t.Errorf("pick for move 8: %+v; want row 2 in row/g1/4", d)
	}
}
