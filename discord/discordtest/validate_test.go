package discordtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// createErrors runs the checks of a message creation on a JSON body and
// returns the Discord error code and the paths of the field errors.
func createErrors(t *testing.T, body string) (int, []string) {
	t.Helper()
	f, errs := parseFields("", json.RawMessage(body))
	errs = append(errs, validateFields("", f, f.flags)...)
	if len(errs) == 0 {
		m := (&Server{}).newMessageForTest(f)
		code, _, more := checkResult("", m)
		errs = more
		if code != 0 && len(errs) == 0 {
			return code, nil
		}
	}
	if len(errs) == 0 {
		return 0, nil
	}
	var paths []string
	for _, e := range errs {
		paths = append(paths, e.path)
	}
	return codeInvalidFormBody, paths
}

// newMessageForTest builds a message without IDs, for checks only.
func (s *Server) newMessageForTest(f fields) *message {
	m := &message{content: f.content, embeds: emptyArray, components: emptyArray, flags: f.flags, attachments: f.attachments, hasPoll: f.hasPoll}
	if f.hasEmbeds {
		m.embeds = f.embeds
	}
	if f.hasComponents {
		m.components = f.components
	}
	return m
}

func button(id string) string {
	return fmt.Sprintf(`{"type":2,"style":1,"label":"x","custom_id":%q}`, id)
}

func rows(n, perRow int) string {
	var rs []string
	for r := range n {
		var bs []string
		for c := range perRow {
			bs = append(bs, button(fmt.Sprintf("b%d_%d", r, c)))
		}
		rs = append(rs, `{"type":1,"components":[`+strings.Join(bs, ",")+`]}`)
	}
	return "[" + strings.Join(rs, ",") + "]"
}

func embed(desc int) string {
	return fmt.Sprintf(`{"description":%q}`, strings.Repeat("a", desc))
}

func TestMessageLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		body      string
		wantCode  int
		wantPaths []string
	}{
		{"2000 code points", fmt.Sprintf(`{"content":%q}`, strings.Repeat("⭕", 2000)), 0, nil},
		{"2001 code points", fmt.Sprintf(`{"content":%q}`, strings.Repeat("⭕", 2001)), codeInvalidFormBody, []string{"content"}},
		{"keycaps count 3 each", fmt.Sprintf(`{"content":%q}`, strings.Repeat("1️⃣", 667)), codeInvalidFormBody, []string{"content"}},
		{"5 rows of 5", `{"components":` + rows(5, 5) + `}`, 0, nil},
		{"6 rows", `{"components":` + rows(6, 1) + `}`, codeInvalidFormBody, []string{"components"}},
		{"6 buttons in a row", `{"components":` + rows(1, 6) + `}`, codeInvalidFormBody, []string{"components.0.components"}},
		{"empty row", `{"components":[{"type":1,"components":[]}]}`, codeInvalidFormBody, []string{"components.0.components"}},
		{"button outside a row", `{"components":[` + button("a") + `]}`, codeInvalidFormBody, []string{"components.0.type"}},
		{"custom_id of 100", `{"components":[{"type":1,"components":[` + button(strings.Repeat("c", 100)) + `]}]}`, 0, nil},
		{"custom_id of 101", `{"components":[{"type":1,"components":[` + button(strings.Repeat("c", 101)) + `]}]}`, codeInvalidFormBody, []string{"components.0.components.0.custom_id"}},
		{"duplicate custom_id", `{"components":[{"type":1,"components":[` + button("a") + `]},{"type":1,"components":[` + button("a") + `]}]}`, codeInvalidFormBody, []string{"components.1.components.0.custom_id"}},
		{"no custom_id", `{"components":[{"type":1,"components":[{"type":2,"style":1,"label":"x"}]}]}`, codeInvalidFormBody, []string{"components.0.components.0.custom_id"}},
		{"link button", `{"components":[{"type":1,"components":[{"type":2,"style":5,"label":"docs","url":"https://discord.com"}]}]}`, 0, nil},
		{"link button without url", `{"components":[{"type":1,"components":[{"type":2,"style":5,"label":"docs"}]}]}`, codeInvalidFormBody, []string{"components.0.components.0.url"}},
		{"label of 81", fmt.Sprintf(`{"components":[{"type":1,"components":[{"type":2,"style":1,"custom_id":"a","label":%q}]}]}`, strings.Repeat("l", 81)), codeInvalidFormBody, []string{"components.0.components.0.label"}},
		{"emoji only", `{"components":[{"type":1,"components":[{"type":2,"style":2,"custom_id":"a","label":"","emoji":{"name":"❌"}}]}]}`, 0, nil},
		{"empty emoji", `{"content":"x","components":[{"type":1,"components":[{"type":2,"style":2,"custom_id":"a","label":"x","emoji":{}}]}]}`, codeInvalidFormBody, []string{"components.0.components.0.emoji.name"}},
		{"no label nor emoji", `{"components":[{"type":1,"components":[{"type":2,"style":2,"custom_id":"a","label":""}]}]}`, codeInvalidFormBody, []string{"components.0.components.0.label"}},
		{"description of 4096", `{"embeds":[` + embed(4096) + `]}`, 0, nil},
		{"description of 4097", `{"embeds":[` + embed(4097) + `]}`, codeInvalidFormBody, []string{"embeds.0.description"}},
		{"embeds over 6000 in all", `{"embeds":[` + embed(4000) + `,` + embed(2001) + `]}`, codeInvalidFormBody, []string{"embeds"}},
		{"11 embeds", `{"embeds":[` + strings.Repeat(embed(1)+",", 10) + embed(1) + `]}`, codeInvalidFormBody, []string{"embeds"}},
		{"empty", `{"content":"","components":null,"embeds":null,"tts":false}`, codeEmptyMessage, nil},
		{"blank", `{"content":"  \n"}`, codeEmptyMessage, nil},
		{"components v2 with content", `{"flags":32768,"content":"x","components":[{"type":10,"content":"hi"}]}`, codeInvalidFormBody, []string{"content"}},
		{"components v2", `{"flags":32768,"components":[{"type":10,"content":"hi"},{"type":1,"components":[` + button("a") + `]}]}`, 0, nil},
		{"not JSON arrays", `{"components":{}}`, codeInvalidFormBody, []string{"components"}},
	}
	for _, tt := range tests {
		code, paths := createErrors(t, tt.body)
		if code != tt.wantCode || !slices.Equal(paths, tt.wantPaths) {
			t.Errorf("%s: code %d, errors at %v; want %d at %v", tt.name, code, paths, tt.wantCode, tt.wantPaths)
		}
	}
}

