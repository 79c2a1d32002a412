package bot

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
)

// /ttt about tells the version, when the bot started, the servers Discord
// counts, the games played, the gateway's latency, both invite links and
// the source, to the user alone; what it cannot learn is "unknown".
func TestAbout(t *testing.T) {
	st := new(store.Memory)
	rec := &recorder{}
	cfg := DefaultConfig()
	cfg.About = About{
		Version: "v1.2.3",
		Latency: func() time.Duration { return 42 * time.Millisecond },
		Servers: func(context.Context) (int, error) { return 7, nil },
	}
	b := New(rec, StoresOf(st), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf("1000000000000000001")
	defer b.Close()
	b.serveIC(context.Background(), slashPayload(t, "start", []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}, nil))
	ic := slashPayload(t, "about", nil, nil)
	b.serveIC(context.Background(), ic)
	r := rec.last(t)
	for _, want := range []string{"v1.2.3", "Servers: 7", "games played: 1", "gateway latency: 42 ms",
		"<t:" + strconv.FormatInt(b.records.started.Unix(), 10) + ":R>", "<" + InviteURL(ic.AppID) + ">", "<" + UserInstallURL(ic.AppID) + ">", Source} {
		if !strings.Contains(r.Data.Content, want) {
			t.Errorf("/ttt about answered %q; want it to contain %q", r.Data.Content, want)
		}
	}
	if r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Error("/ttt about was answered publicly; want it for the user alone")
	}
	if !strings.Contains(InviteURL("1"), "permissions=117760") {
		t.Errorf("InviteURL = %s; want View Channel, Send Messages, Embed Links, Attach Files and Read Message History (117760)", InviteURL("1"))
	}

	b.records.program = About{Servers: func(context.Context) (int, error) { return 0, errors.New("discord is down") }}
	b.serveIC(context.Background(), slashPayload(t, "about", nil, nil))
	if got := rec.last(t).Data.Content; !strings.Contains(got, "Servers: unknown") || !strings.Contains(got, "none (HTTP interactions)") {
		t.Errorf("/ttt about without Discord's count or a gateway answered %q; want unknown servers and no gateway", got)
	}
}

// overwrites records the bulk overwrites of commands.
type overwrites struct {
	*recorder
	mu    sync.Mutex
	calls []string // "guild:count"
}

func (o *overwrites) ApplicationCommandBulkOverwrite(_, guild string, cmds []*discordgo.ApplicationCommand, _ ...discordgo.RequestOption) ([]*discordgo.ApplicationCommand, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, guild+":"+strconv.Itoa(len(cmds)))
	return cmds, nil
}

func (o *overwrites) ApplicationCommandBulkOverwriteJSON(_, guild string, cmds []json.RawMessage, _ ...discordgo.RequestOption) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, guild+":"+strconv.Itoa(len(cmds)))
	return nil
}

// Commands registered in a guild, then globally, leave the guild with no
// copy of its own: nobody sees every command twice.
func TestRegisterGuildThenGlobal(t *testing.T) {
	st := new(store.Memory)
	register := func(guild string) []string {
		t.Helper()
		dc := &overwrites{recorder: &recorder{}}
		cfg := DefaultConfig()
		cfg.GuildID = guild
		b := New(dc, StoresOf(st), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
		defer b.Close()
		if err := b.Register(context.Background(), "app"); err != nil {
			t.Fatalf("Register(guild %q) = %v", guild, err)
		}
		return dc.calls
	}
	n := strconv.Itoa(len(Commands()))
	if got, want := register("g1"), []string{"g1:" + n}; !slices.Equal(got, want) {
		t.Errorf("in guild g1: overwrites %v; want %v", got, want)
	}
	if got, want := register(""), []string{":" + n, "g1:0"}; !slices.Equal(got, want) {
		t.Errorf("globally after g1: overwrites %v; want %v (the commands, then g1 emptied)", got, want)
	}
	if got, want := register(""), []string{":" + n}; !slices.Equal(got, want) {
		t.Errorf("globally again: overwrites %v; want %v", got, want)
	}
}
