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
	"sync"
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
// PostgreSQL, reached through a proxy that can turn new connections away.
type lockRig struct {
	t      *testing.T
	direct string // the database, not through the proxy
	proxy  *gate
	cfg    config
	logs   logtest.Buffer
	done   chan error
	stop   context.CancelFunc
}

func startLockRig(t *testing.T) *lockRig {
	t.Helper()
	direct := storetest.PostgresURL(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	r := &lockRig{t: t, direct: direct, proxy: newGate(t, u.Host), done: make(chan error, 1)}
	u.Host = r.proxy.addr
	var b [6]byte
	_, _ = rand.Read(b[:])
	srv := discordtest.NewServer("lock-token-" + hex.EncodeToString(b[:])) // a lock of its own
	t.Cleanup(srv.Close)
	r.cfg = testConfig(t, map[string]string{"DISCORD_TOKEN": srv.Token, "DISCORD_API_URL": srv.APIURL,
		"DISCORD_GUILD_ID": srv.NewID(), "DATABASE_URL": u.String(), "METRICS_ADDR": "127.0.0.1:0"})
	r.cfg.lockCheck = 20 * time.Millisecond // how often a retake is tried again
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	go func() { r.done <- serve(ctx, r.cfg, newTestLog(&r.logs)) }()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	r.waitLog("msg=ready")
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

// backend is the pid of the backend that holds the lock (0: none).
func (r *lockRig) backend() int {
	r.t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, r.direct)
	if err != nil {
		r.t.Fatal(err)
	}
	defer c.Close(ctx)
	var pid int
	if err := c.QueryRow(ctx, "SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE application_name = $1", "tttbot lock "+r.name()).Scan(&pid); err != nil {
		r.t.Fatal(err)
	}
	return pid
}

// kill terminates the lock's backend, as a restart or an idle-connection
// killer would, and returns its pid.
func (r *lockRig) kill() int {
	r.t.Helper()
	pid := r.backend()
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
	if pid := r.backend(); pid == 0 || pid == old {
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
	r.proxy.shut(true)
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
	r.proxy.shut(false)
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

// gate is a TCP proxy that can turn new connections away (shut); those
// already open go on.
type gate struct {
	addr string
	shut func(bool)
}

func newGate(t *testing.T, target string) *gate {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var open []net.Conn
	closed, shut := false, false
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		closed = true
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			refuse := shut || closed
			mu.Unlock()
			if refuse {
				c.Close()
				continue
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			if closed {
				c.Close()
				s.Close()
			}
			open = append(open, c, s)
			mu.Unlock()
			wg.Go(func() { io.Copy(s, c); s.Close() })
			wg.Go(func() { io.Copy(c, s); c.Close() })
		}
	})
	return &gate{addr: ln.Addr().String(), shut: func(b bool) {
		mu.Lock()
		shut = b
		mu.Unlock()
	}}
}
