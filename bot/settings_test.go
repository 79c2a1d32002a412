package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
)

// countingStore counts the reads of settings.
type countingStore struct {
	store.Memory
	reads atomic.Int64
}

func (s *countingStore) Settings(ctx context.Context, guildID string) (store.Settings, error) {
	s.reads.Add(1)
	return s.Memory.Settings(ctx, guildID)
}

func mustSettings(t *testing.T, b *Bot) store.Settings {
	t.Helper()
	s, err := b.settings.get(context.Background(), fixtureGuild)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// startIn starts a game against the computer in channelID with opts and
// returns it as stored.
func startIn(t *testing.T, b *Bot, rec *recorder, st wholeStore, channelID string, opts ...map[string]any) *store.Game {
	t.Helper()
	ic := slashPayload(t, "start", opts, nil)
	ic.ChannelID = channelID
	b.serveIC(context.Background(), ic)
	if r := rec.last(t); r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		t.Fatalf("start answered %q; want a board", r.Data.Content)
	}
	g, err := st.Current(context.Background(), channelID)
	if err != nil || g == nil {
		t.Fatalf("Current(%s) = %v, %v; want the game", channelID, g, err)
	}
	return g
}

// Settings are read from the store once per guild and settingsTTL, even
// for a guild that has none. The process that saves a change uses it at
// once; another process sharing the store sees it once its copy is
// settingsTTL old, and its games follow it from then.
func TestSettingsCache(t *testing.T) {
	st := new(countingStore)
	clk := &clock{t: time.Now().Truncate(time.Second)} // as stored
	saver, _ := clockedBotOn(t, st, clk)
	other, rec := clockedBotOn(t, st, clk)

	if s := mustSettings(t, other); s.TurnTimeout != 0 {
		t.Fatalf("settings before any change = %+v; want none", s)
	}
	startIn(t, other, rec, st, "1")
	startIn(t, other, rec, st, "2")
	if n := st.reads.Load(); n != 1 {
		t.Errorf("a guild without settings was read %d times for a lookup and two games; want once", n)
	}

	saver.serveIC(context.Background(), configPayload(t, discordgo.PermissionManageServer, intOpt("turn_timeout", 2)))
	reads := st.reads.Load()
	if s := mustSettings(t, saver); s.TurnTimeout != 2*time.Second {
		t.Errorf("the saving process has turn timeout %v; want 2s at once", s.TurnTimeout)
	}
	if st.reads.Load() != reads {
		t.Errorf("the saving process read its own change from the store; want it kept in memory")
	}

	clk.advance(settingsTTL - time.Second)
	if s := mustSettings(t, other); s.TurnTimeout != 0 {
		t.Errorf("another process has turn timeout %v before its copy is %v old; want its copy, the default", s.TurnTimeout, settingsTTL)
	}
	if g := startIn(t, other, rec, st, "3"); g.Deadline.Sub(clk.now()) != 5*time.Minute {
		t.Errorf("a game started with the old copy has %v to move; want 5m", g.Deadline.Sub(clk.now()))
	}
	clk.advance(time.Second)
	if s := mustSettings(t, other); s.TurnTimeout != 2*time.Second {
		t.Errorf("another process has turn timeout %v after %v; want 2s", s.TurnTimeout, settingsTTL)
	}
	if g := startIn(t, other, rec, st, "4"); g.Deadline.Sub(clk.now()) != 2*time.Second {
		t.Errorf("a game started after the TTL has %v to move; want 2s", g.Deadline.Sub(clk.now()))
	}
	if n := st.reads.Load() - reads; n != 1 {
		t.Errorf("after the TTL the store was read %d times; want once", n)
	}
}

// A read from the store that began before this process saved does not
// replace the saved settings; the cache stays bounded however many guilds
// pass through it.
func TestSettingsCacheRacesAndBounds(t *testing.T) {
	var c settingsCache
	now := time.Now()
	_, ok, saves := c.get("g", now)
	if ok {
		t.Fatal("an empty cache has g")
	}
	c.keepSaved(store.Settings{GuildID: "g", Size: 5}, now)
	c.put(store.Settings{GuildID: "g"}, now, saves) // read before the save
	if s, ok, _ := c.get("g", now); !ok || s.Size != 5 {
		t.Errorf("after a save and an older read, get = %+v, %v; want the saved settings", s, ok)
	}
	if _, ok, _ := c.get("g", now.Add(settingsTTL)); ok {
		t.Errorf("settings %v old are still used; want them read again", settingsTTL)
	}
	for i := range maxCachedSettings + 100 {
		_, _, saves := c.get(fmt.Sprint(i), now)
		c.put(store.Settings{GuildID: fmt.Sprint(i)}, now, saves)
	}
	if n := len(c.entries); n > maxCachedSettings {
		t.Errorf("the cache holds %d guilds; want at most %d", n, maxCachedSettings)
	}
}

