package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/tttbot/discord/discordtest"
	"github.com/tttbot/tttbot/internal/logtest"
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
