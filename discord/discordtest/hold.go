package discordtest

import "context"

// A Hold keeps the requests it selects waiting, as a slow Discord would,
// until the test releases them: latency a test controls exactly. Create
// one with Server.Hold.
type Hold struct {
	s     *Server
	match func(Request) bool // called with s.mu held

	// Guarded by s.mu.
	held     int           // requests held so far
	released chan struct{} // closed by Release
	done     bool
}

// Hold makes the server keep each REST request that match selects waiting
// before it handles it (before any fault injected with FailNext), until
// Release. The request is recorded as received then, and answered once
// released. An answer of the interactions endpoint is offered to match
// too before the server takes it, as a Request whose Path is
// "/interactions (endpoint)" and whose Body is the interaction's payload:
// a held answer reaches Discord late.
//
// match sees the request as received (Method, Path, Query, Body, Time). It
// is called with the server's lock held: it must not call the server.
// Holds are asked in the order they were made; the first that selects a
// request holds it. Close releases every held request.
func (s *Server) Hold(match func(Request) bool) *Hold {
	h := &Hold{s: s, match: match, released: make(chan struct{})}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holds = append(s.holds, h)
	return h
}

// Held returns how many requests h has held so far, released or not.
func (h *Hold) Held() int {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	return h.held
}

// WaitHeld blocks until h has held at least n requests.
func (h *Hold) WaitHeld(ctx context.Context, n int) error {
	return h.s.waitUntil(ctx, func() (bool, error) { return h.held >= n, nil })
}

// Release lets every request h holds go on, and h holds no more.
func (h *Hold) Release() {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	if h.done {
		return
	}
	h.done = true
	close(h.released)
	h.s.broadcastLocked()
}

// holdIfAsked keeps r waiting while a hold selects it, until the hold is
// released or the server closes.
func (s *Server) holdIfAsked(r Request) {
	s.mu.Lock()
	var h *Hold
	for _, x := range s.holds {
		if !x.done && x.match(r) {
			h = x
			break
		}
	}
	if h == nil {
		s.mu.Unlock()
		return
	}
	h.held++
	s.broadcastLocked()
	s.mu.Unlock()
	select {
	case <-h.released:
	case <-s.closed:
	}
}
