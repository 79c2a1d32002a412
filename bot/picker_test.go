package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/discord"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// opponent is who plays O against mason in the picker's tests; spectator
// watches.
const (
	opponent  = "2"
	spectator = "3"
)

// bigGame stores a running n×n game (k in a row) in the fixture's channel:
// mason (X, first) against against (O; the computer if it is botID), with
// moves played in turn, and returns it as stored.
func bigGame(t testing.TB, b *Bot, n, k int, against string, moves ...game.Move) *match {
	t.Helper()
	setup := table.Setup{GuildID: fixtureGuild, ChannelID: fixtureChannel, Players: [3]string{game.X: mason, game.O: against},
		Size: n, Win: k, First: game.X}
	if against == botID {
		setup.Computer, setup.Level = game.O, game.Easy
	}
	m, err := table.Start(b.cfg.Table, newID(), setup, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, mv := range moves {
		if err := m.Play(b.cfg.Table, m.Players[mv.Player], mv.Row+1, mv.Col+1, time.Now()); err != nil {
			t.Fatalf("move %+v: %v", mv, err)
		}
	}
	bm := &match{Match: m, locale: "en-US"}
	bm.Serial = 1
	if err := b.tables.put(context.Background(), bm); err != nil {
		t.Fatal(err)
	}
	return bm
}

// selectIn is a choice of values in the select menu customID of the board
// message in channelID, with a token of its own.
func selectIn(t *testing.T, channelID, customID string, values ...string) *discordgo.InteractionCreate {
	t.Helper()
	m := fixture(t, "button_component_interaction_legacy.json")
	m["channel_id"] = channelID
	m["data"] = map[string]any{"custom_id": customID, "component_type": int(discordgo.SelectMenuComponent), "values": values}
	ic := decode(t, m)
	ic.Token = "token-" + ic.ID
	return ic
}

// modalIn is the submit of the modal customID, opened from a button of the
// board message in channelID, with typed in its text field.
func modalIn(t *testing.T, channelID, customID, typed string) *discordgo.InteractionCreate {
	t.Helper()
	return modalSubmit(t, channelID, customID, map[string]any{"type": 18, "id": 1,
		"component": map[string]any{"type": 4, "id": 2, "custom_id": typedField, "value": typed}})
}

// modalSubmit is a MODAL_SUBMIT in the channel of the modal customID with
// one component (Discord's Label Interaction Response Structure, or an
// action row), decoded as package discord decodes interactions.
func modalSubmit(t *testing.T, channelID, customID string, component map[string]any) *discordgo.InteractionCreate {
	t.Helper()
	m := fixture(t, "button_component_interaction_legacy.json")
	m["type"] = int(discordgo.InteractionModalSubmit)
	m["channel_id"] = channelID
	m["data"] = map[string]any{"custom_id": customID, "components": []any{component}}
	m["id"] = strconv.FormatUint(payloadIDs.Add(1), 10)
	m["token"] = "token-" + m["id"].(string)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	in, err := discord.DecodeInteraction(b)
	if err != nil {
		t.Fatalf("a modal submit cannot be decoded: %v", err)
	}
	return &discordgo.InteractionCreate{Interaction: in}
}

// suggestIn is the autocomplete of /ttt move with opts, one of them
// focused, in the fixture's channel.
func suggestIn(t *testing.T, opts ...map[string]any) *discordgo.InteractionCreate {
	t.Helper()
	m := slashMap(t, "move", opts, nil)
	m["type"] = int(discordgo.InteractionApplicationCommandAutocomplete)
	return decode(t, m)
}

// focused is an option of an autocomplete being typed: its value a
// string, whatever its type.
func focused(name, typed string) map[string]any {
	return map[string]any{"type": 4, "name": name, "value": typed, "focused": true}
}

// pickerOf reads the picker of a board: its menu, the cells of the open
// row, and its Move… button.
func pickerOf(t *testing.T, d *discordgo.InteractionResponseData) (menu discordgo.SelectMenu, cells []discordgo.Button, move discordgo.Button) {
	t.Helper()
	for i, c := range d.Components {
		for _, c := range c.(discordgo.ActionsRow).Components {
			switch c := c.(type) {
			case discordgo.SelectMenu:
				if i != 0 {
					t.Errorf("the menu of rows is in action row %d; want the first", i+1)
				}
				menu = c
			case discordgo.Button:
				if strings.HasPrefix(c.CustomID, actType+"/") {
					move = c
				} else {
					cells = append(cells, c)
				}
			}
		}
	}
	if menu.CustomID == "" || move.CustomID == "" {
		t.Fatalf("the board %q has no picker: %+v", d.Content, d.Components)
	}
	return menu, cells, move
}

// The player to move plays a big board in two taps: a row, then a cell.
// The first changes nothing but the board's buttons; the second is a move,
// as a click on a small board. Anyone else who taps is told whose turn it
// is, and the board stays as it is.
func TestPickerTwoTaps(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{6, 7, 10} {
		t.Run(fmt.Sprintf("%d×%d", n, n), func(t *testing.T) {
			b, rec, _ := newTestBot(t)
			start := bigGame(t, b, n, 4, opponent)
			board := renderMatch(english(), start.Match)
			menu, cells, move := pickerOf(t, &discordgo.InteractionResponseData{Content: board.content, Components: board.components})
			if len(menu.Options) != n || len(cells) != 0 || move.Label != "Move…" {
				t.Fatalf("a new board's picker has %d rows, %d cells open, a button %q; want %d rows, none open, Move…", len(menu.Options), len(cells), move.Label, n)
			}

			// Others tap: told whose turn it is, privately.
			for _, who := range []string{opponent, spectator} {
				b.serveIC(ctx, as(selectIn(t, fixtureChannel, menu.CustomID, "3"), who))
				wantEphemeral(t, rec.last(t), "It's not your turn: "+cellX+" "+mention(mason)+" is to move.")
			}

			// Tap 1: row 3 opens.
			b.serveIC(ctx, selectIn(t, fixtureChannel, menu.CustomID, "3"))
			r := rec.last(t)
			if r.Type != discordgo.InteractionResponseUpdateMessage || r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
				t.Fatalf("picking a row answered type %d %q; want the board updated", r.Type, r.Data.Content)
			}
			if r.Data.Content != board.content {
				t.Errorf("picking a row changed the board's text to %q", r.Data.Content)
			}
			menu, cells, _ = pickerOf(t, r.Data)
			if len(cells) != n {
				t.Fatalf("row 3 open shows %d cells; want %d", len(cells), n)
			}
			if len(r.Data.Components) != 2+(n+4)/5 {
				t.Errorf("%d action rows; want the menu, %d of cells, Move…", len(r.Data.Components), (n+4)/5)
			}
			for _, o := range menu.Options {
				if o.Default != (o.Value == "3") {
					t.Errorf("option %q default %v; want row 3 alone shown as picked", o.Label, o.Default)
				}
			}
			if got := current(t, b); got.Version != start.Version || got.Judge.Len() != 0 {
				t.Errorf("picking a row stored version %d, %d moves; want nothing stored", got.Version, got.Judge.Len())
			}

			// The opponent taps a cell of the open row: not theirs.
			b.serveIC(ctx, as(clickIn(t, fixtureChannel, cells[3].CustomID), opponent))
			wantEphemeral(t, rec.last(t), "It's not your turn")

			// Tap 2: the cell plays.
			if cells[3].Label != "4" {
				t.Fatalf("the fourth cell of row 3 is labelled %q; want its column, 4", cells[3].Label)
			}
			b.serveIC(ctx, clickIn(t, fixtureChannel, cells[3].CustomID))
			r = rec.last(t)
			if r.Type != discordgo.InteractionResponseUpdateMessage || !strings.Contains(r.Data.Content, "at row 3, column 4") {
				t.Fatalf("the cell answered type %d %q; want the board with the move", r.Type, r.Data.Content)
			}
			m := current(t, b)
			if m.Judge.At(2, 3) != game.X || m.Judge.Len() != 1 || m.Serial != start.Serial+1 {
				t.Errorf("after the cell: %d moves, row 3 col 4 = %v, serial %d; want X there and the serial %d", m.Judge.Len(), m.Judge.At(2, 3), m.Serial, start.Serial+1)
			}
			menu, cells, _ = pickerOf(t, r.Data)
			if len(cells) != 0 || !strings.HasSuffix(menu.CustomID, "/"+strconv.Itoa(m.Serial)) {
				t.Errorf("after the move the picker has %d cells open, menu %q; want none open, at serial %d", len(cells), menu.CustomID, m.Serial)
			}

			// Now the opponent's turn, and mason is told so.
			b.serveIC(ctx, selectIn(t, fixtureChannel, menu.CustomID, "1"))
			wantEphemeral(t, rec.last(t), "It's not your turn: "+cellO+" "+mention(opponent)+" is to move.")
		})
	}
}

