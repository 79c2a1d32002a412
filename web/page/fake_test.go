package page_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/tttbot/tttbot/internal/browsertest"
	"github.com/tttbot/tttbot/web"
	"github.com/tttbot/tttbot/web/page"
)

// fakeServer speaks package web's protocol (protocol.go) for the page's
// tests: POST /api/session and GET /ws, with the page at "/". It holds one
// channel's State, which the test sets; it records every frame the pages
// send, and answers them as the test says. The real server (package web)
// and the bot are tested end to end elsewhere; this one lets the page be
// tested alone.
type fakeServer struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	state    web.State
	marks    map[string]string // user id → "X", "O"; others are spectators
	conns    map[*fakeConn]bool
	hellos   int
	sessions []sessionReq
	refuse   map[string][2]string // user id → error code, message at /api/session
	answer   func(user string, m web.ClientMsg) []web.ServerMsg
	// loginGate, when set, holds every POST /api/session until it is closed.
	loginGate chan struct{}
	frames    chan userMsg
}

type sessionReq struct{ Code, InstanceID string }

type userMsg struct {
	User string
	Msg  web.ClientMsg
}

type fakeConn struct {
	user string
	mu   sync.Mutex
	c    *websocket.Conn
}

func (c *fakeConn) send(m web.ServerMsg) {
	b, _ := json.Marshal(m)
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.c.WriteMessage(websocket.TextMessage, b)
}

const clientID = "111122223333444455"

func newFakeServer(t *testing.T, st web.State) *fakeServer {
	f := &fakeServer{
		t:      t,
		state:  st,
		marks:  map[string]string{},
		conns:  map[*fakeConn]bool{},
		refuse: map[string][2]string{},
		frames: make(chan userMsg, 1000),
	}
	mux := http.NewServeMux()
	mux.Handle("/", page.Handler(page.Options{ClientID: clientID}))
	mux.HandleFunc("POST /api/session", f.session)
	mux.HandleFunc("GET /ws", f.ws)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		f.drop()
		f.srv.Close()
	})
	return f
}

// codeFor is the OAuth2 code Discord's side gives user; sessionFor the
// session this server gives for it.
func codeFor(user string) string    { return "code-" + user }
func sessionFor(user string) string { return "session-" + user }

func (f *fakeServer) session(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Code       string `json:"code"`
		InstanceID string `json:"instance_id"`
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !strings.HasPrefix(req.Code, "code-") {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": "bad_code", "message": "bad code"})
		return
	}
	user := strings.TrimPrefix(req.Code, "code-")
	f.mu.Lock()
	gate := f.loginGate
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
	}
	f.mu.Lock()
	f.sessions = append(f.sessions, sessionReq{req.Code, req.InstanceID})
	refusal, refused := f.refuse[user]
	f.mu.Unlock()
	if refused {
		w.WriteHeader(http.StatusForbidden)
		json.NewEncoder(w).Encode(map[string]string{"error": refusal[0], "message": refusal[1]})
		return
	}
	json.NewEncoder(w).Encode(map[string]any{
		"session": sessionFor(user), "access_token": "token-" + user,
		"user": web.User{ID: user, Name: user}, "channel_id": f.state.ChannelID, "locale": "en-US",
	})
}

func (f *fakeServer) ws(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{}
	c, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c.SetReadLimit(web.MaxFrame)
	fc := &fakeConn{c: c}
	defer c.Close()
	var hello web.ClientMsg
	if err := c.ReadJSON(&hello); err != nil {
		return
	}
	if hello.Type != "hello" || !strings.HasPrefix(hello.Session, "session-") {
		fc.send(web.ServerMsg{Type: "error", Code: "session_invalid", Message: "bad session"})
		return
	}
	fc.user = strings.TrimPrefix(hello.Session, "session-")
	f.mu.Lock()
	f.hellos++
	f.conns[fc] = true
	st := f.viewOf(fc.user)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.conns, fc)
		f.mu.Unlock()
	}()
	fc.send(web.ServerMsg{Type: "state", State: &st})
	for {
		var m web.ClientMsg
		if err := c.ReadJSON(&m); err != nil {
			return
		}
		f.frames <- userMsg{fc.user, m}
		if m.Type == "ping" {
			fc.send(web.ServerMsg{Type: "pong", Seq: m.Seq})
			continue
		}
		f.mu.Lock()
		answer := f.answer
		f.mu.Unlock()
		if answer != nil {
			for _, out := range answer(fc.user, m) {
				fc.send(out)
			}
		}
	}
}

