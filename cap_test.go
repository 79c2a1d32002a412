package main

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/tttbot/tttbot/discord"
)

// capServer is the interactions server as main builds it, holding at
// most limit connections, and a signer of Discord's requests.
func capServer(t *testing.T, limit int) (addr string, sign func(body []byte) http.Header) {
	t.Helper()
	pub, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	endpoint, err := discord.NewEndpoint(hex.EncodeToString(pub), slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, addr, err := listen("127.0.0.1:0", "INTERACTIONS_ADDR", interactionsMux(endpoint), limit, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return addr, func(body []byte) http.Header { return discord.Sign(key, body, time.Now()) }
}

var ping = []byte(`{"id":"1","application_id":"1","type":1,"token":"t","version":1}`)

// exchange writes a request on c and reads its answer.
func exchange(t *testing.T, c net.Conn, r *bufio.Reader, method, path string, h http.Header, body []byte) *http.Response {
	t.Helper()
	var head bytes.Buffer
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: bot\r\nContent-Length: %d\r\n", method, path, len(body))
	h.Write(&head)
	head.WriteString("\r\n")
	head.Write(body)
	if _, err := c.Write(head.Bytes()); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(time.Minute)) // a hang fails, it does not decide
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// dial opens a connection to addr, closed at the test's end.
func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

// Connections that fill the interactions server's cap do not lock
// Discord out: a request to another path, or with another method, gets
// its answer and its connection closed; and at the cap, a connection
// kept alive idle after Discord's own request is closed to take a new
// one. Discord's next request, on a new connection, is answered.
func TestInteractionsCapLetsDiscordIn(t *testing.T) {
	const limit = 3
	t.Run("other paths and methods", func(t *testing.T) {
		addr, sign := capServer(t, limit)
		for k := range limit {
			c, r := dial(t, addr)
			method, path := "GET", "/nope"
			if k == limit-1 {
				path = "/interactions"
			}
			resp := exchange(t, c, r, method, path, http.Header{}, nil)
			if !resp.Close {
				t.Errorf("%s %s answered %d with the connection kept open; want it closed", method, path, resp.StatusCode)
			}
		}
		c, r := dial(t, addr)
		if resp := exchange(t, c, r, "POST", "/interactions", sign(ping), ping); resp.StatusCode != http.StatusOK {
			t.Errorf("Discord's request after %d refused connections: %d; want 200", limit, resp.StatusCode)
		}
	})
	t.Run("idle connections at the cap", func(t *testing.T) {
		addr, sign := capServer(t, limit)
		for range limit {
			c, r := dial(t, addr)
			if resp := exchange(t, c, r, "POST", "/interactions", sign(ping), ping); resp.StatusCode != http.StatusOK || resp.Close {
				t.Fatalf("a signed PING: %d, close %v; want 200 and the connection kept", resp.StatusCode, resp.Close)
			}
		}
		c, r := dial(t, addr)
		if resp := exchange(t, c, r, "POST", "/interactions", sign(ping), ping); resp.StatusCode != http.StatusOK {
			t.Errorf("Discord's request with %d idle connections at the cap: %d; want 200", limit, resp.StatusCode)
		}
	})
}
