package bot

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
)

// The picker: how a board bigger than MaxButtonSize, whose cells cannot
// all be buttons (a message holds 25), is played by tapping. It lives on
// the board message itself, so that every tap is an interaction on the
// board, answered by UPDATE_MESSAGE of the board with a fresh token, in a
// server, a DM or a user install alike:
//
//   - a select menu of the rows that still have a free cell (row/…);
//   - once the player to move picked a row, that row's cells as buttons,
//     in up to three action rows of five: free ones play (move/…, as a
//     click on a small board), taken ones are disabled;
//   - a Move… button (type/…) that opens a modal (typed/…) with one text
//     field for "row col".
//
// Picking a row stores nothing: the open row is only drawn on the message.
// Every custom_id carries the board's serial, which on such a board every
// move changes (playClick), so a tap on a picker drawn before the board
// changed never plays: it is refused, and the board is redrawn as it
// stands, with a fresh picker (pickerTap). Anyone but the player to move
// is told whose turn it is.

// typedField is the custom_id of the modal's text field.
const typedField = "cell"

// pickRow answers a choice in the picker's menu of rows: the board, with
// that row's cells as buttons. Nothing is stored. The game is read from
// the store, not from memory: the answer redraws the board for everyone,
// and must not draw one that another process has since moved on from.
func (b *Bot) pickRow(ctx context.Context, req *request, r route) error {
	data, _ := req.Data.(discordgo.MessageComponentInteractionData)
	if len(data.Values) != 1 {
		return refuse("route.unknown_button", nil)
	}
	row, err := smallInt(data.Values[0], 1, maxSide)
	if err != nil {
		return refuse("route.unknown_button", nil)
	}
	ch, err := b.tables.lock(ctx, req.ChannelID, false)
	if err != nil {
		return err
	}
	defer b.tables.unlock(ch)
	m := ch.match
	if stale, err := pickerTap(req, m, r); stale {
		return b.answerStale(ctx, req, m, err)
	} else if err != nil {
		return err
	}
	if row > m.Judge.Size() || freeInRow(m.Judge, row) == 0 {
		row = 0 // a row nobody could pick: the picker as it was
	}
	pic := b.settings.showsPicture(ctx, req.GuildID, m.Match)
	v := renderPicker(b.catalog.For(req.keptLocale(m.locale)), m.Match, row, pic)
	if err := req.respond(ctx, discordgo.InteractionResponseUpdateMessage, v, false); err != nil {
		return err
	}
	// A move saved by another process since the read must not stay hidden.
	b.boards.checkShown(m, &discordgo.Interaction{AppID: req.AppID, Token: req.Token})
	return nil
}

// openMoveModal answers the picker's Move… button with the modal in which
// the player to move types a cell.
func (b *Bot) openMoveModal(ctx context.Context, req *request, r route) error {
	ch, err := b.tables.lock(ctx, req.ChannelID, true)
	if err != nil {
		return err
	}
	defer b.tables.unlock(ch)
	stale, err := pickerTap(req, ch.match, r)
	if b.tables.recheck(ch, req, err) {
		if err := b.tables.load(ctx, ch); err != nil {
			return err
		}
		stale, err = pickerTap(req, ch.match, r)
	}
	if stale {
		return b.answerStale(ctx, req, ch.match, err)
	} else if err != nil {
		return err
	}
	l := req.lang // only the user sees the modal
	n := ch.match.Judge.Size()
	return req.modal(ctx, route{action: actTyped, id: r.id, serial: r.serial}.String(), l.T("modal.move.title", nil),
		[]discordgo.MessageComponent{label{
			Label: l.T("modal.move.label", nil),
			Component: textInput{
				CustomID:    typedField,
				Style:       discordgo.TextInputShort,
				Placeholder: strconv.Itoa((n+1)/2) + " " + strconv.Itoa((n+1)/2),
				Required:    true,
				MinLength:   3,
				MaxLength:   maxTyped,
			},
		}})
}

// labelComponent is the type of Discord's Label component (18), which
// discordgo v0.29.0 does not know.
const labelComponent discordgo.ComponentType = 18

// label is Discord's Label component, what a modal's field is since a
// text input's own label was deprecated: a label of up to 45 characters
// and an optional description of up to 100, for one component.
type label struct {
	Label       string                     `json:"label"`
	Description string                     `json:"description,omitempty"`
	Component   discordgo.MessageComponent `json:"component"`
}

func (label) Type() discordgo.ComponentType { return labelComponent }

// MarshalJSON writes l with its type.
func (l label) MarshalJSON() ([]byte, error) {
	type fields label
	return json.Marshal(struct {
		Type discordgo.ComponentType `json:"type"`
		fields
	}{labelComponent, fields(l)})
}

// textInput is Discord's Text Input (type 4) as a Label holds it: without
// the label of its own that discordgo's TextInput always sends (empty),
// deprecated in favour of the Label's.
type textInput struct {
	CustomID    string                   `json:"custom_id"`
	Style       discordgo.TextInputStyle `json:"style"`
	Placeholder string                   `json:"placeholder,omitempty"`
	Required    bool                     `json:"required"`
	MinLength   int                      `json:"min_length,omitempty"`
	MaxLength   int                      `json:"max_length,omitempty"`
}

func (textInput) Type() discordgo.ComponentType { return discordgo.TextInputComponent }

// MarshalJSON writes in with its type.
func (in textInput) MarshalJSON() ([]byte, error) {
	type fields textInput
	return json.Marshal(struct {
		Type discordgo.ComponentType `json:"type"`
		fields
	}{discordgo.TextInputComponent, fields(in)})
}

// holder is a component that holds one other: a Label of a modal submit,
// as package discord decodes it.
type holder interface {
	Child() discordgo.MessageComponent
}

