package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/internal/logtest"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/store/storetest"
)

// bots starts and stops serve on one fake Discord and one database.
type bots struct {
	t    *testing.T
	srv  *discordtest.Server
	vars map[string]string
}

// start runs a bot with b's settings and extra on top; it returns a stop
// function once the bot is ready, or serve's error if it ends first.
func (b *bots) start(extra map[string]string) (stop func(), err error) {
	b.t.Helper()
	vars := map[string]string{}
	for k, v := range b.vars {
		vars[k] = v
	}
	for k, v := range extra {
		vars[k] = v
	}
	cfg := testConfig(b.t, vars)
	var logs logtest.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, newTestLog(&logs)) }()
	readyCtx, readyCancel := context.WithCancel(context.Background())
	defer readyCancel()
	go func() {
		select {
		case err = <-done:
			done <- err
			readyCancel()
		case <-readyCtx.Done():
		}
	}()
	wctx, wcancel := context.WithTimeout(readyCtx, 30*time.Second)
	defer wcancel()
	if werr := logs.WaitFor(wctx, "msg=ready"); werr != nil {
		select {
		case err := <-done:
			cancel()
			if err == nil {
				b.t.Fatalf("serve returned nil before it was ready\nlog:\n%s", logs.String())
			}
			return nil, err
		case <-time.After(10 * time.Second):
			cancel()
			b.t.Fatalf("neither ready nor stopped: %v\nlog:\n%s", werr, logs.String())
		}
	}
	return func() {
		cancel()
		if err := <-done; err != nil {
			b.t.Errorf("serve = %v; want nil after a stop", err)
		}
	}, nil
}

// A second process that would connect to the gateway as the same bot
// with the same database is refused with a plain reason; different
// shards run side by side, the same shard twice does not, and HTTP-only
// replicas are not held back.
func TestSecondGatewayProcessRefused(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer("instance-token")
	defer srv.Close()
	b := &bots{t: t, srv: srv, vars: map[string]string{"DISCORD_TOKEN": srv.Token, "DISCORD_API_URL": srv.APIURL,
		"DISCORD_GUILD_ID": srv.NewID(), "DATABASE_URL": t.TempDir() + "/tttbot.db"}}
	refused := func(extra map[string]string, want string) {
		t.Helper()
		stop, err := b.start(extra)
		if err == nil {
			stop()
			t.Errorf("a second gateway process (%v) started; want it refused", extra)
			return
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("a second gateway process (%v): %v; want an error saying %q", extra, err, want)
		}
	}
	first, err := b.start(nil)
	if err != nil {
		t.Fatal(err)
	}
	refused(nil, "another tttbot process is already connected to the gateway as this bot")
	refused(map[string]string{"SHARD_ID": "0", "SHARD_COUNT": "2"}, "without shards")
	replica, err := b.start(map[string]string{"INTERACTIONS_ADDR": "127.0.0.1:0", "DISCORD_PUBLIC_KEY": srv.PublicKey()})
	if err != nil {
		t.Errorf("an HTTP-only replica beside a gateway process: %v; want it running", err)
	} else {
		replica()
	}
	first()

	shard0, err := b.start(map[string]string{"SHARD_ID": "0", "SHARD_COUNT": "2"})
	if err != nil {
		t.Fatal(err)
	}
	defer shard0()
	shard1, err := b.start(map[string]string{"SHARD_ID": "1", "SHARD_COUNT": "2"})
	if err != nil {
		t.Errorf("shard 1 of 2 beside shard 0: %v; want it running", err)
	} else {
		defer shard1()
	}
	refused(map[string]string{"SHARD_ID": "0", "SHARD_COUNT": "2"}, "shard 0 of 2 already runs")
	refused(nil, "already connected to the gateway as this bot")
}

// lockRig runs one bot (serve) with its gateway lock on a real
// PostgreSQL, reached through a proxy that can turn new connections away
// or make open ones silent.
type lockRig struct {
	t      *testing.T
	direct string // the database, not through the proxy
	proxy  *storetest.Proxy
	srv    *discordtest.Server
	guild  string
	cfg    config
	logs   logtest.Buffer
	done   chan error
	stop   context.CancelFunc
}

func startLockRig(t *testing.T) *lockRig {
	t.Helper()
	r := newLockRig(t, nil, nil)
	r.waitLog("msg=ready")
	return r
}