// A failed read of the settings fails the move with our error; it is not
// taken for the defaults.
func TestSettingsReadFails(t *testing.T) {
	st := &failingSettings{}
	b, rec := clockedBotOn(t, st, &clock{t: time.Now()})
	b.serveIC(context.Background(), slashPayload(t, "start", nil, nil))
	wantEphemeral(t, rec.last(t), internalErrorText)
}

type failingSettings struct{ store.Memory }

func (*failingSettings) Settings(context.Context, string) (store.Settings, error) {
	return store.Settings{}, errors.New("database gone")
}

// /ttt start is refused, naming the allowed channels, where the server
// does not allow games; so is a rematch there. Elsewhere games start.
func TestStartInAllowedChannelsOnly(t *testing.T) {
	st := new(store.Memory)
	b, rec := clockedBotOn(t, st, &clock{t: time.Now()})
	g := startIn(t, b, rec, st, fixtureChannel)
	ic := slashPayload(t, "resign", nil, nil)
	b.serveIC(context.Background(), ic)

	b.serveIC(context.Background(), configPayload(t, discordgo.PermissionManageServer, strOpt("channels", "<#222> <#111>")))
	b.serveIC(context.Background(), slashPayload(t, "start", nil, nil))
	wantEphemeral(t, rec.last(t), "Games can't be started in this channel. Play in <#111>, <#222>.")
	click := buttonPayload(t, route{action: actRematch, id: g.ID}.String())
	click.ChannelID = fixtureChannel
	b.serveIC(context.Background(), click)
	wantEphemeral(t, rec.last(t), "Play in <#111>, <#222>.")
	if cur, _ := st.Current(context.Background(), fixtureChannel); cur.ID != g.ID {
		t.Errorf("a game %s started in a channel where games are not allowed", cur.ID)
	}
	startIn(t, b, rec, st, "222")
}

// /ttt start without size or win uses the server's defaults; options
// given win, and a default win length longer than the chosen board is cut
// to it.
func TestStartUsesServerDefaults(t *testing.T) {
	st := new(store.Memory)
	b, rec := clockedBotOn(t, st, &clock{t: time.Now()})
	b.serveIC(context.Background(), configPayload(t, discordgo.PermissionManageServer, intOpt("size", 5), intOpt("win", 4)))
	for i, tt := range []struct {
		opts      []map[string]any
		size, win int
	}{
		{nil, 5, 4},
		{[]map[string]any{intOpt("size", 7)}, 7, 4},
		{[]map[string]any{intOpt("size", 3)}, 3, 3},
		{[]map[string]any{intOpt("win", 5)}, 5, 5},
		{[]map[string]any{intOpt("size", 4), intOpt("win", 3)}, 4, 3},
	} {
		g := startIn(t, b, rec, st, fmt.Sprint(100+i), tt.opts...)
		if g.Size != tt.size || g.Win != tt.win {
			t.Errorf("start %v: %d×%d, %d in a row; want %d×%d, %d", tt.opts, g.Size, g.Size, g.Win, tt.size, tt.size, tt.win)
		}
	}
	ic := slashPayload(t, "start", []map[string]any{intOpt("win", 6)}, nil)
	ic.ChannelID = "200"
	b.serveIC(context.Background(), ic)
	wantEphemeral(t, rec.last(t), "6 in a row doesn't fit on a 5×5 board")
}

// The turn and challenge timeouts of the server set the deadlines of its
// games and challenges, and /ttt help shows them.
func TestServerTimeouts(t *testing.T) {
	st := new(store.Memory)
	clk := &clock{t: time.Now().Truncate(time.Second)} // as stored
	b, rec := clockedBotOn(t, st, clk)
	b.serveIC(context.Background(), configPayload(t, discordgo.PermissionManageServer, intOpt("turn_timeout", 2), intOpt("challenge_timeout", 30)))

	g := startIn(t, b, rec, st, "1")
	if d := g.Deadline.Sub(clk.now()); d != 2*time.Second {
		t.Errorf("a new game gives %v to move; want 2s", d)
	}
	clk.advance(time.Second)
	ic := slashPayload(t, "move", []map[string]any{intOpt("row", 2), intOpt("col", 2)}, nil)
	ic.ChannelID = "1"
	b.serveIC(context.Background(), ic)
	if g, _ := st.Current(context.Background(), "1"); len(g.Moves) != 2 || g.Deadline.Sub(clk.now()) != 2*time.Second {
		t.Errorf("after a move: %d moves, %v to move; want 2 moves, 2s", len(g.Moves), g.Deadline.Sub(clk.now()))
	}

	bob := map[string]any{"users": map[string]any{"77": map[string]any{"id": "77", "username": "bob", "discriminator": "0"}}}
	ic = slashPayload(t, "start", []map[string]any{{"type": 6, "name": "opponent", "value": "77"}}, bob)
	ic.ChannelID = "2"
	b.serveIC(context.Background(), ic)
	wantPublic := rec.last(t)
	if !strings.Contains(wantPublic.Data.Content, "challenges <@77>") {
		t.Fatalf("start with an opponent answered %q; want a challenge", wantPublic.Data.Content)
	}
	c, err := st.Challenge(context.Background(), "2")
	if err != nil || c == nil || c.Expires.Sub(clk.now()) != 30*time.Second {
		t.Errorf("challenge = %+v, %v; want one expiring in 30s", c, err)
	}

	b.serveIC(context.Background(), slashPayload(t, "help", nil, nil))
	wantEphemeral(t, rec.last(t), "You have 2 seconds per move, or you lose by timeout; a challenge waits 30 seconds.")
}

