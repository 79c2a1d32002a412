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
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/joho/godotenv"
	"github.com/tttbot/tttbot/bot"
	"github.com/tttbot/tttbot/discord"
	"github.com/tttbot/tttbot/metrics"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/web"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go tuneGC(ctx, os.Getenv("GOGC"))
	dotenv, err := readDotenv(".env")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tttbot:", err)
		os.Exit(1)
	}
	if err := run(ctx, os.Args[1:], settings(os.LookupEnv, dotenv), os.Stdout, os.Stderr); err != nil {
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

Usage: tttbot [-version | -healthcheck | -backup FILE]

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
  WEB_ADDR           optional: serve the live board (the game as a Discord
                     Activity) on this address, e.g. :8081
  DISCORD_CLIENT_SECRET with WEB_ADDR: the application's OAuth2 client
                     secret (Developer Portal, OAuth2)

  tttbot -healthcheck asks the running bot's /readyz on METRICS_ADDR and
  exits 0 if it is ready (for Docker's HEALTHCHECK).

  tttbot -backup FILE copies the SQLite database of DATABASE_URL into the
  new file FILE, consistently, while the bot runs (PostgreSQL: pg_dump).
`

// run is the whole program; main only supplies the process's context,
// arguments, environment and output.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("tttbot", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() { fmt.Fprint(stderr, usage) }
	version := fl.Bool("version", false, "print the version and exit")
	healthcheck := fl.Bool("healthcheck", false, "check the running bot's /readyz on METRICS_ADDR")
	backup := fl.String("backup", "", "copy the SQLite database of DATABASE_URL into this new file, while the bot runs")
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
	if *backup != "" {
		return backupTo(ctx, getenv("DATABASE_URL"), *backup, stdout)
	}

	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.logLevel}))
	log.Debug("configuration", "config", cfg)
	return nameVariables(serve(ctx, cfg, log))
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
	log.Info("starting", "version", buildVersion(), "database", cfg.database.where())
	var servers []*server
	defer func() { shutdown(servers, log) }()
	var drains []*drainer // the servers' handlers, told when the bot drains
	restCtx, haltREST := context.WithCancel(context.Background())
	defer haltREST()

	// The operator's endpoints come up first, before the database is
	// opened: /healthz answers at once, and /readyz says what the bot is
	// still doing until it is ready.
	var phase atomic.Pointer[string] // what start-up is doing; nil once ready
	setPhase := func(s string) { phase.Store(&s) }
	setPhase("starting: opening the database")
	var st watchedStore
	var stores bot.Stores  // what the bot keeps in st
	var opened atomic.Bool // st is set
	counters := new(discord.Counters)
	var gw *discord.Gateway // set before ready, read by Ready only after it
	locks := newGatewayLock(cfg.lockCheck, cfg.lockHold, log)
	m := metrics.New(metrics.Sources{
		ActiveGames: func(ctx context.Context) (int, error) {
			if !opened.Load() {
				return 0, errors.New("the database is not open yet")
			}
			return st.CountRunning(ctx)
		},
		Reconnects:   counters.Reconnects.Load,
		RateLimited:  counters.RateLimited.Load,
		ServerErrors: counters.ServerErrors.Load,
		Ready: func(ctx context.Context) error {
			if p := phase.Load(); p != nil {
				return errors.New(*p)
			}
			if err := locks.Err(); err != nil {
				return err
			}
			if gw != nil && !gw.Connected() {
				return errors.New("the gateway is not connected")
			}
			return st.Ping(ctx)
		},
	})
	var listening []any // for the ready line: what serves where
	if cfg.metricsAddr != "" {
		d := &drainer{h: m.Handler()}
		drains = append(drains, d)
		srv, addr, err := listen(cfg.metricsAddr, "METRICS_ADDR", d, maxConnections, log)
		if err != nil {
			return err
		}
		servers = append(servers, srv)
		listening = append(listening, "metrics", addr)
		log.Info("serving /healthz, /readyz and /metrics", "metrics", addr)
	}

	octx, cancel := context.WithTimeout(ctx, cfg.openTimeout())
	stores, st, err = openStore(octx, cfg.database, store.Observe(m.StoreCall))
	cancel()
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("the database %s did not answer within %s: check that it is running and that DATABASE_URL names it", cfg.database.where(), cfg.openTimeout())
		}
		return stopped(err)
	}
	opened.Store(true)
	defer func() {
		if cerr := st.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close the database: %w", cerr)
		}
	}()

	// Listen before connecting, so that a taken port is a clear error
	// at once; until the bot is ready the endpoint says it is starting.
	var endpoint *discord.Endpoint
	if cfg.interactionsAddr != "" {
		if endpoint, err = discord.NewEndpoint(cfg.publicKey, log, nil); err != nil {
			return err
		}
		d := &drainer{h: interactionsMux(endpoint)}
		drains = append(drains, d)
		srv, addr, err := listen(cfg.interactionsAddr, "INTERACTIONS_ADDR", d, maxConnections, log)
		if err != nil {
			return err
		}
		servers = append(servers, srv)
		listening = append(listening, "interactions", addr)
	}

	// The live board listens now too; it serves once the bot is ready.
	var board *liveBoard
	if cfg.webAddr != "" {
		if board, err = newLiveBoard(); err != nil {
			return err
		}
		d := &drainer{h: board}
		drains = append(drains, d)
		// Each page holds a connection (its socket) besides the
		// requests of pages loading.
		srv, addr, err := listen(cfg.webAddr, "WEB_ADDR", d, web.DefaultLimits.Total+maxConnections, log)
		if err != nil {
			return err
		}
		servers = append(servers, srv)
		listening = append(listening, "web", addr)
		defer board.close()
	}

	if cfg.useGateway() {
		lctx, cancel := context.WithTimeout(ctx, cfg.openTimeout())
		err := locks.take(lctx, cfg)
		cancel()
		if err != nil {
			return stopped(err)
		}
		defer locks.release()
		locks.watch(ctx, cfg, log)
	}

	setPhase("starting: connecting to Discord")
	opts := cfg.discord
	opts.Log, opts.Counters, opts.Halt = log, counters, restCtx
	var rest discord.REST
	var me discord.Ready
	if cfg.useGateway() {
		// Connecting (and its retries) stops if another process takes
		// the gateway lock meanwhile.
		octx, stopOpen := context.WithCancel(ctx)
		go func() {
			select {
			case <-locks.Gone():
				stopOpen()
			case <-octx.Done():
			}
		}()
		err = retryStart(octx, cfg.wait(), log, "connect to Discord", func() (err error) {
			gw, err = discord.OpenWith(octx, opts)
			return err
		})
		stopOpen()
		if gone := locks.goneCause(); gone != nil {
			if err == nil {
				_ = gw.Close()
			}
			return gone
		}
		if err != nil {
			return stopped(err)
		}
		closeGateway := sync.OnceFunc(func() {
			if err := gw.Close(); err != nil {
				log.Warn("closing the gateway connection", "err", err)
			}
		})
		defer closeGateway()
		go func() { // another process took the gateway lock: it answers now
			select {
			case <-locks.Gone():
				closeGateway()
			case <-ctx.Done():
			}
		}()
		rest, me = gw.REST(), gw.Ready()
		m.WatchGateway(gw)
	} else {
		err = retryStart(ctx, cfg.wait(), log, "reach Discord", func() (err error) {
			rest, me, err = discord.Login(ctx, opts)
			return err
		})
		if err != nil {
			return stopped(err)
		}
	}

	botCfg := cfg.bot
	botCfg.Meter = m
	botCfg.About = bot.About{Version: buildVersion(), Servers: rest.GuildCount}
	if gw != nil {
		botCfg.About.Latency = gw.HeartbeatLatency
	}
	b := bot.New(rest, stores, botCfg, log)
	b.SetSelf(me.UserID)
	handle := func(i *discordgo.Interaction, r discord.Responder) { b.Handle(i, r) }
	if gw != nil {
		gw.Handle(func(i *discordgo.Interaction, r discord.Responder) {
			// Not while the lock is lost and may be another process's,
			// which then answers it; nor once another process took it.
			if locks.hold(ctx) {
				handle(i, r)
			}
		})
	}
	// The bot closes after the servers have stopped taking interactions
	// (deferred calls run in reverse).
	defer b.Close()

	setPhase("starting: registering the commands")
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = b.Register(rctx, me.AppID)
	cancel()
	if discord.TokenRejected(err) {
		return discord.ErrTokenRejected
	}
	if err != nil {
		return stopped(rest.UsedURL(err))
	}
	setPhase("starting: restoring the running games")
	if err := b.Restore(ctx); err != nil {
		return stopped(err)
	}
	if endpoint != nil {
		endpoint.Handle(handle)
	}
	if board != nil {
		if err := board.start(ctx, cfg, b, st, me.AppID, log); err != nil {
			return stopped(err)
		}
	}
	phase.Store(nil)
	scope := "global"
	if cfg.bot.GuildID != "" {
		scope = "guild " + cfg.bot.GuildID
	}
	attrs := []any{"user", me.Username, "application", me.AppID, "commands", scope, "database", cfg.database.where()}
	if gw != nil {
		attrs = append(attrs, "shards", gw.Shards())
	}
	attrs = append(attrs, listening...)
	log.Info("ready", append(attrs, "invite", bot.InviteURL(me.AppID))...)
	var gone error // another process took the gateway lock
	select {
	case <-ctx.Done():
	case <-locks.Gone():
		gone = locks.goneCause()
	}

	// Drain: /readyz fails at once, so that a load balancer stops sending
	// here; for a while the servers still answer what arrives (a request
	// already on its way on a kept-alive connection, a connection already
	// queued), each answer closing its connection; then they stop taking
	// connections (those whose handshake is done are still taken, on
	// Linux where the socket filter of refuseHandshakes attaches; where
	// it does not, a warning at start-up says so, and those still queued
	// when the listener closes are reset) and
	// finish every request read or on its way, and only then close
	// the idle connections (server.stop). REST calls (answers
	// over the gateway, edits, follow-ups) may run until restWithin after
	// the signal, then fail at once, so that a stalled Discord cannot hold
	// the bot past Docker's 10 s.
	setPhase("shutting down")
	log.Info("shutting down")
	// Not stopped: the deferred closes below (the bot's background work
	// first) run under it.
	time.AfterFunc(cfg.haltTime(), haltREST)
	for _, d := range drains {
		d.draining.Store(true)
	}
	if board != nil {
		// The pages come back, to another replica or to this one
		// restarted (their sockets are hijacked: the servers' stop
		// does not close them).
		board.close()
	}
	if endpoint != nil { // only the endpoint gets interactions over HTTP
		_ = cfg.wait()(context.Background(), cfg.drainTime())
	}
	shutdown(servers, log)
	servers = nil
	return gone
}

// drainer serves h; once draining is set, every answer asks the client to
// close its connection, so that none is left idle to be cut.
type drainer struct {
	h        http.Handler
	draining atomic.Bool
}

func (d *drainer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if d.draining.Load() {
		w.Header().Set("Connection", "close")
	}
	d.h.ServeHTTP(w, r)
}

// interactionsMux serves endpoint on /interactions and refuses every
// other path with 404, closing the connection: the interactions server
// keeps open only what Discord uses.
func interactionsMux(endpoint http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/interactions", endpoint)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		http.NotFound(w, r)
	})
	return mux
}

// maxHeaderBytes bounds the request headers the servers read (Go's
// default is 1 MB): Discord's and a Prometheus scraper's are well under
// 1 KiB, and a flood of connections sending megabyte headers must not
// cost a megabyte each. net/http reads 4096 bytes beyond MaxHeaderBytes
// before it refuses, so a request line and headers of more than 16 KiB
// in all get 431.
const maxHeaderBytes = 16<<10 - 4096

// maxConnections bounds the connections each server holds open at once
// (each costs a goroutine and its buffers, some 20 KiB): at the cap, an
// idle kept-alive connection is closed to take a new one; without any,
// more wait in the kernel's queue until one closes.
const maxConnections = 1024

// handshakeChecked makes checkHandshakeFilter log once.
var handshakeChecked sync.Once

// checkHandshakeFilter logs, once, at the first listen, if the socket
// filter that keeps SIGTERM from resetting queued connections cannot be
// attached here (refuseHandshakes).
func checkHandshakeFilter(log *slog.Logger) {
	handshakeChecked.Do(func() {
		if err := handshakeFilter(); err != nil {
			log.Warn("the socket filter that refuses new connections at SIGTERM cannot be attached; at SIGTERM, connections the kernel has queued but the bot not yet taken may be reset", "err", err)
		}
	})
}

// A server is an HTTP server with what its shutdown needs: its listener,
// and which of its connections are reading or answering a request.
type server struct {
	*http.Server
	ln    *limitedListener
	conns connStates
}

// listen serves h on addr, named by the variable it came from, holding at
// most limit connections at once, and returns the address it listens on
// (addr with the port chosen, if it asked for port 0).
func listen(addr, variable string, h http.Handler, limit int, log *slog.Logger) (*server, string, error) {
	// Plain TCP, not Multipath TCP (Go's default for listeners since
	// 1.24): stopping gracefully needs a socket filter (refuseHandshakes),
	// which MPTCP sockets do not take.
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	ln, err := lc.Listen(context.Background(), "tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: %w", variable, addr, err)
	}
	checkHandshakeFilter(log)
	srv := &server{ln: limitListener(ln, limit)}
	srv.ln.full = srv.conns.closeIdle
	srv.Server = &http.Server{
		Handler:           h,
		MaxHeaderBytes:    maxHeaderBytes,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ConnState:         srv.conns.set,
	}
	go func() {
		err := srv.Serve(srv.ln)
		if err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			log.Error("serving "+variable, "err", err)
		}
	}()
	return srv, ln.Addr().String(), nil
}

// stop stops s gracefully: it stops accepting connections (taking those
// whose handshake is done: limitedListener.stop), lets every
// connection that is reading or answering a request finish (during the
// drain each answer closes its connection), and only then shuts the
// server down, which closes the idle connections. (http.Server.Shutdown
// alone would drop the requests read after it began: a connection
// accepted just before, whose request was on its way, would be closed
// without an answer.) ctx bounds the wait.
func (s *server) stop(ctx context.Context) error {
	s.ln.stop(ctx)
	s.conns.waitIdle(ctx)
	return s.Shutdown(ctx)
}

// closeIdle closes the connection idle the longest, if one is, to free
// its slot for a new connection.
func (cs *connStates) closeIdle() {
	cs.mu.Lock()
	var oldest net.Conn
	var since time.Time
	for c, at := range cs.idle {
		if oldest == nil || at.Before(since) {
			oldest, since = c, at
		}
	}
	delete(cs.idle, oldest)
	cs.mu.Unlock()
	if oldest != nil {
		_ = oldest.Close()
	}
}

// connStates tracks which connections of a server are busy: reading or
// answering a request. A connection that has sent nothing yet is not
// busy (one silent connection must not hold the stop for its whole
// budget); Shutdown lets it send its request for a while, and answers it.
// The zero value is ready to use; it is safe for concurrent use.
type connStates struct {
	mu   sync.Mutex
	busy map[net.Conn]bool
	idle map[net.Conn]time.Time // kept alive between requests, since when
}

// set is the server's ConnState hook.
func (cs *connStates) set(c net.Conn, st http.ConnState) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	delete(cs.idle, c)
	if st == http.StateIdle {
		if cs.idle == nil {
			cs.idle = make(map[net.Conn]time.Time)
		}
		cs.idle[c] = time.Now()
	}
	if st == http.StateActive {
		if cs.busy == nil {
			cs.busy = make(map[net.Conn]bool)
		}
		cs.busy[c] = true
		return
	}
	delete(cs.busy, c)
}

// waitIdle returns once no connection is busy, or ctx is done.
func (cs *connStates) waitIdle(ctx context.Context) {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		cs.mu.Lock()
		n := len(cs.busy)
		cs.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
	}
}

// limitListener returns a listener that holds at most n of ln's
// connections open at once: Accept waits for one to close first.
func limitListener(ln net.Listener, n int) *limitedListener {
	return &limitedListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

type limitedListener struct {
	net.Listener
	slots     chan struct{} // one per connection open
	done      chan struct{} // closed by Close
	closeOnce sync.Once
	stopping  atomic.Bool // stop began: a timeout of Accept closes the listener
	// full, if set, is called when no slot is free, to free one (an
	// idle connection closed).
	full func()
}

// acceptLast is how long, once stop began, Accept waits for a
// connection whose handshake is done, counted from when a slot is free
// for it: the queue is empty when none comes within it.
const acceptLast = 50 * time.Millisecond

func (l *limitedListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		if l.full != nil && !l.stopping.Load() {
			l.full()
		}
		select {
		case l.slots <- struct{}{}:
		case <-l.done:
			return nil, net.ErrClosed
		}
	}
	if l.stopping.Load() {
		// Each connection still queued gets its own acceptLast, counted
		// from when a slot is free for it: one taken after a long
		// request is not reset.
		if tl, ok := l.Listener.(*net.TCPListener); ok {
			_ = tl.SetDeadline(time.Now().Add(acceptLast))
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		if ne, ok := err.(net.Error); ok && ne.Timeout() && l.stopping.Load() {
			_ = l.Close()
			return nil, net.ErrClosed
		}
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
}

// stop stops taking connections without resetting any whose handshake
// is done: new handshakes are refused (refuseHandshakes), Accept takes
// the connections already queued, and the listener closes once the
// queue is empty (Accept times out) or ctx is done.
func (l *limitedListener) stop(ctx context.Context) {
	tl, ok := l.Listener.(*net.TCPListener)
	if !ok {
		_ = l.Close()
		return
	}
	_ = refuseHandshakes(tl) // checked at start-up (checkHandshakeFilter)
	l.stopping.Store(true)
	if err := tl.SetDeadline(time.Now().Add(acceptLast)); err != nil {
		_ = l.Close()
		return
	}
	select {
	case <-l.done:
	case <-ctx.Done():
		_ = l.Close()
	}
}

// Close closes the listener; closing it again does nothing.
func (l *limitedListener) Close() (err error) {
	l.closeOnce.Do(func() {
		close(l.done)
		err = l.Listener.Close()
	})
	return err
}

// limitedConn gives its slot back once, when it is first closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// shutdown stops the servers at once, each letting its requests in
// flight finish for up to 3 s of its own (Discord waits no longer for an
// answer), so that one server's slow connection does not use another's
// time; the last listed (the interactions server, listened last) begins
// first.
func shutdown(servers []*server, log *slog.Logger) {
	var wg sync.WaitGroup
	for k := len(servers) - 1; k >= 0; k-- {
		srv := servers[k]
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), stopWithin)
			defer cancel()
			if err := srv.stop(ctx); err != nil {
				log.Warn("stopping an HTTP server", "err", err)
			}
		}()
	}
	wg.Wait()
}

// stopWithin is each server's budget for stopping.
var stopWithin = 3 * time.Second

// backupTo copies the SQLite database that databaseURL (DATABASE_URL)
// names into the new file dst, consistently, while a bot may be using it.
func backupTo(ctx context.Context, databaseURL, dst string, stdout io.Writer) error {
	d, err := parseDatabase(databaseURL)
	if err != nil {
		return err
	}
	if d.kind == "postgres" {
		return fmt.Errorf("DATABASE_URL names PostgreSQL (%s): back it up with pg_dump, e.g. pg_dump -Fc -f tttbot.dump \"$DATABASE_URL\", and restore with pg_restore", d.where())
	}
	if err := store.BackupSQLite(ctx, d.target, dst); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s\n", d.where(), dst)
	return nil
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

// watchedStore is what main asks of the store for the operator: the number
// of running games, whether it answers, and to close.
type watchedStore interface {
	CountRunning(ctx context.Context) (int, error)
	Ping(ctx context.Context) error
	Close() error
}

// openStore opens the database: what the bot keeps there, and what main
// watches and closes.
func openStore(ctx context.Context, d database, opts ...store.Option) (bot.Stores, watchedStore, error) {
	if d.kind == "postgres" {
		st, err := store.OpenPostgres(ctx, d.target, opts...)
		if err != nil {
			return bot.Stores{}, nil, fmt.Errorf("open the PostgreSQL database of DATABASE_URL: %w", err)
		}
		return bot.StoresOf(st), st, nil
	}
	st, err := store.OpenSQLite(d.target, opts...)
	if err != nil {
		return bot.Stores{}, nil, fmt.Errorf("open the SQLite database %s: %w", d.target, err)
	}
	return bot.StoresOf(st), st, nil
}

// version is the release the binary was built as, stamped by the build:
// go build -ldflags "-X main.version=v1.2.3" (the Dockerfile passes its
// VERSION build argument). Docker builds have no .git, so without the
// stamp Go's build information says only "(devel)".
var version string

// buildVersion is the stamped version, else the module version the binary
// was built from and its VCS revision, or "(devel)".
func buildVersion() string {
	if version != "" {
		return version
	}
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
