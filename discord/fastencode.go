package discord

import (
	"strconv"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// appendResponse appends r, an answer with a message (a board, a
// refusal), as encodeResponse would encode it, without reflection: its
// content, its components (action rows of buttons and string select
// menus, as the bot draws boards and pickers), its allowed mentions and
// flags. It reports false, having appended nothing of worth, for an
// answer with anything else (embeds, choices, a modal, attachments,
// another kind of component…), which encodeResponse encodes with
// encoding/json.
func appendResponse(b []byte, r *discordgo.InteractionResponse, escapeHTML bool) ([]byte, bool) {
	if !fastEncodable(r) {
		return b, false
	}
	d := r.Data
	b = append(b, '{')
	if r.Type != 0 {
		b = strconv.AppendUint(append(b, `"type":`...), uint64(r.Type), 10)
		b = append(b, ',')
	}
	b = appendBool(append(b, `"data":{"tts":`...), d.TTS)
	b = appendString(append(b, `,"content":`...), d.Content, escapeHTML)
	b = append(b, `,"components":`...)
	var ok bool
	if b, ok = appendComponents(b, d.Components, escapeHTML, 0); !ok {
		return b, false
	}
	b = append(b, `,"embeds":null`...)
	if am := d.AllowedMentions; am != nil {
		b = append(b, `,"allowed_mentions":{"parse":`...)
		if am.Parse == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for k, p := range am.Parse {
				if k > 0 {
					b = append(b, ',')
				}
				b = appendString(b, string(p), escapeHTML)
			}
			b = append(b, ']')
		}
		if len(am.Roles) > 0 {
			b = appendStrings(append(b, `,"roles":`...), am.Roles, escapeHTML)
		}
		if len(am.Users) > 0 {
			b = appendStrings(append(b, `,"users":`...), am.Users, escapeHTML)
		}
		b = appendBool(append(b, `,"replied_user":`...), am.RepliedUser)
		b = append(b, '}')
	}
	if d.Flags != 0 {
		b = strconv.AppendInt(append(b, `,"flags":`...), int64(d.Flags), 10)
	}
	return append(b, "}}"...), true
}

// fastEncodable says whether appendResponse may encode r as far as its
// kind and data's fields go (a component of another kind still sends it
// to encoding/json).
func fastEncodable(r *discordgo.InteractionResponse) bool {
	d := r.Data
	return d != nil && r.Type != discordgo.InteractionApplicationCommandAutocompleteResult && r.Type != discordgo.InteractionResponseModal &&
		d.Embeds == nil && d.Attachments == nil && d.Poll == nil && d.Choices == nil && d.CustomID == "" && d.Title == ""
}

// appendComponents appends cs, action rows (depth 0) of buttons and
// string select menus (depth 1), as encodeResponse encodes them; false
// for any other component.
func appendComponents(b []byte, cs []discordgo.MessageComponent, escapeHTML bool, depth int) ([]byte, bool) {
	if cs == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for k, c := range cs {
		if k > 0 {
			b = append(b, ',')
		}
		var ok bool
		switch c := c.(type) {
		case discordgo.ActionsRow:
			if depth > 0 {
				return b, false
			}
			b = append(b, `{"components":`...)
			if b, ok = appendComponents(b, c.Components, escapeHTML, depth+1); !ok {
				return b, false
			}
			if c.ID != 0 {
				b = strconv.AppendInt(append(b, `,"id":`...), int64(c.ID), 10)
			}
			b = strconv.AppendUint(append(b, `,"type":`...), uint64(c.Type()), 10)
			b = append(b, '}')
		case discordgo.Button:
			if b, ok = appendButton(b, c, escapeHTML); !ok {
				return b, false
			}
		case discordgo.SelectMenu:
			if b, ok = appendSelectMenu(b, c, escapeHTML); !ok {
				return b, false
			}
		default:
			return b, false
		}
	}
	return append(b, ']'), true
}