// viewOf is the state as user sees it. f.mu is held.
func (f *fakeServer) viewOf(user string) web.State {
	st := f.state
	st.You = f.marks[user]
	return st
}

// push sets the state and sends it to every open page.
func (f *fakeServer) push(st web.State) {
	f.mu.Lock()
	f.state = st
	conns := make([]*fakeConn, 0, len(f.conns))
	for c := range f.conns {
		conns = append(conns, c)
	}
	views := make([]web.State, len(conns))
	for i, c := range conns {
		views[i] = f.viewOf(c.user)
	}
	f.mu.Unlock()
	for i, c := range conns {
		c.send(web.ServerMsg{Type: "state", State: &views[i]})
	}
}

// end ends every socket of user as the server does at a session's expiry
// or when the user left the activity: an error of code, with message, then
// a close (1008), whatever the page is doing.
func (f *fakeServer) end(user, code, message string) {
	f.mu.Lock()
	var conns []*fakeConn
	for c := range f.conns {
		if c.user == user {
			conns = append(conns, c)
		}
	}
	f.mu.Unlock()
	for _, c := range conns {
		c.send(web.ServerMsg{Type: "error", Code: code, Message: message})
		c.mu.Lock()
		_ = c.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, code), time.Now().Add(5*time.Second))
		c.mu.Unlock()
	}
}

// drop closes every socket, as a restarting server would.
func (f *fakeServer) drop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		c.c.UnderlyingConn().Close()
	}
}

// next is the next frame a page sent, other than pings.
func (f *fakeServer) next(t *testing.T) userMsg {
	t.Helper()
	for {
		select {
		case m := <-f.frames:
			if m.Msg.Type != "ping" {
				return m
			}
		case <-time.After(browsertest.Timeout):
			t.Fatalf("no frame from a page in %v", browsertest.Timeout)
		}
	}
}

// labels are the page's words in English, as the server's catalog would
// give them.
var labels = map[string]string{
	"resign": "Resign", "offer_draw": "Offer a draw", "accept_draw": "Accept the draw",
	"decline_draw": "Decline", "rematch": "Rematch", "moves": "Moves",
	"last_move": "Last move:", "reconnecting": "Reconnecting…",
}

// avatar is a small picture as a data URL (the page's CSP allows data:
// images), so screenshots show avatars without any request.
func avatar(color, letter string) string {
	svg := fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">`+
		`<circle cx="16" cy="16" r="16" fill="%s"/><text x="16" y="22" font-size="18" `+
		`text-anchor="middle" fill="white" font-family="sans-serif">%s</text></svg>`, color, letter)
	return "data:image/svg+xml," + strings.NewReplacer("<", "%3C", ">", "%3E", "#", "%23", `"`, "'").Replace(svg)
}

// game is a running state of a size×size board with the moves played
// alternately from X, version = len(moves)+1.
func game(size, win int, moves ...web.Move) web.State {
	st := web.State{
		ChannelID: "900", GameID: "g1", Version: int64(len(moves) + 1), Running: true,
		Size: size, Win: win, Cells: make([]string, size*size),
		Players: [2]web.User{
			{ID: "alice", Name: "Alice", Mark: "X", Avatar: avatar("#5865f2", "A")},
			{ID: "bob", Name: "Bob", Mark: "O", Avatar: avatar("#f0b232", "B")},
		},
		Now: 1_700_000_000_000, Labels: labels,
	}
	for i, m := range moves {
		m.Mark = "X"
		if i%2 == 1 {
			m.Mark = "O"
		}
		moves[i] = m
		st.Cells[(m.Row-1)*size+m.Col-1] = m.Mark
	}
	st.Moves = moves
	st.Turn = "X"
	if len(moves)%2 == 1 {
		st.Turn = "O"
	}
	st.Status = map[string]string{"X": "Alice (X) to move", "O": "Bob (O) to move"}[st.Turn]
	return st
}
