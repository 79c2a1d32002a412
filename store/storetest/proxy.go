package storetest

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy is a TCP proxy to a database server, for tests of faults on the
// way: it can turn new connections away (Shut), and make connections
// already open go silent (Freeze), as a dropped network or a hung server
// does, and keep the server's sessions after their clients leave
// (HoldSessions). It stops when the test ends.
type Proxy struct {
	// Addr is where the proxy listens: put it in a URL's host.
	Addr string

	mu    sync.Mutex
	shut  bool
	conns []*proxied
	hold  atomic.Bool
}

// proxied is one connection through the proxy.
type proxied struct {
	client, server net.Conn
	frozen         atomic.Bool
	hold           *atomic.Bool // the proxy's
}

// NewProxy starts a proxy to target (host:port).
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String()}
	var wg sync.WaitGroup
	closed := false
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		closed = true
		for _, c := range p.conns {
			c.client.Close()
			c.server.Close()
		}
		p.mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			refuse := p.shut || closed
			p.mu.Unlock()
			if refuse {
				c.Close()
				continue
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			pc := &proxied{client: c, server: s, hold: &p.hold}
			p.mu.Lock()
			if closed {
				c.Close()
				s.Close()
			}
			p.conns = append(p.conns, pc)
			p.mu.Unlock()
			wg.Go(func() { pc.pipe(s, c, true) })
			wg.Go(func() { pc.pipe(c, s, false) })
		}
	})
	return p
}

// pipe copies src to dst until either ends, then closes dst; once the
// connection is frozen it reads and drops everything and closes nothing,
// so that the other end never hears that this one went away. toServer
// is the client's side: while sessions are held, its Terminate message
// and its end do not reach the server.
func (pc *proxied) pipe(dst, src net.Conn, toServer bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if pc.frozen.Load() {
			if err != nil {
				return
			}
			continue
		}
		hold := toServer && pc.hold.Load()
		if hold && bytes.HasSuffix(buf[:n], terminate) {
			n -= len(terminate)
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				src.Close()
				return
			}
		}
		if err != nil {
			if !hold {
				dst.Close()
			}
			return
		}
	}
}

// terminate is the PostgreSQL protocol's Terminate message, with which a
// client says it leaves.
var terminate = []byte{'X', 0, 0, 0, 4}

// HoldSessions, while on, keeps the server's sessions of the clients
// that leave: neither their Terminate message nor the end of their
// connection reaches the server, which keeps each session (and whatever
// it holds, such as an advisory lock) until the test ends, as a server
// that is slow to notice a client's leaving does for a while.
func (p *Proxy) HoldSessions(on bool) { p.hold.Store(on) }

// Shut turns new connections away (they are closed at once) while on;
// those already open go on.
func (p *Proxy) Shut(on bool) {
	p.mu.Lock()
	p.shut = on
	p.mu.Unlock()
}

// Freeze makes the connections open now silent in both directions: what
// either end sends is dropped, and neither end is closed. With port 0 it
// freezes them all; otherwise only the one whose side towards the server
// has that port, which the server shows as client_port in
// pg_stat_activity. It reports how many it froze. New connections are
// not frozen.
func (p *Proxy) Freeze(port int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.conns {
		if port != 0 && c.server.LocalAddr().(*net.TCPAddr).Port != port {
			continue
		}
		c.frozen.Store(true)
		n++
	}
	return n
}
