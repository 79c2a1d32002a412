package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/tttbot/tttbot/i18n"
)

// One socket, from upgrade to close:
//
//  1. serveSocket counts it against Limits.Total (hub.admit) and upgrades;
//     a page whose origin is neither the activity's proxy
//     ({ClientID}.discordsays.com), this server's own host, nor one of
//     Config.Origins is refused by the upgrade. The origin is no
//     credential (the session is), but a page of another site has no
//     business holding our sockets.
//  2. The page has Limits.HelloWithin to send hello with its session;
//     any other frame before it is answered hello_first. A forged or
//     expired session is answered session_invalid or session_expired,
//     and the socket closed (1008).
//  3. hub.join counts it per user and per instance and puts it in its
//     channel's room; the room reads the state for it (and for every
//     socket of the channel after each change its Feed reports).
//  4. Its frames are read one at a time by serveSocket's goroutine:
//     actions go to Games.Act, one at a time, and get a result; one
//     writer goroutine sends the answers queued (Limits.SendQueue at
//     most: beyond, the page is dropped), the newest state (a newer one
//     replaces one not sent yet: a page that reads slowly skips states),
//     and pings. A page that takes longer than Limits.WriteTimeout to
//     take one frame is dropped: a slow reader costs a bounded queue and
//     one state, never more.

// hardFrame is the largest frame read at all: a larger one closes the
// socket (1009). Frames above MaxFrame and up to it are read, dropped
// and answered too_big.
const hardFrame = 4 * MaxFrame

// socket is one page's WebSocket.
type socket struct {
	s   *Server
	c   *websocket.Conn
	out chan frame // answers to send, at most Limits.SendQueue
	// state is the newest state not sent yet: a newer one replaces it,
	// so that a page that reads slowly skips states instead of piling
	// them up. stateReady wakes the writer.
	state      atomic.Pointer[[]byte]
	stateReady chan struct{}
	// stated is set once a state was handed to the writer: a room's
	// first read for everybody may reach a socket before its join.
	stated atomic.Bool
	// writing is closed when the writer ends; nil until it starts.
	writing chan struct{}
	ctx     context.Context
	stop    context.CancelFunc // ends the socket: its writer, and its read

	lang   atomic.Pointer[i18n.Language] // the viewer's, or the request's before hello
	claims claims
	viewer Viewer
	user   *userSlot // set by hub.join
	room   *room

	frames bucket // every frame from the page

	// checked is when Discord last said that the user is in the
	// instance; retryCheck, that asking it again failed (member.go).
	// Set by hello, then by the watch only.
	checked    time.Time
	retryCheck bool
	watchMu    sync.Mutex
	stopWatch  func()
	watchEnded bool

	killOnce sync.Once
}

// frame is one frame to send; with a close status, the last one.
type frame struct {
	b      []byte
	status websocket.StatusCode
	reason string
}

// send queues a frame; a socket whose queue is full is a slow reader
// and is dropped.
func (k *socket) send(b []byte) { k.queue(frame{b: b}) }

// sendState hands the writer a state, in place of any it has not sent.
func (k *socket) sendState(b []byte) {
	k.stated.Store(true)
	k.state.Store(&b)
	select {
	case k.stateReady <- struct{}{}:
	default:
	}
}

func (k *socket) queue(f frame) {
	select {
	case k.out <- f:
	case <-k.ctx.Done():
	default:
		k.s.log.Debug("live board: dropping a slow page", "user", k.viewer.UserID, "channel", k.viewer.ChannelID)
		k.kill()
	}
}

// kill closes the socket at once, without a closing handshake.
func (k *socket) kill() {
	k.killOnce.Do(func() {
		k.stop()
		_ = k.c.CloseNow()
	})
}

func (k *socket) sendMsg(m ServerMsg) {
	b, _ := json.Marshal(m)
	k.send(b)
}

// fail answers a frame with an error: code, and its text.
func (k *socket) fail(seq int64, code string) {
	k.sendMsg(ServerMsg{Type: "error", Seq: seq, Code: code, Message: text(k.lang.Load(), code)})
}

