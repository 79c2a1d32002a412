package bot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// payloadIDs numbers the payloads decode makes, from 2^60: snowflakes.
var payloadIDs = func() *atomic.Uint64 {
	var n atomic.Uint64
	n.Store(1 << 60)
	return &n
}()

// fixture reads one of Discord's documented payloads from testdata/payloads.
func fixture(t testing.TB, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "payloads", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// decode turns a payload into what discordgo hands the bot.
// Each gets an id and a token of its own, as from Discord: the bot acts on
// an id once, and tells by its token a change an interaction already made.
func decode(t testing.TB, m map[string]any) *discordgo.InteractionCreate {
	t.Helper()
	m["id"] = strconv.FormatUint(payloadIDs.Add(1), 10)
	m["token"] = "token-" + m["id"].(string)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	in := new(discordgo.Interaction)
	if err := json.Unmarshal(b, in); err != nil {
		t.Fatalf("discordgo cannot decode the payload: %v", err)
	}
	return &discordgo.InteractionCreate{Interaction: in}
}

// slashPayload is Discord's documented slash-command interaction with its
// command replaced by /ttt <sub> and the given options. resolved, if not nil,
// becomes data.resolved.
func slashPayload(t testing.TB, sub string, opts []map[string]any, resolved map[string]any) *discordgo.InteractionCreate {
	t.Helper()
	return decode(t, slashMap(t, sub, opts, resolved))
}

// slashMap is slashPayload before decoding.
func slashMap(t testing.TB, sub string, opts []map[string]any, resolved map[string]any) map[string]any {
	t.Helper()
	m := fixture(t, "slash_command_interaction.json")
	data := m["data"].(map[string]any)
	data["name"] = "ttt"
	data["options"] = []any{map[string]any{"type": 1, "name": sub, "options": opts}}
	if resolved != nil {
		data["resolved"] = resolved
	}
	return m
}

// localized sets the locales of payload m: the user's, and the guild's.
// A guild of "" makes m a DM, as Discord sends one: no guild_id, no
// guild_locale, and the user at the top level instead of a member.
func localized(m map[string]any, user, guild string) map[string]any {
	m["locale"] = user
	if guild != "" {
		m["guild_locale"] = guild
		return m
	}
	m["user"] = m["member"].(map[string]any)["user"]
	delete(m, "member")
	delete(m, "guild_id")
	delete(m, "guild_locale")
	return m
}

// buttonPayload is Discord's documented button interaction with customID.
func buttonPayload(t testing.TB, customID string) *discordgo.InteractionCreate {
	t.Helper()
	m := fixture(t, "button_component_interaction_legacy.json")
	m["data"].(map[string]any)["custom_id"] = customID
	return decode(t, m)
}

func intOpt(name string, v any) map[string]any {
	return map[string]any{"type": 4, "name": name, "value": v}
}