// A full row is not offered; against the computer, the player's second
// tap is answered with the board after the computer's move too, in the
// same answer.
func TestPickerAgainstComputer(t *testing.T) {
	ctx := context.Background()
	b, rec, _ := newTestBot(t)
	// X and O fill row 1 alternately, and O plays once more: X to move.
	var moves []game.Move
	for c := range 7 {
		moves = append(moves, game.Move{Row: 0, Col: c, Player: game.X + game.Player(c%2)})
	}
	moves = append(moves, game.Move{Row: 6, Col: 6, Player: game.O})
	// Played between people, then handed to the computer: the computer
	// would have made O's moves itself.
	m := bigGame(t, b, 7, 7, opponent, moves...)
	m.Players[game.O], m.Computer, m.Level = botID, game.O, game.Easy
	if err := b.tables.put(ctx, m); err != nil {
		t.Fatal(err)
	}
	menuRow := route{action: actRow, id: m.ID, serial: m.Serial}.String()
	b.serveIC(ctx, selectIn(t, fixtureChannel, menuRow, "4"))
	r := rec.last(t)
	menu, cells, _ := pickerOf(t, r.Data)
	for _, o := range menu.Options {
		if o.Value == "1" {
			t.Errorf("the full row 1 is offered: %+v", menu.Options)
		}
	}
	if len(menu.Options) != 6 {
		t.Errorf("%d rows offered; want 6, every row but the full one", len(menu.Options))
	}
	b.serveIC(ctx, clickIn(t, fixtureChannel, cells[0].CustomID))
	r = rec.last(t)
	after := current(t, b)
	if r.Type != discordgo.InteractionResponseUpdateMessage || after.Judge.Len() != m.Judge.Len()+2 {
		t.Fatalf("the cell answered type %d with %d moves stored (before %d); want the board with the computer's answer", r.Type, after.Judge.Len(), m.Judge.Len())
	}
	if after.Judge.At(3, 0) != game.X {
		t.Errorf("row 4, column 1 holds %v; want X", after.Judge.At(3, 0))
	}
	if last, _ := after.Judge.LastMove(); last.Player != game.O || !strings.Contains(r.Data.Content, fmt.Sprintf("at row %d, column %d", last.Row+1, last.Col+1)) {
		t.Errorf("the answer %q does not show the computer's move %+v", r.Data.Content, last)
	}
}

