package discordtest

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// menuBoard is a message with a string select menu "row" of rows 1 to 3
// and a button "type".
func menuBoard(def string) []discordgo.MessageComponent {
	menu := discordgo.SelectMenu{MenuType: discordgo.StringSelectMenu, CustomID: "row", Placeholder: "Pick a row"}
	for _, v := range []string{"1", "2", "3"} {
		menu.Options = append(menu.Options, discordgo.SelectMenuOption{Label: "Row " + v, Value: v, Default: v == def})
	}
	return []discordgo.MessageComponent{
		discordgo.ActionsRow{Components: []discordgo.MessageComponent{menu}},
		discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{Label: "Move…", CustomID: "type", Style: discordgo.PrimaryButton}}},
	}
}

// startMenu answers /ttt start with menuBoard and returns the message.
func (g *game) startMenu(t *testing.T) Message {
	t.Helper()
	return g.startWith(t, menuBoard(""))
}

// A choice in a string select menu reaches the bot as Discord sends it,
// and may update the message; a client offers only the menu's options,
// as many as it takes; Discord checks the options' limits.
func TestSelectMenu(t *testing.T) {
	t.Parallel()
	g := newGame(t, nil)
	msg := g.startMenu(t)

	in := g.srv.Select(g.guild, g.channel, g.alice, msg.ID, "row", "2")
	i := g.send(t, in)
	d := i.MessageComponentData()
	if i.Type != discordgo.InteractionMessageComponent || d.ComponentType != discordgo.SelectMenuComponent || d.CustomID != "row" ||
		len(d.Values) != 1 || d.Values[0] != "2" || i.Message == nil || i.Message.ID != msg.ID {
		t.Fatalf("interaction = %+v, data %+v; want alice's choice of row 2 on the board", i.Interaction, d)
	}
	if err := g.bot.respond(i, discordgo.InteractionResponseUpdateMessage,
		&discordgo.InteractionResponseData{Content: "row 2 open", Components: menuBoard("2")}); err != nil {
		t.Fatalf("UPDATE_MESSAGE = %v", err)
	}
	resp, err := in.Response(g.ctx)
	if err != nil || resp.Message.Content != "row 2 open" {
		t.Fatalf("Response() = %+v, %v; want the board updated", resp, err)
	}
	if menus := resp.Message.SelectMenus(); len(menus) != 1 || menus[0].CustomID != "row" || menus[0].Row != 0 || !menus[0].Options[1].Default {
		t.Errorf("SelectMenus() = %+v; want the menu of rows, row 2 picked", menus)
	}

	for _, tt := range []struct {
		name   string
		in     *Interaction
		target error
	}{
		{"not an option", g.srv.Select(g.guild, g.channel, g.alice, msg.ID, "row", "9"), ErrBadSubmit},
		{"two values", g.srv.Select(g.guild, g.channel, g.alice, msg.ID, "row", "1", "2"), ErrBadSubmit},
		{"none", g.srv.Select(g.guild, g.channel, g.alice, msg.ID, "row"), ErrBadSubmit},
		{"a button", g.srv.Select(g.guild, g.channel, g.alice, msg.ID, "type", "1"), ErrUnknownComponent},
		{"no menu", g.srv.Select(g.guild, g.channel, g.alice, msg.ID, "col", "1"), ErrUnknownComponent},
	} {
		if err := g.srv.Send(g.ctx, tt.in); !errors.Is(err, tt.target) {
			t.Errorf("%s: Send() = %v; want %v", tt.name, err, tt.target)
		}
	}

	i = g.send(t, g.srv.Select(g.guild, g.channel, g.alice, msg.ID, "row", "1"))
	long := menuBoard("")
	long[0].(discordgo.ActionsRow).Components[0].(discordgo.SelectMenu).Options[0].Label = strings.Repeat("x", 101)
	dup := menuBoard("")
	dup[0].(discordgo.ActionsRow).Components[0].(discordgo.SelectMenu).Options[1].Value = "1"
	for name, comps := range map[string][]discordgo.MessageComponent{
		"an option label of 101": long, "two options of one value": dup, "two defaults": twoDefaults(),
	} {
		err := g.bot.respond(i, discordgo.InteractionResponseUpdateMessage, &discordgo.InteractionResponseData{Content: "x", Components: comps})
		if err == nil {
			t.Fatalf("%s: UPDATE_MESSAGE accepted", name)
		}
		wantAPIError(t, err, http.StatusBadRequest, codeInvalidFormBody)
	}
}

