package main

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// The servers refuse a request line and headers of more than 16 KiB in
// all with 431, and serve ordinary ones and ones of exactly 16 KiB.
func TestListenLimitsHeaders(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	srv, addr, err := listen("127.0.0.1:0", "METRICS_ADDR", h, 10, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const head = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Flood: \r\n\r\n"
	for _, tt := range []struct {
		size int // of the request line and headers
		want int
	}{
		{1 << 10, http.StatusOK},
		{16 << 10, http.StatusOK},
		{16<<10 + 1, http.StatusRequestHeaderFieldsTooLarge},
		{64 << 10, http.StatusRequestHeaderFieldsTooLarge},
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Flood: %s\r\n\r\n", strings.Repeat("a", tt.size-len(head)))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil {
			t.Fatalf("a %d-byte request head: %v", tt.size, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("a %d-byte request head: %d; want %d", tt.size, resp.StatusCode, tt.want)
		}
	}
}

// A server holds at most its limit of connections open at once; the
// others wait, and are served as connections close.
func TestListenLimitsConnections(t *testing.T) {
	const limit, clients = 3, 12
	var inside, most atomic.Int32
	entered, left := make(chan struct{}, clients), make(chan struct{})
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inside.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		entered <- struct{}{}
		<-release
		inside.Add(-1)
		left <- struct{}{}
		w.Header().Set("Connection", "close")
		fmt.Fprint(w, "ok")
	})
	srv, addr, err := listen("127.0.0.1:0", "METRICS_ADDR", h, limit, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var wg, written sync.WaitGroup
	errs := make(chan error, clients)
	for range clients {
		wg.Add(1)
		written.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				written.Done()
				errs <- err
				return
			}
			defer c.Close()
			fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
			written.Done()
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				errs <- err
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}()
	}
	// Every request is on its way before the first is answered; then a
	// handler is let go only once as many connections are served as
	// could be (the limit, or all that are left).
	written.Wait()
	for released := range clients {
		for int(inside.Load()) < min(limit, clients-released) {
			<-entered
		}
		release <- struct{}{}
		<-left
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if m := most.Load(); m > limit {
		t.Errorf("%d connections were served at once; want at most %d", m, limit)
	}
}
