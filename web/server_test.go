package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/tttbot/tttbot/i18n"
)

// TestSessions: a session says what was signed, to the key that signed
// it, until it expires; anything else is refused.
func TestSessions(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := claims{User: "1", Name: "Ann", Channel: "2", Guild: "3", Instance: "i-4", Locale: "de", Expiry: now.Add(time.Hour).Unix()}
	s := sign(testKey, c)
	if got, err := verify(testKey, s, now); err != nil || got != c {
		t.Fatalf("verify(sign(c)) = %+v, %v; want %+v", got, err, c)
	}
	if _, err := verify(testKey, s, now.Add(time.Hour)); err != errSessionExpired {
		t.Errorf("at its expiry: %v, want expired", err)
	}
	other := append([]byte(nil), testKey...)
	other[0] ^= 1
	forged := c
	forged.User = "666"
	payload, sig, _ := strings.Cut(s, ".")
	forgedPayload, _, _ := strings.Cut(sign(testKey, forged), ".")
	for name, bad := range map[string]string{
		"another key":     sign(other, c),
		"another payload": forgedPayload + "." + sig,
		"no signature":    payload,
		"empty":           "",
		"a signature cut": s[:len(s)-2],
		"garbage":         "a.b",
		"no instance":     sign(testKey, claims{User: "1", Channel: "2", Expiry: now.Add(time.Hour).Unix()}), // no instance
		"too long":        s + strings.Repeat("A", maxSession),
	} {
		if _, err := verify(testKey, bad, now); err != errSessionInvalid {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
}

// TestSessionEndpoint: the session is for the user Discord names, in the
// channel where Discord says the instance runs, and only if the user is
// in it; each refusal says why, in the user's language.
func TestSessionEndpoint(t *testing.T) {
	e := newEnv(t, Limits{})
	ann, bob := e.user("ann"), e.user("bob")
	inst := e.dc.StartActivity(e.channel, e.guild, ann.ID)

	// The page's claims about itself are not read: only code and
	// instance, and a channel to compare.
	st, out := e.post(t, map[string]any{"code": e.dc.Authorize(ann, "de"), "instance_id": inst, "user": map[string]string{"id": bob.ID}, "guild_id": "1"}, "")
	if st != 200 || out["channel_id"] != e.channel || out["locale"] != "de" || out["access_token"] == "" {
		t.Fatalf("session: %d %v", st, out)
	}
	c, err := verify(testKey, out["session"].(string), e.clock.now())
	if err != nil || c.User != ann.ID || c.Channel != e.channel || c.Guild != e.guild || c.Instance != inst || c.Locale != "de" {
		t.Errorf("the session says %+v, %v", c, err)
	}
	if u, _ := out["user"].(map[string]any); u["id"] != ann.ID {
		t.Errorf("user %v, want ann", out["user"])
	}

	elsewhere := e.dc.StartActivity(e.dc.NewID(), e.guild, ann.ID)
	tests := []struct {
		name   string
		body   map[string]any
		lang   string
		status int
		code   string
		text   string // a word of the message, in its language
	}{
		{"not in the instance", map[string]any{"code": e.dc.Authorize(bob, "de"), "instance_id": inst}, "", 403, "not_in_instance", "Aktivität"},
		{"an instance elsewhere", map[string]any{"code": e.dc.Authorize(ann, "fr"), "instance_id": elsewhere, "channel_id": e.channel}, "", 403, "instance_elsewhere", "salon"},
		{"an unknown instance", map[string]any{"code": e.dc.Authorize(ann, "en-US"), "instance_id": "i-nope"}, "", 403, "instance_unknown", "activity"},
		{"a forged code", map[string]any{"code": "forged", "instance_id": inst}, "ja", 403, "code_refused", "Discord"},
		{"no instance", map[string]any{"code": "x"}, "es-419", 400, "bad_request", "página"},
		{"not JSON", nil, "", 400, "bad_request", "page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body any = tt.body
			if tt.body == nil {
				body = "{"
			}
			st, out := e.post(t, body, tt.lang)
			msg, _ := out["message"].(string)
			if st != tt.status || out["error"] != tt.code || !strings.Contains(msg, tt.text) || out["session"] != nil {
				t.Errorf("%d %v; want %d %s with %q", st, out, tt.status, tt.code, tt.text)
			}
		})
	}

	// Discord out of reach is not the user's fault, and says so.
	e.dc.FailNext("GET", "/applications/", 500, "", 0)
	st, out = e.post(t, map[string]any{"code": e.dc.Authorize(ann, "en-US"), "instance_id": inst}, "")
	if st != 502 || out["error"] != "discord_unreachable" {
		t.Errorf("Discord failing: %d %v, want 502 discord_unreachable", st, out)
	}
	// Every call was made as Discord wants it.
	for _, r := range e.dc.Rejected() {
		if r.Status != 400 && r.Status != 404 && r.Status != 401 {
			t.Errorf("the fake Discord refused %v", r)
		}
	}
}

// TestSessionRate: sessions beyond the server's rate are refused
// before Discord is asked.
func TestSessionRate(t *testing.T) {
	e := newEnv(t, Limits{SessionsPerSecond: 1, SessionBurst: 2})
	ann := e.user("ann")
	inst := e.dc.StartActivity(e.channel, e.guild, ann.ID)
	e.login(t, ann, "en-US", inst)
	e.login(t, ann, "en-US", inst)
	asked := len(e.dc.Requests())
	st, out := e.post(t, map[string]any{"code": e.dc.Authorize(ann, "en-US"), "instance_id": inst}, "")
	if st != 429 || out["error"] != "crowded" || len(e.dc.Requests()) != asked {
		t.Errorf("a third session at once: %d %v, %d calls to Discord", st, out, len(e.dc.Requests())-asked)
	}
	e.clock.advance(time.Second)
	e.login(t, ann, "en-US", inst)
}

// TestHello: a socket must begin with a good session; until then
// nothing is read, and a forged or expired one is refused with why.
func TestHello(t *testing.T) {
	e := newEnv(t, Limits{})
	ann, bob := e.user("ann"), e.user("bob")
	e.games.start(e.channel, 3, asUser(ann), asUser(bob))
	session := e.login(t, ann, "en-US", "")

	p := e.dial(t)
	p.send(ClientMsg{Type: "move", Seq: 7, Row: 1, Col: 1, Version: 1})
	if m := p.next("error"); m.Code != "hello_first" || m.Seq != 7 || m.Message == "" {
		t.Errorf("a move before hello: %+v", m)
	}
	p.send(ClientMsg{Type: "hello", Session: session})
	if st := p.next("state").State; st.You != "X" || st.ChannelID != e.channel {
		t.Errorf("state after hello: %+v", st)
	}
	if e.games.acts.Load() != 0 {
		t.Errorf("the move before hello was acted on")
	}

	forged := e.dial(t)
	payload, _, _ := strings.Cut(session, ".")
	forged.send(ClientMsg{Type: "hello", Session: payload + ".AAAA"})
	forged.refusedWith("session_invalid", 1008)

	// Another channel's session shows that channel, never this one.
	other := e.dc.NewID()
	inst := e.dc.StartActivity(other, e.guild, ann.ID)
	_, out := e.post(t, map[string]any{"code": e.dc.Authorize(ann, "en-US"), "instance_id": inst}, "")
	q := e.dial(t)
	q.send(ClientMsg{Type: "hello", Session: out["session"].(string)})
	if st := q.next("state").State; st.ChannelID != other || st.GameID != "" {
		t.Errorf("a session of another channel got %+v", st)
	}

	e.clock.advance(DefaultLimits.SessionTTL)
	p.send(ClientMsg{Type: "move", Seq: 8, Row: 1, Col: 1, Version: 1})
	p.refusedWith("session_expired", 1008)
	if e.games.acts.Load() != 0 {
		t.Errorf("a move after the session's expiry was acted on")
	}
	late := e.dial(t)
	late.send(ClientMsg{Type: "hello", Session: session})
	late.refusedWith("session_expired", 1008)
}

// TestHelloLate: a socket that says nothing is told, and closed.
func TestHelloLate(t *testing.T) {
	e := newEnv(t, Limits{HelloWithin: time.Millisecond})
	p := e.dial(t)
	p.refusedWith("hello_first", 1008)
}

// TestPlay: two players and a spectator; each move reaches every page;
// the spectator's tap, a move out of turn and a replay are refused with
// the game's words, and change nothing.
func TestPlay(t *testing.T) {
	e := newEnv(t, Limits{})
	ann, bob, cat := e.user("ann"), e.user("bob"), e.user("cat")
	e.games.start(e.channel, 15, asUser(ann), asUser(bob))
	inst := e.dc.StartActivity(e.channel, e.guild, ann.ID, bob.ID, cat.ID)
	x := e.open(t, e.login(t, ann, "en-US", inst))
	o := e.open(t, e.login(t, bob, "de", inst))
	s := e.open(t, e.login(t, cat, "fr", inst))
	if x.last.You != "X" || o.last.You != "O" || s.last.You != "" || !strings.HasPrefix(o.last.Status, "[de]") {
		t.Fatalf("sides: %q %q %q, status %q", x.last.You, o.last.You, s.last.You, o.last.Status)
	}

	x.send(ClientMsg{Type: "move", Seq: 1, Row: 8, Col: 8, Version: 1})
	if r := x.next("result"); !r.OK || r.Seq != 1 {
		t.Fatalf("X's move: %+v", r)
	}
	for _, p := range []*page{x, o, s} {
		if st := p.stateAt(2); st.Cells[7*15+7] != "X" {
			t.Errorf("after X's move a page shows %v", st.Cells[7*15+7])
		}
	}

	refused := []ClientMsg{
		{Type: "move", Seq: 2, Row: 1, Col: 1, Version: 2}, // the spectator
		{Type: "move", Seq: 3, Row: 1, Col: 1, Version: 2}, // X, out of turn
		{Type: "move", Seq: 4, Row: 1, Col: 1, Version: 1}, // O, a replay of the old board
	}
	for i, p := range []*page{s, x, o} {
		p.send(refused[i])
		if r := p.next("result"); r.OK || r.Seq != refused[i].Seq || r.Message == "" {
			t.Errorf("refusal %d: %+v", i, r)
		}
	}
	if v := e.games.version(e.channel); v != 2 {
		t.Errorf("version %d after refusals, want 2", v)
	}

	// A move made elsewhere (chat) shows too.
	e.games.bump(e.channel)
	s.stateAt(3)
}

// TestBadFrames: what is not a request gets an error and changes
// nothing; the socket stays open, up to a frame far too large.
func TestBadFrames(t *testing.T) {
	e := newEnv(t, Limits{})
	ann, bob := e.user("ann"), e.user("bob")
	e.games.start(e.channel, 3, asUser(ann), asUser(bob))
	p := e.open(t, e.login(t, ann, "en-US", ""))
	frames := []struct {
		name string
		typ  websocket.MessageType
		b    string
		code string
	}{
		{"not JSON", 1, `{"type":`, "bad_frame"},
		{"no type", 1, `{"seq":3}`, "bad_frame"},
		{"binary", 2, `{"type":"ping"}`, "bad_frame"},
		{"unknown type", 1, `{"type":"teleport","seq":5}`, "unknown_type"},
		{"a move off the board", 1, `{"type":"move","row":0,"col":1,"version":1}`, "bad_frame"},
		{"a second hello", 1, `{"type":"hello","session":"x"}`, "bad_frame"},
		{"too big", 1, `{"type":"move","pad":"` + strings.Repeat("x", MaxFrame) + `"}`, "too_big"},
	}
	for _, f := range frames {
		p.sendRaw(f.typ, []byte(f.b))
		if m := p.next("error"); m.Code != f.code || m.Message == "" {
			t.Errorf("%s: %+v, want %s", f.name, m, f.code)
		}
	}
	p.send(ClientMsg{Type: "ping", Seq: 9})
	if m := p.next("pong"); m.Seq != 9 {
		t.Errorf("pong %+v", m)
	}
	if e.games.acts.Load() != 0 || e.games.version(e.channel) != 1 {
		t.Errorf("bad frames reached the game")
	}
	// Far beyond MaxFrame the socket is closed (1009): it is not read.
	p.sendRaw(websocket.MessageText, []byte(strings.Repeat("x", hardFrame+1)))
	if st, _ := p.closed(); st != 1009 {
		t.Errorf("a huge frame: closed with %v, want 1009", st)
	}
}

// TestTooFast: actions beyond the user's rate are refused until the
// bucket fills again; the game sees none of them.
func TestTooFast(t *testing.T) {
	e := newEnv(t, Limits{ActionsPerSecond: 1, ActionBurst: 2})
	ann, bob := e.user("ann"), e.user("bob")
	e.games.start(e.channel, 3, asUser(ann), asUser(bob))
	session := e.login(t, ann, "en-US", "")
	p, q := e.open(t, session), e.open(t, session) // the limit is the user's, not a socket's
	p.send(ClientMsg{Type: "resign", Seq: 1})
	p.next("result")
	q.send(ClientMsg{Type: "resign", Seq: 2})
	q.next("result")
	p.send(ClientMsg{Type: "resign", Seq: 3})
	if m := p.next("error"); m.Code != "too_fast" || m.Seq != 3 {
		t.Errorf("a third action at once: %+v", m)
	}
	if n := e.games.acts.Load(); n != 2 {
		t.Errorf("%d actions reached the game, want 2", n)
	}
	e.clock.advance(time.Second)
	p.send(ClientMsg{Type: "resign", Seq: 4})
	if m := p.next("result"); m.Seq != 4 {
		t.Errorf("a second later: %+v", m)
	}
}

// TestFrameFlood: a page that floods frames is closed.
func TestFrameFlood(t *testing.T) {
	e := newEnv(t, Limits{FramesPerSecond: 1, FrameBurst: 3})
	p := e.dial(t)
	for range 4 {
		p.send(ClientMsg{Type: "ping"})
	}
	p.refusedWith("too_fast", 1008)
}

// TestSocketLimits: per user, per instance and in all.
func TestSocketLimits(t *testing.T) {
	e := newEnv(t, Limits{PerUser: 2, PerInstance: 3, Total: 5})
	ann, bob, cat := e.user("ann"), e.user("bob"), e.user("cat")
	inst := e.dc.StartActivity(e.channel, e.guild, ann.ID, bob.ID, cat.ID)
	annS := e.login(t, ann, "en-US", inst)
	e.open(t, annS)
	e.open(t, annS)
	third := e.dial(t)
	third.send(ClientMsg{Type: "hello", Session: annS})
	third.refusedWith("too_many_sockets", 1008)
	waitFor(t, func() bool { return e.srv.Sockets() == 2 }) // the refused one is let go

	e.open(t, e.login(t, bob, "en-US", inst)) // the instance's third
	full := e.dial(t)
	full.send(ClientMsg{Type: "hello", Session: e.login(t, cat, "en-US", inst)})
	full.refusedWith("busy", 1013)
	waitFor(t, func() bool { return e.srv.Sockets() == 3 })

	// Another instance is not full; but the server is, at five.
	e.open(t, e.login(t, cat, "en-US", ""))
	e.dial(t) // the fifth, before hello
	over := e.dial(t)
	over.refusedWith("busy", 1013)
}

// TestOrigin: pages of the activity's proxy and of this host may open a
// socket; a page of another site may not.
func TestOrigin(t *testing.T) {
	e := newEnv(t, Limits{})
	for origin, ok := range map[string]bool{
		"": true, // not a browser
		"https://" + e.dc.AppID + ".discordsays.com": true,
		e.hs.URL:                    true,
		"https://evil.example":      false,
		"https://1.discordsays.com": false, // another application's activity
	} {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		_, resp, err := e.dialWith(t, h)
		if ok != (err == nil) {
			t.Errorf("origin %q: %v", origin, err)
		}
		if !ok && (resp == nil || resp.StatusCode != 403) {
			t.Errorf("origin %q: answered %v, want 403", origin, resp)
		}
	}
}

// TestSlowReader: a page that reads nothing is dropped once a frame
// waits on it longer than WriteTimeout (its TCP buffers full), and the
// room goes on for the others.
func TestSlowReader(t *testing.T) {
	e := newEnv(t, Limits{WriteTimeout: 20 * time.Millisecond})
	ann, bob := e.user("ann"), e.user("bob")
	e.games.start(e.channel, 15, asUser(ann), asUser(bob))
	inst := e.dc.StartActivity(e.channel, e.guild, ann.ID, bob.ID)
	reader := e.open(t, e.login(t, ann, "en-US", inst))
	e.open(t, e.login(t, bob, "en-US", inst)) // never read again
	e.games.mu.Lock()
	e.games.pad = strings.Repeat("x", 64<<10) // buffers fill sooner
	e.games.mu.Unlock()
	// The reader reads all along, and the test waits for it.
	var seen atomic.Int64
	go func() {
		for {
			m, err := reader.read()
			if err != nil {
				return
			}
			if m.State != nil {
				seen.Store(m.State.Version)
			}
		}
	}()
	for give := time.Now().Add(30 * time.Second); e.srv.Sockets() == 2; {
		if time.Now().After(give) {
			t.Fatal("the page that reads nothing was never dropped")
		}
		e.games.bump(e.channel)
		v := e.games.version(e.channel)
		waitFor(t, func() bool { return seen.Load() == v })
	}
	v := e.games.version(e.channel)
	e.games.bump(e.channel)
	waitFor(t, func() bool { return seen.Load() == v+1 })
}

// TestFanOut: one read per player and per language of the spectators,
// whatever their number; and a channel nobody watches is not watched.
func TestFanOut(t *testing.T) {
	e := newEnv(t, Limits{})
	ann, bob := e.user("ann"), e.user("bob")
	e.games.start(e.channel, 3, asUser(ann), asUser(bob))
	inst := e.dc.StartActivity(e.channel, e.guild, ann.ID, bob.ID)
	pages := []*page{e.open(t, e.login(t, ann, "en-US", inst)), e.open(t, e.login(t, bob, "en-US", inst))}
	for i := range 10 {
		u := e.user("watcher")
		e.dc.JoinActivity(inst, u.ID)
		pages = append(pages, e.open(t, e.login(t, u, []string{"en-US", "de"}[i%2], inst)))
	}
	if n := e.games.watching(e.channel); n != 1 {
		t.Fatalf("%d watches of the channel, want 1", n)
	}
	before := e.games.states.Load()
	e.games.bump(e.channel)
	for _, p := range pages {
		p.stateAt(2)
	}
	if n := e.games.states.Load() - before; n != 4 {
		t.Errorf("%d reads for a change, want 4: ann, bob, the English and the German spectators", n)
	}
	for i, p := range pages[2:] {
		if want := []string{"[en-US]", "[de]"}[i%2]; !strings.HasPrefix(p.last.Status, want) || p.last.You != "" {
			t.Errorf("spectator %d got %q, you %q", i, p.last.Status, p.last.You)
		}
	}
	for _, p := range pages {
		_ = p.c.CloseNow()
	}
	waitFor(t, func() bool { return e.games.watching(e.channel) == 0 })
}

// TestFeedEnds: a feed that ends (its database connection lost) sends
// the pages back, and a page that comes back gets a new watch and the
// state.
func TestFeedEnds(t *testing.T) {
	e := newEnv(t, Limits{})
	ann, bob := e.user("ann"), e.user("bob")
	e.games.start(e.channel, 3, asUser(ann), asUser(bob))
	session := e.login(t, ann, "en-US", "")
	p := e.open(t, session)
	e.games.endFeed(e.channel)
	if m := p.next("error"); m.Code != "restarting" {
		t.Errorf("after the feed ended: %+v", m)
	}
	// The room is gone before its pages are (the page has not answered
	// the close yet): a page coming back meanwhile gets a new one.
	e.srv.hub.mu.Lock()
	_, still := e.srv.hub.rooms[e.channel]
	e.srv.hub.mu.Unlock()
	if still {
		t.Error("the room of the ended feed is still the channel's")
	}
	if st, _ := p.closed(); st != 1013 {
		t.Errorf("closed with %v, want 1013", st)
	}
	q := e.open(t, session)
	e.games.bump(e.channel)
	q.stateAt(2)
	if n := e.games.watches.Load(); n != 2 {
		t.Errorf("%d watches, want 2", n)
	}
}

// TestProxyPrefix: the paths of Discord's proxy are the server's too.
func TestProxyPrefix(t *testing.T) {
	e := newEnv(t, Limits{})
	resp, err := http.Post(e.hs.URL+"/.proxy/api/session", "application/json", strings.NewReader("{"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("/.proxy/api/session: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// TestClose: closing the server tells every page to come back.
func TestClose(t *testing.T) {
	e := newEnv(t, Limits{})
	ann := e.user("ann")
	p := e.open(t, e.login(t, ann, "en-US", ""))
	go e.srv.Close()
	p.refusedWith("restarting", 1001)
}

// TestNew refuses what cannot work.
func TestNew(t *testing.T) {
	g := newFakeGames()
	good := Config{Games: g, Feed: g, Key: testKey, ClientID: "1", ClientSecret: "s", BotToken: "t"}
	if _, err := New(good); err != nil {
		t.Fatal(err)
	}
	short := good
	short.Key = testKey[:MinKeyLen-1]
	noSecret := good
	noSecret.ClientSecret = ""
	noGames := good
	noGames.Games = nil
	for name, c := range map[string]Config{"a short key": short, "no secret": noSecret, "no games": noGames} {
		if _, err := New(c); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// waitFor waits until cond holds, for a goroutine of the server to get
// there.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestTexts: every code the server answers with has its text in every
// language (the catalog's own tests check the translations).
func TestTexts(t *testing.T) {
	cat, err := i18n.New()
	if err != nil {
		t.Fatal(err)
	}
	codes := []string{"bad_frame", "bad_request", "busy", "code_refused", "crowded", "discord_unreachable", "hello_first",
		"instance_elsewhere", "instance_unknown", "internal", "left_instance", "not_found", "not_in_instance", "restarting",
		"session_expired", "session_invalid", "starting", "too_big", "too_fast", "too_many_sockets", "unknown_type"}
	for _, locale := range []string{"en-US", "de", "es-ES", "fr", "ja", "pt-BR", "ru", "zh-CN"} {
		l := cat.For(locale)
		for _, code := range codes {
			if got := text(l, code); got == "web."+code || got == "" {
				t.Errorf("%s: no text for %s", locale, code)
			} else if len(got) > 123*3 {
				t.Errorf("%s: %s is long: %d bytes", locale, code, len(got))
			}
		}
	}
}

// TestTooFastReconnect: a page cannot refill its user's actions by
// closing its socket and opening another with the same session.
func TestTooFastReconnect(t *testing.T) {
	e := newEnv(t, Limits{ActionsPerSecond: 0.001, ActionBurst: 2})
	ann, bob := e.user("ann"), e.user("bob")
	e.games.start(e.channel, 3, asUser(ann), asUser(bob))
	session := e.login(t, ann, "en-US", "")
	for round := range 3 {
		p := e.open(t, session)
		p.send(ClientMsg{Type: "resign", Seq: 1})
		if round < 2 {
			p.next("result")
		} else if m := p.next("error"); m.Code != "too_fast" {
			t.Errorf("a third action on a third socket: %+v", m)
		}
		_ = p.c.Close(websocket.StatusNormalClosure, "")
		waitFor(t, func() bool { return e.srv.Sockets() == 0 })
	}
	if n := e.games.acts.Load(); n != 2 {
		t.Errorf("%d actions reached the game through three sockets one after the other, want 2", n)
	}
}

// deadlines records how long each request to Discord had left.
type deadlines struct {
	mu   sync.Mutex
	left []time.Duration // -1: no deadline
}

func (d *deadlines) RoundTrip(r *http.Request) (*http.Response, error) {
	left := time.Duration(-1)
	if dl, ok := r.Context().Deadline(); ok {
		left = time.Until(dl)
	}
	d.mu.Lock()
	d.left = append(d.left, left)
	d.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// TestSessionWithin: the calls to Discord for a session end before the
// HTTP server's WriteTimeout (10 s, in package main) would cut the
// answer, so that a slow Discord gets the page discord_unreachable, not
// a dropped connection.
func TestSessionWithin(t *testing.T) {
	e := newEnv(t, Limits{})
	rec := &deadlines{}
	e.srv.client = &http.Client{Transport: rec}
	e.login(t, e.user("ann"), "en-US", "")
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.left) != 3 {
		t.Fatalf("%d calls to Discord, want 3", len(rec.left))
	}
	for i, left := range rec.left {
		if left < 0 || left > 10*time.Second {
			t.Errorf("call %d to Discord: %v left (-1: no deadline), want at most 10 s", i, left)
		}
	}
}

// TestStateHangs: a read of the game that hangs after a change is given
// up after Limits.StateWithin, the pages are told, and the room goes on
// with the next change.
func TestStateHangs(t *testing.T) {
	e := newEnv(t, Limits{StateWithin: 20 * time.Millisecond})
	ann, bob := e.user("ann"), e.user("bob")
	e.games.start(e.channel, 3, asUser(ann), asUser(bob))
	p := e.open(t, e.login(t, ann, "en-US", ""))
	e.games.hang.Store(true)
	e.games.bump(e.channel)
	if m := p.next("error"); m.Code != "internal" {
		t.Errorf("after a read that hung: %+v", m)
	}
	e.games.hang.Store(false)
	e.games.bump(e.channel)
	p.stateAt(3)
}

// TestSessionOurCredentials: Discord refusing the app's own credentials
// (a wrong DISCORD_CLIENT_SECRET, a wrong bot token) is the server's
// fault, not the user's: the page says so (internal), not that Discord
// did not confirm the user or does not know the activity.
func TestSessionOurCredentials(t *testing.T) {
	for _, wrong := range []string{"secret", "bot token"} {
		t.Run(wrong, func(t *testing.T) {
			e := newEnv(t, Limits{})
			ann := e.user("ann")
			inst := e.dc.StartActivity(e.channel, e.guild, ann.ID)
			if wrong == "secret" {
				e.srv.cfg.ClientSecret = "wrong"
			} else {
				e.srv.cfg.BotToken = "wrong"
			}
			st, out := e.post(t, map[string]any{"code": e.dc.Authorize(ann, "en-US"), "instance_id": inst}, "")
			if st != 500 || out["error"] != "internal" {
				t.Errorf("a wrong %s: %d %v, want 500 internal", wrong, st, out)
			}
		})
	}
}

// TestActFails: an action that fails is answered with the game's own
// words for the failure (package bot's Failure: "could not confirm that
// this change was saved" when the store's outcome is unknown), not a
// "nothing was changed" the server cannot know.
func TestActFails(t *testing.T) {
	e := newEnv(t, Limits{})
	ann, bob := e.user("ann"), e.user("bob")
	e.games.start(e.channel, 3, asUser(ann), asUser(bob))
	p := e.open(t, e.login(t, ann, "de", ""))
	err := errors.New("commit timed out")
	e.games.fail.Store(&err)
	p.send(ClientMsg{Type: "move", Seq: 7, Row: 1, Col: 1, Version: 1})
	if m := p.next("error"); m.Code != "internal" || m.Seq != 7 || m.Message != "[de] maybe saved: commit timed out" {
		t.Errorf("a failed action: %+v", m)
	}
}

// postFrom asks POST /api/session as if from the remote address addr,
// and returns the status and the error code ("" for a session).
func (e *env) postFrom(tb testing.TB, addr string, body any) (int, string) {
	tb.Helper()
	b, _ := json.Marshal(body)
	r := httptest.NewRequest("POST", "/api/session", bytes.NewReader(b))
	r.RemoteAddr = addr
	w := httptest.NewRecorder()
	e.srv.ServeHTTP(w, r)
	var out map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		tb.Fatalf("POST /api/session from %s: %d, not JSON: %v", addr, w.Code, err)
	}
	code, _ := out["error"].(string)
	return w.Code, code
}

// TestSessionRatePerSource: junk codes from one address, or claiming one
// instance, use up that source's requests only: a real user elsewhere
// still gets a session, and Discord is not asked for the junk refused;
// the server's own limit caps them all.
func TestSessionRatePerSource(t *testing.T) {
	e := newEnv(t, Limits{SessionsPerSecond: 0.001, SessionBurst: 8,
		AddressSessionsPerSecond: 0.001, AddressSessionBurst: 2,
		InstanceSessionsPerSecond: 0.001, InstanceSessionBurst: 3})
	ann, bob := e.user("ann"), e.user("bob")
	inst := e.dc.StartActivity(e.channel, e.guild, ann.ID, bob.ID)
	junk := func(instance string) map[string]any { return map[string]any{"code": "junk", "instance_id": instance} }

	// One address: two junk codes reach Discord (refused), the third
	// does not, whatever instance it claims.
	for i, want := range []int{403, 403, 429, 429} {
		asked := len(e.dc.Requests())
		st, code := e.postFrom(t, "192.0.2.1:1000", junk(fmt.Sprint("i-junk-", i)))
		if st != want || (st == 429) != (code == "crowded") || (st == 429) != (len(e.dc.Requests()) == asked) {
			t.Errorf("junk %d from one address: %d %s, %d calls to Discord; want %d", i, st, code, len(e.dc.Requests())-asked, want)
		}
	}
	// A real user from another address is not crowded out.
	if st, code := e.postFrom(t, "198.51.100.7:2000", map[string]any{"code": e.dc.Authorize(ann, "en-US"), "instance_id": inst}); st != 200 {
		t.Fatalf("ann from another address after the junk: %d %s; want a session", st, code)
	}
	// Junk claiming ann's instance from many addresses uses up that
	// instance's requests (ann's took one), not the server's.
	for i, want := range []int{403, 403, 429} {
		if st, _ := e.postFrom(t, fmt.Sprintf("203.0.113.%d:3000", i), junk(inst)); st != want {
			t.Errorf("junk %d claiming ann's instance: %d; want %d", i, st, want)
		}
	}
	bobInst := e.dc.StartActivity(e.channel, e.guild, bob.ID)
	if st, code := e.postFrom(t, "198.51.100.8:2000", map[string]any{"code": e.dc.Authorize(bob, "en-US"), "instance_id": bobInst}); st != 200 {
		t.Errorf("bob in another instance: %d %s; want a session", st, code)
	}
	// The server's limit holds for every source together: 8 in all
	// (2 + 1 + 2 + 1 so far).
	for i, want := range []int{403, 403, 429} {
		if st, _ := e.postFrom(t, fmt.Sprintf("[2001:db8::%d]:4000", i), junk(fmt.Sprint("i-other-", i))); st != want {
			t.Errorf("junk %d from new sources: %d; want %d", i, st, want)
		}
	}
}

// TestSourcesBounded: however many sources knock, at most max buckets
// are kept; new sources beyond share one, and buckets full again make
// room.
func TestSourcesBounded(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := newSources(1, 2, 100)
	for i := range 1000 {
		s.take(fmt.Sprint("source-", i), now)
	}
	if n := s.size(); n != 100 {
		t.Fatalf("%d buckets kept after 1000 sources; want 100", n)
	}
	// The sources beyond the 100th share the overflow bucket: empty.
	if s.take("one more", now) {
		t.Error("a new source got a token from the shared bucket, emptied by 900 others")
	}
	if !s.take("source-5", now) || s.take("source-5", now) {
		t.Error("a kept source's bucket is not its own")
	}
	// Two seconds on, every bucket is full again: a new source gets one
	// of its own.
	later := now.Add(2 * time.Second)
	if !s.take("newcomer", later) || s.size() != 1 {
		t.Errorf("after the buckets filled up: %d kept; want the newcomer's only", s.size())
	}
}

// TestStarting: before the bot is ready, WEB_ADDR says so in the
// request's language: the API in JSON (the page shows it and tries
// again), the page as a small page that reloads itself.
func TestStarting(t *testing.T) {
	h, err := Starting(nil)
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := i18n.New()
	for _, tt := range []struct {
		method, path, lang string
		json               bool
	}{
		{"POST", "/api/session", "de-DE,de;q=0.9", true},
		{"POST", "/.proxy/api/session", "ja", true},
		{"GET", "/ws", "pt-BR", true},
		{"GET", "/?instance_id=i-1&frame_id=f", "fr-CA", false},
		{"GET", "/.proxy/", "zh-CN", false},
		{"GET", "/", "", false},
	} {
		r := httptest.NewRequest(tt.method, tt.path, nil)
		if tt.lang != "" {
			r.Header.Set("Accept-Language", tt.lang)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		first, _, _ := strings.Cut(tt.lang, ",")
		want := cat.For(first).T("web.starting", nil)
		if w.Code != 503 || w.Header().Get("Retry-After") == "" {
			t.Errorf("%s %s: %d, Retry-After %q; want 503 with one", tt.method, tt.path, w.Code, w.Header().Get("Retry-After"))
		}
		if tt.json {
			var out apiError
			if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || out.Error != "starting" || out.Message != want {
				t.Errorf("%s %s in %s: %s (%v); want starting, %q", tt.method, tt.path, tt.lang, w.Body, err, want)
			}
			continue
		}
		body := w.Body.String()
		if !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") || !strings.Contains(body, template.HTMLEscapeString(want)) ||
			!strings.Contains(body, `http-equiv="refresh"`) || strings.Contains(body, "<script") {
			t.Errorf("%s %s in %q: %s %q; want a page saying %q that reloads itself", tt.method, tt.path, tt.lang, w.Header().Get("Content-Type"), body, want)
		}
	}
}

// TestAvatars: an avatar is a path under the activity's mapping of
// Discord's CDN, relative to the page; outside Discord the bot answers it
// 404 (the page shows the initial), sending the browser nowhere else.
func TestAvatars(t *testing.T) {
	if got, want := AvatarPath("53908232506183680", "a_d5efa99b3eeaa7dd43acca82f5692432", 64),
		"cdn/avatars/53908232506183680/a_d5efa99b3eeaa7dd43acca82f5692432.png?size=64"; got != want {
		t.Errorf("AvatarPath = %q; want %q", got, want)
	}
	for name, got := range map[string]string{
		"no avatar":      AvatarPath("1", "", 64),
		"not an id":      AvatarPath("../1", "abc", 64),
		"not a hash":     AvatarPath("1", "../../x", 64),
		"an odd size":    AvatarPath("1", "abc", 65),
		"a size too big": AvatarPath("1", "abc", 8192),
	} {
		if got != "" {
			t.Errorf("%s: %q; want none", name, got)
		}
	}
	e := newEnv(t, Limits{})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"/cdn/avatars/1/abc.png?size=64", "/.proxy/cdn/avatars/1/abc.png"} {
		resp, err := client.Get(e.hs.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 || resp.Header.Get("Location") != "" {
			t.Errorf("GET %s: %d, Location %q; want 404, nowhere else", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}
