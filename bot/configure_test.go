package bot

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/store"
)

// The guild, channel and role of the slash-command fixture.
const (
	fixtureGuild   = "290926798626357999"
	fixtureChannel = "645027906669510667"
	fixtureRole    = "539082325061836999"
)

func strOpt(name, v string) map[string]any {
	return map[string]any{"type": 3, "name": name, "value": v}
}
func boolOpt(name string, v bool) map[string]any {
	return map[string]any{"type": 5, "name": name, "value": v}
}
func roleOpt(name, id string) map[string]any {
	return map[string]any{"type": 8, "name": name, "value": id}
}

// configPayload is /ttt config with opts by a member with perms, in the
// fixture's guild.
func configPayload(t *testing.T, perms int64, opts ...map[string]any) *discordgo.InteractionCreate {
	t.Helper()
	ic := slashPayload(t, "config", opts, nil)
	ic.Member.Permissions = perms
	return ic
}

// clockedBotOn is a bot on st whose clock is clk, as each of several
// processes sharing one store (replicas, restarts) would be.
func clockedBotOn(t *testing.T, st wholeStore, clk *clock) (*Bot, *recorder) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Now = clk.now
	rec := new(recorder)
	return newBotOnStore(t, st, rec, cfg), rec
}

func storedSettings(t *testing.T, st wholeStore) store.Settings {
	t.Helper()
	s, err := st.Settings(context.Background(), fixtureGuild)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Only members with Manage Server or Administrator may use /ttt config,
// and only in a server; the others are told why, ephemerally, and nothing
// is stored.
func TestConfigRefusals(t *testing.T) {
	tests := []struct {
		name string
		ic   func(t *testing.T) *discordgo.InteractionCreate
		want string
	}{
		{"member", func(t *testing.T) *discordgo.InteractionCreate {
			return configPayload(t, discordgo.PermissionManageMessages|discordgo.PermissionSendMessages, intOpt("turn_timeout", 2))
		}, "Only members with the Manage Server permission"},
		{"member without options", func(t *testing.T) *discordgo.InteractionCreate {
			return configPayload(t, discordgo.PermissionSendMessages)
		}, "Only members with the Manage Server permission"},
		{"DM", func(t *testing.T) *discordgo.InteractionCreate {
			return decode(t, localized(slashMap(t, "config", []map[string]any{intOpt("turn_timeout", 2)}, nil), "en-US", ""))
		}, "works in a server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := new(store.Memory)
			b, rec := clockedBotOn(t, st, &clock{t: time.Now()})
			b.serveIC(context.Background(), tt.ic(t))
			wantEphemeral(t, rec.last(t), tt.want)
			if s := storedSettings(t, st); !reflect.DeepEqual(s, store.Settings{GuildID: fixtureGuild}) {
				t.Errorf("stored settings = %+v; want none", s)
			}
		})
	}
	// Administrator alone is enough; Manage Server alone too.
	for _, perms := range []int64{discordgo.PermissionAdministrator, discordgo.PermissionManageServer} {
		b, rec := clockedBotOn(t, new(store.Memory), &clock{t: time.Now()})
		b.serveIC(context.Background(), configPayload(t, perms))
		wantEphemeral(t, rec.last(t), "Settings of /ttt in this server")
	}
}

// Without options, /ttt config shows every setting, each with its value
// and whether it is the default, ephemerally; nothing is stored.
func TestConfigShowsDefaults(t *testing.T) {
	st := new(store.Memory)
	b, rec := clockedBotOn(t, st, &clock{t: time.Now()})
	b.serveIC(context.Background(), configPayload(t, discordgo.PermissionManageServer))
	r := rec.last(t)
	wantEphemeral(t, r, "⚙️ **Settings of /ttt in this server**")
	for _, want := range []string{
		"• Time per move (`turn_timeout`): **5 minutes** (default)",
		"• Challenges expire after (`challenge_timeout`): **1 minute** (default)",
		"• Default board size (`size`): **3×3** (default)",
		"• Default marks in a row to win (`win`): **as many as the board size** (default)",
		"• Channels where games can start (`channels`): **all channels** (default)",
		"• Role that can stop games, besides Manage Messages (`stop_role`): **none** (default)",
		"• Games against the computer on `/ttt leaderboard` (`computer_ranked`): **no** (default)",
		"• 9×9 and 10×10 boards as a picture, one upload per move (`pictures`): **no** (default)",
		"• Remind the player to move when half their time has passed (`reminders`): **yes** (default)",
		"`/ttt config reset:true`",
	} {
		if !strings.Contains(r.Data.Content, want) {
			t.Errorf("summary %q; want it to contain %q", r.Data.Content, want)
		}
	}
	if strings.Contains(r.Data.Content, "Last changed") || strings.Contains(r.Data.Content, "• ✏️ ") {
		t.Errorf("summary of untouched settings %q says something changed", r.Data.Content)
	}
	if s := storedSettings(t, st); !reflect.DeepEqual(s, store.Settings{GuildID: fixtureGuild}) {
		t.Errorf("showing stored %+v; want nothing stored", s)
	}
}