// refuse sends an error and closes the socket with status: the page
// shows the message (the close frame's reason is only the code). The
// error follows what is queued, and refuse returns once it is sent (or
// could not be).
func (k *socket) refuse(code string, status websocket.StatusCode) {
	b, _ := json.Marshal(ServerMsg{Type: "error", Code: code, Message: text(k.lang.Load(), code)})
	if k.writing != nil {
		k.queue(frame{b: b, status: status, reason: code})
		<-k.writing
		k.kill()
		return
	}
	ctx, cancel := context.WithTimeout(k.ctx, k.s.limits.WriteTimeout)
	defer cancel()
	if k.c.Write(ctx, websocket.MessageText, b) == nil {
		_ = k.c.Close(status, code)
	}
	k.kill()
}

// serveSocket serves GET /ws.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	admitted := s.hub.admit()
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.origins})
	if err != nil {
		if admitted {
			s.hub.release(nil)
		}
		return // Accept answered (403 for a foreign origin)
	}
	c.SetReadLimit(hardFrame)
	ctx, stop := context.WithCancel(context.Background())
	k := &socket{
		s:          s,
		c:          c,
		out:        make(chan frame, s.limits.SendQueue),
		stateReady: make(chan struct{}, 1),
		ctx:        ctx,
		stop:       stop,
		frames:     bucket{rate: s.limits.FramesPerSecond, burst: float64(s.limits.FrameBurst)},
	}
	k.lang.Store(s.catalog.For(acceptLanguage(r)))
	if !admitted {
		k.refuse("busy", websocket.StatusTryAgainLater)
		return
	}
	if !s.hub.add(k) { // closing
		s.hub.release(nil)
		k.refuse("restarting", websocket.StatusGoingAway)
		return
	}
	defer s.hub.release(k)
	defer k.kill()
	k.writing = make(chan struct{})
	go k.write()
	if !k.hello() {
		return
	}
	if code, status := s.hub.join(k); code != "" {
		k.refuse(code, status)
		return
	}
	defer s.hub.leave(k)
	k.watch()
	defer k.endWatch()
	k.read()
}

// write sends the queued frames and pings, until the socket ends.
func (k *socket) write() {
	defer close(k.writing)
	ping := time.NewTicker(k.s.limits.PingEvery)
	defer ping.Stop()
	for {
		var err error
		select {
		case <-k.ctx.Done():
			return
		case f := <-k.out:
			ctx, cancel := context.WithTimeout(k.ctx, k.s.limits.WriteTimeout)
			err = k.c.Write(ctx, websocket.MessageText, f.b)
			cancel()
			if err == nil && f.status != 0 {
				_ = k.c.Close(f.status, f.reason)
				return
			}
		case <-k.stateReady:
			if b := k.state.Swap(nil); b != nil {
				ctx, cancel := context.WithTimeout(k.ctx, k.s.limits.WriteTimeout)
				err = k.c.Write(ctx, websocket.MessageText, *b)
				cancel()
			}
		case <-ping.C:
			ctx, cancel := context.WithTimeout(k.ctx, k.s.limits.WriteTimeout)
			err = k.c.Ping(ctx)
			cancel()
		}
		if err != nil {
			k.kill()
			return
		}
	}
}

// frame reads the next frame: its message, or a code to answer it with
// ("" and ok false: the socket is done).
func (k *socket) frame(ctx context.Context) (m ClientMsg, code string, ok bool) {
	typ, rd, err := k.c.Reader(ctx)
	if err != nil {
		return m, "", false
	}
	b, err := io.ReadAll(io.LimitReader(rd, MaxFrame+1))
	if err != nil {
		return m, "", false
	}
	big := len(b) > MaxFrame
	if big {
		if _, err := io.Copy(io.Discard, rd); err != nil {
			return m, "", false // beyond hardFrame: the library closed it (1009)
		}
	}
	if !k.frames.take(k.s.now()) {
		k.refuse("too_fast", websocket.StatusPolicyViolation)
		return m, "", false
	}
	if big {
		return m, "too_big", true
	}
	if typ != websocket.MessageText || json.Unmarshal(b, &m) != nil || m.Type == "" {
		return ClientMsg{}, "bad_frame", true
	}
	return m, "", true
}

