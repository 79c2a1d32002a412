package discord

import (
	"bytes"
	"encoding/json"

	"github.com/bwmarrin/discordgo"
)

// encodeResponse encodes an interaction response as JSON, the same JSON
// as discordgo's types give, but faster for a board of buttons. An answer
// with a message of text and buttons or select menus, as every board
// is, is written by hand (appendResponse); any other is encoded by
// encoding/json, as follows.
//
// discordgo's ActionsRow and Button encode themselves: each button is a
// json.Marshal of its own, and encoding/json then checks and compacts
// every button's bytes again, once for its row and once for the response.
// A 5×5 board cost about 45 µs of the bot's CPU that way. Here rows and
// buttons are plain structs of the same fields, encoded in one pass; any
// other component still encodes itself.
func encodeResponse(r *discordgo.InteractionResponse, escapeHTML bool) ([]byte, error) {
	if r == nil {
		return []byte("null"), nil // as json.Marshal writes it
	}
	if fastEncodable(r) {
		if b, ok := appendResponse(make([]byte, 0, sizeHint(r)), r, escapeHTML); ok {
			return b, nil
		}
	}
	var v any
	switch {
	case r.Data != nil && r.Type == discordgo.InteractionApplicationCommandAutocompleteResult:
		v = autocompleteJSON{Type: r.Type, Data: choicesJSON{Choices: r.Data.Choices}}
		if r.Data.Choices == nil {
			v = autocompleteJSON{Type: r.Type, Data: choicesJSON{Choices: []*discordgo.ApplicationCommandOptionChoice{}}}
		}
	case r.Data != nil && r.Type == discordgo.InteractionResponseModal:
		v = modalJSON{Type: r.Type, Data: modalDataJSON{CustomID: r.Data.CustomID, Title: r.Data.Title, Components: plainComponents(r.Data.Components)}}
	case r.Data != nil:
		v = responseJSON{Type: r.Type, Data: &responseDataJSON{dataFields: (*dataFields)(r.Data), Components: plainComponents(r.Data.Components)}}
	default:
		v = responseJSON{Type: r.Type}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// sizeHint is about how many bytes r's JSON takes, so that
// appendResponse's buffer grows once at most.
func sizeHint(r *discordgo.InteractionResponse) int {
	n := 64
	if d := r.Data; d != nil {
		n += 128 + len(d.Content) + len(d.Content)/8
		for _, c := range d.Components {
			n += 48
			if row, ok := c.(discordgo.ActionsRow); ok {
				n += 160 * len(row.Components)
			}
		}
	}
	return n
}

// responseJSON is discordgo.InteractionResponse with its components as
// plainComponents makes them.
type responseJSON struct {
	Type discordgo.InteractionResponseType `json:"type,omitempty"`
	Data *responseDataJSON                 `json:"data,omitempty"`
}

// autocompleteJSON is an APPLICATION_COMMAND_AUTOCOMPLETE_RESULT as
// Discord documents it: its data holds the choices alone, always an
// array (discordgo's omitempty would drop an empty one).
type autocompleteJSON struct {
	Type discordgo.InteractionResponseType `json:"type"`
	Data choicesJSON                       `json:"data"`
}

type choicesJSON struct {
	Choices []*discordgo.ApplicationCommandOptionChoice `json:"choices"`
}

// modalJSON is a MODAL as Discord documents it: custom_id, title and
// components, without the fields of a message.
type modalJSON struct {
	Type discordgo.InteractionResponseType `json:"type"`
	Data modalDataJSON                     `json:"data"`
}

type modalDataJSON struct {
	CustomID   string `json:"custom_id"`
	Title      string `json:"title"`
	Components []any  `json:"components"`
}

type responseDataJSON struct {
	*dataFields
	Components []any `json:"components"` // shadows the embedded field
}

// dataFields is discordgo.InteractionResponseData without its methods.
type dataFields discordgo.InteractionResponseData

// rowJSON is the JSON of a discordgo.ActionsRow: the same fields in the
// same order.
type rowJSON struct {
	Components []any                   `json:"components"`
	ID         int                     `json:"id,omitempty"`
	Type       discordgo.ComponentType `json:"type"`
}

// buttonJSON is the JSON of a discordgo.Button.
type buttonJSON struct {
	buttonFields
	Type discordgo.ComponentType `json:"type"`
}

// buttonFields is discordgo.Button without its methods.
type buttonFields discordgo.Button

// plainComponents returns cs with its action rows and buttons as plain
// structs; other components are kept as they are.
func plainComponents(cs []discordgo.MessageComponent) []any {
	if cs == nil {
		return nil
	}
	out := make([]any, len(cs))
	for k, c := range cs {
		switch c := c.(type) {
		case discordgo.ActionsRow:
			out[k] = rowJSON{Components: plainComponents(c.Components), ID: c.ID, Type: c.Type()}
		case discordgo.Button:
			if c.Style == 0 { // as Button.MarshalJSON does
				c.Style = discordgo.PrimaryButton
			}
			out[k] = buttonJSON{buttonFields: buttonFields(c), Type: c.Type()}
		default:
			out[k] = c
		}
	}
	return out
}
