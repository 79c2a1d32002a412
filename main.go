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
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/joho/godotenv"
	"github.com/tttbot/tttbot/bot"
	"github.com/tttbot/tttbot/discord"
	"github.com/tttbot/tttbot/metrics"
	"github.com/tttbot/tttbot/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	setGC(os.Getenv("GOGC"))
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

// gcPercent is the bot's GOGC unless the environment sets one. The bot's
// live heap is small (about 15 MB under load) and every answer allocates:
// at Go's default of 100 the collector ran often enough to take a tenth of
// the CPU of each interaction under load (measured with cmd/tttload: 400
// answered 10–20 % more interactions a second on two cores, for about
// 60 MB more memory). GOGC=100 gives back the default.
const gcPercent = 400

// setGC sets the collector's target to gcPercent when GOGC, the
// environment's value, is empty: an operator's GOGC (or GOMEMLIMIT, which
// the runtime reads itself) wins.
func setGC(gogc string) {
	if gogc == "" {
		debug.SetGCPercent(gcPercent)
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
  INTERACTIONS_ADDR  optional: serve Discord's interactions endpoint URL
                     (POST /interactions) on this address, e.g. :8080; the
                     bot then needs no gateway connection
  DISCORD_PUBLIC_KEY with INTERACTIONS_ADDR: the application's public key
                     (Developer Portal, General Information)
  SHARD_ID           optional: run this gateway shard of SHARD_COUNT
  SHARD_COUNT        optional: the number of shards, or auto to run every
                     shard Discord recommends in this process
  METRICS_ADDR       optional: serve /healthz, /readyz and /metrics
                     (Prometheus) on this address, e.g. :9090

  tttbot -healthcheck asks the running bot's /readyz on METRICS_ADDR and
  exits 0 if it is ready (for Docker's HEALTHCHECK).
`

// run is the whole program; main only supplies the process's context,
// arguments, environment and output.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("tttbot", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() { fmt.Fprint(stderr, usage) }
	version := fl.Bool("version", false, "print the version and exit")
	healthcheck := fl.Bool("healthcheck", false, "check the running bot's /readyz on METRICS_ADDR")
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
	if *healthcheck {
		return checkHealth(ctx, getenv("METRICS_ADDR"), stdout)
	}

	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.logLevel}))
	log.Debug("configuration", "config", cfg)
	return serve(ctx, cfg, log)
}

// serve opens the store, connects to Discord (the gateway, the HTTP
// endpoint, or both), registers the commands, restores the running games,
// and answers interactions until ctx ends. A ctx that ends at any point of
// that is a clean stop, not an error.
func serve(ctx context.Context, cfg config, log *slog.Logger) (err error) {
	stopped := func(err error) error {
		if ctx.Err() != nil {
			log.Info("shutting down")
			return nil
		}
		return err
	}
	var servers []*http.Server
	defer func() { shutdown(servers, log) }()
	st, err := openStore(ctx, cfg.database)
	if err != nil {
		return stopped(err)
	}
	defer func() {
		if cerr := st.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close the database: %w", cerr)
		}
	}()

	// Listen before connecting, so that a taken port is a clear error
	// at once; until the bot is ready the endpoint says it is starting.
	var endpoint *discord.Endpoint
	var ready atomic.Bool
	var listening []any // for the ready line: what serves where
	if cfg.interactionsAddr != "" {
		if endpoint, err = discord.NewEndpoint(cfg.publicKey, log, nil); err != nil {
			return err
		}
		mux := http.NewServeMux()
		mux.Handle("/interactions", endpoint)
		srv, addr, err := listen(cfg.interactionsAddr, "INTERACTIONS_ADDR", mux, log)
		if err != nil {
			return err
		}
		servers = append(servers, srv)
		listening = append(listening, "interactions", addr)
	}

	// The operator's endpoints come up first: /healthz answers, and
	// /readyz says "starting" until the bot is ready.
	counters := new(discord.Counters)
	var gw *discord.Gateway // set before ready, read by Ready only after it
	m := metrics.New(metrics.Sources{
		ActiveGames:  st.CountRunning,
		Reconnects:   counters.Reconnects.Load,
		RateLimited:  counters.RateLimited.Load,
		ServerErrors: counters.ServerErrors.Load,
		Ready: func(ctx context.Context) error {
			switch {
			case !ready.Load():
				return errors.New("starting")
			case gw != nil && !gw.Connected():
				return errors.New("the gateway is not connected")
			}
			return st.Ping(ctx)
		},
	})
	if cfg.metricsAddr != "" {
		srv, addr, err := listen(cfg.metricsAddr, "METRICS_ADDR", m.Handler(), log)
		if err != nil {
			return err
		}
		servers = append(servers, srv)
		listening = append(listening, "metrics", addr)
	}

	opts := cfg.discord
	opts.Log, opts.Counters = log, counters
	var rest discord.REST
	var me discord.Ready
	if cfg.useGateway() {
		if gw, err = discord.OpenWith(ctx, opts); err != nil {
			return stopped(err)
		}
		defer func() {
			if err := gw.Close(); err != nil {
				log.Warn("closing the gateway connection", "err", err)
			}
		}()
		rest, me = gw.REST(), gw.Ready()
		m.WatchGateway(gw)
	} else {
		if rest, me, err = discord.Login(ctx, opts); err != nil {
			return stopped(err)
		}
	}

	botCfg := cfg.bot
	botCfg.Meter = m
	botCfg.About = bot.About{Version: buildVersion(), Servers: rest.GuildCount}
	if gw != nil {
		botCfg.About.Latency = gw.HeartbeatLatency
	}
	b := bot.New(rest, st, botCfg, log)
	b.SetSelf(me.UserID)
	handle := func(i *discordgo.Interaction, r discord.Responder) { b.Handle(i, r) }
	if gw != nil {
		gw.Handle(handle)
	}
	// The bot closes after the servers have stopped taking interactions
	// (deferred calls run in reverse).
	defer b.Close()

	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = b.Register(rctx, me.AppID)
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
	if endpoint != nil {
		endpoint.Handle(handle)
	}
	ready.Store(true)
	scope := "global"
	if cfg.bot.GuildID != "" {
		scope = "guild " + cfg.bot.GuildID
	}
	attrs := []any{"user", me.Username, "application", me.AppID, "commands", scope, "database", cfg.database.kind}
	if gw != nil {
		attrs = append(attrs, "shards", gw.Shards())
	}
	log.Info("ready", append(attrs, listening...)...)
	<-ctx.Done()
	log.Info("shutting down")
	shutdown(servers, log)
	servers = nil
	return nil
}

// listen serves h on addr, named by the variable it came from, and
// returns the address it listens on (addr with the port chosen, if it
// asked for port 0).
func listen(addr, variable string, h http.Handler, log *slog.Logger) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: %w", variable, addr, err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("serving "+variable, "err", err)
		}
	}()
	return srv, ln.Addr().String(), nil
}

// shutdown stops the servers, letting requests in flight finish.
func shutdown(servers []*http.Server, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range servers {
		if err := srv.Shutdown(ctx); err != nil {
			log.Warn("stopping an HTTP server", "err", err)
		}
	}
}

// checkHealth asks the bot's /readyz on addr (METRICS_ADDR).
func checkHealth(ctx context.Context, addr string, stdout io.Writer) error {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return errors.New("METRICS_ADDR is not set, so the bot serves no /readyz to check")
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("METRICS_ADDR %q: want host:port or :port", addr)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s", strings.TrimSpace(string(body)))
	}
	fmt.Fprint(stdout, string(body))
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

// gameStore is a store the bot can use and main can close, ping and ask
// for the number of running games.
type gameStore interface {
	bot.Store
	CountRunning(ctx context.Context) (int, error)
	Ping(ctx context.Context) error
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

	discord          discord.Options // token, API URL and shards
	shardsSet        bool            // SHARD_COUNT was given
	interactionsAddr string
	publicKey        string
	metricsAddr      string
}

// useGateway says whether the bot connects to the gateway: always, unless
// it serves the HTTP endpoint, which then brings every interaction; with
// both, SHARD_COUNT asks for the gateway too.
func (c config) useGateway() bool { return c.interactionsAddr == "" || c.shardsSet }

func (c config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Any("token", c.token),
		slog.String("guild", c.bot.GuildID),
		slog.String("api", c.apiURL),
		slog.Any("database", c.database),
		slog.Duration("challenge_timeout", c.bot.Table.ChallengeTimeout),
		slog.Duration("turn_timeout", c.bot.Table.TurnTimeout),
		slog.Int("shard_id", c.discord.ShardID),
		slog.Int("shard_count", c.discord.ShardCount),
		slog.Bool("auto_shards", c.discord.AutoShards),
		slog.String("interactions_addr", c.interactionsAddr),
		slog.String("metrics_addr", c.metricsAddr),
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

	c.interactionsAddr = strings.TrimSpace(getenv("INTERACTIONS_ADDR"))
	c.publicKey = strings.TrimSpace(getenv("DISCORD_PUBLIC_KEY"))
	switch {
	case c.interactionsAddr != "" && c.publicKey == "":
		return c, errors.New("INTERACTIONS_ADDR is set but DISCORD_PUBLIC_KEY is not: copy the public key from the Developer Portal, your application, General Information")
	case c.interactionsAddr == "" && c.publicKey != "":
		return c, errors.New("DISCORD_PUBLIC_KEY is set but INTERACTIONS_ADDR is not: set INTERACTIONS_ADDR (e.g. :8080) to serve the interactions endpoint, or remove the key")
	case c.interactionsAddr != "":
		if _, err := discord.NewEndpoint(c.publicKey, nil, nil); err != nil {
			return c, err
		}
		if err := checkAddr("INTERACTIONS_ADDR", c.interactionsAddr); err != nil {
			return c, err
		}
	}
	if c.metricsAddr = strings.TrimSpace(getenv("METRICS_ADDR")); c.metricsAddr != "" {
		if err := checkAddr("METRICS_ADDR", c.metricsAddr); err != nil {
			return c, err
		}
	}
	c.discord = discord.Options{Token: string(c.token), APIURL: c.apiURL}
	if err := shards(getenv, &c); err != nil {
		return c, err
	}
	return c, nil
}

// shards reads SHARD_ID and SHARD_COUNT.
func shards(getenv func(string) string, c *config) error {
	id, count := strings.TrimSpace(getenv("SHARD_ID")), strings.TrimSpace(getenv("SHARD_COUNT"))
	switch {
	case count == "" && id == "":
		return nil
	case count == "":
		return errors.New("SHARD_ID is set but SHARD_COUNT is not: set both, or SHARD_COUNT=auto to run every shard here")
	case strings.EqualFold(count, "auto"):
		if id != "" {
			return errors.New("SHARD_ID is set with SHARD_COUNT=auto, which runs every shard in this process: remove SHARD_ID")
		}
		c.discord.AutoShards, c.shardsSet = true, true
		return nil
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 1 {
		return fmt.Errorf("SHARD_COUNT %q: want a number of shards (1 or more) or auto", count)
	}
	i := 0
	if id != "" {
		if i, err = strconv.Atoi(id); err != nil || i < 0 || i >= n {
			return fmt.Errorf("SHARD_ID %q: want a number from 0 to %d (SHARD_COUNT - 1)", id, n-1)
		}
	} else if n > 1 {
		return fmt.Errorf("SHARD_COUNT is %d but SHARD_ID is not set: say which shard this process runs (0 to %d)", n, n-1)
	}
	c.discord.ShardID, c.discord.ShardCount, c.shardsSet = i, n, true
	return nil
}

// checkAddr says what is wrong with a listen address, if anything.
func checkAddr(variable, addr string) error {
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
		return fmt.Errorf("%s %q: want host:port or :port, e.g. :8080", variable, addr)
	}
	return nil
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