// hello waits for the page's hello and checks its session. A page
// that sends none within Limits.HelloWithin is told so, and closed.
func (k *socket) hello() bool {
	late := time.AfterFunc(k.s.limits.HelloWithin, func() { k.refuse("hello_first", websocket.StatusPolicyViolation) })
	defer late.Stop()
	for {
		m, code, ok := k.frame(k.ctx)
		switch {
		case !ok:
			return false
		case code != "":
			k.fail(m.Seq, code)
			continue
		case m.Type != "hello":
			k.fail(m.Seq, "hello_first")
			continue
		}
		if !late.Stop() {
			return false // too late: refused meanwhile
		}
		c, err := verify(k.s.cfg.Key, m.Session, k.s.now())
		switch {
		case errors.Is(err, errSessionExpired):
			k.refuse("session_expired", websocket.StatusPolicyViolation)
			return false
		case err != nil:
			k.refuse("session_invalid", websocket.StatusPolicyViolation)
			return false
		}
		k.claims, k.viewer = c, c.viewer()
		k.lang.Store(k.s.catalog.For(c.Locale))
		// A page back after a while (a reconnect, a restart) with a
		// session whose check is old: is its user still there?
		k.checked = time.Unix(c.Checked, 0)
		if k.memberCheckDue(k.s.now()) && !k.recheck(k.ctx) {
			return false
		}
		return true
	}
}

// actions are the message types that ask the game for something.
var actions = map[string]bool{"move": true, "resign": true, "offer_draw": true, "answer_draw": true, "rematch": true}

// read answers the page's frames until the socket ends.
func (k *socket) read() {
	for {
		m, code, ok := k.frame(k.ctx)
		switch {
		case !ok:
			return
		case code != "":
			k.fail(m.Seq, code)
		case m.Type == "ping":
			k.sendMsg(ServerMsg{Type: "pong", Seq: m.Seq})
		case m.Type == "hello":
			k.fail(m.Seq, "bad_frame")
		case !actions[m.Type]:
			k.fail(m.Seq, "unknown_type")
		case m.Type == "move" && (m.Row < 1 || m.Col < 1 || m.Row > 64 || m.Col > 64):
			k.fail(m.Seq, "bad_frame")
		case k.s.now().Unix() >= k.claims.Expiry:
			// No action past the session's expiry: the page asks
			// Discord again.
			k.refuse("session_expired", websocket.StatusPolicyViolation)
			return
		case !k.user.actions.take(k.s.now()):
			k.fail(m.Seq, "too_fast")
		default:
			k.act(m)
		}
	}
}

// act does an action through the bot, and answers its result.
func (k *socket) act(m ClientMsg) {
	// Not cut short if the page leaves meanwhile: a move made is made.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(k.ctx), k.s.limits.ActWithin)
	defer cancel()
	refusal, err := k.s.cfg.Games.Act(ctx, k.viewer, Action{Type: m.Type, Row: m.Row, Col: m.Col, Version: m.Version, GameID: m.GameID, Ply: m.Ply, Accept: m.Accept})
	switch {
	case err != nil:
		k.s.log.Warn("live board: an action failed", "type", m.Type, "channel", k.viewer.ChannelID, "err", err)
		// The game says what a failure did (a save whose outcome is
		// unknown may have changed the game); this package cannot know.
		if f, ok := k.s.cfg.Games.(Failer); ok {
			k.sendMsg(ServerMsg{Type: "error", Seq: m.Seq, Code: "internal", Message: f.Failure(err, k.viewer.Locale)})
			return
		}
		k.fail(m.Seq, "internal")
	case refusal != "":
		k.sendMsg(ServerMsg{Type: "result", Seq: m.Seq, OK: false, Message: refusal})
	default:
		k.sendMsg(ServerMsg{Type: "result", Seq: m.Seq, OK: true})
	}
}