// Each option changes its setting: the summary marks it changed with its
// old value, and the store keeps it, with who changed it and when.
func TestConfigOptions(t *testing.T) {
	tests := []struct {
		name string
		opts []map[string]any
		line string // the summary's line of the setting
		want store.Settings
	}{
		{"turn_timeout", []map[string]any{intOpt("turn_timeout", 2)},
			"• ✏️ Time per move (`turn_timeout`): **2 seconds** (was 5 minutes)",
			store.Settings{TurnTimeout: 2 * time.Second}},
		{"turn_timeout of a token's life", []map[string]any{intOpt("turn_timeout", 840)},
			"• ✏️ Time per move (`turn_timeout`): **14 minutes** (was 5 minutes)",
			store.Settings{TurnTimeout: 14 * time.Minute}},
		{"turn_timeout at most", []map[string]any{intOpt("turn_timeout", 86400)},
			"• ✏️ Time per move (`turn_timeout`): **24 hours** (was 5 minutes)",
			store.Settings{TurnTimeout: 24 * time.Hour}},
		{"turn_timeout of a correspondence game", []map[string]any{intOpt("turn_timeout", 72000)},
			"• ✏️ Time per move (`turn_timeout`): **20 hours** (was 5 minutes)",
			store.Settings{TurnTimeout: 20 * time.Hour}},
		{"challenge_timeout", []map[string]any{intOpt("challenge_timeout", 90)},
			"• ✏️ Challenges expire after (`challenge_timeout`): **90 seconds** (was 1 minute)",
			store.Settings{ChallengeTimeout: 90 * time.Second}},
		{"size", []map[string]any{intOpt("size", 5)},
			"• ✏️ Default board size (`size`): **5×5** (was 3×3)",
			store.Settings{Size: 5}},
		{"size and win", []map[string]any{intOpt("size", 7), intOpt("win", 4)},
			"• ✏️ Default marks in a row to win (`win`): **4** (was as many as the board size)",
			store.Settings{Size: 7, Win: 4}},
		{"win on the default size", []map[string]any{intOpt("win", 3)},
			"• ✏️ Default marks in a row to win (`win`): **3** (was as many as the board size)",
			store.Settings{Win: 3}},
		{"channels", []map[string]any{strOpt("channels", "<#222> <#111>,<#222>")},
			"• ✏️ Channels where games can start (`channels`): **<#111>, <#222>** (was all channels)",
			store.Settings{Channels: []string{"111", "222"}}},
		{"stop_role", []map[string]any{roleOpt("stop_role", fixtureRole)},
			"• ✏️ Role that can stop games, besides Manage Messages (`stop_role`): **<@&" + fixtureRole + ">** (was none)",
			store.Settings{StopRole: fixtureRole}},
		{"computer_ranked", []map[string]any{boolOpt("computer_ranked", true)},
			"• ✏️ Games against the computer on `/ttt leaderboard` (`computer_ranked`): **yes** (was no)",
			store.Settings{ComputerRanked: true}},
		{"pictures", []map[string]any{boolOpt("pictures", true)},
			"• ✏️ 9×9 and 10×10 boards as a picture, one upload per move (`pictures`): **yes** (was no)",
			store.Settings{Pictures: true}},
		{"reminders off", []map[string]any{boolOpt("reminders", false)},
			"• ✏️ Remind the player to move when half their time has passed (`reminders`): **no** (was yes)",
			store.Settings{NoReminders: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := new(store.Memory)
			clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
			b, rec := clockedBotOn(t, st, clk)
			b.serveIC(context.Background(), configPayload(t, discordgo.PermissionManageServer, tt.opts...))
			r := rec.last(t)
			wantEphemeral(t, r, "✅ **Settings saved.**")
			for _, want := range []string{tt.line, "Last changed by " + mention(mason) + " <t:1772366400:R>."} {
				if !strings.Contains(r.Data.Content, want) {
					t.Errorf("summary %q; want it to contain %q", r.Data.Content, want)
				}
			}
			if n := strings.Count(r.Data.Content, "• ✏️ "); n != len(tt.opts) {
				t.Errorf("summary marks %d settings changed; want %d:\n%s", n, len(tt.opts), r.Data.Content)
			}
			want := tt.want
			want.GuildID, want.UpdatedBy, want.UpdatedAt = fixtureGuild, mason, clk.now()
			if got := storedSettings(t, st); !reflect.DeepEqual(got, want) {
				t.Errorf("stored %+v; want %+v", got, want)
			}
		})
	}
}

