package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/internal/logtest"
)

// silentDatabase listens like a PostgreSQL server that accepts
// connections and never says a word, and returns its postgres:// URL.
func silentDatabase(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c) // held open, never answered
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return "postgres://bot:pw@" + ln.Addr().String() + "/ttt?sslmode=disable"
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A database that accepts but never answers: /healthz answers and /readyz
// says the bot is starting while it waits, and after its time the bot
// stops with an error that says which database did not answer.
func TestDatabaseSilentAtStart(t *testing.T) {
	t.Parallel()
	db := silentDatabase(t)
	cfg := testConfig(t, map[string]string{"DISCORD_TOKEN": "t", "DATABASE_URL": db, "METRICS_ADDR": "127.0.0.1:0"})
	cfg.openWithin = time.Hour // until the test has looked
	var logs logtest.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, newTestLog(&logs)) }()
	wctx, wcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer wcancel()
	if err := logs.WaitFor(wctx, "/healthz"); err != nil {
		t.Fatalf("no /healthz while the database does not answer: %v\nlog:\n%s", err, logs.String())
	}
	line := logs.String()[strings.Index(logs.String(), "/healthz"):]
	addr := ""
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, "metrics="); ok {
			addr = v
			break
		}
	}
	if code, body := get(t, "http://"+addr+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz = %d %q; want 200", code, body)
	}
	if code, body := get(t, "http://"+addr+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "starting: opening the database") {
		t.Errorf("/readyz = %d %q; want 503 starting: opening the database", code, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve stopped while opening the database = %v; want nil", err)
	}

	cfg.openWithin = 50 * time.Millisecond
	err := serve(context.Background(), cfg, newTestLog(&logs))
	if err == nil || !strings.Contains(err.Error(), "did not answer within") || !strings.Contains(err.Error(), strings.TrimSuffix(strings.TrimPrefix(db, "postgres://bot:pw@"), "?sslmode=disable")) || strings.Contains(err.Error(), "pw") {
		t.Errorf("serve with a silent database = %v; want an error that says which database did not answer in time, without its password", err)
	}
}

// A wrong token ends the bot with a one-line hint.
func TestRunWrongToken(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer("the-right-token")
	defer srv.Close()
	env := map[string]string{
		"DISCORD_TOKEN":   "a-wrong-token",
		"DISCORD_API_URL": srv.APIURL,
		"DATABASE_URL":    filepath.Join(t.TempDir(), "tttbot.db"),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := run(ctx, nil, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "Discord rejected the token: check DISCORD_TOKEN") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("run with a wrong token = %v; want one line: Discord rejected the token: check DISCORD_TOKEN", err)
	}
}

// SIGTERM (a cancelled context) at any point of start-up ends run with nil.
func TestRunStopsDuringStartup(t *testing.T) {
	t.Parallel()
	for _, when := range []string{"at once", "after identify", "after registration", "after ready"} {
		t.Run(when, func(t *testing.T) {
			srv := discordtest.NewServer("startup-token")
			defer srv.Close()
			guild := srv.NewID()
			env := map[string]string{
				"DISCORD_TOKEN":    srv.Token,
				"DISCORD_API_URL":  srv.APIURL,
				"DISCORD_GUILD_ID": guild,
				"DATABASE_URL":     filepath.Join(t.TempDir(), "tttbot.db"),
			}
			wait, cancelWait := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancelWait()
			ctx, stop := context.WithCancel(context.Background())
			logs := new(logtest.Buffer)
			done := make(chan error, 1)
			if when == "at once" {
				stop()
			}
			go func() { done <- run(ctx, nil, func(k string) string { return env[k] }, io.Discard, logs) }()
			var err error
			switch when {
			case "after identify":
				err = srv.WaitReady(wait)
			case "after registration":
				_, err = srv.WaitCommands(wait, guild)
			case "after ready":
				err = logs.WaitFor(wait, "msg=ready")
			}
			if err != nil {
				t.Fatal(err)
			}
			stop()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("run stopped %s = %v; want nil\nlog:\n%s", when, err, logs.String())
				}
			case <-wait.Done():
				t.Fatalf("run did not return after being stopped %s\nlog:\n%s", when, logs.String())
			}
		})
	}
}
