package discordtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// fixture decodes a payload copied from Discord's documentation.
func fixture(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// keyPaths collects the key paths of a JSON value: "member.user.id",
// "data.options[].name"; keys that are IDs (of maps keyed by snowflake or
// by integration type) become "*".
func keyPaths(v any, prefix string, out map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			if strings.Trim(k, "0123456789") == "" {
				k = "*"
			}
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out[p] = true
			keyPaths(child, p, out)
		}
	case []any:
		for _, child := range v {
			keyPaths(child, prefix+"[]", out)
		}
	}
}

// compareKeys checks that got has every key path of want, and no other
// except under the given extra prefixes (fields Discord sends today that
// the older documentation sample lacks).
func compareKeys(t *testing.T, name string, want, got map[string]any, extras ...string) {
	t.Helper()
	wantKeys, gotKeys := map[string]bool{}, map[string]bool{}
	keyPaths(want, "", wantKeys)
	keyPaths(got, "", gotKeys)
	var missing, extra []string
	for k := range wantKeys {
		if !gotKeys[k] {
			missing = append(missing, k)
		}
	}
	for k := range gotKeys {
		allowed := slices.ContainsFunc(extras, func(e string) bool { return k == e || strings.HasPrefix(k, e+".") })
		if !wantKeys[k] && !allowed {
			extra = append(extra, k)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("%s: keys missing %v, unexpected %v", name, missing, extra)
	}
}

func marshalMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// mason is the user of the documentation's samples.
func mason() Member {
	return Member{
		User:        &discordgo.User{ID: "53908232506183680", Username: "Mason", Avatar: "a_d5efa99b3eeaa7dd43acca82f5692432", Discriminator: "1337", PublicFlags: 131141},
		Permissions: 2147483647,
		Roles:       []string{"539082325061836999"},
	}
}

// Fields Discord sends in every interaction today that the samples lack.
var interactionExtras = []string{"application_id", "version", "channel", "entitlements",
	"authorizing_integration_owners", "context", "attachment_size_limit",
	"member.avatar", "member.flags", "member.user.global_name"}

func TestSlashCommandPayload(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	in := srv.SlashCommand("290926798626357999", "645027906669510667", mason(), "cardsearch",
		Str("cardname", "The Gitrog Monster")).Unchecked()
	got := marshalMap(t, in)
	want := fixture(t, "slash_command_interaction.json")
	compareKeys(t, "slash command", want, got, interactionExtras...)

	data := got["data"].(map[string]any)
	wantData := want["data"].(map[string]any)
	if !slices.Equal(toJSON(t, data["options"]), toJSON(t, wantData["options"])) {
		t.Errorf("data.options = %v; want %v", data["options"], wantData["options"])
	}
	if m := got["member"].(map[string]any); m["permissions"] != "2147483647" {
		t.Errorf("member.permissions = %v; want the string \"2147483647\"", m["permissions"])
	}

	// It decodes with discordgo like the sample does.
	var i discordgo.Interaction
	if err := json.Unmarshal(toJSON(t, got), &i); err != nil {
		t.Fatalf("discordgo cannot decode the payload: %v", err)
	}
	if opt := i.ApplicationCommandData().GetOption("cardname"); opt == nil || opt.StringValue() != "The Gitrog Monster" {
		t.Errorf("decoded option = %+v; want cardname", opt)
	}
}

func TestResolvedUserPayload(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	opponent := Member{User: &discordgo.User{ID: "809850198683418695", Username: "VoltyDemo", Avatar: "afc428077119df8aabbbd84b0dc90c74", Discriminator: "7302", Bot: true}}
	in := srv.SlashCommand("772904309264089089", "772908445358620702", mason(), "ttt",
		Sub("start", User("opponent", opponent))).Unchecked()
	got := marshalMap(t, in)["data"].(map[string]any)["resolved"].(map[string]any)
	want := fixture(t, "user_command_interaction.json")["data"].(map[string]any)["resolved"].(map[string]any)
	compareKeys(t, "data.resolved", want, got, "users.*.global_name", "members.*.flags")
}

func TestClickPayload(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	want := fixture(t, "button_component_interaction_legacy.json")
	msg := want["message"].(map[string]any)
	body, _ := json.Marshal(map[string]any{"content": msg["content"], "components": msg["components"]})
	channel := srv.NewID()
	req, _ := http.NewRequest(http.MethodPost, srv.APIURL+"/channels/"+channel+"/messages", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bot "+testToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	msgs := srv.Messages(channel)
	if resp.StatusCode != http.StatusOK || len(msgs) != 1 {
		t.Fatalf("POST message: %s, %d messages; want 200 and 1", resp.Status, len(msgs))
	}

	in := srv.Click("290926798626357999", channel, mason(), msgs[0].ID, "click_one")
	got := marshalMap(t, in)
	compareKeys(t, "click", want, got, append(interactionExtras, "app_permissions", "locale", "guild_locale",
		"message.author.global_name", "message.author.bot")...)
	if d := got["data"].(map[string]any); d["custom_id"] != "click_one" || d["component_type"] != 2.0 {
		t.Errorf("data = %v; want click_one, component_type 2", d)
	}
	if m := got["message"].(map[string]any); m["id"] != msgs[0].ID || m["content"] != msg["content"] {
		t.Errorf("message = %v; want the stored message", m)
	}
}

func toJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
