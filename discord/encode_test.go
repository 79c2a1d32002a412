package discord

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// board is a size×size board of buttons with the answer's other fields
// set, as the bot answers a click.
func board(size int) *discordgo.InteractionResponse {
	var rows []discordgo.MessageComponent
	for r := range size {
		var row []discordgo.MessageComponent
		for c := range size {
			b := discordgo.Button{Style: discordgo.SecondaryButton, Emoji: &discordgo.ComponentEmoji{Name: "⬜"},
				CustomID: "move/g1/4/" + strconv.Itoa(r+1) + "/" + strconv.Itoa(c+1)}
			switch {
			case r == 0 && c == 0:
				b = discordgo.Button{Label: "❌", Disabled: true} // style 0: encoded as primary
			case r == 1 && c == 1:
				b.Style, b.Emoji = discordgo.SuccessButton, &discordgo.ComponentEmoji{Name: "⭕", ID: "12", Animated: true}
			}
			row = append(row, b)
		}
		rows = append(rows, discordgo.ActionsRow{Components: row, ID: r})
	}
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseUpdateMessage,
		Data: &discordgo.InteractionResponseData{
			Content:         "<@1>, your move & \"quotes\"",
			Components:      rows,
			AllowedMentions: &discordgo.MessageAllowedMentions{Users: []string{"1"}},
			Flags:           discordgo.MessageFlagsSuppressEmbeds,
		},
	}
}

// TestEncodeResponse: encodeResponse writes the JSON discordgo's own
// encoding writes, whatever the fields' order.
func TestEncodeResponse(t *testing.T) {
	ephemeral := []discordgo.MessageComponent{
		discordgo.ActionsRow{},
		discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.SelectMenu{CustomID: "pick", Options: []discordgo.SelectMenuOption{{Label: "a", Value: "a"}}},
			&discordgo.Button{Label: "pointer", CustomID: "p"},
			discordgo.Button{Label: "link", Style: discordgo.LinkButton, URL: "https://example.com/?a=1&b=<2>"},
		}},
	}
	for name, r := range map[string]*discordgo.InteractionResponse{
		"5×5 board":     board(5),
		"3×3 board":     board(3),
		"no data":       {Type: discordgo.InteractionResponseDeferredMessageUpdate},
		"no components": {Type: discordgo.InteractionResponseChannelMessageWithSource, Data: &discordgo.InteractionResponseData{Content: "hi"}},
		"empty list":    {Type: discordgo.InteractionResponseChannelMessageWithSource, Data: &discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{}}},
		"other kinds":   {Type: discordgo.InteractionResponseChannelMessageWithSource, Data: &discordgo.InteractionResponseData{Components: ephemeral, Flags: discordgo.MessageFlagsEphemeral}},
		"empty":         {},
		"nil":           nil,
		"picker":        picker(),
		"odd strings": {Type: discordgo.InteractionResponseChannelMessageWithSource, Data: &discordgo.InteractionResponseData{
			Content: "tab\t nl\n cr\r bs\\ q\" nul\x00 \x1f bell\b ff\f <a&b> \u2028 \u2029 bad\xff\xfe é 🟩",
			Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
				discordgo.Button{Label: "<\u2028>", URL: "https://x.example/?a=1&b=2", Style: discordgo.LinkButton, SKUID: "9", ID: 3},
			}}},
			AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{discordgo.AllowedMentionTypeUsers}, Roles: []string{"5"}, RepliedUser: true},
			TTS:             true,
		}},
	} {
		for _, escape := range []bool{false, true} {
			got, err := encodeResponse(r, escape)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%s: not JSON: %v\n%s", name, err, got)
			}
			_ = json.Unmarshal(want, &w)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s (escape HTML %v):\n got %s\nwant %s", name, escape, got, want)
			}
			// json.Marshal escapes <, > and &; the endpoint's answer
			// keeps them as they are, which is as valid.
			if strings.HasPrefix(name, "5×5") && escape == strings.Contains(string(got), "<@1>") {
				t.Errorf("%s: escape HTML %v, but the content is written %s", name, escape, got)
			}
		}
	}
}

// picker is the answer of a move on a board bigger than 5×5: a menu of
// rows, a row open, Move….
func picker() *discordgo.InteractionResponse {
	one := 1
	menu := discordgo.SelectMenu{MenuType: discordgo.StringSelectMenu, CustomID: "row/g1/4", Placeholder: "Choose a row", MinValues: &one, MaxValues: 1}
	for r := 1; r <= 10; r++ {
		menu.Options = append(menu.Options, discordgo.SelectMenuOption{Label: "Row " + strconv.Itoa(r), Value: strconv.Itoa(r), Default: r == 3})
	}
	menu.Options[1].Emoji, menu.Options[2].Description = &discordgo.ComponentEmoji{Name: "❌"}, "taken"
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{
			Content: "<@1> vs <@2>",
			Components: []discordgo.MessageComponent{
				discordgo.ActionsRow{Components: []discordgo.MessageComponent{menu}},
				discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{Label: "Move…", Style: discordgo.PrimaryButton, CustomID: "type/g1/4"}}},
			},
			AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}},
		},
	}
}

// The answers the bot gives most, boards and pickers, are written
// without encoding/json (appendResponse); TestEncodeResponse holds them
// to discordgo's JSON.
func TestEncodeFastPath(t *testing.T) {
	for name, r := range map[string]*discordgo.InteractionResponse{"5×5 board": board(5), "picker": picker()} {
		if _, ok := appendResponse(nil, r, false); !ok {
			t.Errorf("%s: encoded with encoding/json; want it written by hand", name)
		}
	}
}

func BenchmarkEncodeBoard(b *testing.B) {
	r := board(5)
	b.Run("discordgo", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encodeResponse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := encodeResponse(r, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestEncodeModalAndChoices: a MODAL and an autocomplete result are
// encoded as Discord documents them, with none of a message's fields, and
// an answer of no choices keeps its empty array, which discordgo's
// omitempty would drop.
func TestEncodeModalAndChoices(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    *discordgo.InteractionResponse
		want string
	}{
		{"modal", &discordgo.InteractionResponse{Type: discordgo.InteractionResponseModal, Data: &discordgo.InteractionResponseData{
			CustomID: "typed/g1/4", Title: "Your move",
			Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
				discordgo.TextInput{CustomID: "cell", Label: "Row and column", Style: discordgo.TextInputShort, Required: true, MinLength: 3, MaxLength: 12},
			}}},
		}}, `{"type":9,"data":{"custom_id":"typed/g1/4","title":"Your move","components":[{"components":[{"custom_id":"cell","label":"Row and column","style":1,"required":true,"min_length":3,"max_length":12,"type":4}],"type":1}]}}`},
		{"choices", &discordgo.InteractionResponse{Type: discordgo.InteractionApplicationCommandAutocompleteResult, Data: &discordgo.InteractionResponseData{
			Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: "Row 3", Value: 3}},
		}}, `{"type":8,"data":{"choices":[{"name":"Row 3","value":3}]}}`},
		{"no choices", &discordgo.InteractionResponse{Type: discordgo.InteractionApplicationCommandAutocompleteResult, Data: &discordgo.InteractionResponseData{}},
			`{"type":8,"data":{"choices":[]}}`},
	} {
		got, err := encodeResponse(tt.r, false)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", tt.name, err, got)
		}
		if err := json.Unmarshal([]byte(tt.want), &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}
