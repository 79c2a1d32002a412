package web

import (
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// instanceCalls is how many times the server has asked the fake Discord
// for an activity instance.
func (e *env) instanceCalls() int {
	n := 0
	for _, r := range e.dc.Requests() {
		if r.Method == "GET" && strings.Contains(r.Path, "/activity-instances/") {
			n++
		}
	}
	return n
}

// alive says whether p's socket still answers.
func (p *page) alive() bool {
	p.tb.Helper()
	p.send(ClientMsg{Type: "ping", Seq: 99})
	for {
		m, err := p.read()
		if err != nil {
			return false
		}
		if m.Type == "pong" {
			return true
		}
	}
}

// TestSessionEndsSocket: a socket ends at its session's expiry, whether
// or not the page sends anything, with the reason the page shows while
// it signs in again; until then it lives.
func TestSessionEndsSocket(t *testing.T) {
	e := newEnv(t, Limits{SessionTTL: time.Hour})
	ann, bob := e.user("ann"), e.user("bob")
	e.games.start(e.channel, 3, asUser(ann), asUser(bob))
	p := e.open(t, e.login(t, ann, "de", ""))
	e.clock.advance(time.Hour - time.Second)
	if !p.alive() {
		t.Fatal("the socket ended before its session's expiry")
	}
	e.clock.advance(time.Second)
	st, got := p.closed()
	if st != websocket.StatusPolicyViolation || len(got) == 0 || got[len(got)-1].Code != "session_expired" {
		t.Fatalf("at the session's expiry: closed %v after %+v; want session_expired, 1008", st, got)
	}
	if msg, want := got[len(got)-1].Message, e.srv.catalog.For("de").T("web.session_expired", nil); msg != want || msg == "" {
		t.Errorf("the page is told %q; want %q", msg, want)
	}
	if e.games.acts.Load() != 0 {
		t.Error("the game was asked to act")
	}
	waitFor(t, func() bool { return e.srv.Sockets() == 0 && e.clock.pending() == 0 })
}

// TestLeftInstance: whether a page's user is still in its activity is
// asked again every MemberCheck, once per instance however many pages it
// has: a user who left is cut off then, and a page of theirs coming back
// with the old session is refused; the others play on.
func TestLeftInstance(t *testing.T) {
	e := newEnv(t, Limits{MemberCheck: 10 * time.Minute})
	ann, bob, cat := e.user("ann"), e.user("bob"), e.user("cat")
	e.games.start(e.channel, 3, asUser(ann), asUser(bob))
	inst := e.dc.StartActivity(e.channel, e.guild, ann.ID, bob.ID, cat.ID)
	bobS := e.login(t, bob, "en-US", inst)
	pa := e.open(t, e.login(t, ann, "en-US", inst))
	pb := e.open(t, bobS)
	pc := e.open(t, e.login(t, cat, "en-US", inst))
	before := e.instanceCalls()

	e.dc.LeaveActivity(inst, bob.ID)
	e.clock.advance(9 * time.Minute)
	if !pb.alive() || e.instanceCalls() != before {
		t.Fatalf("before MemberCheck: bob's page alive %v, %d calls to Discord; want alive, none", pb.alive(), e.instanceCalls()-before)
	}
	e.clock.advance(time.Minute)
	pb.refusedWith("left_instance", websocket.StatusPolicyViolation)
	if !pa.alive() || !pc.alive() {
		t.Error("the pages of users still in the activity were closed")
	}
	if n := e.instanceCalls() - before; n != 1 {
		t.Errorf("%d calls to Discord for three pages of one instance; want 1", n)
	}

	// bob's page comes back with its session: it is refused at hello.
	again := e.dial(t)
	again.send(ClientMsg{Type: "hello", Session: bobS})
	again.refusedWith("left_instance", websocket.StatusPolicyViolation)
	// A move is no longer possible for bob, and the game saw none.
	if e.games.acts.Load() != 0 {
		t.Error("the game was asked to act")
	}
	// The others are checked again at the next MemberCheck, and stay.
	e.clock.advance(10 * time.Minute)
	waitFor(t, func() bool { return e.instanceCalls()-before == 2 })
	if !pa.alive() || !pc.alive() {
		t.Error("the pages of users still in the activity were closed at the second check")
	}
}

// TestLeftInstanceDiscordDown: when Discord cannot be asked, the pages go
// on (their sessions are good) and Discord is asked again a minute later:
// a user who left is cut off then.
func TestLeftInstanceDiscordDown(t *testing.T) {
	e := newEnv(t, Limits{MemberCheck: 10 * time.Minute})
	ann, bob := e.user("ann"), e.user("bob")
	e.games.start(e.channel, 3, asUser(ann), asUser(bob))
	inst := e.dc.StartActivity(e.channel, e.guild, ann.ID, bob.ID)
	p := e.open(t, e.login(t, bob, "en-US", inst))
	before := e.instanceCalls()
	e.dc.LeaveActivity(inst, bob.ID)
	e.dc.FailNext("GET", "/applications/", 500, "", 0)
	e.clock.advance(10 * time.Minute)
	waitFor(t, func() bool { return e.instanceCalls()-before == 1 && e.clock.pending() == 1 })
	if !p.alive() {
		t.Fatal("a page was closed because Discord failed")
	}
	e.clock.advance(memberRetry)
	p.refusedWith("left_instance", websocket.StatusPolicyViolation)
}

// TestMemberFailureShared: a failure to ask Discord is believed, like an
// answer, by every page of the instance until the retry's pause: pages
// that check within it do not each ask Discord again.
func TestMemberFailureShared(t *testing.T) {
	e := newEnv(t, Limits{MemberCheck: 10 * time.Minute})
	ann, bob := e.user("ann"), e.user("bob")
	e.games.start(e.channel, 3, asUser(ann), asUser(bob))
	inst := e.dc.StartActivity(e.channel, e.guild, ann.ID, bob.ID)
	pa := e.open(t, e.login(t, ann, "en-US", inst))
	e.clock.advance(30 * time.Second)
	pb := e.open(t, e.login(t, bob, "en-US", inst)) // checked 30 s after ann
	before := e.instanceCalls()
	e.dc.FailNext("GET", "/applications/", 500, "", 0)
	e.clock.advance(10*time.Minute - 30*time.Second) // ann's check: Discord fails
	waitFor(t, func() bool { return e.instanceCalls()-before == 1 })
	e.clock.advance(30 * time.Second) // bob's check, within the retry's pause
	waitFor(t, func() bool { return e.clock.pending() == 2 })
	if n := e.instanceCalls() - before; n != 1 {
		t.Errorf("%d calls to Discord for one instance within the retry's pause; want 1", n)
	}
	if !pa.alive() || !pb.alive() {
		t.Error("a page was closed because Discord failed")
	}
}
