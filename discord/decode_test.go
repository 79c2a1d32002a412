package discord

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// boardClick is a click on a cell of a size×size board: the message holds
// the whole board, as Discord sends it.
func boardClick(size int) []byte {
	var rows []string
	for r := 1; r <= size; r++ {
		var cells []string
		for c := 1; c <= size; c++ {
			cells = append(cells, fmt.Sprintf(`{"type":2,"style":2,"emoji":{"name":"⬜"},"custom_id":"move/g1/4/%d/%d"}`, r, c))
		}
		rows = append(rows, `{"type":1,"components":[`+strings.Join(cells, ",")+`]}`)
	}
	return []byte(`{"id":"1500","application_id":"1100","type":3,"token":"tok","version":1,"guild_id":"1200","channel_id":"1300",` +
		`"app_permissions":"2248473465843265","locale":"de","guild_locale":"en-US","context":0,"authorizing_integration_owners":{"0":"1200"},` +
		`"member":{"user":{"id":"1400","username":"alice","global_name":"Alice","discriminator":"0","avatar":null},"roles":["1"],"permissions":"2248473465835073","nick":"al","joined_at":"2017-03-13T19:19:14.040000+00:00"},` +
		`"message":{"id":"1600","channel_id":"1300","flags":0,"content":"","author":{"id":"1100","username":"tttbot"},"components":[` + strings.Join(rows, ",") + `]},` +
		`"data":{"custom_id":"move/g1/4/2/3","component_type":2}}`)
}

// samples are the interactions DecodeInteraction is checked on: Discord's
// own examples and a click on a board.
func samples(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) < 4 {
		t.Fatalf("testdata: %v files, %v", len(files), err)
	}
	s := map[string][]byte{"board click": boardClick(3), "slash move": slashMove()}
	// The picker of a big board: a row chosen in its menu, the modal of
	// its Move… button submitted (with the board's message), and the
	// autocomplete of /ttt move.
	click := string(boardClick(2))
	s["select"] = []byte(strings.Replace(click, `"data":{"custom_id":"move/g1/4/2/3","component_type":2}`,
		`"data":{"custom_id":"row/g1/4","component_type":3,"values":["7"]}`, 1))
	s["modal submit"] = []byte(strings.Replace(strings.Replace(click, `"type":3,`, `"type":5,`, 1),
		`"data":{"custom_id":"move/g1/4/2/3","component_type":2}`,
		`"data":{"custom_id":"typed/g1/4","components":[{"type":1,"components":[{"type":4,"custom_id":"cell","value":"3 7"}]}]}`, 1))
	s["autocomplete"] = []byte(`{"id":"1500","application_id":"1100","type":4,"token":"tok","version":1,"guild_id":"1200","channel_id":"1300",` +
		`"member":{"user":{"id":"1400","username":"alice"}},"data":{"id":"5","name":"ttt","type":1,"options":[{"type":1,"name":"move",` +
		`"options":[{"type":4,"name":"row","value":3},{"type":4,"name":"col","value":"1","focused":true}]}]}}`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s[filepath.Base(f)] = b
	}
	return s
}

// sameAsDiscordgo fails unless DecodeInteraction gives what discordgo's
// own decoder gives, but for the message, of which it keeps id, channel
// and flags; where discordgo decodes body, DecodeInteraction must too.
func sameAsDiscordgo(t *testing.T, body []byte) (ours *discordgo.Interaction, theirsOK bool) {
	t.Helper()
	var theirs discordgo.Interaction
	theirErr := json.Unmarshal(body, &theirs)
	ours, err := DecodeInteraction(body)
	if theirErr != nil {
		return ours, false
	}
	if err != nil {
		t.Fatalf("discordgo decodes %s; DecodeInteraction: %v", body, err)
	}
	if m := theirs.Message; m != nil {
		theirs.Message = &discordgo.Message{ID: m.ID, ChannelID: m.ChannelID, Flags: m.Flags}
	}
	if !reflect.DeepEqual(ours, &theirs) {
		t.Fatalf("DecodeInteraction(%s)\n = %+v, message %+v\nwant %+v, message %+v", body, ours, ours.Message, &theirs, theirs.Message)
	}
	return ours, true
}