// A picker drawn before the board changed never plays: a row, a cell or a
// typed cell from it is refused in plain words and the game stays as it
// is. On the board's own message (a move was made on it since), the answer
// redraws that message as it stands, with a fresh picker, and the refusal
// follows to the player alone; nothing is edited in the background, where
// it could land after the player's next tap. On a board a newer message
// replaced (/ttt board), the refusal comes alone.
func TestPickerStale(t *testing.T) {
	ctx := context.Background()
	stale := english().T("move.stale_picker", nil)
	for _, how := range []string{"a move since", "a newer board"} {
		t.Run(how, func(t *testing.T) {
			b, rec, _ := newTestBot(t)
			m := bigGame(t, b, 7, 4, opponent)
			old := m.Serial
			// Mason opens row 2 and keeps that picker.
			b.serveIC(ctx, selectIn(t, fixtureChannel, route{action: actRow, id: m.ID, serial: old}.String(), "2"))
			_, cells, _ := pickerOf(t, rec.last(t).Data)
			switch how {
			case "a move since":
				// Mason plays row 1 (on another device, say), then the
				// opponent answers: mason's turn again, on a newer
				// picker.
				b.serveIC(ctx, clickIn(t, fixtureChannel, route{action: actMove, id: m.ID, serial: old, row: 1, col: 1}.String()))
				mid := current(t, b).Serial
				b.serveIC(ctx, as(clickIn(t, fixtureChannel, route{action: actMove, id: m.ID, serial: mid, row: 7, col: 7}.String()), opponent))
				if r := rec.last(t); r.Type != discordgo.InteractionResponseUpdateMessage {
					t.Fatalf("the opponent's move answered %d %q", r.Type, r.Data.Content)
				}
			case "a newer board":
				b.serveIC(ctx, slashPayload(t, "board", nil, nil))
			}
			before := current(t, b)
			if before.Serial == old {
				t.Fatalf("the serial is still %d", old)
			}
			b.Close() // the background work of the moves is done
			rec.mu.Lock()
			edits, followups := len(rec.edits), len(rec.followups)
			rec.mu.Unlock()
			for i, ic := range []*discordgo.InteractionCreate{
				clickIn(t, fixtureChannel, cells[2].CustomID),
				selectIn(t, fixtureChannel, route{action: actRow, id: m.ID, serial: old}.String(), "3"),
				clickIn(t, fixtureChannel, route{action: actType, id: m.ID, serial: old}.String()),
				modalIn(t, fixtureChannel, route{action: actTyped, id: m.ID, serial: old}.String(), "2 3"),
			} {
				b := New(rec, b.stores, DefaultConfig(), b.log) // Close stopped the first
				b.SetSelf(botID)
				rec.mu.Lock()
				rec.followupsEarly = i % 3 // the refusal may get there before the answer
				rec.mu.Unlock()
				b.serveIC(ctx, ic)
				b.Close()
				if after := current(t, b); after.Judge.Len() != before.Judge.Len() || after.Version != before.Version {
					t.Fatalf("a stale tap changed the game: %d moves, version %d; want %d, %d", after.Judge.Len(), after.Version, before.Judge.Len(), before.Version)
				}
				r := rec.last(t)
				rec.mu.Lock()
				newEdits, newFollowups := len(rec.edits)-edits, rec.followups[followups:]
				rec.mu.Unlock()
				if newEdits != 0 {
					t.Errorf("tap %d: %d edits in the background; want none", i, newEdits)
				}
				if how == "a newer board" {
					wantEphemeral(t, r, stale)
					continue
				}
				// The board the tap was on, redrawn in the answer: its
				// picker at the current serial.
				if r.Type != discordgo.InteractionResponseUpdateMessage {
					t.Fatalf("tap %d answered %d %q; want the board redrawn", i, r.Type, r.Data.Content)
				}
				menu, _, _ := pickerOf(t, r.Data)
				if want := (route{action: actRow, id: m.ID, serial: before.Serial}).String(); menu.CustomID != want {
					t.Errorf("tap %d: the redrawn picker is %q; want %q", i, menu.CustomID, want)
				}
				if len(newFollowups) != 1 || newFollowups[0].Flags&discordgo.MessageFlagsEphemeral == 0 || newFollowups[0].Content != stale {
					t.Fatalf("tap %d: follow-ups %+v; want the refusal %q, to the player alone", i, newFollowups, stale)
				}
				followups++
			}
		})
	}
}

