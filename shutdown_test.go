package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
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

// postPing writes a signed PING to the endpoint on c and reads the answer.
func postPing(srv *discordtest.Server, c net.Conn, r *bufio.Reader) (*http.Response, error) {
	body := `{"type":1}`
	var b strings.Builder
	fmt.Fprintf(&b, "POST /interactions HTTP/1.1\r\nHost: bot\r\nContent-Length: %d\r\n", len(body))
	for k, v := range srv.Sign([]byte(body), time.Now()) {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v[0])
	}
	b.WriteString("\r\n" + body)
	if _, err := c.Write([]byte(b.String())); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	return resp, nil
}

// At SIGTERM the bot drains: /readyz fails at once, and a request that
// arrives on a kept-alive connection is still answered (with Connection:
// close) instead of finding its connection cut.
func TestShutdownDrains(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer("drain-token")
	defer srv.Close()
	cfg := testConfig(t, map[string]string{"DISCORD_TOKEN": srv.Token, "DISCORD_API_URL": srv.APIURL, "DISCORD_GUILD_ID": srv.NewID(),
		"INTERACTIONS_ADDR": "127.0.0.1:0", "DISCORD_PUBLIC_KEY": srv.PublicKey(), "METRICS_ADDR": "127.0.0.1:0"})
	draining, release := make(chan struct{}), make(chan struct{})
	cfg.sleep = func(context.Context, time.Duration) error {
		close(draining)
		<-release
		return nil
	}
	bot := serveReady(t, cfg)
	logs := bot.logs
	endpoint, metrics := logtest.ReadyAddr(t, logs.String(), "interactions"), logtest.ReadyAddr(t, logs.String(), "metrics")

	c, err := net.Dial("tcp", endpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if resp, err := postPing(srv, c, r); err != nil || resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("PING before SIGTERM: %v, %v; want 200 on a kept-alive connection", resp, err)
	}

	bot.stop() // SIGTERM
	select {
	case <-draining:
	case <-time.After(10 * time.Second):
		t.Error("the bot did not drain its servers after SIGTERM")
	}
	if code, body := get(t, "http://"+metrics+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "shutting down") {
		t.Errorf("/readyz while draining = %d %q; want 503 shutting down", code, body)
	}
	resp, err := postPing(srv, c, r)
	if err != nil || resp.StatusCode != http.StatusOK || !resp.Close {
		t.Errorf("PING on the kept-alive connection after SIGTERM: %v, %v; want 200 and Connection: close", resp, err)
	}
	close(release)
	if err := <-bot.done; err != nil {
		t.Errorf("serve = %v; want nil after SIGTERM", err)
	}
}

// A Discord whose REST API stalls does not hold the bot at SIGTERM: a
// background edit stuck in a REST call is cut at the halt, and the bot
// exits.
func TestShutdownWithStalledDiscord(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer("stall-token")
	defer srv.Close()
	target, err := url.Parse(srv.APIURL)
	if err != nil {
		t.Fatal(err)
	}
	target.Path = ""
	var stalled atomic.Bool
	arrived := make(chan struct{}, 100)
	fwd := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stalled.Load() && r.Method != http.MethodPost { // answers go through, background edits stall
			arrived <- struct{}{}
			_, _ = io.Copy(io.Discard, r.Body) // so that the server notices when the client goes
			<-r.Context().Done()               // Discord never answers
			return
		}
		fwd.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	defer proxy.CloseClientConnections()

	guild := srv.NewID()
	cfg := testConfig(t, map[string]string{"DISCORD_TOKEN": srv.Token, "DISCORD_GUILD_ID": guild,
		"DISCORD_API_URL": proxy.URL + strings.TrimPrefix(srv.APIURL, target.String())})
	cfg.haltRESTAfter = 100 * time.Millisecond
	bot := serveReady(t, cfg)
	logs := bot.logs
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	stalled.Store(true)
	// /ttt board draws the board again and deletes the old one in the
	// background: that call gets stuck in Discord.
	alice, channel := srv.NewMember("alice"), srv.NewID()
	for _, sub := range []string{"start", "board"} {
		in := srv.SlashCommand(guild, channel, alice, "ttt", discordtest.Sub(sub))
		if err := srv.Send(wctx, in); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Response(wctx); err != nil {
			t.Fatalf("/ttt %s: %v", sub, err)
		}
	}
	select {
	case <-arrived:
	case <-wctx.Done():
		t.Fatalf("no background edit reached Discord\nlog:\n%s", logs.String())
	}
	bot.stop() // SIGTERM
	select {
	case err := <-bot.done:
		if err != nil {
			t.Errorf("serve = %v; want nil after SIGTERM", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the bot was still stopping 30 s after SIGTERM with Discord stalled\nlog:\n%s", logs.String())
	}
	// The stuck call ended because REST was halted (at haltRESTAfter; 7 s
	// by default, within Docker's 10), not at its own 10 s deadline.
	if !strings.Contains(logs.String(), "REST calls are halted") {
		t.Errorf("the stalled background edit did not end by the halt\nlog:\n%s", logs.String())
	}
}