// Setting a value to the bot's default stores the default (zero), shown
// as the default; the same values again change nothing and store nothing.
func TestConfigBackToDefaultAndUnchanged(t *testing.T) {
	st := new(store.Memory)
	clk := &clock{t: time.Now()}
	b, rec := clockedBotOn(t, st, clk)
	admin := int64(discordgo.PermissionManageServer)
	b.serveIC(context.Background(), configPayload(t, admin, intOpt("turn_timeout", 60), strOpt("channels", "<#111>"), boolOpt("reminders", false)))
	saved := storedSettings(t, st)

	clk.advance(time.Minute)
	b.serveIC(context.Background(), configPayload(t, admin, intOpt("turn_timeout", 60), strOpt("channels", "<#111>"), boolOpt("reminders", false)))
	wantEphemeral(t, rec.last(t), "Nothing changed")
	if got := storedSettings(t, st); !reflect.DeepEqual(got, saved) {
		t.Errorf("after the same values again stored %+v; want %+v", got, saved)
	}

	b.serveIC(context.Background(), configPayload(t, admin, intOpt("turn_timeout", 300), strOpt("channels", "ALL"), boolOpt("reminders", true)))
	r := rec.last(t)
	for _, want := range []string{
		"• ✏️ Time per move (`turn_timeout`): **5 minutes** (default; was 1 minute)",
		"• ✏️ Channels where games can start (`channels`): **all channels** (default; was <#111>)",
		"• ✏️ Remind the player to move when half their time has passed (`reminders`): **yes** (default; was no)",
	} {
		if !strings.Contains(r.Data.Content, want) {
			t.Errorf("summary %q; want it to contain %q", r.Data.Content, want)
		}
	}
	if got := storedSettings(t, st); got.TurnTimeout != 0 || got.Channels != nil || got.NoReminders {
		t.Errorf("stored %+v; want the defaults, zero", got)
	}
}