// The Move… button opens a modal in the player's language; what is typed
// there plays as a click would, on the board the button is on. An
// unreadable text, a cell outside the board and a taken one are refused
// in plain words and change nothing.
func TestPickerModal(t *testing.T) {
	ctx := context.Background()
	b, rec, _ := newTestBot(t)
	m := bigGame(t, b, 10, 5, opponent, game.Move{Row: 4, Col: 4, Player: game.X}, game.Move{Row: 9, Col: 9, Player: game.O})
	typeBtn := route{action: actType, id: m.ID, serial: m.Serial}.String()

	b.serveIC(ctx, as(clickIn(t, fixtureChannel, typeBtn), opponent))
	wantEphemeral(t, rec.last(t), "It's not your turn: "+cellX+" "+mention(mason))

	ic := clickIn(t, fixtureChannel, typeBtn)
	ic.Locale = discordgo.German
	b.serveIC(ctx, ic)
	r := rec.last(t)
	de := lang(t, "de")
	if r.Type != discordgo.InteractionResponseModal || r.Data.Title != de.T("modal.move.title", nil) {
		t.Fatalf("Move… answered type %d titled %q; want the modal, in German", r.Type, r.Data.Title)
	}
	typed := route{action: actTyped, id: m.ID, serial: m.Serial}.String()
	if r.Data.CustomID != typed {
		t.Errorf("the modal's custom_id is %q; want %q", r.Data.CustomID, typed)
	}
	// A Label (Discord's component reference: type 18, label, component)
	// of a text input without a label of its own (deprecated there).
	got, err := json.Marshal(r.Data.Components)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type":18,"label":` + strconv.Quote(de.T("modal.move.label", nil)) + `,"component":` +
		`{"type":4,"custom_id":"` + typedField + `","style":1,"placeholder":"5 5","required":true,"min_length":3,"max_length":12}}]`
	if string(got) != want {
		t.Errorf("the modal's components are\n%s\nwant\n%s", got, want)
	}

	// The form before Labels, an action row, is read too.
	b.serveIC(ctx, modalSubmit(t, fixtureChannel, typed, map[string]any{"type": 1,
		"components": []any{map[string]any{"type": 4, "custom_id": typedField, "value": "99 99"}}}))
	wantEphemeral(t, rec.last(t), "There is no row 99, column 99")

	type refused struct{ typed, says string }
	for _, tt := range []refused{
		{"five six", "Type the row, then the column"},
		{"3 4 5", "Type the row, then the column"},
		{"11 2", "There is no row 11, column 2"},
		{"0,3", "There is no row 0, column 3"},
		{"5;5", "Row 5, column 5 is already taken"},
	} {
		b.serveIC(ctx, modalIn(t, fixtureChannel, typed, tt.typed))
		wantEphemeral(t, rec.last(t), tt.says)
		if after := current(t, b); after.Judge.Len() != 2 || after.Version != m.Version {
			t.Fatalf("%q changed the game", tt.typed)
		}
	}
	b.serveIC(ctx, as(modalIn(t, fixtureChannel, typed, "3 7"), opponent))
	wantEphemeral(t, rec.last(t), "It's not your turn")

	b.serveIC(ctx, modalIn(t, fixtureChannel, typed, " 3, 7 "))
	r = rec.last(t)
	after := current(t, b)
	if r.Type != discordgo.InteractionResponseUpdateMessage || after.Judge.At(2, 6) != game.X || after.Judge.Len() != 3 {
		t.Fatalf("\" 3, 7 \" answered type %d %q; want the board updated with X at row 3, column 7", r.Type, r.Data.Content)
	}
	if !strings.Contains(r.Data.Content, "at row 3, column 7") {
		t.Errorf("the board %q does not show the move", r.Data.Content)
	}
}

