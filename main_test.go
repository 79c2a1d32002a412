package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/tttbot/discord"
)

func TestLoadConfig(t *testing.T) {
	base := map[string]string{"DISCORD_TOKEN": "tok"}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string // empty: no error
	}{
		{"defaults", nil, ""},
		{"no token", map[string]string{"DISCORD_TOKEN": " "}, "DISCORD_TOKEN is not set"},
		{"guild", map[string]string{"DISCORD_GUILD_ID": "290926798626357999"}, ""},
		{"bad guild", map[string]string{"DISCORD_GUILD_ID": "my server"}, "DISCORD_GUILD_ID"},
		{"api url", map[string]string{"DISCORD_API_URL": "http://127.0.0.1:1/api/v9"}, ""},
		{"bad api url", map[string]string{"DISCORD_API_URL": "discord.com"}, "DISCORD_API_URL"},
		{"log level", map[string]string{"LOG_LEVEL": "WARN"}, ""},
		{"bad log level", map[string]string{"LOG_LEVEL": "loud"}, "LOG_LEVEL"},
		{"timeouts", map[string]string{"CHALLENGE_TIMEOUT": "90s", "TURN_TIMEOUT": "10m"}, ""},
		{"bad timeout", map[string]string{"TURN_TIMEOUT": "5"}, "TURN_TIMEOUT"},
		{"timeout too long", map[string]string{"CHALLENGE_TIMEOUT": "20m"}, "CHALLENGE_TIMEOUT"},
		{"endpoint", map[string]string{"INTERACTIONS_ADDR": ":8080", "DISCORD_PUBLIC_KEY": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, ""},
		{"endpoint without key", map[string]string{"INTERACTIONS_ADDR": ":8080"}, "DISCORD_PUBLIC_KEY"},
		{"key without endpoint", map[string]string{"DISCORD_PUBLIC_KEY": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, "INTERACTIONS_ADDR"},
		{"bad key", map[string]string{"INTERACTIONS_ADDR": ":8080", "DISCORD_PUBLIC_KEY": "abc"}, "DISCORD_PUBLIC_KEY"},
		{"bad endpoint address", map[string]string{"INTERACTIONS_ADDR": "8080", "DISCORD_PUBLIC_KEY": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, "INTERACTIONS_ADDR"},
		{"metrics", map[string]string{"METRICS_ADDR": "127.0.0.1:9090"}, ""},
		{"live board", map[string]string{"WEB_ADDR": ":8081", "DISCORD_CLIENT_SECRET": "s3cret"}, ""},
		{"live board without secret", map[string]string{"WEB_ADDR": ":8081"}, "DISCORD_CLIENT_SECRET"},
		{"secret without live board", map[string]string{"DISCORD_CLIENT_SECRET": "s3cret"}, "WEB_ADDR"},
		{"bad live board address", map[string]string{"WEB_ADDR": "8081", "DISCORD_CLIENT_SECRET": "s3cret"}, "WEB_ADDR"},
		{"bad metrics address", map[string]string{"METRICS_ADDR": "localhost"}, "METRICS_ADDR"},
		{"one shard", map[string]string{"SHARD_ID": "1", "SHARD_COUNT": "4"}, ""},
		{"auto shards", map[string]string{"SHARD_COUNT": "AUTO"}, ""},
		{"shard outside", map[string]string{"SHARD_ID": "4", "SHARD_COUNT": "4"}, "SHARD_ID"},
		{"shard without count", map[string]string{"SHARD_ID": "0"}, "SHARD_COUNT"},
		{"count without shard", map[string]string{"SHARD_COUNT": "2"}, "SHARD_ID"},
		{"bad count", map[string]string{"SHARD_COUNT": "many"}, "SHARD_COUNT"},
		{"shard with auto", map[string]string{"SHARD_ID": "0", "SHARD_COUNT": "auto"}, "SHARD_ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range base {
				env[k] = v
			}
			for k, v := range tt.env {
				env[k] = v
			}
			c, err := loadConfig(func(k string) string { return env[k] })
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("loadConfig = %v; want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("loadConfig error = %v; want one naming %s", err, tt.wantErr)
			}
			_ = c
		})
	}
}

