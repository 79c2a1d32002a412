// Settings: what run reads from the environment, checked and explained.

package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tttbot/tttbot/bot"
	"github.com/tttbot/tttbot/discord"
)

// settings is the one rule by which every setting is read: the
// environment's value, else the .env file's; an empty (or blank) value
// counts as unset in both. docker run --env-file passes a line "KEY=" as
// an empty variable, which must not hide .env's value, nor mean anything
// but "unset".
func settings(environ func(string) (string, bool), dotenv map[string]string) func(string) string {
	return func(k string) string {
		if v, _ := environ(k); strings.TrimSpace(v) != "" {
			return v
		}
		if v := dotenv[k]; strings.TrimSpace(v) != "" {
			return v
		}
		return ""
	}
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

// where says where the data is, for the ready line: the SQLite file's
// absolute path (a relative one depends on the directory the bot was
// started from), or PostgreSQL's host and database, without user or
// password.
func (d database) where() string {
	if d.kind == "postgres" {
		u, err := url.Parse(d.target)
		if err != nil {
			return "postgres"
		}
		return "postgres://" + u.Host + u.Path
	}
	if abs, err := filepath.Abs(d.target); err == nil {
		return abs
	}
	return d.target
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
	// The live board (package web): served on webAddr when both are set.
	webAddr      string
	clientSecret secret

	sleep      sleeper       // waits between tries to reach Discord at start; nil: a timer
	openWithin time.Duration // how long opening the database may take; 0: defaultOpenWithin
	lockCheck  time.Duration // how often the gateway lock's PostgreSQL connection is pinged; 0: store.DefaultLockCheck
	lockHold   time.Duration // how long a gateway interaction waits for a lost lock; 0: holdWithin

	drainFor      time.Duration // how long the servers answer after SIGTERM; 0: defaultDrain (waited with sleep)
	haltRESTAfter time.Duration // when REST calls stop after SIGTERM; 0: defaultHaltREST
}

// At SIGTERM the servers answer for defaultDrain, then finish what is in
// flight (up to 3 s); REST calls stop at defaultHaltREST; closing the
// gateway takes about a second: all within Docker's 10 s.
const (
	defaultDrain    = 2 * time.Second
	defaultHaltREST = 7 * time.Second
)

func (c config) drainTime() time.Duration {
	if c.drainFor > 0 {
		return c.drainFor
	}
	return defaultDrain
}

// wait is the sleeper of retries and drains: cfg.sleep, or the clock's.
func (c config) wait() sleeper {
	if c.sleep != nil {
		return c.sleep
	}
	return sleep
}

func (c config) haltTime() time.Duration {
	if c.haltRESTAfter > 0 {
		return c.haltRESTAfter
	}
	return defaultHaltREST
}

// defaultOpenWithin bounds the opening of the database (connecting,
// migrating): a PostgreSQL that accepts connections but never answers
// must not hold the bot silently for ever.
const defaultOpenWithin = 30 * time.Second

func (c config) openTimeout() time.Duration {
	if c.openWithin > 0 {
		return c.openWithin
	}
	return defaultOpenWithin
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
		slog.String("web_addr", c.webAddr),
		slog.Any("client_secret", c.clientSecret),
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
		if discord.CheckAPIURL(u) != nil {
			return c, fmt.Errorf("DISCORD_API_URL %q is not an http(s) URL such as https://discord.com/api/v9; leave it unset to use Discord", u)
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
		if _, err := discord.NewEndpoint(c.publicKey, nil, nil); errors.Is(err, discord.ErrBadPublicKey) {
			return c, errors.New("DISCORD_PUBLIC_KEY is not a public key: copy it from the Developer Portal, your application, General Information, Public Key (64 hex digits)")
		} else if err != nil {
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
	if err := webSettings(getenv, &c); err != nil {
		return c, err
	}
	// The way into the live board (Open board, the entry point command)
	// is open only when the bot serves it (WEB_ADDR) and can sign its
	// users in (DISCORD_CLIENT_SECRET): webSettings wants both or none.
	c.bot.Activity = c.webAddr != ""
	c.discord = discord.Options{Token: string(c.token), APIURL: c.apiURL}
	if err := shards(getenv, &c); err != nil {
		return c, err
	}
	return c, nil
}

// webSettings reads WEB_ADDR and DISCORD_CLIENT_SECRET: the live board
// is served when both are set, and neither means anything alone. The
// OAuth2 client id is the application's id, which Discord tells the bot
// when it connects (READY's application, or the bot's user id, the same
// for every application made since 2020), so it is no setting: it cannot
// be mistyped, nor name another application than the token's.
func webSettings(getenv func(string) string, c *config) error {
	c.webAddr = strings.TrimSpace(getenv("WEB_ADDR"))
	c.clientSecret = secret(strings.TrimSpace(getenv("DISCORD_CLIENT_SECRET")))
	switch {
	case c.webAddr != "" && c.clientSecret == "":
		return errors.New("WEB_ADDR is set but DISCORD_CLIENT_SECRET is not: copy the client secret from the Developer Portal, your application, OAuth2, Client Secret (Reset Secret)")
	case c.webAddr == "" && c.clientSecret != "":
		return errors.New("DISCORD_CLIENT_SECRET is set but WEB_ADDR is not: set WEB_ADDR (e.g. :8081) to serve the live board, or remove the secret")
	case c.webAddr != "":
		return checkAddr("WEB_ADDR", c.webAddr)
	}
	return nil
}

// shards reads SHARD_ID and SHARD_COUNT.
func shards(getenv func(string) string, c *config) error {
	id, count := strings.TrimSpace(getenv("SHARD_ID")), strings.TrimSpace(getenv("SHARD_COUNT"))
	switch {
	case count == "" && id == "":
		return nil
	case count == "":
		return shardsError(discord.ErrShardID, id, count)
	case strings.EqualFold(count, "auto"):
		if id != "" { // even 0, which discord cannot tell from unset
			return shardsError(discord.ErrAutoShards, id, count)
		}
		c.discord.AutoShards, c.shardsSet = true, true
		return nil
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 1 { // 0 is discord's unsharded, not a setting
		return shardsError(discord.ErrShardCount, id, count)
	}
	i := 0
	if id != "" {
		if i, err = strconv.Atoi(id); err != nil {
			return shardsError(discord.ErrShardID, id, count)
		}
	} else if n > 1 {
		return fmt.Errorf("SHARD_COUNT is %d but SHARD_ID is not set: say which shard this process runs (0 to %d)", n, n-1)
	}
	o := c.discord
	o.ShardID, o.ShardCount = i, n
	if err := shardsError(o.CheckShards(), id, count); err != nil {
		return err
	}
	c.discord, c.shardsSet = o, true
	return nil
}

// shardsError says in the words of SHARD_ID and SHARD_COUNT, set to id
// and count, what discord's Options.CheckShards found wrong, if anything:
// the one place that names the shard variables in an error. shards also
// gives it discord's errors for what only the variables can get wrong (a
// variable set or not, a number or not).
func shardsError(err error, id, count string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, discord.ErrAutoShards):
		return errors.New("SHARD_ID is set with SHARD_COUNT=auto, which runs every shard in this process: remove SHARD_ID")
	case errors.Is(err, discord.ErrShardCount):
		return fmt.Errorf("SHARD_COUNT %q: want a number of shards (1 or more) or auto", count)
	case errors.Is(err, discord.ErrShardID) && count == "": // a count below 1 is ErrShardCount
		return errors.New("SHARD_ID is set but SHARD_COUNT is not: set both, or SHARD_COUNT=auto to run every shard here")
	case errors.Is(err, discord.ErrShardID):
		n, _ := strconv.Atoi(count)
		return fmt.Errorf("SHARD_ID %q: want a number from 0 to %d (SHARD_COUNT - 1)", id, n-1)
	}
	return err
}

// nameVariables adds to an error of serve that discord says in its own
// words the variable to change.
func nameVariables(err error) error {
	var refused *discord.ShardRefusedError
	switch {
	case errors.Is(err, discord.ErrTokenRejected):
		return fmt.Errorf("%w: check DISCORD_TOKEN (Developer Portal, your application, Bot, Reset Token)", err)
	case errors.As(err, &refused):
		return fmt.Errorf("%w: check SHARD_ID and SHARD_COUNT", err)
	case errors.Is(err, discord.ErrShardingRequired):
		return fmt.Errorf("%w: set SHARD_COUNT (auto runs the recommended number of shards)", err)
	}
	return err
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