func twoDefaults() []discordgo.MessageComponent {
	comps := menuBoard("1")
	comps[0].(discordgo.ActionsRow).Components[0].(discordgo.SelectMenu).Options[2].Default = true
	return comps
}

// A modal shown for a button is submitted by its user with what they
// typed; the submit carries the button's message, which its answer may
// update. A modal submit cannot be answered with a modal, a modal's text
// input label has at most 45 characters, and a client sends only values
// that fit the inputs.
func TestModalFromComponent(t *testing.T) {
	t.Parallel()
	g := newGame(t, nil)
	msg := g.startMenu(t)

	click := g.srv.Click(g.guild, g.channel, g.alice, msg.ID, "type")
	i := g.send(t, click)
	min, max := 3, 12
	modal := &discordgo.InteractionResponseData{CustomID: "typed/1", Title: "Your move", Components: []discordgo.MessageComponent{
		discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.TextInput{CustomID: "cell", Label: strings.Repeat("l", 46), Style: discordgo.TextInputShort, Required: true, MinLength: min, MaxLength: max},
		}},
	}}
	err := g.bot.respond(i, discordgo.InteractionResponseModal, modal)
	wantAPIError(t, err, http.StatusBadRequest, codeInvalidFormBody)
	modal.Components[0].(discordgo.ActionsRow).Components[0] = discordgo.TextInput{CustomID: "cell", Label: "Row and column", Style: discordgo.TextInputShort, Required: true, MinLength: min, MaxLength: max}
	if err := g.bot.respond(i, discordgo.InteractionResponseModal, modal); err != nil {
		t.Fatalf("MODAL = %v", err)
	}
	resp, err := click.Response(g.ctx)
	if err != nil || resp.Type != discordgo.InteractionResponseModal || resp.Modal == nil || resp.Modal.CustomID != "typed/1" ||
		len(resp.Modal.Inputs) != 1 || resp.Modal.Inputs[0].CustomID != "cell" {
		t.Fatalf("Response() = %+v, %v; want the modal", resp, err)
	}

	for name, values := range map[string]map[string]string{
		"empty": {"cell": ""}, "too short": {"cell": "3"}, "too long": {"cell": strings.Repeat("3", 13)}, "unknown input": {"cell": "3 7", "x": "1"},
	} {
		if err := g.srv.Send(g.ctx, g.srv.SubmitModal(click, values)); !errors.Is(err, ErrBadSubmit) {
			t.Errorf("%s: Send() = %v; want ErrBadSubmit", name, err)
		}
	}
	if err := g.srv.Send(g.ctx, g.srv.SubmitModal(g.srv.Click(g.guild, g.channel, g.alice, msg.ID, "type"), nil)); !errors.Is(err, ErrNoModal) {
		t.Errorf("a submit of an interaction never sent: Send() = %v; want ErrNoModal", err)
	}

	submit := g.srv.SubmitModal(click, map[string]string{"cell": "3 7"})
	i = g.send(t, submit)
	d := i.ModalSubmitData()
	if i.Type != discordgo.InteractionModalSubmit || d.CustomID != "typed/1" || i.Message == nil || i.Message.ID != msg.ID || i.Member.User.ID != g.alice.User.ID {
		t.Fatalf("interaction = %+v; want alice's submit on the board", i.Interaction)
	}
	row, ok := d.Components[0].(*discordgo.ActionsRow)
	if !ok || row.Components[0].(*discordgo.TextInput).Value != "3 7" {
		t.Fatalf("submitted components = %+v; want cell = \"3 7\"", d.Components)
	}
	if err := g.bot.respond(i, discordgo.InteractionResponseModal, modal); err == nil {
		t.Fatal("a modal submit answered with a modal: accepted")
	}
	if err := g.bot.respond(i, discordgo.InteractionResponseUpdateMessage, &discordgo.InteractionResponseData{Content: "moved"}); err != nil {
		t.Fatalf("UPDATE_MESSAGE of a modal submit = %v", err)
	}
	if resp, err := submit.Response(g.ctx); err != nil || resp.Message.ID != msg.ID || resp.Message.Content != "moved" {
		t.Fatalf("Response() = %+v, %v; want the board updated", resp, err)
	}
	if o, ok := g.srv.Original(submit); !ok || o.ID != msg.ID {
		t.Errorf("Original() = %+v, %v; want the board", o, ok)
	}
}

