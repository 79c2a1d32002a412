package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"
)

// heldServer listens with a cap of one connection; a request to /held
// waits for release, and every answer closes its connection, as during
// the drain. It returns the server and its address.
func heldServer(t *testing.T, entered chan<- struct{}, release <-chan struct{}) (*server, string) {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		if r.URL.Path == "/held" {
			entered <- struct{}{}
			<-release
		}
		fmt.Fprint(w, "ok")
	})
	srv, addr, err := listen("127.0.0.1:0", "INTERACTIONS_ADDR", h, 1, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, addr
}

// send writes a GET of path on a new connection to addr and returns a
// function that reads its answer's status, or an error.
func send(t *testing.T, addr, path string) func() (int, error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: bot\r\n\r\n", path)
	return func() (int, error) {
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, nil
	}
}

// until waits for cond, checking it every millisecond, and fails the
// test if it does not hold within a minute.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
	}
}

// At the cap, a connection queued behind a request that outlasts
// acceptLast is still taken and answered when the request ends and
// stop runs: Accept's time counts from when a slot is free, not from
// the start of stop.
func TestStopTakesQueuedBehindLongRequest(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	srv, addr := heldServer(t, entered, release)
	held := send(t, addr, "/held")
	<-entered
	queued := send(t, addr, "/queued") // its handshake is done; Accept waits for a slot
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		ctx, cancel := context.WithTimeout(context.Background(), stopWithin)
		defer cancel()
		srv.stop(ctx)
	}()
	until(t, "stop to begin", srv.ln.stopping.Load)
	// The long request outlasts acceptLast after stop began (this wait
	// only gives a fixed deadline the time to pass; it decides nothing).
	time.Sleep(3 * acceptLast)
	close(release)
	if code, err := held(); err != nil || code != http.StatusOK {
		t.Errorf("the long request: %d, %v; want 200", code, err)
	}
	if code, err := queued(); err != nil || code != http.StatusOK {
		t.Errorf("the connection queued behind it: %d, %v; want 200 (not reset)", code, err)
	}
	<-stopped
}

// The servers stop at once, each on its own budget: a silent connection
// on the metrics server neither holds the interactions server's stop
// nor uses its time, and the connection queued there is answered.
func TestShutdownStopsServersEachOnItsOwn(t *testing.T) {
	metrics, maddr, err := listen("127.0.0.1:0", "METRICS_ADDR", http.NotFoundHandler(), 10, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { metrics.Close() })
	silent, err := net.Dial("tcp", maddr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silent.Close() })
	entered, release := make(chan struct{}, 1), make(chan struct{})
	inter, addr := heldServer(t, entered, release)
	held := send(t, addr, "/held")
	<-entered
	queued := send(t, addr, "/queued")
	until(t, "the metrics server to take the silent connection", func() bool { return len(metrics.ln.slots) == 2 }) // one held, one for the next Accept
	saved := stopWithin
	stopWithin = 500 * time.Millisecond // the silent connection holds the metrics server this long
	t.Cleanup(func() { stopWithin = saved })
	done := make(chan struct{})
	go func() {
		defer close(done)
		shutdown([]*server{metrics, inter}, slog.New(slog.DiscardHandler))
	}()
	until(t, "the interactions server to begin to stop", inter.ln.stopping.Load)
	close(release)
	if code, err := held(); err != nil || code != http.StatusOK {
		t.Errorf("the request in flight: %d, %v; want 200", code, err)
	}
	if code, err := queued(); err != nil || code != http.StatusOK {
		t.Errorf("the connection queued on the interactions server: %d, %v; want 200 (not reset)", code, err)
	}
	<-done
}
