package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/internal/logtest"
)

// testConfig is the configuration loadConfig makes of vars, with a fresh
// SQLite file unless vars name a database.
func testConfig(t *testing.T, vars map[string]string) config {
	t.Helper()
	if vars["DATABASE_URL"] == "" {
		vars["DATABASE_URL"] = t.TempDir() + "/tttbot.db"
	}
	cfg, err := loadConfig(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// A Discord that cannot be reached at start is tried again, with a
// growing pause and one log line per try, for a minute or two; then the
// bot gives up with an error naming the URL it tried.
func TestStartRetriesThenGivesUp(t *testing.T) {
	t.Parallel()
	for _, transport := range []map[string]string{
		{},
		{"INTERACTIONS_ADDR": "127.0.0.1:0", "DISCORD_PUBLIC_KEY": strings.Repeat("0", 64)},
	} {
		api := "http://" + closedPort(t) + "/api/v9"
		vars := map[string]string{"DISCORD_TOKEN": "t", "DISCORD_API_URL": api}
		for k, v := range transport {
			vars[k] = v
		}
		cfg := testConfig(t, vars)
		var slept []time.Duration
		cfg.sleep = func(_ context.Context, d time.Duration) error {
			slept = append(slept, d)
			return nil
		}
		var logs logtest.Buffer
		err := serve(context.Background(), cfg, newTestLog(&logs))
		if err == nil || !strings.Contains(err.Error(), api) || !strings.Contains(err.Error(), "gave up after") {
			t.Fatalf("serve with Discord unreachable = %v; want an error naming %s that says it gave up", err, api)
		}
		var total time.Duration
		for i, d := range slept {
			total += d
			if i > 0 && d < slept[i-1] {
				t.Errorf("pauses %v: want each at least as long as the one before", slept)
			}
		}
		if len(slept) < 4 || total < time.Minute || total > 2*time.Minute {
			t.Errorf("paused %d times, %v in all (%v); want several pauses over 1 to 2 minutes", len(slept), total, slept)
		}
		if n := strings.Count(logs.String(), "trying again"); n != len(slept) {
			t.Errorf("%d log lines say it tries again after %d pauses; want one per pause\n%s", n, len(slept), logs.String())
		}
	}
}

// A Discord that comes back while the bot waits to try again is used:
// the bot starts as if nothing had happened.
func TestStartRetrySucceeds(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer("retry-token")
	defer srv.Close()
	target, err := url.Parse(srv.APIURL)
	if err != nil {
		t.Fatal(err)
	}
	target.Path = ""
	var up atomic.Bool
	fwd := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() { // the network drops the connection
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		fwd.ServeHTTP(w, r)
	}))
	defer proxy.Close()

	guild := srv.NewID()
	cfg := testConfig(t, map[string]string{"DISCORD_TOKEN": srv.Token, "DISCORD_GUILD_ID": guild,
		"DISCORD_API_URL": proxy.URL + strings.TrimPrefix(srv.APIURL, target.String())})
	pauses := 0
	cfg.sleep = func(context.Context, time.Duration) error {
		pauses++
		up.Store(true)
		return nil
	}
	bot := serveReady(t, cfg)
	logs := bot.logs
	bot.stop()
	if err := <-bot.done; err != nil {
		t.Errorf("serve = %v; want nil after a clean stop", err)
	}
	if n := strings.Count(logs.String(), "trying again"); pauses != 1 || n != 1 {
		t.Errorf("%d pauses, %d lines that say it tries again; want 1 and 1\n%s", pauses, n, logs.String())
	}
}

// served is serve running in the background: its log, stop (which does
// what SIGTERM does) and what serve returned.
type served struct {
	logs *logtest.Buffer
	stop context.CancelFunc
	done <-chan error
}

// serveReady runs serve with cfg in the background, stopped when the test
// ends at the latest, and waits up to 30 s until its log says it is ready.
func serveReady(t *testing.T, cfg config) served {
	t.Helper()
	logs := new(logtest.Buffer)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, newTestLog(logs)) }()
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	if err := logs.WaitFor(wctx, "msg=ready"); err != nil {
		cancel()
		t.Fatalf("%v\nlog:\n%s", err, logs.String())
	}
	return served{logs: logs, stop: cancel, done: done}
}

// newTestLog logs at debug level to w, as LOG_LEVEL=debug does.
func newTestLog(w *logtest.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
