package discordtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// post sends a message to channel as the bot, with client, and returns
// the answer's status, headers and body (status 0 if the client gave up).
func post(t *testing.T, srv *Server, client *http.Client, channel string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.APIURL+"/channels/"+channel+"/messages", strings.NewReader(`{"content":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bot "+srv.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, body
}

// Faults drawn from a seed: the same seed fails the same requests of a
// sequence, with the share asked for; GETs pass when only writes are
// matched.
func TestInjectFaultsFromASeed(t *testing.T) {
	t.Parallel()
	run := func() []int {
		srv := newServer(t)
		srv.InjectFaults(Faults{Method: "WRITE", Seed: 7, RateLimited: 0.3, ServerErrors: 0.2, RetryAfter: time.Minute})
		var out []int
		for i := range 300 {
			status, _, _ := post(t, srv, http.DefaultClient, fmt.Sprint(1000+i)) // a route each: no limit binds the next
			out = append(out, status)
		}
		resp, err := http.Get(srv.APIURL + "/gateway")
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("GET /gateway = %v, %v; want 200: only writes fail", resp, err)
		} else {
			resp.Body.Close()
		}
		if got := srv.RateLimitsIgnored(); len(got) != 0 {
			t.Errorf("RateLimitsIgnored() = %v; want none", got)
		}
		return out
	}
	first, second := run(), run()
	if !slices.Equal(first, second) {
		t.Errorf("two runs with one seed answered differently:\n%v\n%v", first, second)
	}
	count := map[int]int{}
	for _, s := range first {
		count[s]++
	}
	// 300 draws: 90 429s and 60 500s expected; the seed makes these exact.
	if l, e := count[http.StatusTooManyRequests], count[http.StatusInternalServerError]; l < 60 || l > 120 || e < 35 || e > 85 || l+e+count[http.StatusOK] != 300 {
		t.Errorf("answers %v; want about 30%% 429, 20%% 500, the rest 200", count)
	}
}

// A 429 of the route's limit, and of the global one, has Discord's body
// and headers; the fake holds the client to it: a request on the same
// route (for the global limit, on any route) before retry_after has
// passed gets another 429 and is listed in RateLimitsIgnored, while
// another route may go on.
func TestInjectedRateLimitsBind(t *testing.T) {
	t.Parallel()
	t.Run("route", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t)
		remove := srv.InjectFaults(Faults{PathPrefix: "/channels/1/", RateLimited: 1, RetryAfter: 1500 * time.Millisecond})
		status, h, body := post(t, srv, http.DefaultClient, "1")
		remove()
		var rl struct {
			Message    string  `json:"message"`
			RetryAfter float64 `json:"retry_after"`
			Global     bool    `json:"global"`
		}
		if err := json.Unmarshal(body, &rl); err != nil || status != http.StatusTooManyRequests || rl.RetryAfter != 1.5 || rl.Global || rl.Message == "" {
			t.Fatalf("answer %d %s; want a 429 with retry_after 1.5, not global", status, body)
		}
		for k, want := range map[string]string{"Retry-After": "2", "X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0",
			"X-RateLimit-Reset-After": "1.500", "X-RateLimit-Scope": "user", "X-RateLimit-Global": ""} {
			if got := h.Get(k); got != want {
				t.Errorf("header %s = %q; want %q", k, got, want)
			}
		}
		if h.Get("X-RateLimit-Bucket") == "" || h.Get("X-RateLimit-Reset") == "" {
			t.Errorf("headers %v; want X-RateLimit-Bucket and X-RateLimit-Reset", h)
		}
		if status, _, _ := post(t, srv, http.DefaultClient, "2"); status != http.StatusOK {
			t.Errorf("another route answered %d; want 200", status)
		}
		if status, _, _ := post(t, srv, http.DefaultClient, "1"); status != http.StatusTooManyRequests {
			t.Errorf("the limited route answered %d at once; want 429", status)
		}
		if got := srv.RateLimitsIgnored(); len(got) != 1 || !strings.HasSuffix(got[0].Path, "/channels/1/messages") || got[0].Injected {
			t.Errorf("RateLimitsIgnored() = %v; want the second request on channel 1", got)
		}
	})
	t.Run("global", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t)
		remove := srv.InjectFaults(Faults{PathPrefix: "/channels/1/", RateLimited: 1, Global: true, RetryAfter: time.Minute})
		status, h, body := post(t, srv, http.DefaultClient, "1")
		remove()
		if status != http.StatusTooManyRequests || !strings.Contains(string(body), `"global":true`) ||
			h.Get("X-RateLimit-Global") != "true" || h.Get("X-RateLimit-Scope") != "global" {
			t.Fatalf("answer %d %s %v; want a global 429", status, body, h)
		}
		// Discord's global 429 has no bucket: none of the per-route
		// headers.
		for _, k := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-RateLimit-Reset-After", "X-RateLimit-Bucket"} {
			if got := h.Get(k); got != "" {
				t.Errorf("a global 429 has %s: %q; want none", k, got)
			}
		}
		if h.Get("Retry-After") != "60" {
			t.Errorf("a global 429 has Retry-After %q; want 60", h.Get("Retry-After"))
		}
		if status, _, _ := post(t, srv, http.DefaultClient, "2"); status != http.StatusTooManyRequests {
			t.Errorf("another route answered %d under the global limit; want 429", status)
		}
		if got := srv.RateLimitsIgnored(); len(got) != 1 {
			t.Errorf("RateLimitsIgnored() = %v; want the request on channel 2", got)
		}
	})
}

// A request that reached the fake before the 429 that announced a limit
// was written, which its client could not have heard of, is answered
// with a 429 too, but not listed in RateLimitsIgnored; one sent after
// is.
func TestRateLimitNotIgnoredInFlight(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	hold := srv.Hold(func(r Request) bool { return strings.HasSuffix(r.Path, "/channels/2/messages") })
	inFlight := make(chan int, 1)
	go func() {
		status, _, _ := post(t, srv, http.DefaultClient, "2")
		inFlight <- status
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hold.WaitHeld(ctx, 1); err != nil {
		t.Fatal(err)
	}
	srv.FailNextGlobal("POST", "/channels/1/", time.Minute)
	if status, _, _ := post(t, srv, http.DefaultClient, "1"); status != http.StatusTooManyRequests {
		t.Fatalf("the request with a global 429 injected answered %d", status)
	}
	hold.Release()
	if status := <-inFlight; status != http.StatusTooManyRequests {
		t.Errorf("the request in flight answered %d; want 429, the global limit holding", status)
	}
	if got := srv.RateLimitsIgnored(); len(got) != 0 {
		t.Errorf("RateLimitsIgnored() = %v; want none: the request came before the 429 was written", got)
	}
	if status, _, _ := post(t, srv, http.DefaultClient, "3"); status != http.StatusTooManyRequests {
		t.Errorf("a request after the global 429 answered %d; want 429", status)
	}
	if got := srv.RateLimitsIgnored(); len(got) != 1 || !strings.HasSuffix(got[0].Path, "/channels/3/messages") {
		t.Errorf("RateLimitsIgnored() = %v; want the request on channel 3", got)
	}
}

// Latency holds the answers to the matched requests: a client that gives
// up first gets none, and other routes answer.
func TestInjectedLatency(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.InjectFaults(Faults{PathPrefix: "/channels/", Latency: time.Hour})
	impatient := &http.Client{Timeout: 50 * time.Millisecond}
	if status, _, _ := post(t, srv, impatient, "1"); status != 0 {
		t.Errorf("a request delayed an hour was answered %d", status)
	}
	resp, err := http.Get(srv.APIURL + "/gateway")
	if err != nil {
		t.Fatalf("GET /gateway = %v; want an answer", err)
	}
	resp.Body.Close()
}
