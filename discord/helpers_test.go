package discord_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/bot"
	"github.com/tttbot/tttbot/discord"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/store"
)

// logs is a log buffer that is safe for the bot's goroutines and lets a
// test wait for a line.
type logs struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed and replaced at every write
}

func newLogs() *logs { return &logs{changed: make(chan struct{})} }

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.changed)
	l.changed = make(chan struct{})
	return l.b.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// lines returns the lines that contain every one of subs.
func (l *logs) lines(subs ...string) []string {
	var out []string
	for _, line := range strings.Split(l.String(), "\n") {
		ok := line != ""
		for _, s := range subs {
			ok = ok && strings.Contains(line, s)
		}
		if ok {
			out = append(out, line)
		}
	}
	return out
}

// wait blocks until a line contains every one of subs.
func (l *logs) wait(t *testing.T, ctx context.Context, subs ...string) {
	t.Helper()
	for {
		l.mu.Lock()
		ch := l.changed
		l.mu.Unlock()
		if len(l.lines(subs...)) > 0 {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("no log line with %q: %v; the log:\n%s", subs, ctx.Err(), l)
		}
	}
}

// process is one bot process: a Gateway and the bot behind it, as main
// wires them.
type process struct {
	gw       *discord.Gateway
	bot      *bot.Bot
	logs     *logs
	counters *discord.Counters
	handled  chan string // ids of the interactions whose Handle returned
}

// rigs numbers the rigs of this run.
var rigs atomic.Int64

// rig is a fake Discord with bot processes connected to it.
type rig struct {
	srv   *discordtest.Server
	ctx   context.Context
	guild string
}

func newRig(t *testing.T, configure func(*discordtest.Server)) *rig {
	t.Helper()
	// A bot of its own: REST keeps the rate limits it meets per bot token.
	srv := discordtest.NewServer(fmt.Sprintf("faults-token-%d", rigs.Add(1)))
	if configure != nil {
		configure(srv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(func() {
		cancel()
		srv.Close() // after the processes: cleanups run last first
	})
	return &rig{srv: srv, ctx: ctx, guild: srv.NewID()}
}

// start opens a process with o (Token and APIURL filled in) and registers
// the commands.
func (r *rig) start(t *testing.T, o discord.Options) *process {
	t.Helper()
	p := &process{logs: newLogs(), counters: new(discord.Counters), handled: make(chan string, 100)}
	log := slog.New(slog.NewTextHandler(p.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o.Token, o.APIURL, o.Log, o.Counters = r.srv.Token, r.srv.APIURL, log, p.counters
	gw, err := discord.OpenWith(r.ctx, o)
	if err != nil {
		t.Fatalf("OpenWith() = %v", err)
	}
	p.gw = gw
	p.bot = bot.New(gw.REST(), bot.StoresOf(new(store.Memory)), bot.DefaultConfig(), log)
	p.bot.SetSelf(gw.Ready().UserID)
	gw.Handle(func(i *discordgo.Interaction, resp discord.Responder) {
		p.bot.Handle(i, resp)
		p.handled <- i.ID
	})
	t.Cleanup(func() {
		p.bot.Close()
		if err := gw.Close(); err != nil {
			t.Errorf("Close() = %v", err)
		}
	})
	if err := p.bot.Register(r.ctx, gw.Ready().AppID); err != nil {
		t.Fatalf("Register() = %v", err)
	}
	return p
}

// help sends /ttt help in guild.
func (r *rig) help(t *testing.T, guild string) *discordtest.Interaction {
	t.Helper()
	in := r.srv.SlashCommand(guild, r.srv.NewID(), r.srv.NewMember("alice"), "ttt", discordtest.Sub("help"))
	if err := r.srv.Send(r.ctx, in); err != nil {
		t.Fatalf("Send(/ttt help) = %v", err)
	}
	return in
}

// answered sends /ttt help in guild and fails the test unless the bot
// answers within the fake's AckDeadline.
func (r *rig) answered(t *testing.T, guild string) {
	t.Helper()
	in := r.help(t, guild)
	if _, err := in.Response(r.ctx); err != nil {
		t.Fatalf("/ttt help in guild %s: %v; want an answer", guild, err)
	}
}

// guildOf returns a guild ID on shard of count shards.
func guildOf(shard, count int) string {
	return fmt.Sprint(uint64(1000*count+shard) << 22)
}