func TestParseCell(t *testing.T) {
	for in, want := range map[string][2]int{
		"3 7": {3, 7}, "3,7": {3, 7}, "3, 7": {3, 7}, "3;7": {3, 7}, " 15  15 ": {15, 15}, "3 ,7": {3, 7},
		"３ ７": {3, 7}, "３，７": {3, 7}, "3、7": {3, 7}, "0 1": {0, 1}, "10\t2": {10, 2},
	} {
		if r, c, ok := parseCell(in); !ok || r != want[0] || c != want[1] {
			t.Errorf("parseCell(%q) = %d, %d, %v; want %d, %d", in, r, c, ok, want[0], want[1])
		}
	}
	for _, in := range []string{"", "3", "3 7 1", "3,,7", ",3 7", "3 7,", "C7", "100 1", "-1 3", "3.5 2", "+3 2", "3,7;1"} {
		if r, c, ok := parseCell(in); ok {
			t.Errorf("parseCell(%q) = %d, %d; want it refused", in, r, c)
		}
	}
}

// /ttt move suggests the rows with a free cell and, once a row is given,
// its free columns, narrowed to what was typed; with no game, nothing.
func TestMoveAutocomplete(t *testing.T) {
	ctx := context.Background()
	b, rec, _ := newTestBot(t)
	suggest := func(opts ...map[string]any) []string {
		t.Helper()
		b.serveIC(ctx, suggestIn(t, opts...))
		r := rec.last(t)
		if r.Type != discordgo.InteractionApplicationCommandAutocompleteResult {
			t.Fatalf("the autocomplete answered type %d %+v; want choices", r.Type, r.Data)
		}
		var got []string
		for _, c := range r.Data.Choices {
			got = append(got, fmt.Sprintf("%s=%v", c.Name, c.Value))
		}
		return got
	}
	if got := suggest(focused("row", "")); len(got) != 0 {
		t.Errorf("with no game, suggested %v; want nothing", got)
	}
	// Row 1 full (X and O alternately), and row 2 full but for column 4.
	var moves []game.Move
	for i := range 20 {
		if i != 13 {
			moves = append(moves, game.Move{Row: i / 10, Col: i % 10, Player: game.X + game.Player(len(moves)%2)})
		}
	}
	bigGame(t, b, 10, 10, opponent, moves...)
	rows := suggest(focused("row", ""))
	if len(rows) != 9 || rows[0] != "Row 2=2" || rows[8] != "Row 10=10" {
		t.Errorf("rows suggested %v; want rows 2 to 10", rows)
	}
	if got := fmt.Sprint(suggest(focused("row", "1"))); got != "[Row 10=10]" {
		t.Errorf("rows for \"1\" = %v; want row 10 alone (row 1 is full)", got)
	}
	if got := fmt.Sprint(suggest(intOpt("row", 2), focused("col", ""))); got != "[Column 4=4]" {
		t.Errorf("columns of row 2 = %v; want column 4 alone", got)
	}
	if got := suggest(intOpt("row", 1), focused("col", "")); len(got) != 0 {
		t.Errorf("columns of the full row 1 = %v; want none", got)
	}
	if got := suggest(focused("col", "1")); fmt.Sprint(got) != "[Column 1=1 Column 10=10]" {
		t.Errorf("columns for \"1\" with no row = %v; want 1 and 10", got)
	}
	// In the user's language.
	ic := suggestIn(t, focused("row", "1"))
	ic.Locale = discordgo.Japanese
	b.serveIC(ctx, ic)
	if r := rec.last(t); len(r.Data.Choices) != 1 || r.Data.Choices[0].Name != "10行" {
		t.Errorf("in Japanese, suggested %+v; want 10行", r.Data.Choices)
	}
}

