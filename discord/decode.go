package discord

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/bwmarrin/discordgo"
)

// DecodeInteraction decodes an interaction as discordgo does, but reads of
// the message a click came from only its id, channel and flags: the bot
// uses nothing else of it.
//
// discordgo decodes that message whole, and each level of its components
// (rows, buttons) with a json.Unmarshal of its own, which checks the
// bytes again: a click on a 5×5 board cost about 200 µs of decoding, a
// third of the bot's CPU for that click. Skipping the message costs a scan.
// It also means a message whose components discordgo cannot decode (a
// component type newer than it) does not make the click fail, and that
// the message's bytes are checked only for their nesting: Discord signed
// them.
func DecodeInteraction(body []byte) (*discordgo.Interaction, error) {
	var w struct {
		interactionFields
		// These two shadow the embedded fields of the same names.
		Data    json.RawMessage `json:"data"`
		Message *messageRef     `json:"message"`
	}
	// The message is most of a click's bytes: it is cut out and read by
	// a scan that looks only at its own keys, and the rest is decoded.
	rest, cut, ok := cutMessage(body)
	if ok {
		body = rest
	}
	if i, fast := fastInteraction(body); fast {
		if ok {
			i.Message = &discordgo.Message{ID: cut.ID, ChannelID: cut.ChannelID, Flags: cut.Flags}
		}
		return i, nil
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, err
	}
	if ok {
		w.Message = cut
	}
	i := discordgo.Interaction(w.interactionFields)
	if w.Message != nil {
		i.Message = &discordgo.Message{ID: w.Message.ID, ChannelID: w.Message.ChannelID, Flags: w.Message.Flags}
	}
	var err error
	switch i.Type {
	case discordgo.InteractionApplicationCommand, discordgo.InteractionApplicationCommandAutocomplete:
		i.Data, err = decodeData[discordgo.ApplicationCommandInteractionData](w.Data)
	case discordgo.InteractionMessageComponent:
		i.Data, err = decodeData[discordgo.MessageComponentInteractionData](w.Data)
	case discordgo.InteractionModalSubmit:
		i.Data, err = decodeModalSubmit(w.Data) // with Labels, which discordgo lacks
	}
	if err != nil {
		return nil, err
	}
	return &i, nil
}

// interactionFields is discordgo.Interaction without its methods, so that
// decoding it does not call Interaction.UnmarshalJSON.
type interactionFields discordgo.Interaction

// messageRef is what DecodeInteraction reads of an interaction's message.
type messageRef struct {
	ID        string                 `json:"id"`
	ChannelID string                 `json:"channel_id"`
	Flags     discordgo.MessageFlags `json:"flags"`
}

// UnmarshalJSON replaces m whole, as discordgo's Message.UnmarshalJSON
// does: of two messages in one body (under keys that differ only in case)
// the last one counts, not a merge of both.
func (m *messageRef) UnmarshalJSON(b []byte) error {
	type fields messageRef
	var v fields
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = messageRef(v)
	return nil
}

// decodeData decodes an interaction's data as a T, as discordgo does: data
// is required of these types, and null gives T's zero value.
func decodeData[T any](raw json.RawMessage) (T, error) {
	var v T
	err := json.Unmarshal(raw, &v)
	return v, err
}

// cutMessage finds the message of an interaction, reads its id, channel
// and flags, and returns the body with null in its place. ok is false,
// and the body must be decoded whole, unless body is an object with one
// key "message" (as spelled; encoding/json would also take "Message" or
// "messag\u0065"), whose value is an object with at most one of each of
// the keys it reads; a key with an escape, at either level, also gives
// way to encoding/json, which decodes escapes before it compares keys.
func cutMessage(body []byte) (rest []byte, m *messageRef, ok bool) {
	if !bytes.Contains(body, []byte(`"message"`)) {
		return nil, nil, false // a command: no message to cut, and no scan
	}
	start, end := -1, -1
	if !eachKey(body, func(key []byte, vs, ve int) bool {
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		if !bytes.EqualFold(key, []byte("message")) {
			return true
		}
		if start >= 0 || string(key) != "message" {
			return false
		}
		start, end = vs, ve
		return true
	}) || start < 0 || body[start] != '{' {
		return nil, nil, false
	}
	m = new(messageRef)
	var seen [3]bool
	msg := body[start:end]
	if !eachKey(msg, func(key []byte, vs, ve int) bool {
		var field any
		var k int
		switch {
		case bytes.IndexByte(key, '\\') >= 0:
			return false
		case string(key) == "id":
			field, k = &m.ID, 0
		case string(key) == "channel_id":
			field, k = &m.ChannelID, 1
		case string(key) == "flags":
			field, k = &m.Flags, 2
		case bytes.EqualFold(key, []byte("id")), bytes.EqualFold(key, []byte("channel_id")), bytes.EqualFold(key, []byte("flags")):
			return false
		default:
			return true
		}
		if seen[k] {
			return false
		}
		seen[k] = true
		v := msg[vs:ve]
		switch f := field.(type) {
		case *string:
			if s, ok := jsonString(v); ok {
				*f = s
				return true
			}
		case *discordgo.MessageFlags:
			if n, ok := jsonUint(v, math.MaxInt); ok {
				*f = discordgo.MessageFlags(n)
				return true
			}
		}
		return json.Unmarshal(v, field) == nil
	}) {
		return nil, nil, false
	}
	rest = make([]byte, 0, len(body)-(end-start)+len("null"))
	rest = append(append(append(rest, body[:start]...), "null"...), body[end:]...)
	return rest, m, true
}

// eachKey calls f with each key of the JSON object b (as written, escapes
// and all) and where its value starts and ends, while f returns true. It
// checks only the nesting of brackets and quotes; it returns false if b is
// not an object so made, or f returned false.
func eachKey(b []byte, f func(key []byte, start, end int) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		ke := skipString(b, i)
		if ke < 0 {
			return false
		}
		key := b[i+1 : ke-1]
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		vs := skipSpace(b, i+1)
		ve := skipValue(b, vs)
		if ve < 0 || !f(key, vs, ve) {
			return false
		}
		i = skipSpace(b, ve)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// skipValue returns where the JSON value that starts at b[i] ends, or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		var stack []byte // the closing brackets awaited
		for i < len(b) {
			switch c := b[i]; c {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{':
				stack = append(stack, '}')
			case '[':
				stack = append(stack, ']')
			case '}', ']':
				if len(stack) == 0 || stack[len(stack)-1] != c {
					return -1
				}
				if stack = stack[:len(stack)-1]; len(stack) == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	case ',', '}', ']', ':':
		return -1
	}
	start := i // a number, true, false or null
	for i < len(b) && !bytes.ContainsRune([]byte(",}] \t\r\n"), rune(b[i])) {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// skipString returns where the JSON string that starts at b[i] ends, or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