func TestNestErrors(t *testing.T) {
	t.Parallel()
	got, _ := json.Marshal(nestErrors([]fieldError{
		tooLong("data.content", 2000),
		required("data.components.0.components.1.custom_id"),
	}))
	want := `{"data":{"components":{"0":{"components":{"1":{"custom_id":{"_errors":[{"code":"BASE_TYPE_REQUIRED","message":"This field is required"}]}}}}},"content":{"_errors":[{"code":"BASE_TYPE_MAX_LENGTH","message":"Must be 2000 or fewer in length."}]}}}`
	if string(got) != want {
		t.Errorf("nestErrors() = %s; want %s", got, want)
	}
}

func TestPatchSemantics(t *testing.T) {
	t.Parallel()
	orig := &message{content: "board", embeds: json.RawMessage(`[{"title":"t"}]`), components: json.RawMessage(rows(1, 1)), flags: flagLoading}
	tests := []struct {
		body                        string
		content, embeds, components string
	}{
		{`{}`, "board", `[{"title":"t"}]`, rows(1, 1)},
		{`{"content":"new"}`, "new", `[{"title":"t"}]`, rows(1, 1)},
		{`{"content":null,"components":null}`, "", `[{"title":"t"}]`, `[]`},
		{`{"embeds":[],"components":[]}`, "board", `[]`, `[]`},
	}
	for _, tt := range tests {
		f, errs := parseFields("", json.RawMessage(tt.body))
		if len(errs) > 0 {
			t.Fatalf("parseFields(%s) = %v", tt.body, errs)
		}
		n := orig.patched(f)
		if n.content != tt.content || string(n.embeds) != tt.embeds || string(n.components) != tt.components || n.flags&flagLoading != 0 {
			t.Errorf("patch %s = %q %s %s flags %d; want %q %s %s, not loading", tt.body, n.content, n.embeds, n.components, n.flags, tt.content, tt.embeds, tt.components)
		}
	}
}

func TestValidateCommands(t *testing.T) {
	t.Parallel()
	sub := func(name string, opts ...*discordgo.ApplicationCommandOption) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionSubCommand, Name: name, Description: "d", Options: opts}
	}
	intOpt := func(name string, required bool) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger, Name: name, Description: "d", Required: required}
	}
	cmd := func(name, desc string, opts ...*discordgo.ApplicationCommandOption) *discordgo.ApplicationCommand {
		return &discordgo.ApplicationCommand{Name: name, Description: desc, Options: opts}
	}
	tests := []struct {
		name      string
		cmds      []*discordgo.ApplicationCommand
		wantPaths []string
	}{
		{"ttt", tttCommands(), nil},
		{"upper case", []*discordgo.ApplicationCommand{cmd("TTT", "d")}, []string{"0.name"}},
		{"space", []*discordgo.ApplicationCommand{cmd("tic tac", "d")}, []string{"0.name"}},
		{"no description", []*discordgo.ApplicationCommand{cmd("ttt", "")}, []string{"0.description"}},
		{"duplicate", []*discordgo.ApplicationCommand{cmd("ttt", "d"), cmd("ttt", "d")}, []string{"1.name"}},
		{"required after optional", []*discordgo.ApplicationCommand{cmd("ttt", "d", sub("move", intOpt("row", false), intOpt("col", true)))}, []string{"0.options.0.options.1.required"}},
		{"mixed", []*discordgo.ApplicationCommand{cmd("ttt", "d", sub("move"), intOpt("row", false))}, []string{"0.options"}},
		{"nested subcommand", []*discordgo.ApplicationCommand{cmd("ttt", "d", sub("a", sub("b")))}, []string{"0.options.0.options.0.type"}},
	}
	for _, tt := range tests {
		var paths []string
		for _, e := range validateCommands(tt.cmds) {
			paths = append(paths, e.path)
		}
		if !slices.Equal(paths, tt.wantPaths) {
			t.Errorf("%s: errors at %v; want %v", tt.name, paths, tt.wantPaths)
		}
	}
}