func TestDecodeInteraction(t *testing.T) {
	for name, body := range samples(t) {
		t.Run(name, func(t *testing.T) {
			i, theirsOK := sameAsDiscordgo(t, body)
			if i == nil {
				t.Fatal("DecodeInteraction failed")
			}
			switch name {
			case "board click":
				if !theirsOK || i.Message.ID != "1600" || i.Message.ChannelID != "1300" || i.MessageComponentData().CustomID != "move/g1/4/2/3" ||
					i.Member.User.ID != "1400" || i.Locale != "de" || *i.GuildLocale != "en-US" || i.AppPermissions == 0 {
					t.Errorf("board click decoded as %+v", i)
				}
			case "button_component_interaction_cv2.json":
				// discordgo v0.29.0 does not know Components V2's
				// type 10: it fails on the message; the click is still read.
				if i.Message.ID != "844397162624450620" || i.Message.Flags != 32768 || i.MessageComponentData().CustomID != "click_one" {
					t.Errorf("cv2 click decoded as %+v %+v", i, i.Message)
				}
			case "slash_command_interaction.json":
				if !theirsOK || i.ApplicationCommandData().Name != "cardsearch" || len(i.ApplicationCommandData().Options) == 0 {
					t.Errorf("slash command decoded as %+v", i)
				}
			default:
				if !theirsOK {
					t.Errorf("discordgo does not decode %s", name)
				}
			}
		})
	}
	// Spellings the message scan leaves to encoding/json, which matches
	// keys without regard to case and lets the last of two win.
	for _, body := range []string{
		`{"type":3,"Message":{"id":"1"},"data":{"custom_id":"x"}}`,
		`{"type":3,"message":{"id":"1"},"message":{"id":"2"},"data":{"custom_id":"x"}}`,
		`{"type":3,"message":{"id":"1","ID":"3","channel_id":"4"},"data":{"custom_id":"x"}}`,
		`{"type":3,"message":{"id":"1","id":"5"},"data":{"custom_id":"x"}}`,
		`{"type":3,"message":null,"data":{"custom_id":"x"}}`,
		`{"type":3,"message":{},"data":{"custom_id":"x"}}`,
		` { "type" : 3 , "message" : { "flags" : 64 , "x" : [ { } , "]" ] } , "data" : { } } `,
		// Escaped keys: encoding/json decodes the escape first.
		`{"type":3,"message":{"i\u0064":"2"},"data":{"custom_id":"x"}}`,
		`{"type":3,"message":{"id":"1","fl\u0061gs":64},"data":{"custom_id":"x"}}`,
		`{"type":3,"message":{"id":"1"},"messag\u0065":{"id":"2"},"data":{"custom_id":"x"}}`,
		// Two messages: the last replaces the first whole.
		`{"type":3,"message":{"id":"1","channel_id":"5","flags":64},"Message":{"id":"2"},"data":{"custom_id":"x"}}`,
		`{"type":3,"message":{"id":"1","channel_id":"5","flags":64},"message":{"id":"2"},"data":{"custom_id":"x"}}`,
	} {
		if _, ok := sameAsDiscordgo(t, []byte(body)); !ok {
			t.Errorf("discordgo does not decode %s", body)
		}
	}
	for _, bad := range []string{``, `null`, `[]`, `{"type":2}`, `{"type":3,"data":[]}`, `{"type":3,"message":7,"data":{}}`, `{"type":2,"data":{"options":{}}}`,
		`{"type":3,"message":{"id":"1","flags":"x"},"data":{}}`, `{"type":3,"message":{"id":2},"data":{}}`} {
		if i, err := DecodeInteraction([]byte(bad)); err == nil && bad != `null` {
			t.Errorf("DecodeInteraction(%s) = %+v; want an error, as discordgo gives", bad, i)
		}
	}
}