// Members with the server's stop role may stop games, besides those with
// Manage Messages; the others are told who may.
func TestStopRole(t *testing.T) {
	stopBy := func(roles []string) *discordgo.InteractionCreate {
		ic := slashPayload(t, "stop", nil, nil)
		ic.ChannelID = "1"
		ic.Member.Permissions = discordgo.PermissionSendMessages
		ic.Member.User = &discordgo.User{ID: "42", Username: "carol"}
		ic.Member.Roles = roles
		return ic
	}
	st := new(store.Memory)
	b, rec := clockedBotOn(t, st, &clock{t: time.Now()})
	startIn(t, b, rec, st, "1")

	b.serveIC(context.Background(), stopBy([]string{fixtureRole}))
	wantEphemeral(t, rec.last(t), "Only members with the Manage Messages permission can stop games.")

	b.serveIC(context.Background(), configPayload(t, discordgo.PermissionManageServer, roleOpt("stop_role", fixtureRole)))
	b.serveIC(context.Background(), stopBy([]string{"1234"}))
	wantEphemeral(t, rec.last(t), "Only members with the Manage Messages permission or the <@&"+fixtureRole+"> role can stop games.")

	b.serveIC(context.Background(), stopBy([]string{"1234", fixtureRole}))
	if r := rec.last(t); !strings.Contains(r.Data.Content, "Game stopped by <@42>") {
		t.Errorf("stop by a member with the stop role answered %q; want the game stopped", r.Data.Content)
	}
	if g, _ := st.Current(context.Background(), "1"); g.End != game.EndStopped || g.StoppedBy != "42" {
		t.Errorf("stored game ended %v by %q; want stopped by 42", g.End, g.StoppedBy)
	}
}

// With computer_ranked on, the leaderboard has a second section for games
// against the computer, by record, without the computer itself; the rated
// ladder is as before.
func TestLeaderboardAgainstTheComputer(t *testing.T) {
	st := new(store.Memory)
	b, rec := clockedBotOn(t, st, &clock{t: time.Now()})
	ctx := context.Background()
	for i, winner := range []game.Player{game.X, game.X, game.O} {
		user := []string{mason, mason, "77"}[i]
		g := &store.Game{ID: fmt.Sprintf("c%d", i), GuildID: fixtureGuild, ChannelID: fmt.Sprint(i), Players: [3]string{game.X: user, game.O: botID},
			Computer: game.O, Level: game.Easy, Size: 3, Win: 3, First: game.X, StartedAt: time.Now()}
		if err := st.Save(ctx, g); err != nil {
			t.Fatal(err)
		}
		g.End, g.Loser, g.EndedAt = game.EndResigned, winner.Other(), time.Now()
		if err := st.Save(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	b.serveIC(ctx, slashPayload(t, "leaderboard", nil, nil))
	without := rec.last(t).Data.Content
	if strings.Contains(without, "Against the computer") {
		t.Errorf("leaderboard without computer_ranked = %q; want no section for the computer", without)
	}

	b.serveIC(ctx, configPayload(t, discordgo.PermissionManageServer, boolOpt("computer_ranked", true)))
	b.serveIC(ctx, slashPayload(t, "leaderboard", nil, nil))
	r := rec.last(t)
	if r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		t.Fatalf("leaderboard answered %q ephemerally; want it public", r.Data.Content)
	}
	want := without + "\n\n🤖 **Against the computer** (not rated; most wins first)\n" +
		"1. <@" + mason + "> — 2 games · 2 wins · 0 losses · 0 draws\n" +
		"2. <@77> — 1 game · 0 wins · 1 loss · 0 draws"
	if r.Data.Content != want {
		t.Errorf("leaderboard with computer_ranked =\n%s\nwant\n%s", r.Data.Content, want)
	}
}
