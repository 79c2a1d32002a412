package discordtest

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// Gateway faults. Each acts on the connections that are ready (have had
// READY or RESUMED) when it is called; connections opened later behave
// normally. Each takes the connections it acts on out of service at once,
// so that Send waits for the client to come back rather than dispatching
// to a connection the client is leaving, and so that WaitReady waits for
// the recovery.

// Reconnect sends Reconnect (op 7) on every ready connection: the client
// must close it, connect again and resume.
func (s *Server) Reconnect() {
	for _, c := range s.takeReady(nil) {
		_ = c.send(opReconnect, nil)
	}
}

// InvalidateSessions sends Invalid Session (op 9) on every ready
// connection, with d = resumable. If resumable is false the sessions are
// forgotten, so that a later Resume fails and the client must identify
// afresh; if it is true, they stay known and may be resumed on a new
// connection. Either way the connection stays open and may identify (or
// resume) again, as discordgo does on the same socket.
func (s *Server) InvalidateSessions(resumable bool) {
	for _, c := range s.takeReady(func(c *conn) {
		if !resumable {
			delete(s.sessions, c.sess.id)
		}
	}) {
		_ = c.send(opInvalidSession, resumable)
	}
}

// StopHeartbeatACKs makes every ready connection a zombie: it stays open
// but no longer acknowledges heartbeats (op 11) nor dispatches events, as
// when the network between client and Discord silently fails. A client
// must notice the missing acknowledgements, close the connection and
// resume on a new one. Set HeartbeatInterval small for this: discordgo
// gives up after 5 intervals without an acknowledgement.
func (s *Server) StopHeartbeatACKs() {
	s.takeReady(func(c *conn) { c.zombie = true })
}

// takeReady marks every ready connection not ready, calls f (if not nil)
// on each with s.mu held, and returns them.
func (s *Server) takeReady(f func(*conn)) []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*conn
	for _, c := range s.conns {
		if !c.ready {
			continue
		}
		c.ready = false
		if f != nil {
			f(c)
		}
		out = append(out, c)
	}
	s.broadcastLocked()
	return out
}

// WaitResumes blocks until at least n sessions were resumed.
func (s *Server) WaitResumes(ctx context.Context, n int) error {
	return s.waitUntil(ctx, func() (bool, error) { return s.resumes >= n, nil })
}

// WaitIdentifies blocks until at least n Identify payloads were accepted
// (answered with READY).
func (s *Server) WaitIdentifies(ctx context.Context, n int) error {
	return s.waitUntil(ctx, func() (bool, error) {
		ok := 0
		for _, id := range s.identifies {
			if id.CloseCode == 0 {
				ok++
			}
		}
		return ok >= n, nil
	})
}

// FailNextGlobal makes the next request whose method is method ("" for
// any) and whose path starts with pathPrefix fail once with Discord's
// global rate limit: a 429 whose body is {"message":"You are being rate
// limited.","retry_after":…,"global":true}. See FailNext.
func (s *Server) FailNextGlobal(method, pathPrefix string, retryAfter time.Duration) {
	body := fmt.Sprintf(`{"message":"You are being rate limited.","retry_after":%.3f,"global":true}`, retryAfter.Seconds())
	s.FailNext(method, pathPrefix, http.StatusTooManyRequests, body, retryAfter)
}

// ExpireSessions forgets every session without telling the clients, as
// Discord does with the session of a client that stayed away too long:
// a Resume of one of them gets Invalid Session (op 9, d = false) and the
// client must identify afresh. Connections stay as they are; follow with
// DropConnections to make the clients resume.
func (s *Server) ExpireSessions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.sessions)
}