// Bad input is refused in plain words, and the settings stay as they were.
func TestConfigBadInput(t *testing.T) {
	tests := []struct {
		name string
		opts []map[string]any
		want string
	}{
		{"win over size", []map[string]any{intOpt("size", 4), intOpt("win", 5)}, "5 in a row doesn't fit on a 4×4 board"},
		{"win over the stored size", []map[string]any{intOpt("win", 6)}, "6 in a row doesn't fit on a 5×5 board"},
		{"size under the stored win", []map[string]any{intOpt("size", 3)}, "4 in a row doesn't fit on a 3×3 board"},
		{"turn_timeout too long", []map[string]any{intOpt("turn_timeout", 86401)}, "`turn_timeout` must be from 1 to 86400; you gave 86401"},
		{"turn_timeout zero", []map[string]any{intOpt("turn_timeout", 0)}, "`turn_timeout` must be from 1 to 86400"},
		{"challenge_timeout too short", []map[string]any{intOpt("challenge_timeout", 5)}, "`challenge_timeout` must be from 10 to 840"},
		{"challenge_timeout too long", []map[string]any{intOpt("challenge_timeout", 841)}, "`challenge_timeout` must be from 10 to 840; you gave 841"},
		{"size too big", []map[string]any{intOpt("size", 16)}, "`size` must be from 3 to 15; you gave 16"},
		{"win too small", []map[string]any{intOpt("win", 2)}, "`win` must be from 3 to 15"},
		{"fractional", []map[string]any{intOpt("turn_timeout", 2.5)}, "`turn_timeout` must be a whole number"},
		{"channel names", []map[string]any{strOpt("channels", "#games")}, "I can't read “#games”"},
		{"channels with text", []map[string]any{strOpt("channels", "<#111> and <#222>")}, "I can't read “and”"},
		{"channels empty", []map[string]any{strOpt("channels", " , ")}, "`channels` must be `all`"},
		{"user mention", []map[string]any{strOpt("channels", "<@111>")}, "I can't read “<@111>”"},
		{"too many channels", []map[string]any{strOpt("channels", "<#1> <#2> <#3> <#4> <#5> <#6> <#7> <#8> <#9> <#10> <#11>")},
			"at most 10 channels; you gave 11"},
		{"role and no role", []map[string]any{roleOpt("stop_role", fixtureRole), boolOpt("stop_role_clear", true)}, "not both"},
		{"role not a role", []map[string]any{strOpt("stop_role", "mods")}, "can't read the value of `stop_role`"},
		{"role @everyone", []map[string]any{roleOpt("stop_role", fixtureGuild)}, "can't be @everyone"},
		{"boolean not a boolean", []map[string]any{strOpt("computer_ranked", "yes")}, "can't read the value of `computer_ranked`"},
		{"reset to a win too long", []map[string]any{boolOpt("reset", true), intOpt("win", 4)}, "4 in a row doesn't fit on a 3×3 board"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := new(store.Memory)
			before := store.Settings{GuildID: fixtureGuild, Size: 5, Win: 4, TurnTimeout: time.Minute, Channels: []string{"9"},
				UpdatedBy: "someone", UpdatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			if err := st.SaveSettings(context.Background(), before); err != nil {
				t.Fatal(err)
			}
			b, rec := clockedBotOn(t, st, &clock{t: time.Now()})
			b.serveIC(context.Background(), configPayload(t, discordgo.PermissionManageServer, tt.opts...))
			wantEphemeral(t, rec.last(t), tt.want)
			if got := storedSettings(t, st); !reflect.DeepEqual(got, before) {
				t.Errorf("after a refusal stored %+v; want %+v", got, before)
			}
		})
	}
}

// reset brings back every default, marking what changed; options given
// with it apply after it; stop_role_clear removes the role alone.
func TestConfigReset(t *testing.T) {
	st := new(store.Memory)
	b, rec := clockedBotOn(t, st, &clock{t: time.Now()})
	admin := int64(discordgo.PermissionManageServer)
	b.serveIC(context.Background(), configPayload(t, admin, intOpt("turn_timeout", 2), intOpt("size", 5), roleOpt("stop_role", fixtureRole),
		boolOpt("computer_ranked", true)))

	b.serveIC(context.Background(), configPayload(t, admin, boolOpt("stop_role_clear", true)))
	if got := storedSettings(t, st); got.StopRole != "" || got.TurnTimeout != 2*time.Second {
		t.Errorf("after stop_role_clear stored %+v; want no role, the rest kept", got)
	}

	b.serveIC(context.Background(), configPayload(t, admin, boolOpt("reset", true), intOpt("challenge_timeout", 30)))
	r := rec.last(t)
	wantEphemeral(t, r, "✅ **Back to the defaults.**")
	for _, want := range []string{
		"• ✏️ Time per move (`turn_timeout`): **5 minutes** (default; was 2 seconds)",
		"• ✏️ Challenges expire after (`challenge_timeout`): **30 seconds** (was 1 minute)",
		"• ✏️ Default board size (`size`): **3×3** (default; was 5×5)",
		"• Role that can stop games, besides Manage Messages (`stop_role`): **none** (default)",
		"• ✏️ Games against the computer on `/ttt leaderboard` (`computer_ranked`): **no** (default; was yes)",
	} {
		if !strings.Contains(r.Data.Content, want) {
			t.Errorf("summary %q; want it to contain %q", r.Data.Content, want)
		}
	}
	got := storedSettings(t, st)
	want := store.Settings{GuildID: fixtureGuild, ChallengeTimeout: 30 * time.Second, UpdatedBy: mason, UpdatedAt: got.UpdatedAt}
	if !reflect.DeepEqual(got, want) || got.UpdatedAt.IsZero() {
		t.Errorf("after reset stored %+v; want %+v", got, want)
	}
}