// newLockRig starts serve as startLockRig does, with extra settings on
// top and edit applied to its config, without waiting for it to be ready.
func newLockRig(t *testing.T, extra map[string]string, edit func(*config)) *lockRig {
	t.Helper()
	direct := storetest.PostgresURL(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	r := &lockRig{t: t, direct: direct, proxy: storetest.NewProxy(t, u.Host), done: make(chan error, 1)}
	u.Host = r.proxy.Addr
	var b [6]byte
	_, _ = rand.Read(b[:])
	r.srv = discordtest.NewServer("lock-token-" + hex.EncodeToString(b[:])) // a lock of its own
	r.srv.AckDeadline = time.Minute                                         // the tests hold interactions; a wait bounds a hang only
	t.Cleanup(r.srv.Close)
	r.guild = r.srv.NewID()
	vars := map[string]string{"DISCORD_TOKEN": r.srv.Token, "DISCORD_API_URL": r.srv.APIURL,
		"DISCORD_GUILD_ID": r.guild, "DATABASE_URL": u.String(), "METRICS_ADDR": "127.0.0.1:0"}
	for k, v := range extra {
		vars[k] = v
	}
	r.cfg = testConfig(t, vars)
	r.cfg.lockCheck = 20 * time.Millisecond // how often a retake is tried again, and the lock's connection pinged
	r.cfg.lockHold = time.Minute            // how long an interaction waits for a lost lock: the test's conditions decide
	if edit != nil {
		edit(&r.cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	go func() { r.done <- serve(ctx, r.cfg, newTestLog(&r.logs)) }()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	return r
}

// waitLog waits for a log line saying sub; the wait bounds a hang only.
func (r *lockRig) waitLog(sub string) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.logs.WaitFor(ctx, sub); err != nil {
		r.t.Fatalf("no log line saying %q: %v\nlog:\n%s", sub, err, r.logs.String())
	}
}

// name is the bot's gateway lock.
func (r *lockRig) name() string { return r.cfg.gatewayLocks()[0].name }

// backend is the pid of the backend that holds the lock (0: none), and
// its port as the server sees it (the proxy's side).
func (r *lockRig) backend() (pid, port int) {
	r.t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, r.direct)
	if err != nil {
		r.t.Fatal(err)
	}
	defer c.Close(ctx)
	if err := c.QueryRow(ctx, `SELECT coalesce(max(a.pid), 0), coalesce(max(a.client_port), 0) FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid
		WHERE a.application_name = $1 AND l.locktype = 'advisory' AND l.granted`, "tttbot lock "+r.name()).Scan(&pid, &port); err != nil {
		r.t.Fatal(err)
	}
	return pid, port
}

// kill terminates the lock's backend, as a restart or an idle-connection
// killer would, and returns its pid.
func (r *lockRig) kill() int {
	r.t.Helper()
	pid, _ := r.backend()
	if pid == 0 {
		r.t.Fatal("no backend holds the gateway lock")
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, r.direct)
	if err != nil {
		r.t.Fatal(err)
	}
	defer c.Close(ctx)
	var ok bool
	if err := c.QueryRow(ctx, "SELECT pg_terminate_backend($1)", pid).Scan(&ok); err != nil || !ok {
		r.t.Fatalf("pg_terminate_backend(%d) = %v, %v", pid, ok, err)
	}
	return pid
}

// readyz is the bot's /readyz: its status (0 if it does not answer) and body.
func (r *lockRig) readyz() (int, string) {
	resp, err := http.Get("http://" + logtest.ReadyAddr(r.t, r.logs.String(), "metrics") + "/readyz")
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// waitReadyz waits until /readyz answers 200 (or not, if !ok); the wait
// bounds a hang only.
func (r *lockRig) waitReadyz(ok bool) string {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := r.readyz()
		if (code == http.StatusOK) == ok {
			return body
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("/readyz = %d %q; want ok=%v", code, body, ok)
		}
		time.Sleep(10 * time.Millisecond) // polls; the verdict is the condition's
	}
}

// The PostgreSQL backend holding the gateway lock is terminated: the bot
// says so, takes the lock again on a new connection, and stays ready; a
// second bot is still refused.
func TestGatewayLockTakenAgain(t *testing.T) {
	t.Parallel()
	r := startLockRig(t)
	began := time.Now()
	old := r.kill()
	r.waitLog("the gateway lock's connection to the database was lost")
	r.waitLog("took the gateway lock again")
	t.Logf("the lock was lost and taken again %v after pg_terminate_backend", time.Since(began).Round(time.Millisecond)) // a figure, not a verdict
	if pid, _ := r.backend(); pid == 0 || pid == old {
		t.Errorf("after the retake the lock's backend is %d (the killed one was %d); want a new one", pid, old)
	}
	r.waitReadyz(true)
	l, err := store.LockPostgres(context.Background(), r.direct, r.name(), false, 0)
	if !errors.Is(err, store.ErrLockHeld) {
		l.Close()
		t.Errorf("after the retake, another holder's LockPostgres = %v; want ErrLockHeld", err)
	}
}

// The backend holding the gateway lock is terminated, and another
// process takes the lock before this one can (the database turned new
// connections away for a while): the bot fails /readyz while it tries,
// then stops its gateway connection, says why, and serve ends with that
// reason; /readyz never says ready again.
func TestGatewayLockTakenByAnother(t *testing.T) {
	t.Parallel()
	r := startLockRig(t)
	r.proxy.Shut(true)
	r.kill()
	r.waitLog("the gateway lock's connection to the database was lost")
	if body := r.waitReadyz(false); !strings.Contains(body, "gateway lock") {
		t.Errorf("/readyz while the lock is retaken says %q; want the reason", body)
	}
	other, err := store.LockPostgres(context.Background(), r.direct, r.name(), false, 0)
	if err != nil {
		t.Fatalf("another process taking the lost lock: %v", err)
	}
	defer other.Close()
	r.proxy.Shut(false)
	r.waitLog("another tttbot process took the gateway lock")
	if code, body := r.readyz(); code == http.StatusOK {
		t.Errorf("/readyz after the lock went to another process = 200 %q; want a failure", body)
	}
	select {
	case err := <-r.done:
		r.done <- err
		if err == nil || !strings.Contains(err.Error(), "another tttbot process took the gateway lock") {
			t.Errorf("serve = %v; want the reason it stopped", err)
		}
	case <-time.After(30 * time.Second): // bounds a hang
		t.Fatalf("serve still runs after losing its gateway lock\nlog:\n%s", r.logs.String())
	}
}

// waitLogs waits for a log line saying one of subs, and says which.
func (r *lockRig) waitLogs(subs ...string) string {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds a hang only
	defer cancel()
	found := make(chan string, len(subs))
	for _, sub := range subs {
		go func() {
			if r.logs.WaitFor(ctx, sub) == nil {
				found <- sub
			}
		}()
	}
	select {
	case sub := <-found:
		return sub
	case <-ctx.Done():
		r.t.Fatalf("no log line saying any of %q\nlog:\n%s", subs, r.logs.String())
		return ""
	}
}

// The lock's connection goes silent (a dropped network): the bot loses
// the lock once a ping goes unanswered, but the server keeps the old
// session, and its lock, until TCP keepalive ends it. The bot ends its
// own old session and takes the lock again; it does not take its own
// old session for another process, nor stop.
func TestGatewayLockTakenAgainAfterSilence(t *testing.T) {
	t.Parallel()
	r := startLockRig(t)
	old, port := r.backend()
	if n := r.proxy.Freeze(port); n != 1 {
		t.Fatalf("froze %d connections; want the lock's alone (port %d)", n, port)
	}
	r.waitLog("the gateway lock's connection to the database was lost")
	if got := r.waitLogs("took the gateway lock again", "another tttbot process took the gateway lock"); got != "took the gateway lock again" {
		t.Fatalf("the lock's connection went silent, and the bot said %q: its own old session is no other process\nlog:\n%s", got, r.logs.String())
	}
	if pid, _ := r.backend(); pid == 0 || pid == old {
		t.Errorf("after the retake the lock's backend is %d (the silent one was %d); want a new one", pid, old)
	}
	r.waitReadyz(true)
	l, err := store.LockPostgres(context.Background(), r.direct, r.name(), false, 0)
	if !errors.Is(err, store.ErrLockHeld) {
		l.Close()
		t.Errorf("after the retake, another holder's LockPostgres = %v; want ErrLockHeld", err)
	}
	select {
	case err := <-r.done:
		r.done <- err
		t.Errorf("serve ended after the retake: %v", err)
	default:
	}
}

// While the gateway lock is lost, and may be another process's, an
// interaction that arrives over the gateway waits; once the lock is
// taken again it is answered.
func TestGatewayInteractionWaitsForLostLock(t *testing.T) {
	t.Parallel()
	r := startLockRig(t)
	r.proxy.Shut(true)
	r.kill()
	r.waitLog("the gateway lock's connection to the database was lost")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds a hang only
	defer cancel()
	in := r.srv.SlashCommand(r.guild, r.srv.NewID(), r.srv.NewMember("alice"), "ttt", discordtest.Sub("about"))
	if err := r.srv.Send(ctx, in); err != nil {
		t.Fatal(err)
	}
	answered := make(chan error, 1)
	go func() {
		_, err := in.Response(ctx)
		answered <- err
	}()
	waiting := make(chan error, 1)
	go func() { waiting <- r.logs.WaitFor(ctx, "an interaction waits while the gateway lock is taken again") }()
	select {
	case err := <-answered:
		t.Fatalf("an interaction was answered (%v) while the gateway lock was lost, and another process could have it", err)
	case err := <-waiting:
		if err != nil {
			t.Fatalf("the interaction neither waited nor was answered: %v\nlog:\n%s", err, r.logs.String())
		}
	}
	r.proxy.Shut(false)
	r.waitLog("took the gateway lock again")
	if err := <-answered; err != nil {
		t.Errorf("the interaction that waited for the lock: %v; want it answered once the lock was taken again", err)
	}
}

// hold lets an interaction through at once while every lock is held;
// while one is lost, once it is taken again; not once another process
// took it, nor if the wait runs out.
func TestGatewayLockHold(t *testing.T) {
	ctx := context.Background()
	held := func(g *gatewayLock) chan bool {
		c := make(chan bool, 1)
		go func() { c <- g.hold(ctx) }()
		return c
	}
	g := newGatewayLock(0, time.Hour, nil)
	if !g.hold(ctx) {
		t.Error("hold with every lock held = false; want true")
	}
	g.setLost(+1)
	c := held(g)
	g.setLost(-1)
	if !<-c {
		t.Error("hold while a lock was lost, then taken again = false; want true")
	}
	g.setLost(+1)
	c = held(g)
	g.lose(errors.New("taken"))
	if <-c {
		t.Error("hold while a lock was lost, then taken by another = true; want false")
	}
	if g.hold(ctx) {
		t.Error("hold after another process took the lock = true; want false")
	}
	g = newGatewayLock(0, time.Hour, nil)
	g.lose(errors.New("taken")) // with no lock counted lost
	for range 100 {             // not one chance in two
		if g.hold(ctx) {
			t.Fatal("hold after another process took the lock, none counted lost = true; want false")
		}
	}
	g = newGatewayLock(0, time.Nanosecond, nil)
	g.setLost(+1)
	if g.hold(ctx) {
		t.Error("hold while a lock stays lost past the wait = true; want false")
	}
}

// Another process takes the gateway lock while this one is still trying
// to connect to Discord (which does not answer): the bot gives up
// connecting at once, and serve ends with the reason.
func TestGatewayLockGoneWhileConnecting(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/api/v10/"
	ln.Close() // refuses connections: a Discord that does not answer
	r := newLockRig(t, map[string]string{"DISCORD_API_URL": closed}, func(c *config) {
		c.sleep = func(ctx context.Context, _ time.Duration) error { // waits between tries until stopped
			<-ctx.Done()
			return ctx.Err()
		}
	})
	r.waitLog("cannot connect to Discord; trying again")
	r.proxy.Shut(true)
	r.kill()
	r.waitLog("the gateway lock's connection to the database was lost")
	var other *store.Lock
	for other == nil { // the terminated backend lets the lock go a moment after it says so
		other, err = store.LockPostgres(context.Background(), r.direct, r.name(), false, 0)
		if err != nil && !errors.Is(err, store.ErrLockHeld) {
			t.Fatal(err)
		}
	}
	defer other.Close()
	r.proxy.Shut(false)
	r.waitLog("another tttbot process took the gateway lock")
	select {
	case err := <-r.done:
		r.done <- err
		if err == nil || !strings.Contains(err.Error(), "another tttbot process took the gateway lock") {
			t.Errorf("serve = %v; want the reason it stopped", err)
		}
	case <-time.After(30 * time.Second): // bounds a hang
		t.Fatalf("serve still tries to connect to Discord after another process took its gateway lock\nlog:\n%s", r.logs.String())
	}
}