func TestLoadConfigValues(t *testing.T) {
	env := map[string]string{"DISCORD_TOKEN": "Bot abc", "CHALLENGE_TIMEOUT": "90s", "TURN_TIMEOUT": "2m", "DISCORD_GUILD_ID": "290926798626357999"}
	c, err := loadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if string(c.token) != "abc" || c.bot.Table.ChallengeTimeout != 90*time.Second || c.bot.Table.TurnTimeout != 2*time.Minute || c.bot.GuildID != env["DISCORD_GUILD_ID"] {
		t.Errorf("loadConfig = token %q, %v, %v, guild %q; want abc, 1m30s, 2m0s, %s",
			string(c.token), c.bot.Table.ChallengeTimeout, c.bot.Table.TurnTimeout, c.bot.GuildID, env["DISCORD_GUILD_ID"])
	}
	for _, s := range []string{fmt.Sprint(c.token), fmt.Sprintf("%v %+v %#v %s", c.token, c.token, c.token, c.token)} {
		if strings.Contains(s, "abc") {
			t.Errorf("the token prints as %q", s)
		}
	}
}

func TestRunVersionAndHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"-version"}, func(string) string { return "" }, &out, &errOut); err != nil {
		t.Fatalf("run -version = %v", err)
	}
	if !strings.HasPrefix(out.String(), "tttbot ") {
		t.Errorf("run -version printed %q; want tttbot <version>", out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"-help"}, func(string) string { return "" }, &out, &errOut); err != nil {
		t.Fatalf("run -help = %v", err)
	}
	for _, v := range []string{"DISCORD_TOKEN", "DISCORD_GUILD_ID", "DISCORD_API_URL", "LOG_LEVEL", "CHALLENGE_TIMEOUT", "TURN_TIMEOUT", "DATABASE_URL",
		"INTERACTIONS_ADDR", "DISCORD_PUBLIC_KEY", "SHARD_ID", "SHARD_COUNT", "METRICS_ADDR", "WEB_ADDR", "DISCORD_CLIENT_SECRET", "-healthcheck"} {
		if !strings.Contains(errOut.String(), v) {
			t.Errorf("-help does not mention %s", v)
		}
	}
}

// Which transports a configuration runs: the gateway unless the HTTP
// endpoint is on, and both when shards are asked for too.
func TestLoadConfigTransports(t *testing.T) {
	key := strings.Repeat("ab", 32)
	for _, tt := range []struct {
		env         map[string]string
		gateway     bool
		shard, of   int
		auto        bool
		interaction string
	}{
		{map[string]string{}, true, 0, 0, false, ""},
		{map[string]string{"INTERACTIONS_ADDR": ":8080", "DISCORD_PUBLIC_KEY": key}, false, 0, 0, false, ":8080"},
		{map[string]string{"INTERACTIONS_ADDR": ":8080", "DISCORD_PUBLIC_KEY": key, "SHARD_COUNT": "auto"}, true, 0, 0, true, ":8080"},
		{map[string]string{"SHARD_ID": "2", "SHARD_COUNT": "3"}, true, 2, 3, false, ""},
		{map[string]string{"SHARD_COUNT": "1"}, true, 0, 1, false, ""},
	} {
		tt.env["DISCORD_TOKEN"] = "tok"
		c, err := loadConfig(func(k string) string { return tt.env[k] })
		if err != nil {
			t.Errorf("%v: %v", tt.env, err)
			continue
		}
		if c.useGateway() != tt.gateway || c.discord.ShardID != tt.shard || c.discord.ShardCount != tt.of || c.discord.AutoShards != tt.auto || c.interactionsAddr != tt.interaction {
			t.Errorf("%v: gateway %v, shard %d of %d, auto %v, endpoint %q; want %v, %d of %d, %v, %q", tt.env,
				c.useGateway(), c.discord.ShardID, c.discord.ShardCount, c.discord.AutoShards, c.interactionsAddr,
				tt.gateway, tt.shard, tt.of, tt.auto, tt.interaction)
		}
	}
	if err := checkHealth(context.Background(), "", io.Discard); err == nil || !strings.Contains(err.Error(), "METRICS_ADDR") {
		t.Errorf("-healthcheck without METRICS_ADDR = %v; want an error naming it", err)
	}
}