// FuzzDecodeInteraction: whatever discordgo decodes, DecodeInteraction
// decodes the same (but the message), and nothing makes it panic.
func FuzzDecodeInteraction(f *testing.F) {
	for _, body := range samples(f) {
		f.Add(body)
	}
	f.Add([]byte(`{"type":3,"message":{"id":"1","components":[{"type":1,"components":[{"type":99}]}]},"data":{"custom_id":"x"}}`))
	f.Add([]byte(`{"type":2,"data":null,"member":null,"message":null}`))
	f.Add([]byte(`{"type":3,"message":{"i\u0064":"2","id":"1"},"Message":{"flags":4},"data":{"custom_id":"x"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		sameAsDiscordgo(t, body)
	})
}

func BenchmarkDecodeClick(b *testing.B) {
	body := boardClick(5)
	b.Run("discordgo", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var i discordgo.Interaction
			if err := json.Unmarshal(body, &i); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DecodeInteraction", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeInteraction(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// slashMove is /ttt move as Discord sends it (as the fake Discord builds
// it): a member, the channel, entitlements, and the subcommand's options.
func slashMove() []byte {
	return []byte(`{"app_permissions":"2248473465843265","application_id":"1100","attachment_size_limit":26214400,` +
		`"authorizing_integration_owners":{"0":"1200"},"channel":{"guild_id":"1200","id":"1300","type":0},"channel_id":"1300",` +
		`"context":0,"data":{"id":"1700","name":"ttt","options":[{"name":"move","options":[{"name":"row","type":4,"value":3},` +
		`{"name":"col","type":4,"value":7}],"type":1}],"type":1},"entitlements":[],"guild_id":"1200","guild_locale":"en-US",` +
		`"id":"1500","locale":"en-US","member":{"avatar":null,"deaf":false,"flags":0,"joined_at":"2024-01-01T00:00:00.000000+00:00",` +
		`"mute":false,"nick":null,"pending":false,"permissions":"2248473465835073","premium_since":null,"roles":[],` +
		`"user":{"avatar":null,"discriminator":"0","global_name":"Alice","id":"1400","public_flags":0,"username":"alice"}},` +
		`"token":"aW50ZXJhY3Rpb246MTUwMDp0b2tlbg","type":2,"version":1}`)
}

func BenchmarkDecodeCommand(b *testing.B) {
	body := slashMove()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeInteraction(body); err != nil {
			b.Fatal(err)
		}
	}
}

// The interactions the bot gets most, as Discord sends them, decode
// without encoding/json (fastInteraction), to what it would make of
// them (FuzzDecodeInteraction); what the fast path leaves to it still
// decodes.
func TestDecodeFastPath(t *testing.T) {
	for name, fast := range map[string]bool{
		"slash move": true, "board click": true, "select": true, "autocomplete": true,
		"slash_command_interaction.json": true, "button_component_interaction_legacy.json": true,
		"button_component_interaction_cv2.json": true,
		// Left to encoding/json: a modal submit with Labels, resolved users.
		"modal submit": false, "user_command_interaction.json": false,
	} {
		body := samples(t)[name]
		if rest, _, ok := cutMessage(body); ok {
			body = rest
		}
		if _, got := fastInteraction(body); got != fast {
			t.Errorf("%s: decoded without encoding/json %v; want %v", name, got, fast)
		}
		sameAsDiscordgo(t, samples(t)[name])
	}
}

// Interactions a little off what Discord sends (a value replaced by
// another of any kind, a key in another case, bytes cut or added)
// decode to what discordgo makes of them, whether the fast path takes
// them or leaves them to encoding/json: FuzzDecodeInteraction's check,
// on a fixed sample of such bodies.
func TestDecodeMutations(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	toks := []string{"null", "0", "-1", "1.5", "1e3", `"x"`, `"\u0041"`, "true", "{}", "[]", `"`, ",", "}", "]", `"ID"`, `"Id"`,
		`"type"`, `"id"`, ` `, "\x00", "é", "\xff", `"2017-03-13T19:19:14.040000+00:00"`, `"12"`, `[null]`, `[1]`, `{"0":"1"}`,
		`"00"`, "01", "18446744073709551616", "256"}
	var base [][]byte
	for _, b := range samples(t) {
		base = append(base, b)
	}
	slices.SortFunc(base, bytes.Compare) // the same bodies every run
	for range 5000 {
		b := slices.Clone(base[r.IntN(len(base))])
		for k := r.IntN(3) + 1; k > 0; k-- {
			p := r.IntN(len(b) + 1)
			switch r.IntN(3) {
			case 0: // a token added
				b = slices.Insert(b, p, []byte(toks[r.IntN(len(toks))])...)
			case 1: // a few bytes cut
				b = slices.Delete(b, p, min(len(b), p+r.IntN(6)))
			case 2: // the next value replaced by a token
				if q := bytes.IndexByte(b[p:], ':'); q >= 0 {
					q += p
					if e := skipValue(b, skipSpace(b, q+1)); e > 0 {
						b = slices.Replace(b, q+1, e, []byte(toks[r.IntN(len(toks))])...)
					}
				}
			}
		}
		sameAsDiscordgo(t, b)
	}
}