// The picker is the same wherever the game is: in a DM with the bot and
// where only the user installed the app, every tap is answered through
// the interaction alone, on the board it came from.
func TestPickerEverywhere(t *testing.T) {
	ctx := context.Background()
	for _, where := range []string{"dm", "user install"} {
		t.Run(where, func(t *testing.T) {
			b, rec, _ := newTestBot(t)
			rec.edited = make(chan struct{}, 16)
			place := func(ic *discordgo.InteractionCreate) *discordgo.InteractionCreate {
				if where == "user install" {
					return install(ic, false)
				}
				ic.User, ic.Member, ic.GuildID = ic.Member.User, nil, ""
				ic.Context = discordgo.InteractionContextBotDM
				return ic
			}
			start := decode(t, localized(slashMap(t, "start", []map[string]any{intOpt("size", 7), intOpt("win", 4)}, nil), "fr", ""))
			if where == "user install" {
				start = install(slashPayload(t, "start", []map[string]any{intOpt("size", 7), intOpt("win", 4)}, nil), false)
			} else {
				start.ChannelID = fixtureChannel
			}
			b.serveIC(ctx, start)
			r := rec.last(t)
			menu, _, _ := pickerOf(t, r.Data)
			b.serveIC(ctx, place(selectIn(t, fixtureChannel, menu.CustomID, "4")))
			r = rec.last(t)
			if r.Type != discordgo.InteractionResponseUpdateMessage {
				t.Fatalf("the row answered %d %q", r.Type, r.Data.Content)
			}
			_, cells, move := pickerOf(t, r.Data)
			b.serveIC(ctx, place(clickIn(t, fixtureChannel, move.CustomID)))
			if r := rec.last(t); r.Type != discordgo.InteractionResponseModal {
				t.Fatalf("Move… answered %d", r.Type)
			}
			b.serveIC(ctx, place(clickIn(t, fixtureChannel, cells[0].CustomID)))
			r = rec.last(t)
			if r.Type != discordgo.InteractionResponseUpdateMessage || current(t, b).Judge.Len() != 2 {
				t.Fatalf("the cell answered %d %q; want the board with the move and the computer's", r.Type, r.Data.Content)
			}
			menu, _, _ = pickerOf(t, r.Data)
			b.serveIC(ctx, place(modalIn(t, fixtureChannel, strings.Replace(menu.CustomID, actRow+"/", actTyped+"/", 1), pickFree(t, current(t, b)))))
			r = rec.last(t)
			if r.Type != discordgo.InteractionResponseUpdateMessage || current(t, b).Judge.Len() != 4 {
				t.Fatalf("the modal answered %d %q; want the board with the move and the computer's", r.Type, r.Data.Content)
			}
		})
	}
}

// pickFree is a free cell of m, as a player types it.
func pickFree(t *testing.T, m *match) string {
	t.Helper()
	n := m.Judge.Size()
	for i := range n * n {
		if m.Judge.At(i/n, i%n) == game.None {
			return fmt.Sprintf("%d %d", i/n+1, i%n+1)
		}
	}
	t.Fatal("no free cell")
	return ""
}

