package discordtest

import (
	"context"
	"fmt"
	"math/rand"
	"net/http"
	"slices"
	"strings"
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

// Faults makes the fake answer a share of the requests it matches with a
// rate limit (429) or a server error (5xx), drawn from a math/rand seeded
// with Seed, and answer each of them only after Latency: the trouble of a
// busy Discord, from a seed, so that a run can be repeated. Add it with
// Server.InjectFaults. Which requests fail depends on the order they
// arrive in, which the bot's concurrency may change from run to run; how
// many fail, over many, does not.
type Faults struct {
	// Method is the method of the requests it matches ("" for any;
	// "WRITE" for any but GET); PathPrefix their path's start, as for
	// FailNext ("" for every path).
	Method, PathPrefix string
	// Seed seeds the draws.
	Seed int64
	// RateLimited is the share of matched requests answered with a 429,
	// in [0, 1]; RetryAfter its retry_after (default one second), Global
	// whether it is the global limit (X-RateLimit-Global, scope global)
	// rather than the route's (scope user).
	RateLimited float64
	RetryAfter  time.Duration
	Global      bool
	// ServerErrors is the share answered with Status (default 500)
	// without being carried out; LostAnswers the share carried out as
	// usual and then answered with Status all the same, as when Discord
	// acts on a request and its answer is lost to trouble on the way
	// (see LoseNextAnswer): a client that makes it again does it twice,
	// unless Discord recognises it (a message's nonce).
	ServerErrors float64
	LostAnswers  float64
	Status       int
	// Latency delays the answer to every matched request, the faulty ones
	// too. A request whose client gives up meanwhile gets no answer.
	Latency time.Duration
}

// faultPolicy is a Faults in use, with its draws.
type faultPolicy struct {
	Faults
	rng *rand.Rand
}

// matches says whether the policy acts on a request.
func (p *faultPolicy) matches(method, path string) bool {
	switch {
	case p.Method == "WRITE" && method == http.MethodGet:
		return false
	case p.Method != "" && p.Method != "WRITE" && !strings.EqualFold(p.Method, method):
		return false
	}
	return strings.HasPrefix(path, p.PathPrefix)
}

// InjectFaults adds f: from now on the requests it matches fail by
// chance, or wait, as it says, until the returned function removes it.
// Faults queued with FailNext come first. When several Faults match a
// request, the first added decides; every one's Latency adds up.
func (s *Server) InjectFaults(f Faults) (remove func()) {
	if f.PathPrefix != "" && !strings.HasPrefix(f.PathPrefix, "/api/") {
		f.PathPrefix = "/api/v9/" + strings.TrimPrefix(f.PathPrefix, "/")
	}
	if f.RetryAfter <= 0 {
		f.RetryAfter = time.Second
	}
	if f.Status == 0 {
		f.Status = http.StatusInternalServerError
	}
	p := &faultPolicy{Faults: f, rng: rand.New(rand.NewSource(f.Seed))}
	s.mu.Lock()
	s.policies = append(s.policies, p)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.policies = slices.DeleteFunc(s.policies, func(q *faultPolicy) bool { return q == p })
	}
}

// drawFaultLocked returns the fault that the policies draw for a request,
// if any, and the latency they add to it.
func (s *Server) drawFaultLocked(method, path string) (f fault, ok bool, latency time.Duration) {
	for _, p := range s.policies {
		if !p.matches(method, path) {
			continue
		}
		latency += p.Latency
		if ok {
			continue
		}
		switch x := p.rng.Float64(); {
		case x < p.RateLimited:
			f, ok = rateLimitFault(p.RetryAfter, p.Global), true
		case x < p.RateLimited+p.ServerErrors:
			f, ok = fault{status: p.Status}, true
		case x < p.RateLimited+p.ServerErrors+p.LostAnswers:
			f, ok = fault{status: p.Status, lost: true}, true
		}
	}
	return f, ok, latency
}

// rateLimitFault is a 429 of the route's limit, or of the global one.
func rateLimitFault(retryAfter time.Duration, global bool) fault {
	// Whole milliseconds, so that the body's retry_after (three decimals)
	// is never shorter than the limit the fake holds to.
	retryAfter = (retryAfter + time.Millisecond - 1).Truncate(time.Millisecond)
	f := fault{status: http.StatusTooManyRequests, retryAfter: retryAfter}
	if global {
		f.body = fmt.Sprintf(`{"message":"You are being rate limited.","retry_after":%.3f,"global":true}`, retryAfter.Seconds())
	}
	return f
}

// Rate limits once announced. A 429 tells the client to send nothing on
// its route (or, for the global limit, on any route but the interaction
// endpoints, which the global limit does not bind) for retry_after. The
// fake holds it to that: a request that comes before its time is answered
// with another 429 for the time left, which is not injected, and so is in
// Rejected: the bot ignored a rate limit.