// A modal shown for a slash command has no message to update: its submit
// is answered with a message.
func TestModalFromCommand(t *testing.T) {
	t.Parallel()
	g := newGame(t, nil)
	cmd := g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("board"))
	i := g.send(t, cmd)
	if err := g.bot.respond(i, discordgo.InteractionResponseModal, &discordgo.InteractionResponseData{CustomID: "m", Title: "T",
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.TextInput{CustomID: "a", Label: "A", Style: discordgo.TextInputParagraph},
		}}}}); err != nil {
		t.Fatalf("MODAL = %v", err)
	}
	if _, err := cmd.Response(g.ctx); err != nil {
		t.Fatal(err)
	}
	submit := g.srv.SubmitModal(cmd, map[string]string{"a": "hello"})
	i = g.send(t, submit)
	if i.Message != nil {
		t.Errorf("the submit carries message %+v; want none", i.Message)
	}
	err := g.bot.respond(i, discordgo.InteractionResponseUpdateMessage, &discordgo.InteractionResponseData{Content: "x"})
	wantAPIError(t, err, http.StatusBadRequest, codeInvalidFormBody)
	if err := g.bot.respond(i, discordgo.InteractionResponseChannelMessageWithSource, &discordgo.InteractionResponseData{Content: "ok"}); err != nil {
		t.Fatalf("a message = %v", err)
	}
}

// An option that autocompletes asks the bot, as the user types, which
// choices to offer: the focused option comes as a string, whatever its
// type; the answer is choices alone, at most 25, of the option's type.
func TestAutocomplete(t *testing.T) {
	t.Parallel()
	g := newGame(t, nil)
	cmds := tttCommands()
	move := cmds[0].Options[1]
	move.Options[0].Autocomplete = true
	move.Options[1].Autocomplete = true
	if _, err := g.bot.ApplicationCommandBulkOverwrite(g.srv.AppID, g.guild, cmds); err != nil {
		t.Fatal(err)
	}
	for name, sub := range map[string]Option{
		"no focus":        Sub("move", Int("row", 1)),
		"no autocomplete": Sub("start", Focused("size", "3")),
		"two focused":     Sub("move", Focused("row", "1"), Focused("col", "2")),
		"focused twice":   Sub("move", Focused("row", "1"), Focused("row", "2")),
	} {
		if err := g.srv.Send(g.ctx, g.srv.Autocomplete(g.guild, g.channel, g.alice, "ttt", sub)); !errors.Is(err, ErrBadOption) {
			t.Errorf("%s: Send() = %v; want ErrBadOption", name, err)
		}
	}
	if err := g.srv.Send(g.ctx, g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("move", Focused("row", "1"), Int("col", 1)))); !errors.Is(err, ErrBadOption) {
		t.Errorf("a focused option in a command: Send() = %v; want ErrBadOption", err)
	}

	in := g.srv.Autocomplete(g.guild, g.channel, g.alice, "ttt", Sub("move", Focused("row", "1")))
	i := g.send(t, in)
	data := i.ApplicationCommandData()
	o := data.Options[0].Options[0]
	if i.Type != discordgo.InteractionApplicationCommandAutocomplete || data.Name != "ttt" || o.Name != "row" || !o.Focused ||
		o.Type != discordgo.ApplicationCommandOptionInteger || o.Value != "1" {
		t.Fatalf("interaction = %+v, option %+v; want the autocomplete of row, typed \"1\"", i.Interaction, o)
	}
	choice := func(name string, v any) *discordgo.ApplicationCommandOptionChoice {
		return &discordgo.ApplicationCommandOptionChoice{Name: name, Value: v}
	}
	var many []*discordgo.ApplicationCommandOptionChoice
	for range 26 {
		many = append(many, choice("Row 1", 1))
	}
	for name, d := range map[string]*discordgo.InteractionResponseData{
		"26 choices":           {Choices: many},
		"a string for integer": {Choices: []*discordgo.ApplicationCommandOptionChoice{choice("Row 1", "1")}},
		"a fraction":           {Choices: []*discordgo.ApplicationCommandOptionChoice{choice("Row 1", 1.5)}},
		"an empty name":        {Choices: []*discordgo.ApplicationCommandOptionChoice{choice("", 1)}},
		"no choices":           {},
	} {
		err := g.bot.respond(i, discordgo.InteractionApplicationCommandAutocompleteResult, d)
		if err == nil {
			t.Fatalf("%s: accepted", name)
		}
		wantAPIError(t, err, http.StatusBadRequest, codeInvalidFormBody)
	}
	err := g.bot.respond(i, discordgo.InteractionResponseChannelMessageWithSource, &discordgo.InteractionResponseData{Content: "x"})
	wantAPIError(t, err, http.StatusBadRequest, codeInvalidFormBody)
	if err := g.bot.respond(i, discordgo.InteractionApplicationCommandAutocompleteResult, &discordgo.InteractionResponseData{
		Choices: []*discordgo.ApplicationCommandOptionChoice{choice("Row 1", 1), choice("Row 10", 10)}}); err != nil {
		t.Fatalf("choices = %v", err)
	}
	resp, err := in.Response(g.ctx)
	if err != nil || resp.Type != discordgo.InteractionApplicationCommandAutocompleteResult || len(resp.Choices) != 2 || resp.Choices[1].Value != 10.0 {
		t.Fatalf("Response() = %+v, %v; want the two choices", resp, err)
	}

	// Choices answer nothing else.
	cmd := g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("board"))
	i = g.send(t, cmd)
	err = g.bot.respond(i, discordgo.InteractionApplicationCommandAutocompleteResult, &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{choice("a", 1)}})
	wantAPIError(t, err, http.StatusBadRequest, codeInvalidFormBody)
}