// maxTyped is the longest text the modal takes: "15 , 15" and some room.
const maxTyped = 12

// moveByModal answers the modal of the Move… button: the cell typed is
// played as a click on it, and the board redrawn (UPDATE_MESSAGE of the
// board the modal was opened on).
func (b *Bot) moveByModal(ctx context.Context, req *request, r route) error {
	data, _ := req.Data.(discordgo.ModalSubmitInteractionData)
	row, col, ok := parseCell(modalValue(data, typedField))
	if !ok {
		return refuse("move.unreadable", nil)
	}
	r.action, r.row, r.col = actMove, row, col
	return b.moveByClick(ctx, req, r)
}

// modalValue is the value of the text field id in a submitted modal: in
// a Label, or in an action row (the form before Labels).
func modalValue(data discordgo.ModalSubmitInteractionData, id string) string {
	for _, c := range data.Components {
		var inner []discordgo.MessageComponent
		switch row := c.(type) {
		case *discordgo.ActionsRow:
			inner = row.Components
		case discordgo.ActionsRow:
			inner = row.Components
		case holder:
			inner = []discordgo.MessageComponent{row.Child()}
		}
		for _, c := range inner {
			switch in := c.(type) {
			case *discordgo.TextInput:
				if in.CustomID == id {
					return in.Value
				}
			case discordgo.TextInput:
				if in.CustomID == id {
					return in.Value
				}
			}
		}
	}
	return ""
}

// parseCell reads a cell as typed: a row and a column, 1-based, separated
// by spaces, a comma or a semicolon ("3 7", "3,7", "3, 7", "3;7"); the
// full-width forms of digits and separators that Chinese and Japanese
// keyboards type count as theirs. Numbers have at most two digits; their
// range is the board's to check.
func parseCell(s string) (row, col int, ok bool) {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= '０' && c <= '９':
			c = '0' + (c - '０')
		case c == '，' || c == '、' || c == '；' || c == ';':
			c = ','
		case c == '\u3000' || c == '\t':
			c = ' '
		}
		b.WriteRune(c)
	}
	t := strings.TrimSpace(b.String())
	if strings.Count(t, ",") > 1 {
		return 0, 0, false
	}
	fields := strings.Fields(strings.ReplaceAll(t, ",", " "))
	if len(fields) != 2 || strings.Contains(t, ",") && !separatedBy(t, ',') {
		return 0, 0, false
	}
	nums := [2]int{}
	for i, f := range fields {
		if len(f) > 2 || strings.Trim(f, "0123456789") != "" {
			return 0, 0, false
		}
		n, _ := strconv.Atoi(f)
		nums[i] = n
	}
	return nums[0], nums[1], true
}

// separatedBy says whether sep stands between two non-blank parts of t.
func separatedBy(t string, sep rune) bool {
	a, b, _ := strings.Cut(t, string(sep))
	return strings.TrimSpace(a) != "" && strings.TrimSpace(b) != ""
}

// maxChoices is Discord's limit on the choices of an autocomplete answer.
const maxChoices = 25

// suggestMove answers the autocomplete of /ttt move: for row, the rows of
// the channel's game with a free cell; for col, the free columns of the
// row given (every column with one, before a row is given). What the user
// typed so far narrows them to the numbers that start with it. Anything
// wrong (no game, a game over) suggests nothing. A channel without a game
// is read from the store once per noGameFor, not at each keystroke.
func (b *Bot) suggestMove(ctx context.Context, req *request) error {
	var choices []*discordgo.ApplicationCommandOptionChoice
	data := req.commandData()
	sub, err := subcommand(data) // the router sends only /ttt move here
	if err != nil {
		return req.suggest(ctx, nil)
	}
	var focused *discordgo.ApplicationCommandInteractionDataOption
	for _, o := range sub.Options {
		if o != nil && o.Focused {
			focused = o
		}
	}
	if focused == nil || focused.Name != "row" && focused.Name != "col" {
		return req.suggest(ctx, nil)
	}
	typed := strings.TrimSpace(optionText(focused))
	// A kept match is never changed in place (changes are made on a
	// clone), so it is read after the unlock: moves in the channel do not
	// wait for the answer to a keystroke.
	m, err := b.tables.running(ctx, req.ChannelID)
	if err != nil {
		return err
	}
	if m == nil || m.Over() {
		return req.suggest(ctx, nil)
	}
	g := m.Judge
	n := g.Size()
	l := req.lang
	add := func(k int, key, name string) {
		if s := strconv.Itoa(k); strings.HasPrefix(s, typed) && len(choices) < maxChoices {
			choices = append(choices, &discordgo.ApplicationCommandOptionChoice{Name: l.T(key, map[string]any{name: k}), Value: k})
		}
	}
	if focused.Name == "row" {
		for r := 1; r <= n; r++ {
			if freeInRow(g, r) > 0 {
				add(r, "picker.row", "Row")
			}
		}
		return req.suggest(ctx, choices)
	}
	row := 0
	if o := findOption(sub, "row"); o != nil {
		if k, err := strconv.Atoi(strings.TrimSpace(optionText(o))); err == nil && k >= 1 && k <= n {
			row = k
		}
	}
	for c := 1; c <= n; c++ {
		free := false
		for r := 1; r <= n && !free; r++ {
			free = (row == 0 || r == row) && g.At(r-1, c-1) == game.None
		}
		if free {
			add(c, "picker.col", "Col")
		}
	}
	return req.suggest(ctx, choices)
}

// optionText is an option's value as the user typed it: Discord sends the
// focused option of an autocomplete as a string, and the others as their
// type (numbers as JSON numbers).
func optionText(o *discordgo.ApplicationCommandInteractionDataOption) string {
	switch v := o.Value.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}
