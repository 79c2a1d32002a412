package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tttbot/tttbot/discord/discordtest"
)

// Clients that keep sending on kept-alive connections while the bot gets
// SIGTERM each get a full answer to every request the bot accepted: the
// only error allowed is a refused connection, once the bot no longer
// listens. A reset or an EOF in the middle of a request is a request
// dropped.
func TestE2ESigtermDropsNoRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the bot binary")
	}
	t.Parallel()
	srv := discordtest.NewServer("sigterm-secret-token")
	t.Cleanup(srv.Close)
	p := startBotProcess(t, "bot", map[string]string{"DISCORD_TOKEN": srv.Token, "DISCORD_API_URL": srv.APIURL,
		"DISCORD_GUILD_ID": srv.NewID(), "DATABASE_URL": filepath.Join(t.TempDir(), "tttbot.db"),
		"INTERACTIONS_ADDR": "127.0.0.1:0", "DISCORD_PUBLIC_KEY": srv.PublicKey()})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := p.waitReady(ctx); err != nil {
		t.Fatalf("%v\nlog:\n%s", err, p.tail(4000))
	}
	url := "http://" + p.listening(t, "interactions") + "/interactions"
	body := []byte(`{"type":1}`)

	const clients = 8
	var answered, afterSignal, closing atomic.Int64
	var signalled atomic.Bool
	var sigAt atomic.Value
	sigAt.Store(time.Now())
	var mu sync.Mutex
	var dropped []error
	started := make(chan struct{}, clients)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			defer client.CloseIdleConnections()
			first := true
			for ctx.Err() == nil {
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
				if err != nil {
					panic(err)
				}
				req.Header = srv.Sign(body, time.Now())
				var reused bool
				req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}))
				resp, err := client.Do(req)
				if err != nil {
					err = fmt.Errorf("%w (reused %v, at %v)", err, reused, time.Since(sigAt.Load().(time.Time)))
				}
				if errors.Is(err, syscall.ECONNREFUSED) {
					return // no longer listening: nothing was accepted
				}
				if err == nil {
					var b []byte
					b, err = io.ReadAll(resp.Body)
					resp.Body.Close()
					if err == nil && (resp.StatusCode != http.StatusOK || string(b) != `{"type":1}`) {
						err = fmt.Errorf("answered %d %q", resp.StatusCode, b)
					}
					if err == nil && resp.Close {
						closing.Add(1)
					}
				}
				if err != nil {
					mu.Lock()
					dropped = append(dropped, err)
					mu.Unlock()
					if signalled.Load() {
						return
					}
					continue
				}
				answered.Add(1)
				if signalled.Load() {
					afterSignal.Add(1)
				}
				if first {
					first = false
					started <- struct{}{}
				}
			}
		}()
	}
	for range clients {
		<-started // every client has a kept-alive connection
	}
	sigAt.Store(time.Now())
	signalled.Store(true)
	if err := p.stop(ctx); err != nil {
		t.Errorf("the bot's exit after SIGTERM: %v", err)
	}
	wg.Wait()
	if len(dropped) > 0 {
		t.Errorf("%d of %d requests were dropped (the first: %v)", len(dropped), int(answered.Load())+len(dropped), dropped)
	}
	if afterSignal.Load() == 0 || closing.Load() == 0 {
		t.Errorf("%d requests answered after SIGTERM, %d of them closing their connection; want some of each", afterSignal.Load(), closing.Load())
	}
	t.Logf("%d requests answered, %d after SIGTERM, %d dropped", answered.Load(), afterSignal.Load(), len(dropped))
}
