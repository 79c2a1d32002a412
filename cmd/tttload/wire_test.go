package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestWireConn posts through wireConn to Go's own HTTP server and checks
// what the server received and what the client read back: bodies with
// Content-Length, chunked bodies, an error status, a server that closes
// the connection, and the connection kept between posts.
func TestWireConn(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != "/interactions" ||
			r.Header.Get("X-Signature-Ed25519") != "abcd" || r.Header.Get("X-Signature-Timestamp") != "1700000000" ||
			r.Header.Get("Content-Type") != "application/json" || r.ContentLength != int64(len(body)) {
			http.Error(w, "bad request "+r.Method+" "+r.URL.Path, http.StatusBadRequest)
			return
		}
		switch string(body) {
		case `{"answer":"sized"}`:
			w.Header().Set("Content-Length", "11")
			io.WriteString(w, `{"type":4}`+"\n")
		case `{"answer":"chunked"}`:
			io.WriteString(w, `{"type":`)
			w.(http.Flusher).Flush() // no length known: chunked
			io.WriteString(w, `4,"data":{}}`)
		case `{"answer":"close"}`:
			w.Header().Set("Connection", "close")
			io.WriteString(w, `bye`)
		default:
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	w := &wireConn{addr: strings.TrimPrefix(srv.URL, "http://")}
	defer w.close()
	post := func(body string) (int, string) {
		t.Helper()
		p := signed{body: []byte(body), signature: "abcd", timestamp: "1700000000"}
		status, ans, err := w.post("/interactions", p, 3*time.Second, []byte("kept:"))
		if err != nil {
			t.Fatalf("post %s: %v", body, err)
		}
		return status, string(ans)
	}
	for _, tc := range []struct {
		body, want string
		status     int
		conns      int64 // connections opened so far
	}{
		{`{"answer":"sized"}`, "kept:{\"type\":4}\n", 200, 1},
		{`{"answer":"chunked"}`, `kept:{"type":4,"data":{}}`, 200, 1},
		{`{"bad":"signature"}`, "kept:unauthorized\n", 401, 1},
		{`{"answer":"close"}`, "kept:bye", 200, 1},
		{`{"answer":"sized"}`, "kept:{\"type\":4}\n", 200, 2}, // dialled again after the close
		{`{"answer":"chunked"}`, `kept:{"type":4,"data":{}}`, 200, 2},
	} {
		status, ans := post(tc.body)
		if status != tc.status || ans != tc.want {
			t.Errorf("post %s: %d %q, want %d %q", tc.body, status, ans, tc.status, tc.want)
		}
		if n := conns.Load(); n != tc.conns {
			t.Errorf("after post %s: %d connections, want %d", tc.body, n, tc.conns)
		}
	}
}

// TestWireConnTimeout checks that a bot that does not answer in time gives
// an error rather than a hang, and that the next post dials again.
func TestWireConnTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Signature-Timestamp") == "slow" {
			<-release
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	defer close(release)

	w := &wireConn{addr: strings.TrimPrefix(srv.URL, "http://")}
	defer w.close()
	if _, _, err := w.post("/interactions", signed{body: []byte("{}"), timestamp: "slow"}, 50*time.Millisecond, nil); err == nil {
		t.Fatal("post to a bot that never answers: no error")
	}
	if w.conn != nil {
		t.Error("the connection is kept after a timeout")
	}
	status, ans, err := w.post("/interactions", signed{body: []byte("{}"), timestamp: "1"}, 3*time.Second, nil)
	if err != nil || status != 200 || string(ans) != "ok" {
		t.Errorf("post after the timeout: %d %q %v, want 200 \"ok\"", status, ans, err)
	}
}

// TestWireConnIdle: the bot's server closes connections left idle; a
// post after such a pause dials a new connection instead of writing into
// the closed one.
func TestWireConnIdle(t *testing.T) {
	closed := make(chan struct{}, 4)
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	srv.Config.IdleTimeout = 20 * time.Millisecond
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			conns.Add(1)
		case http.StateClosed:
			closed <- struct{}{}
		}
	}
	srv.Start()
	defer srv.Close()

	w := &wireConn{addr: strings.TrimPrefix(srv.URL, "http://"), maxIdle: time.Millisecond}
	defer w.close()
	post := func() {
		t.Helper()
		status, ans, err := w.post("/interactions", signed{body: []byte("{}"), timestamp: "1"}, 3*time.Second, nil)
		if err != nil || status != 200 || string(ans) != "ok" {
			t.Fatalf("post: %d %q %v; want 200 \"ok\"", status, ans, err)
		}
	}
	post()
	select {
	case <-closed: // the server closed the idle connection
	case <-time.After(10 * time.Second):
		t.Fatal("the server never closed the idle connection")
	}
	post()
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections; want 2: the post after the pause dials again", n)
	}
}