// Replicas: a process whose copy of the game in memory is out of date
// (another process saved a move since) decides a picker's tap again on
// the game as stored: the opponent's cell plays though the copy says it is
// not their turn, and a cell of a picker drawn before the move, which the
// copy would accept, is refused, its save having lost the race. A row
// picked, which saves nothing, redraws the board as stored.
func TestPickerOnReplicas(t *testing.T) {
	ctx := context.Background()
	a, b, ra, rb := replicas(t, new(store.Memory))
	m := bigGame(t, a, 7, 4, opponent)
	if err := a.tables.catchUp(ctx, fixtureChannel); err != nil {
		t.Fatal(err)
	}
	// on plays one move by who through the picker's modal of process p.
	on := func(p *Bot, rec *recorder, who, typed string) {
		t.Helper()
		s := current(t, p).Serial
		p.serveIC(ctx, as(modalIn(t, fixtureChannel, route{action: actTyped, id: m.ID, serial: s}.String(), typed), who))
		wantUpdate(t, rec.last(t))
	}
	// On b, mason plays row 3, column 4: a's copy is out of date.
	on(b, rb, mason, "3 4")
	moved := current(t, b)

	// On a, mason taps a cell of the picker of before the move, which a's
	// copy accepts: its save loses the race, and the tap is refused on the
	// game as stored; nothing is played.
	a.serveIC(ctx, clickIn(t, fixtureChannel, route{action: actMove, id: m.ID, serial: m.Serial, row: 5, col: 5}.String()))
	wantEphemeral(t, ra.last(t), "It's not your turn")
	if got := current(t, a); got.Version != moved.Version || got.Judge.At(4, 4) != game.None {
		t.Fatalf("a stale tap on a stale replica changed the game: version %d (want %d)", got.Version, moved.Version)
	}

	// On b, the opponent plays row 5, column 5; on a, mason picks a row:
	// the board drawn is the one stored, with that move, never a's copy
	// (which says it is the opponent's turn).
	on(b, rb, opponent, "5 5")
	a.serveIC(ctx, selectIn(t, fixtureChannel, route{action: actRow, id: m.ID, serial: current(t, b).Serial}.String(), "2"))
	r := ra.last(t)
	wantUpdate(t, r)
	if !strings.Contains(r.Data.Content, "at row 5, column 5") {
		t.Errorf("the row was opened on %q; want the board as stored, with the opponent's move", r.Data.Content)
	}

	// On b, mason plays; on a, whose copy says it is mason's turn, the
	// opponent's typed cell plays all the same.
	on(b, rb, mason, "1 1")
	on(a, ra, opponent, "6 6")
	if got := current(t, a); got.Judge.At(5, 5) != game.O || got.Judge.Len() != 4 {
		t.Errorf("the opponent's typed cell was not played: %v there, %d moves", got.Judge.At(5, 5), got.Judge.Len())
	}

	// Two moves on b; on a, whose copy is now two moves behind, mason
	// taps a cell of the current picker: it plays. A copy behind the
	// board is a reason to read the store, not to call the tap stale
	// (nor to redraw the board from that copy).
	on(b, rb, mason, "1 2")
	on(b, rb, opponent, "1 3")
	a.serveIC(ctx, clickIn(t, fixtureChannel, route{action: actMove, id: m.ID, serial: current(t, b).Serial, row: 4, col: 4}.String()))
	wantUpdate(t, ra.last(t))
	if got := current(t, a); got.Judge.At(3, 3) != game.X || got.Judge.Len() != 7 {
		t.Errorf("mason's tap on the current picker was not played: %v there, %d moves", got.Judge.At(3, 3), got.Judge.Len())
	}
}

// wantUpdate checks that r updates the board it came from.
func wantUpdate(t *testing.T, r *discordgo.InteractionResponse) {
	t.Helper()
	if r.Type != discordgo.InteractionResponseUpdateMessage || r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 || !strings.Contains(r.Data.Content, " vs ") {
		t.Errorf("answered type %d %q; want the board updated", r.Type, r.Data.Content)
	}
}