// A route is what a rate limit binds: the method and the path, with the
// id of a message made general, as Discord's routes are. It is finer than
// Discord's buckets, so that a client that waits per bucket, or per
// top-level resource, never meets a limit it was not told of.
func rateRoute(method, path string) string {
	if i := strings.LastIndex(path, "/messages/"); i >= 0 {
		path = path[:i] + "/messages/{message}"
	}
	return method + " " + path
}

// globalBound says whether the global limit binds a request: all but the
// interaction endpoints (the callbacks, and the follow-ups and edits
// through an interaction's token under /webhooks/{app}/{token}), which
// Discord's docs say the bot's global limit does not bind.
func globalBound(path string) bool {
	return !strings.HasPrefix(path, apiPrefix+"/interactions/") && !strings.HasPrefix(path, apiPrefix+"/webhooks/")
}

// A heldLimit is a limit a 429 announced: until when it holds, and when
// the first 429 that announced it was written (zero until then). Only a
// request that arrives after that may have been sent by a client that
// knew of the limit.
type heldLimit struct {
	until, written time.Time
}

// globalLimit names the global limit among the routes' (limitedLocked).
const globalLimit = "(global)"

// limitedLocked returns the 429 a request gets for coming before the end
// of a limit announced earlier, if it does, and which limit that is.
func (s *Server) limitedLocked(method, path string, now time.Time) (fault, string, bool) {
	if globalBound(path) && now.Before(s.global.until) {
		return rateLimitFault(s.global.until.Sub(now).Truncate(time.Millisecond)+time.Millisecond, true), globalLimit, true
	}
	route := rateRoute(method, path)
	if l, ok := s.routeLimits[route]; ok && now.Before(l.until) {
		return rateLimitFault(l.until.Sub(now).Truncate(time.Millisecond)+time.Millisecond, false), route, true
	}
	return fault{}, "", false
}

// limitLocked returns the limit named as limitedLocked names it.
func (s *Server) limitLocked(name string) *heldLimit {
	if name == globalLimit {
		return &s.global
	}
	if s.routeLimits == nil {
		s.routeLimits = map[string]heldLimit{}
	}
	l := s.routeLimits[name]
	return &l
}

// announceLocked remembers the limit that a 429 answered at now, f,
// announces.
func (s *Server) announceLocked(method, path string, f fault, now time.Time) {
	if f.status != http.StatusTooManyRequests || f.retryAfter <= 0 {
		return
	}
	until := now.Add(f.retryAfter)
	if f.global() {
		s.global = extend(s.global, until, now)
		return
	}
	if s.routeLimits == nil {
		s.routeLimits = map[string]heldLimit{}
	}
	if len(s.routeLimits) > 1024 { // the ended ones go
		for k, l := range s.routeLimits {
			if !now.Before(l.until) {
				delete(s.routeLimits, k)
			}
		}
	}
	route := rateRoute(method, path)
	s.routeLimits[route] = extend(s.routeLimits[route], until, now)
}

// extend returns l held until until, announced at now: a limit that had
// ended starts afresh, its 429 not yet written.
func extend(l heldLimit, until, now time.Time) heldLimit {
	if !now.Before(l.until) {
		l = heldLimit{}
	}
	if until.After(l.until) {
		l.until = until
	}
	return l
}

// writtenLocked notes that a 429 announcing f's limit on the route of
// method and path was written at now, if it is the limit's first.
func (s *Server) writtenLocked(method, path string, f fault, now time.Time) {
	if f.status != http.StatusTooManyRequests || f.retryAfter <= 0 {
		return
	}
	if f.global() {
		if s.global.written.IsZero() {
			s.global.written = now
		}
		return
	}
	route := rateRoute(method, path)
	if l, ok := s.routeLimits[route]; ok && l.written.IsZero() {
		l.written = now
		s.routeLimits[route] = l
	}
}

// earlyLocked says whether a request that arrived at at, which the limit
// named limit held, came before that limit's first 429 was written.
func (s *Server) earlyLocked(limit string, at time.Time) bool {
	l := s.limitLocked(limit)
	return l.written.IsZero() || at.Before(l.written)
}

// global says whether f is a 429 of the global limit.
func (f fault) global() bool {
	return f.status == http.StatusTooManyRequests && (strings.Contains(f.body, `"global":true`) || strings.Contains(f.body, `"global": true`))
}

// RateLimitsIgnored returns the requests that came on a route, or while
// the global limit held, before the retry_after the fake had answered
// with there had passed, and after that 429 had been written (one that
// arrived while it was on its way could not have known of it). A bot
// that honours rate limits has none.
func (s *Server) RateLimitsIgnored() []Request {
	return s.filterRequests(func(r Request) bool { return r.Status == http.StatusTooManyRequests && !r.Injected && !r.early })
}