func appendButton(b []byte, c discordgo.Button, escapeHTML bool) ([]byte, bool) {
	if c.Style == 0 { // as Button.MarshalJSON does
		c.Style = discordgo.PrimaryButton
	}
	b = appendString(append(b, `{"label":`...), c.Label, escapeHTML)
	b = strconv.AppendUint(append(b, `,"style":`...), uint64(c.Style), 10)
	b = appendBool(append(b, `,"disabled":`...), c.Disabled)
	if c.Emoji != nil {
		b = appendEmoji(append(b, `,"emoji":`...), c.Emoji, escapeHTML)
	}
	if c.URL != "" {
		b = appendString(append(b, `,"url":`...), c.URL, escapeHTML)
	}
	if c.CustomID != "" {
		b = appendString(append(b, `,"custom_id":`...), c.CustomID, escapeHTML)
	}
	if c.SKUID != "" {
		b = appendString(append(b, `,"sku_id":`...), c.SKUID, escapeHTML)
	}
	if c.ID != 0 {
		b = strconv.AppendInt(append(b, `,"id":`...), int64(c.ID), 10)
	}
	b = strconv.AppendUint(append(b, `,"type":`...), uint64(c.Type()), 10)
	return append(b, '}'), true
}

func appendSelectMenu(b []byte, c discordgo.SelectMenu, escapeHTML bool) ([]byte, bool) {
	if len(c.DefaultValues) > 0 || len(c.ChannelTypes) > 0 {
		return b, false
	}
	b = append(b, '{')
	if c.CustomID != "" {
		b = appendString(append(b, `"custom_id":`...), c.CustomID, escapeHTML)
		b = append(b, ',')
	}
	b = appendString(append(b, `"placeholder":`...), c.Placeholder, escapeHTML)
	if c.MinValues != nil {
		b = strconv.AppendInt(append(b, `,"min_values":`...), int64(*c.MinValues), 10)
	}
	if c.MaxValues != 0 {
		b = strconv.AppendInt(append(b, `,"max_values":`...), int64(c.MaxValues), 10)
	}
	if len(c.Options) > 0 {
		b = append(b, `,"options":[`...)
		for k, o := range c.Options {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			if o.Label != "" {
				b = appendString(append(b, `"label":`...), o.Label, escapeHTML)
				b = append(b, ',')
			}
			b = appendString(append(b, `"value":`...), o.Value, escapeHTML)
			b = appendString(append(b, `,"description":`...), o.Description, escapeHTML)
			if o.Emoji != nil {
				b = appendEmoji(append(b, `,"emoji":`...), o.Emoji, escapeHTML)
			}
			b = appendBool(append(b, `,"default":`...), o.Default)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = appendBool(append(b, `,"disabled":`...), c.Disabled)
	if c.ID != 0 {
		b = strconv.AppendInt(append(b, `,"id":`...), int64(c.ID), 10)
	}
	b = strconv.AppendUint(append(b, `,"type":`...), uint64(c.Type()), 10)
	return append(b, '}'), true
}

func appendEmoji(b []byte, e *discordgo.ComponentEmoji, escapeHTML bool) []byte {
	b = append(b, '{')
	sep := false
	if e.Name != "" {
		b = appendString(append(b, `"name":`...), e.Name, escapeHTML)
		sep = true
	}
	if e.ID != "" {
		if sep {
			b = append(b, ',')
		}
		b = appendString(append(b, `"id":`...), e.ID, escapeHTML)
		sep = true
	}
	if e.Animated {
		if sep {
			b = append(b, ',')
		}
		b = append(b, `"animated":true`...)
	}
	return append(b, '}')
}

func appendStrings(b []byte, ss []string, escapeHTML bool) []byte {
	b = append(b, '[')
	for k, s := range ss {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s, escapeHTML)
	}
	return append(b, ']')
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string as encoding/json writes it:
// quotes, backslashes and control characters escaped, invalid UTF-8 as
// U+FFFD, U+2028 and U+2029 escaped, and with escapeHTML <, > and & too.
func appendString(b []byte, s string, escapeHTML bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!escapeHTML || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