// The longest summary, every setting changed from and to its longest
// value, fits in a Discord message in every language, with every
// placeholder filled.
func TestConfigSummaryFitsEveryLanguage(t *testing.T) {
	b, _ := clockedBotOn(t, new(store.Memory), &clock{t: time.Now()})
	c, err := i18n.New()
	if err != nil {
		t.Fatal(err)
	}
	channels := func(first int) []string {
		var ids []string
		for i := range maxChannels {
			ids = append(ids, strings.Repeat("9", 18)+string(rune('0'+first))+string(rune('0'+i)))
		}
		return ids
	}
	prev := store.Settings{GuildID: fixtureGuild, TurnTimeout: 839 * time.Second, ChallengeTimeout: 839 * time.Second,
		Size: 9, Win: 9, Channels: channels(1), StopRole: strings.Repeat("8", 20), ComputerRanked: true, Pictures: true, NoReminders: true}
	next := store.Settings{GuildID: fixtureGuild, TurnTimeout: 838 * time.Second, ChallengeTimeout: 838 * time.Second,
		Size: 10, Win: 10, Channels: channels(2), StopRole: strings.Repeat("7", 20),
		UpdatedBy: strings.Repeat("6", 20), UpdatedAt: time.Now()}
	changed := changedSettings(prev, next)
	if len(changed) != len(configSettings) {
		t.Fatalf("changed = %v; want every setting", changed)
	}
	for _, lang := range []string{"en-US", "de", "es-ES", "fr", "ja", "pt-BR", "ru", "zh-CN"} {
		l := c.For(lang)
		for _, header := range []string{"config.saved", "config.reset"} {
			s := b.settings.summary(l, header, next, prev, changed)
			if n := utf8.RuneCountInString(s); n > 2000 {
				t.Errorf("%s: the longest summary is %d characters; want at most 2000", lang, n)
			}
			if strings.Contains(s, "<no value>") || strings.Contains(s, "config.") {
				t.Errorf("%s: summary with a text or value missing:\n%s", lang, s)
			}
		}
	}
}

// The schema offers config to everyone (its handler checks permissions)
// with the documented options and limits.
func TestConfigSchema(t *testing.T) {
	var config *discordgo.ApplicationCommandOption
	ttt := Commands()[0]
	if ttt.DefaultMemberPermissions != nil {
		t.Errorf("/ttt has default_member_permissions %d; want none: everyone plays", *ttt.DefaultMemberPermissions)
	}
	for _, o := range ttt.Options {
		if o.Name == "config" {
			config = o
		}
	}
	if config == nil {
		t.Fatal("/ttt has no config subcommand")
	}
	var names []string
	for _, o := range config.Options {
		names = append(names, o.Name)
		if o.Required {
			t.Errorf("option %s is required; want every option optional", o.Name)
		}
		if o.Name == "turn_timeout" && (o.MinValue == nil || *o.MinValue != 1 || o.MaxValue != 86400) {
			t.Errorf("turn_timeout accepts %v to %v; want 1 to 86400 seconds", o.MinValue, o.MaxValue)
		}
		if o.Name == "challenge_timeout" && (o.MinValue == nil || *o.MinValue != 10 || o.MaxValue != 840) {
			t.Errorf("challenge_timeout accepts %v to %v; want 10 to 840 seconds", o.MinValue, o.MaxValue)
		}
	}
	want := []string{"turn_timeout", "challenge_timeout", "size", "win", "channels", "stop_role", "stop_role_clear", "computer_ranked", "pictures", "reminders", "reset"}
	if !slices.Equal(names, want) {
		t.Errorf("config options = %v; want %v", names, want)
	}
}
