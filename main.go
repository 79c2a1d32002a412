// Command tttbot is a Discord bot for n×n tic-tac-toe. It reads its settings
// from the environment and from a .env file, connects to Discord and answers
// /ttt until it gets SIGINT or SIGTERM. Run it with -help for the settings.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	mrand "math/rand/v2"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/joho/godotenv"
	"github.com/tttbot/tttbot/bot"
	"github.com/tttbot/tttbot/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dotenv, err := readDotenv(".env")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tttbot:", err)
		os.Exit(1)
	}
	getenv := func(k string) string {
		if v, ok := os.LookupEnv(k); ok {
			return v
		}
		return dotenv[k]
	}
	if err := run(ctx, os.Args[1:], getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tttbot:", err)
		os.Exit(1)
	}
}

// readDotenv reads a .env file; a missing file is no error. The parser's
// own error is not passed on: it quotes the file, token and all.
func readDotenv(path string) (map[string]string, error) {
	env, err := godotenv.Read(path)
	var pathErr *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return map[string]string{}, nil
	case errors.As(err, &pathErr):
		return nil, fmt.Errorf("reading %s: %w", path, err) // names the file, not its contents
	case err != nil:
		return nil, fmt.Errorf("%s is not valid: each line must be KEY=value, and quotes must be closed (see .env.example)", path)
	}
	return env, nil
}

const usage = `tttbot runs the tic-tac-toe Discord bot.

Usage: tttbot [-version]

Settings come from the environment, or from a .env file in the working
directory (the environment wins):

  DISCORD_TOKEN      required: the bot's token (Discord Developer Portal,
                     your application, Bot, Reset Token)
  DISCORD_GUILD_ID   optional: register /ttt in this server only (instant)
                     instead of globally
  DISCORD_API_URL    optional: a Discord-compatible REST API, default
                     https://discord.com/api/v9
  LOG_LEVEL          optional: debug, info (default), warn or error
  CHALLENGE_TIMEOUT  optional: how long a challenge waits, default 60s
  TURN_TIMEOUT       optional: time per move before losing, default 5m
`

// run is the whole program; main only supplies the process's context,
// arguments, environment and output.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("tttbot", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() { fmt.Fprint(stderr, usage) }
	version := fl.Bool("version", false, "print the version and exit")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *version {
		fmt.Fprintln(stdout, "tttbot", buildVersion())
		return nil
	}

	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.logLevel}))
	log.Debug("configuration", "config", cfg)
	return bot.Run(ctx, string(cfg.token), cfg.apiURL, new(store.Memory), cfg.bot, log)
}

// secret is a string that never prints: not in logs, not with %v.
type secret string

func (secret) String() string               { return "[redacted]" }
func (secret) LogValue() slog.Value         { return slog.StringValue("[redacted]") }
func (s secret) Format(f fmt.State, _ rune) { io.WriteString(f, s.String()) }

type config struct {
	token    secret
	apiURL   string
	logLevel slog.Level
	bot      bot.Config
}

func (c config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Any("token", c.token),
		slog.String("guild", c.bot.GuildID),
		slog.String("api", c.apiURL),
		slog.Duration("challenge_timeout", c.bot.ChallengeTimeout),
		slog.Duration("turn_timeout", c.bot.TurnTimeout),
	)
}

// loadConfig reads and checks every setting; an error names the variable
// and says what is wrong with it.
func loadConfig(getenv func(string) string) (config, error) {
	c := config{bot: bot.DefaultConfig()}
	tok := strings.TrimSpace(getenv("DISCORD_TOKEN"))
	tok = strings.TrimPrefix(tok, "Bot ")
	if tok == "" {
		return c, errors.New("DISCORD_TOKEN is not set: create an application at https://discord.com/developers/applications, " +
			"open Bot, press Reset Token, and put DISCORD_TOKEN=<token> in .env (see .env.example)")
	}
	c.token = secret(tok)

	if g := strings.TrimSpace(getenv("DISCORD_GUILD_ID")); g != "" {
		if !isSnowflake(g) {
			return c, fmt.Errorf("DISCORD_GUILD_ID %q is not a server id: in Discord, turn on Developer Mode, right-click the server, Copy Server ID", g)
		}
		c.bot.GuildID = g
	}

	if u := strings.TrimSpace(getenv("DISCORD_API_URL")); u != "" {
		if err := bot.CheckAPIURL(u); err != nil {
			return c, err
		}
		c.apiURL = u
	}

	switch l := strings.ToLower(strings.TrimSpace(getenv("LOG_LEVEL"))); l {
	case "", "info":
		c.logLevel = slog.LevelInfo
	case "debug":
		c.logLevel = slog.LevelDebug
	case "warn", "warning":
		c.logLevel = slog.LevelWarn
	case "error":
		c.logLevel = slog.LevelError
	default:
		return c, fmt.Errorf("LOG_LEVEL %q: want debug, info, warn or error", l)
	}

	var err error
	if c.bot.ChallengeTimeout, err = duration(getenv, "CHALLENGE_TIMEOUT", c.bot.ChallengeTimeout); err != nil {
		return c, err
	}
	if c.bot.TurnTimeout, err = duration(getenv, "TURN_TIMEOUT", c.bot.TurnTimeout); err != nil {
		return c, err
	}
	c.bot.Seed = mrand.Uint64()
	return c, nil
}

func duration(getenv func(string) string, name string, def time.Duration) (time.Duration, error) {
	s := strings.TrimSpace(getenv(name))
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s %q: want a duration such as 90s or 5m", name, s)
	}
	if d < bot.MinTimeout || d > bot.MaxTimeout {
		return 0, fmt.Errorf("%s %s: want from %s to %s (Discord lets the bot edit a message for 15 minutes after the last click)", name, d, bot.MinTimeout, bot.MaxTimeout)
	}
	return d, nil
}

func isSnowflake(s string) bool {
	if len(s) < 15 || len(s) > 20 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// buildVersion is the module version the binary was built from, or its VCS
// revision, or "(devel)".
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}