// On a board shown as a picture, picking a row keeps the picture: the text
// without the grid, no attachment touched; a cell played through the
// picker is answered with the emoji board, and the picture of the new
// position follows on the same message, leaving the picker as answered.
func TestPickerOnPicture(t *testing.T) {
	ctx := context.Background()
	b, rec, _ := newTestBot(t)
	setPictures(t, b, true)
	m := bigGame(t, b, 10, 5, opponent, game.Move{Row: 4, Col: 4, Player: game.X}, game.Move{Row: 3, Col: 3, Player: game.O})
	b.serveIC(ctx, selectIn(t, fixtureChannel, route{action: actRow, id: m.ID, serial: m.Serial}.String(), "5"))
	r := rec.last(t)
	wantUpdate(t, r)
	if want := renderPictured(english(), m.Match).content; r.Data.Content != want {
		t.Errorf("picking a row on a picture says %q; want the picture's text %q", r.Data.Content, want)
	}
	if r.Data.Attachments != nil || len(r.Data.Files) != 0 {
		t.Errorf("picking a row touches the attachments: %v, %d files", r.Data.Attachments, len(r.Data.Files))
	}
	_, cells, _ := pickerOf(t, r.Data)
	cell := clickIn(t, fixtureChannel, cells[0].CustomID)
	b.serveIC(ctx, cell)
	if r := rec.last(t); r.Type != discordgo.InteractionResponseUpdateMessage || !strings.Contains(r.Data.Content, cellEmpty) {
		t.Fatalf("the cell answered %d %q; want the emoji board", r.Type, r.Data.Content)
	}
	b.Close() // waits for the edits in flight
	if n, _ := editCount(rec); n != 1 {
		t.Fatalf("%d edits after the move; want 1, its picture", n)
	}
	wantPicture(t, rec, 0, cell.Token, current(t, b))
	rec.mu.Lock()
	e := rec.edits[0]
	rec.mu.Unlock()
	if e.Components != nil {
		t.Errorf("the picture's edit sets the components %v; want the picker left as answered", *e.Components)
	}
}

// Autocomplete in a channel without a game reads the store (the game and
// the challenge) once per noGameFor, not at each keystroke; a game started
// by this process is suggested from at once, one started by another
// process sharing the database once noGameFor has passed.
func TestMoveAutocompleteNoGameCached(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	reads := 0
	newStore := func() *store.Memory {
		return store.NewMemory(store.Observe(func(op string, _ time.Duration, _ error) {
			if op == "current" || op == "challenge" {
				mu.Lock()
				reads++
				mu.Unlock()
			}
		}))
	}
	readsNow := func() int {
		mu.Lock()
		defer mu.Unlock()
		return reads
	}
	clk := &clock{t: time.Now()}
	suggest := func(b *Bot, rec *recorder) int {
		t.Helper()
		b.serveIC(ctx, suggestIn(t, focused("row", "")))
		r := rec.last(t)
		if r.Type != discordgo.InteractionApplicationCommandAutocompleteResult {
			t.Fatalf("the autocomplete answered type %d; want choices", r.Type)
		}
		return len(r.Data.Choices)
	}

	b, rec := clockedBotOn(t, newStore(), clk)
	before := readsNow()
	for range 20 {
		if n := suggest(b, rec); n != 0 {
			t.Fatalf("with no game, %d choices; want none", n)
		}
	}
	if got := readsNow() - before; got > 2 {
		t.Errorf("20 keystrokes in a channel without a game read the store %d times; want at most 2 (the game, the challenge)", got)
	}
	bigGame(t, b, 10, 5, opponent)
	if n := suggest(b, rec); n != 10 {
		t.Errorf("after a game started in this process, %d rows suggested; want 10", n)
	}

	st := newStore()
	b, rec = clockedBotOn(t, st, clk)
	other, _ := clockedBotOn(t, st, clk) // another process on the same database
	if n := suggest(b, rec); n != 0 {
		t.Fatalf("with no game, %d choices; want none", n)
	}
	bigGame(t, other, 10, 5, opponent)
	if n := suggest(b, rec); n != 0 {
		t.Errorf("a game started by another process was seen before noGameFor (%d rows): the answer was not cached", n)
	}
	clk.advance(noGameFor)
	if n := suggest(b, rec); n != 10 {
		t.Errorf("noGameFor after another process started a game, %d rows suggested; want 10", n)
	}
}

// /ttt move on a picker board posts the board anew, one serial on, as
// before the handlers' cores were shared with the live board: the move
// does not count a second time.
func TestPickerMoveByCommandSerial(t *testing.T) {
	b, _, _ := newTestBot(t)
	start := bigGame(t, b, 7, 4, opponent)
	b.serveIC(context.Background(), as(slashPayload(t, "move", []map[string]any{intOpt("row", 1), intOpt("col", 1)}, nil), mason))
	m := current(t, b)
	if m.Judge.Len() != 1 {
		t.Fatalf("%d moves stored; want the command's", m.Judge.Len())
	}
	if m.Serial != start.Serial+1 {
		t.Errorf("serial %d after /ttt move; want %d", m.Serial, start.Serial+1)
	}
}
