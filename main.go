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
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/joho/godotenv"
	"github.com/tttbot/tttbot/bot"
	"github.com/tttbot/tttbot/discord"
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
  DATABASE_URL       optional: where games are kept; unset: the SQLite file
                     ./data/tttbot.db; sqlite:PATH or a path: SQLite there;
                     postgres://user@host/db: PostgreSQL
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
	return serve(ctx, cfg, log)
}

// serve opens the store and the gateway, registers the commands, restores
// the running games, and answers interactions until ctx ends. A ctx that
// ends at any point of that is a clean stop, not an error.
func serve(ctx context.Context, cfg config, log *slog.Logger) (err error) {
	stopped := func(err error) error {
		if ctx.Err() != nil {
			log.Info("shutting down")
			return nil
		}
		return err
	}
	st, err := openStore(ctx, cfg.database)
	if err != nil {
		return stopped(err)
	}
	defer func() {
		if cerr := st.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close the database: %w", cerr)
		}
	}()
	gw, err := discord.Open(ctx, string(cfg.token), cfg.apiURL, log)
	if err != nil {
		return stopped(err)
	}
	ready := gw.Ready()
	b := bot.New(gw.REST(), st, cfg.bot, log)
	b.SetSelf(ready.UserID)
	gw.Handle(func(i *discordgo.Interaction, r discord.Responder) { b.Handle(i, r) })
	defer func() {
		b.Close()
		if err := gw.Close(); err != nil {
			log.Warn("closing the gateway connection", "err", err)
		}
	}()

	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = b.Register(rctx, ready.AppID)
	cancel()
	if discord.TokenRejected(err) {
		return discord.ErrTokenRejected
	}
	if err != nil {
		return stopped(err)
	}
	if err := b.Restore(ctx); err != nil {
		return stopped(err)
	}
	scope := "global"
	if cfg.bot.GuildID != "" {
		scope = "guild " + cfg.bot.GuildID
	}
	log.Info("ready", "user", ready.Username, "application", ready.AppID, "commands", scope, "database", cfg.database.kind)
	<-ctx.Done()
	log.Info("shutting down")
	return nil
}

// database is where games are kept, from DATABASE_URL.
type database struct {
	kind   string // "sqlite" or "postgres"
	target string // the SQLite file, or the PostgreSQL URL (a secret: it may hold a password)
}

func (d database) LogValue() slog.Value {
	if d.kind == "postgres" {
		if u, err := url.Parse(d.target); err == nil {
			return slog.GroupValue(slog.String("kind", d.kind), slog.String("url", u.Redacted()))
		}
		return slog.GroupValue(slog.String("kind", d.kind))
	}
	return slog.GroupValue(slog.String("kind", d.kind), slog.String("path", d.target))
}

// defaultDatabase is the SQLite file used when DATABASE_URL is unset.
const defaultDatabase = "data/tttbot.db"

// parseDatabase reads DATABASE_URL: empty → SQLite at defaultDatabase;
// sqlite:PATH or a bare path → SQLite at PATH; postgres:// or
// postgresql:// → PostgreSQL.
func parseDatabase(s string) (database, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return database{"sqlite", defaultDatabase}, nil
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		if _, err := url.Parse(s); err != nil {
			return database{}, errors.New("DATABASE_URL is not a valid postgres:// URL (see .env.example)")
		}
		return database{"postgres", s}, nil
	case strings.HasPrefix(s, "sqlite:"):
		p := strings.TrimPrefix(strings.TrimPrefix(s, "sqlite:"), "//")
		if p == "" {
			return database{}, errors.New("DATABASE_URL sqlite: names no file: write sqlite:PATH, e.g. sqlite:data/tttbot.db")
		}
		return database{"sqlite", p}, nil
	case strings.Contains(s, "://"):
		return database{}, fmt.Errorf("DATABASE_URL: unknown kind of database %q: use a file path, sqlite:PATH or postgres://…", s[:strings.Index(s, "://")])
	}
	return database{"sqlite", s}, nil
}

// gameStore is a store the bot can use and main can close.
type gameStore interface {
	bot.Store
	Close() error
}

func openStore(ctx context.Context, d database) (gameStore, error) {
	if d.kind == "postgres" {
		st, err := store.OpenPostgres(ctx, d.target)
		if err != nil {
			return nil, fmt.Errorf("open the PostgreSQL database of DATABASE_URL: %w", err)
		}
		return st, nil
	}
	st, err := store.OpenSQLite(d.target)
	if err != nil {
		return nil, fmt.Errorf("open the SQLite database %s: %w", d.target, err)
	}
	return st, nil
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
	database database
	bot      bot.Config
}

func (c config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Any("token", c.token),
		slog.String("guild", c.bot.GuildID),
		slog.String("api", c.apiURL),
		slog.Any("database", c.database),
		slog.Duration("challenge_timeout", c.bot.Table.ChallengeTimeout),
		slog.Duration("turn_timeout", c.bot.Table.TurnTimeout),
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
		if err := discord.CheckAPIURL(u); err != nil {
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
	if c.database, err = parseDatabase(getenv("DATABASE_URL")); err != nil {
		return c, err
	}
	if c.bot.Table.ChallengeTimeout, err = duration(getenv, "CHALLENGE_TIMEOUT", c.bot.Table.ChallengeTimeout); err != nil {
		return c, err
	}
	if c.bot.Table.TurnTimeout, err = duration(getenv, "TURN_TIMEOUT", c.bot.Table.TurnTimeout); err != nil {
		return c, err
	}
	c.bot.Table.Seed = mrand.Uint64()
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
