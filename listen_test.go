package main

import (
	"bufio"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
)

// The servers refuse request headers over maxHeaderBytes with 431 and
// serve ordinary ones.
func TestListenLimitsHeaders(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	srv, addr, err := listen("127.0.0.1:0", "METRICS_ADDR", h, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, tt := range []struct {
		size int
		want int
	}{
		{1 << 10, http.StatusOK},
		{64 << 10, http.StatusRequestHeaderFieldsTooLarge},
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Flood: %s\r\n\r\n", strings.Repeat("a", tt.size))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil {
			t.Fatalf("a %d-byte header: %v", tt.size, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("a %d-byte header: %d; want %d", tt.size, resp.StatusCode, tt.want)
		}
	}
}
