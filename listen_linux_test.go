package main

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// A kernel that refuses the socket filter (EPERM without CAP_NET_ADMIN)
// is named in one warning at start-up, however many servers listen, and
// the servers serve.
func TestListenWarnsOnceWithoutSocketFilter(t *testing.T) {
	attach := attachFilter
	t.Cleanup(func() { attachFilter, handshakeChecked = attach, sync.Once{} })
	attachFilter = func(int, []syscall.SockFilter) error { return syscall.EPERM }
	handshakeChecked = sync.Once{}
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	h := http.NotFoundHandler()
	for range 2 {
		srv, _, err := listen("127.0.0.1:0", "METRICS_ADDR", h, 10, log)
		if err != nil {
			t.Fatal(err)
		}
		srv.Close()
	}
	if n := strings.Count(buf.String(), "socket filter"); n != 1 || !strings.Contains(buf.String(), "operation not permitted") {
		t.Errorf("logged %d warnings of the socket filter: %q; want one, naming EPERM", n, buf.String())
	}
}
