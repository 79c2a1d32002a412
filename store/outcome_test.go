package store

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// commitProxy is a TCP proxy to PostgreSQL that, once armed, holds back
// the server's answer to the next COMMIT a client sends, until released:
// the commit is made, and the client does not hear of it.
type commitProxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	armed   bool
	drop    bool          // drop the COMMIT itself instead of holding its answer
	held    chan struct{} // closed when the server's answer to the commit is held
	release chan struct{} // closed to let it through
}

// proxiedPostgres opens a store on a fresh schema through a commitProxy
// (one that drops the COMMIT if drop), and returns it with the proxy and
// the schema's own URL, to look at the database directly.
func proxiedPostgres(t *testing.T, drop bool) (*Postgres, *commitProxy, string) {
	t.Helper()
	direct := postgresSchema(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newCommitProxy(t, u.Host)
	proxy.drop = drop
	u.Host = proxy.ln.Addr().String()
	return openPostgres(t, u.String()), proxy, direct
}

func newCommitProxy(t *testing.T, target string) *commitProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &commitProxy{ln: ln, target: target, held: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() {
		ln.Close()
		p.let()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *commitProxy) arm() {
	p.mu.Lock()
	p.armed = true
	p.mu.Unlock()
}

// let releases the held answer, if any.
func (p *commitProxy) let() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.release:
	default:
		close(p.release)
	}
}

func (p *commitProxy) serve(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	defer client.Close()
	defer server.Close()
	var holding atomic.Bool // the next answer of this connection is the commit's
	done := make(chan struct{}, 2)
	go func() { // client → server: look for the COMMIT
		defer func() { done <- struct{}{} }()
		buf := make([]byte, 64<<10)
		for {
			n, err := client.Read(buf)
			if n > 0 {
				p.mu.Lock()
				commit := p.armed && bytes.Contains(bytes.ToLower(buf[:n]), []byte("commit"))
				drop := commit && p.drop
				if commit {
					p.armed = false
					holding.Store(!drop)
				}
				p.mu.Unlock()
				if drop {
					close(p.held)
					continue
				}
				if _, err := server.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() { // server → client: hold the answer to the COMMIT
		defer func() { done <- struct{}{} }()
		buf := make([]byte, 64<<10)
		for {
			n, err := server.Read(buf)
			if n > 0 {
				if holding.CompareAndSwap(true, false) { // the commit's answer: hold it
					close(p.held)
					<-p.release
				}
				if _, err := client.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	<-done
}

// A save whose COMMIT is answered too late (after the caller's context
// ended) was committed: Save must not say that nothing changed. It finds
// out and returns nil, or, if it cannot tell, ErrOutcomeUnknown; a plain
// error is allowed only if the save was indeed not made.
func TestPostgresCommitAnswerLost(t *testing.T) {
	s, proxy, direct := proxiedPostgres(t, false)
	g := newGame("g1", "guild", "chan", "alice", "bob")
	mustSave(t, s, g)

	proxy.arm()
	short := untilCommit(t, proxy)
	err := s.Save(short, play(g, [2]int{1, 1}))
	sentCommit(t, proxy, err) // then the server has answered it: its outcome is final
	got := mustGame(t, openPostgres(t, direct), "g1")
	committed := got.Version == 2
	switch {
	case err == nil && !committed:
		t.Errorf("Save = nil, but the game is at version %d; want 2", got.Version)
	case err == nil:
		if g.Version != 2 {
			t.Errorf("after Save = nil, g.Version = %d; want 2", g.Version)
		}
	case errors.Is(err, ErrOutcomeUnknown):
		t.Logf("Save = %v: the truth, if not the whole of it", err)
	case committed:
		t.Errorf("Save = %v, which says the move failed, but it was committed (version %d)", err, got.Version)
	}
	proxy.let()
	// The store goes on working.
	mustSave(t, s, play(mustGame(t, s, "g1"), [2]int{0, 0}))
}

// A COMMIT that never reached the server: the transaction dies with its
// connection, and Save may say so (nothing changed), or that it cannot
// tell; never nil, and the game is unchanged.
func TestPostgresCommitLost(t *testing.T) {
	s, proxy, direct := proxiedPostgres(t, true)
	g := newGame("g1", "guild", "chan", "alice", "bob")
	mustSave(t, s, g)

	proxy.arm()
	short := untilCommit(t, proxy)
	err := s.Save(short, play(g, [2]int{1, 1}))
	sentCommit(t, proxy, err)
	got := mustGame(t, openPostgres(t, direct), "g1")
	switch {
	case got.Version != 1:
		t.Fatalf("the game is at version %d after a COMMIT that never reached the server; want 1", got.Version)
	case err == nil:
		t.Error("Save = nil after a COMMIT that never reached the server; want an error")
	case errors.Is(err, ErrOutcomeUnknown):
		t.Logf("Save = %v: true, though it could have found out", err)
	default:
		t.Logf("Save = %v", err)
	}
}

// untilCommit returns a context that ends once the proxy has seen the
// COMMIT (and holds its answer, or dropped it): the save or read under it
// then gives up on the answer, however long its statements before the
// COMMIT took on a slow machine.
func untilCommit(t *testing.T, p *commitProxy) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		select {
		case <-p.held:
		case <-ctx.Done():
		}
		cancel()
	}()
	return ctx
}

// sentCommit checks that the proxy has seen the COMMIT of the save or read
// that returned err: under untilCommit nothing else ends it, so one that
// returned before its COMMIT failed for another reason. The wait bounds a
// hang, it decides nothing.
func sentCommit(t *testing.T, p *commitProxy, err error) {
	t.Helper()
	select {
	case <-p.held:
	case <-time.After(10 * time.Second):
		t.Fatalf("the call returned %v before its COMMIT", err)
	}
}

// A read whose COMMIT goes unanswered changed nothing, whatever became of
// it: it fails plainly, never as an unknown outcome, which the bot would
// tell a player as "your move may not have been saved".
func TestPostgresReadCommitAnswerLost(t *testing.T) {
	s, proxy, _ := proxiedPostgres(t, false)
	mustSave(t, s, newGame("g1", "guild", "chan", "alice", "bob"))

	proxy.arm()
	short := untilCommit(t, proxy)
	_, err := s.Stats(short, "guild", "alice", 5)
	sentCommit(t, proxy, err)
	if err == nil || errors.Is(err, ErrOutcomeUnknown) {
		t.Errorf("Stats with its COMMIT unanswered = %v; want a plain error", err)
	}
	proxy.let()
}
