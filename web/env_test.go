package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/coder/websocket"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// env is a web Server on loopback in front of the test's game, asking a
// fake Discord (package discordtest, over HTTP) who its users are.
type env struct {
	t       *testing.T
	dc      *discordtest.Server
	games   *fakeGames
	srv     *Server
	hs      *httptest.Server
	clock   *testClock
	guild   string
	channel string
}

const botToken = "bot-token"

var testKey = bytes.Repeat([]byte("k"), MinKeyLen)

// testClock is the time of sessions and rate limits: it moves only when
// the test says, and runs the funcs given to afterFunc whose time it
// reaches.
type testClock struct {
	mu     sync.Mutex
	t      time.Time
	timers map[*testTimer]bool
}

type testTimer struct {
	at time.Time
	f  func()
}

func (c *testClock) afterFunc(d time.Duration, f func()) func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	tt := &testTimer{at: c.t.Add(d), f: f}
	if d <= 0 {
		go f()
		return func() {}
	}
	if c.timers == nil {
		c.timers = map[*testTimer]bool{}
	}
	c.timers[tt] = true
	return func() {
		c.mu.Lock()
		delete(c.timers, tt)
		c.mu.Unlock()
	}
}

// pending is how many afterFuncs wait for their time.
func (c *testClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	var due []func()
	for tt := range c.timers {
		if !tt.at.After(c.t) {
			due = append(due, tt.f)
			delete(c.timers, tt)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		go f()
	}
}

func newEnv(t testing.TB, limits Limits) *env {
	dc := discordtest.NewServer(botToken)
	t.Cleanup(dc.Close)
	clock := &testClock{t: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	games := newFakeGames()
	games.now = clock.now
	srv, err := New(Config{
		Games: games, Feed: games, Key: testKey,
		ClientID: dc.AppID, ClientSecret: dc.ClientSecret(), BotToken: botToken, APIURL: dc.APIURL,
		Page: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "<!doctype html><title>page</title>")
		}),
		Clock:     clock.now,
		AfterFunc: clock.afterFunc,
		Limits:    limits,
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	e := &env{dc: dc, games: games, srv: srv, hs: hs, clock: clock, guild: dc.NewID(), channel: dc.NewID()}
	if tt, ok := t.(*testing.T); ok {
		e.t = tt
	}
	return e
}

// user is a Discord user of the test.
func (e *env) user(name string) *discordgo.User {
	return e.dc.NewMember(name).User
}

// asUser is a User of the game, as the page shows it.
func asUser(u *discordgo.User) User { return User{ID: u.ID, Name: u.Username} }

// post asks POST /api/session with body, in the language lang, and
// returns the status and the JSON answer.
func (e *env) post(tb testing.TB, body any, lang string) (int, map[string]any) {
	tb.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", e.hs.URL+"/api/session", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if lang != "" {
		req.Header.Set("Accept-Language", lang)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		tb.Fatalf("POST /api/session: %d, not JSON: %v", resp.StatusCode, err)
	}
	return resp.StatusCode, out
}

// login opens a session for u, in an activity instance of the env's
// channel with u in it (a new one if instance is "").
func (e *env) login(tb testing.TB, u *discordgo.User, locale, instance string) string {
	tb.Helper()
	if instance == "" {
		instance = e.dc.StartActivity(e.channel, e.guild, u.ID)
	}
	st, out := e.post(tb, map[string]string{"code": e.dc.Authorize(u, locale), "instance_id": instance}, "")
	s, _ := out["session"].(string)
	if st != 200 || s == "" {
		tb.Fatalf("session for %s: %d %v", u.Username, st, out)
	}
	return s
}

// page is a test's WebSocket, as the page holds it.
type page struct {
	tb   testing.TB
	c    *websocket.Conn
	last *State // the last state received
}

func (e *env) dialWith(tb testing.TB, h http.Header) (*page, *http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, strings.Replace(e.hs.URL, "http", "ws", 1)+"/ws", &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		return nil, resp, err
	}
	c.SetReadLimit(1 << 20)
	tb.Cleanup(func() { _ = c.CloseNow() })
	return &page{tb: tb, c: c}, resp, nil
}

func (e *env) dial(tb testing.TB) *page {
	tb.Helper()
	p, _, err := e.dialWith(tb, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// open dials and says hello with session: the first state follows.
func (e *env) open(tb testing.TB, session string) *page {
	tb.Helper()
	p := e.dial(tb)
	p.send(ClientMsg{Type: "hello", Session: session})
	p.next("state")
	return p
}

func (p *page) send(m any) {
	p.tb.Helper()
	b, _ := json.Marshal(m)
	p.sendRaw(websocket.MessageText, b)
}

func (p *page) sendRaw(typ websocket.MessageType, b []byte) {
	p.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.c.Write(ctx, typ, b); err != nil {
		p.tb.Fatal(err)
	}
}

// read returns the next frame from the server, or the error that ended
// the socket.
func (p *page) read() (ServerMsg, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, b, err := p.c.Read(ctx)
	if err != nil {
		return ServerMsg{}, err
	}
	var m ServerMsg
	if err := json.Unmarshal(b, &m); err != nil {
		p.tb.Fatalf("a frame that is not a ServerMsg: %s", b)
	}
	if m.State != nil {
		p.last = m.State
	}
	return m, nil
}

// next returns the next frame of type typ, passing states by.
func (p *page) next(typ string) ServerMsg {
	p.tb.Helper()
	for {
		m, err := p.read()
		if err != nil {
			p.tb.Fatalf("waiting for a %s frame: %v", typ, err)
		}
		if m.Type == typ {
			return m
		}
		if m.Type != "state" {
			p.tb.Fatalf("waiting for a %s frame, got %+v", typ, m)
		}
	}
}

// stateAt waits for a state of the version.
func (p *page) stateAt(version int64) State {
	p.tb.Helper()
	for p.last == nil || p.last.Version < version {
		p.next("state")
	}
	if p.last.Version != version {
		p.tb.Fatalf("state version %d, want %d", p.last.Version, version)
	}
	return *p.last
}

// closed reads until the socket ends, and returns its close status.
func (p *page) closed() (websocket.StatusCode, []ServerMsg) {
	p.tb.Helper()
	var got []ServerMsg
	for {
		m, err := p.read()
		if err != nil {
			return websocket.CloseStatus(err), got
		}
		got = append(got, m)
	}
}

// refusedWith checks that the socket ends with an error frame of code
// and the close status.
func (p *page) refusedWith(code string, status websocket.StatusCode) {
	p.tb.Helper()
	st, got := p.closed()
	var codes []string
	for _, m := range got {
		if m.Type == "error" {
			codes = append(codes, m.Code)
			if m.Code == code && m.Message == "" {
				p.tb.Errorf("error %s without a message", code)
			}
		}
	}
	if len(codes) == 0 || codes[len(codes)-1] != code || st != status {
		p.tb.Errorf("closed with %v after errors %v; want %v after %s", st, codes, status, code)
	}
}