// label is Discord's Label component (type 18), which discordgo lacks, as
// the component reference gives it: a label, an optional description and
// one component.
type label struct {
	Label       *string                    `json:"label,omitempty"`
	Description string                     `json:"description,omitempty"`
	Component   discordgo.MessageComponent `json:"component,omitempty"`
}

func (label) Type() discordgo.ComponentType { return componentLabel }

func (l label) MarshalJSON() ([]byte, error) {
	type fields label
	return json.Marshal(struct {
		Type int `json:"type"`
		fields
	}{componentLabel, fields(l)})
}

// rawInput is a text input whose label may be left out, as in a Label.
type rawInput struct {
	CustomID  string  `json:"custom_id"`
	Label     *string `json:"label,omitempty"`
	Style     int     `json:"style"`
	MinLength int     `json:"min_length,omitempty"`
	MaxLength int     `json:"max_length,omitempty"`
}

func (rawInput) Type() discordgo.ComponentType { return discordgo.TextInputComponent }

func (in rawInput) MarshalJSON() ([]byte, error) {
	type fields rawInput
	return json.Marshal(struct {
		Type int `json:"type"`
		fields
	}{componentTextIn, fields(in)})
}

// A modal's field in a Label, as Discord's component reference has it:
// the label (1 to 45 characters) and description (up to 100) are the
// Label's, its component one of those a Label holds, a text input's own
// label left out (deprecated: an empty one is refused); a modal holds
// Labels, Text Displays, or the deprecated action rows of one text input
// with a label. Its submit carries each Label with its id and component
// (the Label Interaction Response Structure), the text input with its id,
// custom_id and value.
func TestModalLabel(t *testing.T) {
	t.Parallel()
	raw := make(chan json.RawMessage, 16)
	g := newGame(t, nil, func(s *discordgo.Session) {
		s.AddHandler(func(_ *discordgo.Session, e *discordgo.Event) {
			if e.Type == "INTERACTION_CREATE" {
				select {
				case raw <- e.RawData:
				default: // more than the test reads
				}
			}
		})
	})
	msg := g.startMenu(t)
	click := g.srv.Click(g.guild, g.channel, g.alice, msg.ID, "type")
	i := g.send(t, click)
	str := func(s string) *string { return &s }
	input := rawInput{CustomID: "cell", Style: 1, MinLength: 3, MaxLength: 12}
	modal := func(comps ...discordgo.MessageComponent) *discordgo.InteractionResponseData {
		return &discordgo.InteractionResponseData{CustomID: "typed/1", Title: "Your move", Components: comps}
	}
	withLabel := input
	withLabel.Label = str("")
	for name, m := range map[string]*discordgo.InteractionResponseData{
		"no label":                 modal(label{Component: input}),
		"a label of 46":            modal(label{Label: str(strings.Repeat("l", 46)), Component: input}),
		"a description of 101":     modal(label{Label: str("Row and column"), Description: strings.Repeat("d", 101), Component: input}),
		"no component":             modal(label{Label: str("Row and column")}),
		"a button in a label":      modal(label{Label: str("Row and column"), Component: discordgo.Button{Label: "b", CustomID: "b", Style: discordgo.PrimaryButton}}),
		"an empty input label":     modal(label{Label: str("Row and column"), Component: withLabel}),
		"a row's input, no label":  modal(discordgo.ActionsRow{Components: []discordgo.MessageComponent{input}}),
		"a button at the top":      modal(discordgo.Button{Label: "b", CustomID: "b", Style: discordgo.PrimaryButton}),
		"six labels":               modal(label{Label: str("1"), Component: input}, label{Label: str("2"), Component: rawInput{CustomID: "2", Style: 1}}, label{Label: str("3"), Component: rawInput{CustomID: "3", Style: 1}}, label{Label: str("4"), Component: rawInput{CustomID: "4", Style: 1}}, label{Label: str("5"), Component: rawInput{CustomID: "5", Style: 1}}, label{Label: str("6"), Component: rawInput{CustomID: "6", Style: 1}}),
		"an input without its id":  modal(label{Label: str("Row and column"), Component: rawInput{Style: 1}}),
		"an input of a wrong kind": modal(label{Label: str("Row and column"), Component: rawInput{CustomID: "cell", Style: 3}}),
	} {
		err := g.bot.respond(i, discordgo.InteractionResponseModal, m)
		var re *discordgo.RESTError
		if !errors.As(err, &re) || re.Response.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: MODAL = %v; want 400", name, err)
		}
	}
	ok := modal(label{Label: str("Row and column"), Description: "such as 3 7", Component: input})
	if err := g.bot.respond(i, discordgo.InteractionResponseModal, ok); err != nil {
		t.Fatalf("MODAL with a Label = %v", err)
	}
	resp, err := click.Response(g.ctx)
	if err != nil || resp.Modal == nil || len(resp.Modal.Inputs) != 1 {
		t.Fatalf("Response() = %+v, %v; want the modal", resp, err)
	}
	if in := resp.Modal.Inputs[0]; !in.InLabel || in.CustomID != "cell" || in.Label != "Row and column" || in.Description != "such as 3 7" {
		t.Errorf("the modal's input = %+v; want cell in the Label %q, %q", in, "Row and column", "such as 3 7")
	}
	if err := g.srv.Send(g.ctx, g.srv.SubmitModal(click, map[string]string{"cell": "3"})); !errors.Is(err, ErrBadSubmit) {
		t.Errorf("a value shorter than the input's min_length: Send() = %v; want ErrBadSubmit", err)
	}
	g.send(t, g.srv.SubmitModal(click, map[string]string{"cell": "3 7"}))
	var submit struct {
		Type int `json:"type"`
		Data struct {
			CustomID   string          `json:"custom_id"`
			Components json.RawMessage `json:"components"`
		} `json:"data"`
	}
	for submit.Type != int(discordgo.InteractionModalSubmit) { // the events before it were the start's and the click's
		select {
		case b := <-raw:
			if err := json.Unmarshal(b, &submit); err != nil {
				t.Fatal(err)
			}
		case <-g.ctx.Done():
			t.Fatal("no modal submit received")
		}
	}
	want := `[{"component":{"custom_id":"cell","id":2,"type":4,"value":"3 7"},"id":1,"type":18}]`
	if submit.Data.CustomID != "typed/1" || string(submit.Data.Components) != want {
		t.Errorf("the submit's data = %s %s; want typed/1 %s", submit.Data.CustomID, submit.Data.Components, want)
	}

	// A Text Display beside a Label is a modal Discord takes.
	cmd := g.srv.SlashCommand(g.guild, g.channel, g.alice, "ttt", Sub("board"))
	i = g.send(t, cmd)
	if err := g.bot.respond(i, discordgo.InteractionResponseModal, modal(discordgo.TextDisplay{Content: "Type a cell"}, label{Label: str("Row and column"), Component: input})); err != nil {
		t.Errorf("MODAL with a Text Display and a Label = %v", err)
	}
}