// A broken .env is reported without quoting it: it holds the token.
// Shard options that make no sense are refused before anything connects,
// in the words of the environment variables: discord's errors, named by
// shardsError.
func TestShardOptionsChecked(t *testing.T) {
	t.Parallel()
	for _, o := range []discord.Options{
		{ShardID: 2, ShardCount: 2},
		{ShardID: -1, ShardCount: 2},
		{ShardID: 0, ShardCount: -1},
		{ShardID: 1},
		{AutoShards: true, ShardCount: 2},
		{AutoShards: true, ShardID: 1},
	} {
		o.Token, o.APIURL = "token", "http://127.0.0.1:1/api/v9" // never reached
		gw, err := discord.OpenWith(context.Background(), o)
		if err == nil {
			gw.Close()
			t.Errorf("OpenWith(ShardID %d, ShardCount %d, AutoShards %v) = nil error; want one", o.ShardID, o.ShardCount, o.AutoShards)
			continue
		}
		err = shardsError(err, fmt.Sprint(o.ShardID), fmt.Sprint(o.ShardCount))
		if msg := err.Error(); !strings.Contains(msg, "SHARD_ID") && !strings.Contains(msg, "SHARD_COUNT") {
			t.Errorf("OpenWith(ShardID %d, ShardCount %d, AutoShards %v) = %q; want it to name SHARD_ID or SHARD_COUNT", o.ShardID, o.ShardCount, o.AutoShards, msg)
		}
	}
}

// The errors discord says in its own words reach the admin with the
// variable to change.
func TestNameVariables(t *testing.T) {
	other := errors.New("something else")
	for _, tt := range []struct {
		err  error
		want string
	}{
		{discord.ErrTokenRejected, "Discord rejected the token: check DISCORD_TOKEN (Developer Portal, your application, Bot, Reset Token)"},
		{&discord.ShardRefusedError{ID: 1, Count: 4}, "Discord refused shard 1 of 4: check SHARD_ID and SHARD_COUNT"},
		{discord.ErrShardingRequired, "Discord says the bot is in too many servers for one gateway connection: set SHARD_COUNT (auto runs the recommended number of shards)"},
		{other, "something else"},
	} {
		if got := nameVariables(tt.err); got.Error() != tt.want || !errors.Is(got, tt.err) {
			t.Errorf("nameVariables(%q) = %q; want %q, wrapping it", tt.err, got, tt.want)
		}
	}
	if err := nameVariables(nil); err != nil {
		t.Errorf("nameVariables(nil) = %v; want nil", err)
	}
}

func TestReadDotenv(t *testing.T) {
	dir := t.TempDir()
	if env, err := readDotenv(filepath.Join(dir, "missing")); err != nil || len(env) != 0 {
		t.Errorf("readDotenv(missing) = %v, %v; want empty, nil", env, err)
	}
	good := filepath.Join(dir, "good")
	if err := os.WriteFile(good, []byte("# comment\nDISCORD_TOKEN=abc\nLOG_LEVEL=debug\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if env, err := readDotenv(good); err != nil || env["DISCORD_TOKEN"] != "abc" || env["LOG_LEVEL"] != "debug" {
		t.Errorf("readDotenv(good) = %v, %v; want both settings", env, err)
	}
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("DISCORD_TOKEN=\"MTIz.superSecretToken\nLOG_LEVEL=debug\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := readDotenv(bad)
	if err == nil || strings.Contains(err.Error(), "superSecret") {
		t.Errorf("readDotenv(bad) = %v; want an error that does not quote the file", err)
	}
}

// .env.example lists every setting the program reads.
func TestEnvExampleComplete(t *testing.T) {
	b, err := os.ReadFile(".env.example")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"DISCORD_TOKEN", "DISCORD_GUILD_ID", "DISCORD_API_URL", "LOG_LEVEL", "CHALLENGE_TIMEOUT", "TURN_TIMEOUT", "DATABASE_URL",
		"INTERACTIONS_ADDR", "DISCORD_PUBLIC_KEY", "SHARD_ID", "SHARD_COUNT", "METRICS_ADDR", "WEB_ADDR", "DISCORD_CLIENT_SECRET"} {
		if !strings.Contains(string(b), "\n"+v+"=") && !strings.Contains(string(b), "\n# "+v+"=") {
			t.Errorf(".env.example has no line %s= (or # %s=)", v, v)
		}
	}
}

func TestParseDatabase(t *testing.T) {
	for _, tt := range []struct {
		in         string
		kind, want string
		bad        bool
	}{
		{"", "sqlite", "data/tttbot.db", false},
		{"sqlite:games.db", "sqlite", "games.db", false},
		{"sqlite:///var/lib/tttbot/games.db", "sqlite", "/var/lib/tttbot/games.db", false},
		{"/data/tttbot.db", "sqlite", "/data/tttbot.db", false},
		{"postgres://bot:pw@db:5432/ttt", "postgres", "postgres://bot:pw@db:5432/ttt", false},
		{"postgresql://db/ttt?sslmode=disable", "postgres", "postgresql://db/ttt?sslmode=disable", false},
		{"mysql://db/ttt", "", "", true},
		{"sqlite:", "", "", true},
	} {
		got, err := parseDatabase(tt.in)
		if tt.bad {
			if err == nil || !strings.Contains(err.Error(), "DATABASE_URL") {
				t.Errorf("parseDatabase(%q) = %+v, %v; want an error naming DATABASE_URL", tt.in, got, err)
			}
			continue
		}
		if err != nil || got.kind != tt.kind || got.target != tt.want {
			t.Errorf("parseDatabase(%q) = %+v, %v; want %s %s", tt.in, got, err, tt.kind, tt.want)
		}
	}
	// A password in the URL never reaches the log.
	d, _ := parseDatabase("postgres://bot:hunter2@db/ttt")
	var buf strings.Builder
	slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "database", d)
	if strings.Contains(buf.String(), "hunter2") {
		t.Errorf("log %q shows the database password", buf.String())
	}
}

// The ready line's database: an absolute SQLite path; PostgreSQL's host
// and database without user, password or options.
func TestDatabaseWhere(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"":                filepath.Join(wd, "data", "tttbot.db"),
		"sqlite:games.db": filepath.Join(wd, "games.db"),
		"/data/tttbot.db": "/data/tttbot.db",
		"postgres://bot:hunter2@db:5432/ttt?sslmode=disable": "postgres://db:5432/ttt",
	} {
		d, err := parseDatabase(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.where(); got != want {
			t.Errorf("parseDatabase(%q).where() = %q; want %q", in, got, want)
		}
	}
}

// Without GOGC the bot collects at Go's default while it is quiet, and
// less often while it allocates fast; an operator's GOGC stands.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	debug.SetGCPercent(400)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tuneGC(ctx, "")
	if got := debug.SetGCPercent(400); got != quietGCPercent {
		t.Errorf("GOGC unset, the bot quiet: the collector's percent is %d; want %d", got, quietGCPercent)
	}
	tuneGC(ctx, "50") // the runtime read it at start; tuneGC leaves it alone
	if got := debug.SetGCPercent(100); got != 400 {
		t.Errorf("GOGC set: tuneGC changed the collector's percent to %d", got)
	}
	for _, tt := range []struct {
		rate          float64
		current, want int
	}{
		{0, busyGCPercent, quietGCPercent},
		{quietAllocRate, busyGCPercent, quietGCPercent},
		{(quietAllocRate + busyAllocRate) / 2, busyGCPercent, busyGCPercent},
		{(quietAllocRate + busyAllocRate) / 2, quietGCPercent, quietGCPercent},
		{busyAllocRate, quietGCPercent, busyGCPercent},
		{10 * busyAllocRate, busyGCPercent, busyGCPercent},
	} {
		if got := gcPercentFor(tt.rate, tt.current); got != tt.want {
			t.Errorf("gcPercentFor(%.0f B/s, %d) = %d; want %d", tt.rate, tt.current, got, tt.want)
		}
	}
}
