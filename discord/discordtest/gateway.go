package discordtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// Gateway opcodes, from Discord's documentation.
const (
	opDispatch       = 0
	opHeartbeat      = 1
	opIdentify       = 2
	opPresenceUpdate = 3
	opVoiceState     = 4
	opResume         = 6
	opReconnect      = 7
	opRequestMembers = 8
	opInvalidSession = 9
	opHello          = 10
	opHeartbeatACK   = 11
	opSoundboard     = 31
)

// Close codes the gateway closes a connection with, Discord's.
const (
	// CloseUnknownError is used by DropConnections; the client should
	// reconnect and resume.
	CloseUnknownError = 4000
	// CloseUnknownOpcode: the client sent an opcode the gateway does not take.
	CloseUnknownOpcode = 4001
	// CloseDecodeError: the client sent a payload that is not JSON.
	CloseDecodeError = 4002
	// CloseNotAuthenticated: the client sent a payload before identifying.
	CloseNotAuthenticated = 4003
	// CloseAuthenticationFailed: the token of Identify or Resume is wrong.
	CloseAuthenticationFailed = 4004
	// CloseAlreadyAuthenticated: the client identified twice.
	CloseAlreadyAuthenticated = 4005
	// CloseSessionTimedOut: the client did not identify in time.
	CloseSessionTimedOut = 4009
	// CloseInvalidShard: the shard in Identify is not [id, count] with id < count.
	CloseInvalidShard = 4010
	// CloseInvalidAPIVersion: the gateway URL asked for a version other than 9.
	CloseInvalidAPIVersion = 4012
	// CloseInvalidIntents: Identify has no intents or unknown intent bits.
	CloseInvalidIntents = 4013
	// CloseDisallowedIntents: Identify asks for a privileged intent not in
	// Server.PrivilegedIntents.
	CloseDisallowedIntents = 4014
)

// identifyTimeout is how long a new connection may wait before identifying.
const identifyTimeout = 5 * time.Second

// writeTimeout bounds every write to a gateway socket.
const writeTimeout = 5 * time.Second

const privilegedIntents = discordgo.IntentGuildMembers | discordgo.IntentGuildPresences | discordgo.IntentMessageContent

// knownIntents are the intent bits Discord defines; others close with 4013.
const knownIntents = discordgo.Intent(1<<17-1) | discordgo.IntentAutoModerationConfiguration |
	discordgo.IntentAutoModerationExecution | discordgo.IntentGuildMessagePolls | discordgo.IntentDirectMessagePolls

// Identify is one Identify (op 2) the gateway received.
//
// Its String and GoString methods leave the token out, so that printing an
// Identify in a test failure does not leak it; compare Token directly.
type Identify struct {
	Token      string // as sent; discordgo sends "Bot " + token
	Intents    discordgo.Intent
	Shard      *[2]int // [shard_id, num_shards], nil if not sent
	Compress   bool
	Properties map[string]string
	Time       time.Time
	// CloseCode is 0 if the identify was accepted (READY followed), else the
	// close code the gateway answered with, e.g. CloseAuthenticationFailed.
	CloseCode int
}

// String formats the identify without its token.
func (id Identify) String() string {
	shard := "none"
	if id.Shard != nil {
		shard = fmt.Sprintf("[%d %d]", id.Shard[0], id.Shard[1])
	}
	return fmt.Sprintf("Identify{token: <redacted>, intents: %d, shard: %s, close: %d}", id.Intents, shard, id.CloseCode)
}

// GoString is like String, for %#v.
func (id Identify) GoString() string { return id.String() }

// Identifies returns every Identify received, oldest first.
func (s *Server) Identifies() []Identify {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Identify, len(s.identifies))
	for i, id := range s.identifies {
		out[i] = id
		if id.Shard != nil {
			sh := *id.Shard
			out[i].Shard = &sh
		}
	}
	return out
}

// Heartbeats returns the number of heartbeats (op 1) received and acknowledged.
func (s *Server) Heartbeats() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heartbeats
}

// Resumes returns the number of sessions resumed (RESUMED sent).
func (s *Server) Resumes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resumes
}

// WaitHeartbeats blocks until at least n heartbeats were acknowledged.
func (s *Server) WaitHeartbeats(ctx context.Context, n int) error {
	return s.waitUntil(ctx, func() (bool, error) { return s.heartbeats >= n, nil })
}

// WaitReady blocks until the bot is connected: some gateway connection got
// READY (or RESUMED) and is still open, and every shard of the shard count
// it identified with has such a connection. After DropConnections it waits
// for the reconnection.
func (s *Server) WaitReady(ctx context.Context) error {
	return s.waitUntil(ctx, func() (bool, error) {
		n := 0
		ready := map[int]bool{}
		for _, c := range s.conns {
			if c.ready {
				n = max(n, c.sess.shard[1])
				ready[c.sess.shard[0]] = true
			}
		}
		if n == 0 {
			return false, nil
		}
		for i := range n {
			if !ready[i] {
				return false, nil
			}
		}
		return true, nil
	})
}

// DropConnections closes every gateway socket with close code 4000
// (unknown error), after which a client reconnects and resumes. The
// sessions stay known, so a Resume succeeds.
func (s *Server) DropConnections() {
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.broadcastLocked()
	s.mu.Unlock()
	for _, c := range conns {
		c.close(CloseUnknownError, "Unknown error.")
	}
}

// session is a gateway session, which outlives its connection on resume.
type session struct {
	id      string
	seq     atomic.Int64
	shard   [2]int
	intents discordgo.Intent
}

// conn is one gateway websocket.
type conn struct {
	ws        *websocket.Conn
	wmu       sync.Mutex // serialises writes and sequence numbers
	closeOnce sync.Once

	// Guarded by Server.mu.
	// sess changes only while the connection is not ready (before READY,
	// or after an Invalid Session), under wmu as well.
	sess   *session
	ready  bool
	zombie bool // heartbeats are no longer acknowledged
}

// payload is a gateway message; s and t are null unless op is 0.
type payload struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  *int64          `json:"s"`
	T  *string         `json:"t"`
}

func (c *conn) write(p payload) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_ = c.ws.SetWriteDeadline(time.Now().Add(writeTimeout))
	return c.ws.WriteMessage(websocket.TextMessage, b)
}

func (c *conn) send(op int, d any) error {
	raw, err := json.Marshal(d)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.write(payload{Op: op, D: raw})
}

// dispatch sends an op 0 event with the session's next sequence number.
func (c *conn) dispatch(event string, d any) error {
	raw, err := json.Marshal(d)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	seq := c.sess.seq.Add(1)
	return c.write(payload{Op: opDispatch, D: raw, S: &seq, T: &event})
}

// close sends a close frame with code and reason, then closes the socket.
func (c *conn) close(code int, reason string) {
	c.closeOnce.Do(func() {
		msg := websocket.FormatCloseMessage(code, reason)
		_ = c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		_ = c.ws.Close()
	})
}

var upgrader = websocket.Upgrader{
	CheckOrigin: func(*http.Request) bool { return true },
}

// handleGateway upgrades /gateway to a websocket and serves it.
func (s *Server) handleGateway(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if e := q.Get("encoding"); e != "" && e != "json" {
		http.Error(w, "discordtest: only encoding=json is supported", http.StatusBadRequest)
		return
	}
	if q.Get("compress") != "" {
		http.Error(w, "discordtest: transport compression is not supported", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if s.isClosed {
		s.mu.Unlock()
		http.Error(w, "discordtest: server closed", http.StatusServiceUnavailable)
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered the request
	}
	ws.SetReadLimit(1 << 20)
	c := &conn{ws: ws}
	s.mu.Lock()
	if s.isClosed {
		s.mu.Unlock()
		c.close(websocket.CloseGoingAway, "going away")
		return
	}
	s.conns = append(s.conns, c)
	s.mu.Unlock()
	defer s.removeConn(c)

	if v := q.Get("v"); v != "" && v != discordgo.APIVersion {
		c.close(CloseInvalidAPIVersion, "Invalid API version.")
		return
	}
	s.serveConn(c)
}

func (s *Server) removeConn(c *conn) {
	c.close(websocket.CloseGoingAway, "going away")
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.conns {
		if x == c {
			s.conns = append(s.conns[:i], s.conns[i+1:]...)
			break
		}
	}
	s.broadcastLocked()
}

// serveConn runs one gateway connection until it closes.
func (s *Server) serveConn(c *conn) {
	interval := max(int64(orDefault(s.HeartbeatInterval, DefaultHeartbeatInterval)/time.Millisecond), 1)
	if err := c.send(opHello, map[string]any{"heartbeat_interval": interval}); err != nil {
		return
	}
	_ = c.ws.SetReadDeadline(time.Now().Add(identifyTimeout))
	identified := false
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			if !identified && isTimeout(err) {
				c.close(CloseSessionTimedOut, "Session timed out.")
			}
			return
		}
		var p struct {
			Op *int            `json:"op"`
			D  json.RawMessage `json:"d"`
		}
		if json.Unmarshal(data, &p) != nil || p.Op == nil {
			c.close(CloseDecodeError, "Error while decoding payload.")
			return
		}
		switch *p.Op {
		case opHeartbeat:
			s.mu.Lock()
			zombie := c.zombie
			s.mu.Unlock()
			if zombie {
				continue // see StopHeartbeatACKs
			}
			if c.send(opHeartbeatACK, nil) != nil {
				return
			}
			s.mu.Lock()
			s.heartbeats++
			s.broadcastLocked()
			s.mu.Unlock()
		case opIdentify, opResume:
			// After an Invalid Session (InvalidateSessions) the connection
			// may identify or resume again.
			s.mu.Lock()
			identified = c.ready
			s.mu.Unlock()
			if identified {
				c.close(CloseAlreadyAuthenticated, "Already authenticated.")
				return
			}
			var ok bool
			if *p.Op == opIdentify {
				ok = s.identify(c, p.D)
			} else {
				ok = s.resume(c, p.D)
			}
			if !ok {
				return
			}
			// After an Invalid Session the client identifies again.
			s.mu.Lock()
			identified = c.ready
			s.mu.Unlock()
			if identified {
				_ = c.ws.SetReadDeadline(time.Time{})
			}
		case opPresenceUpdate, opVoiceState, opRequestMembers, opSoundboard:
			if !identified {
				c.close(CloseNotAuthenticated, "Not authenticated.")
				return
			}
			// Accepted and ignored: the fake has no presences, voice or members.
		default:
			c.close(CloseUnknownOpcode, "Unknown opcode.")
			return
		}
	}
}

func isTimeout(err error) bool {
	t, ok := err.(interface{ Timeout() bool })
	return ok && t.Timeout()
}

func (s *Server) tokenOK(token string) bool {
	return s.Token != "" && (token == s.Token || token == "Bot "+s.Token)
}

// identify handles op 2; it reports false if it closed the connection.
func (s *Server) identify(c *conn, d json.RawMessage) bool {
	var in struct {
		Token      string            `json:"token"`
		Intents    *int64            `json:"intents"`
		Shard      *[2]int           `json:"shard"`
		Compress   bool              `json:"compress"`
		Properties map[string]string `json:"properties"`
	}
	if json.Unmarshal(d, &in) != nil {
		c.close(CloseDecodeError, "Error while decoding payload.")
		return false
	}
	rec := Identify{Token: in.Token, Shard: in.Shard, Compress: in.Compress, Properties: in.Properties, Time: time.Now()}
	if in.Intents != nil {
		rec.Intents = discordgo.Intent(*in.Intents)
	}
	code, reason := 0, ""
	switch {
	case !s.tokenOK(in.Token):
		code, reason = CloseAuthenticationFailed, "Authentication failed."
	case in.Shard != nil && (in.Shard[1] < 1 || in.Shard[0] < 0 || in.Shard[0] >= in.Shard[1]):
		code, reason = CloseInvalidShard, "Invalid shard."
	case in.Intents == nil || *in.Intents < 0 || rec.Intents&^knownIntents != 0:
		code, reason = CloseInvalidIntents, "Invalid intent(s)."
	case rec.Intents&privilegedIntents&^s.PrivilegedIntents != 0:
		code, reason = CloseDisallowedIntents, "Disallowed intent(s)."
	}
	rec.CloseCode = code
	sess := &session{id: randomHex(16), shard: [2]int{0, 1}, intents: rec.Intents}
	if in.Shard != nil {
		sess.shard = *in.Shard
	}
	s.mu.Lock()
	s.identifies = append(s.identifies, rec)
	if code == 0 {
		s.sessions[sess.id] = sess
		c.wmu.Lock()
		c.sess = sess
		c.wmu.Unlock()
	}
	s.broadcastLocked()
	s.mu.Unlock()
	if code != 0 {
		c.close(code, reason)
		return false
	}

	user := renderUser(s.BotUser)
	user["verified"] = true
	user["mfa_enabled"] = false
	user["flags"] = 0
	user["email"] = nil
	ready := map[string]any{
		"v":                   9,
		"user":                user,
		"guilds":              []any{},
		"session_id":          sess.id,
		"session_type":        "normal",
		"resume_gateway_url":  s.GatewayURL,
		"application":         map[string]any{"id": s.AppID, "flags": s.applicationFlags()},
		"private_channels":    []any{},
		"presences":           []any{},
		"relationships":       []any{},
		"guild_join_requests": []any{},
		"user_settings":       map[string]any{},
	}
	if in.Shard != nil {
		ready["shard"] = sess.shard
	}
	return s.dispatchReady(c, "READY", ready) == nil
}

// applicationFlags are the application's gateway intent flags, the
// "limited" ones of a bot in fewer than 100 guilds.
func (s *Server) applicationFlags() int {
	flags := 0
	if s.PrivilegedIntents&discordgo.IntentGuildPresences != 0 {
		flags |= 1 << 13 // GATEWAY_PRESENCE_LIMITED
	}
	if s.PrivilegedIntents&discordgo.IntentGuildMembers != 0 {
		flags |= 1 << 15 // GATEWAY_GUILD_MEMBERS_LIMITED
	}
	if s.PrivilegedIntents&discordgo.IntentMessageContent != 0 {
		flags |= 1 << 19 // GATEWAY_MESSAGE_CONTENT_LIMITED
	}
	return flags
}

// dispatchReady sends READY or RESUMED and marks the connection ready.
// It marks it first, holding the write lock so that nothing is sent on
// the connection before the event: once the client has the event, the
// faults (which act on ready connections) and Send see the connection.
func (s *Server) dispatchReady(c *conn, event string, d any) error {
	raw, err := json.Marshal(d)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	s.mu.Lock()
	c.ready = true
	s.broadcastLocked()
	s.mu.Unlock()
	seq := c.sess.seq.Add(1)
	return c.write(payload{Op: opDispatch, D: raw, S: &seq, T: &event})
}

// resume handles op 6; it reports false if it closed the connection.
func (s *Server) resume(c *conn, d json.RawMessage) bool {
	var in struct {
		Token     string `json:"token"`
		SessionID string `json:"session_id"`
		Seq       int64  `json:"seq"`
	}
	if json.Unmarshal(d, &in) != nil {
		c.close(CloseDecodeError, "Error while decoding payload.")
		return false
	}
	if !s.tokenOK(in.Token) {
		c.close(CloseAuthenticationFailed, "Authentication failed.")
		return false
	}
	s.mu.Lock()
	sess := s.sessions[in.SessionID]
	var stale []*conn
	if sess != nil {
		c.wmu.Lock()
		c.sess = sess
		c.wmu.Unlock()
		s.resumes++
		// A session lives on one connection: close the ones it leaves.
		for _, x := range s.conns {
			if x != c && x.sess == sess {
				stale = append(stale, x)
			}
		}
	}
	s.mu.Unlock()
	for _, x := range stale {
		s.removeConn(x)
	}
	if sess == nil {
		// Not resumable: the client must identify anew.
		return c.send(opInvalidSession, false) == nil
	}
	return s.dispatchReady(c, "RESUMED", map[string]any{}) == nil
}

// shardFor returns the shard that receives events of guildID among
// numShards shards: (guild_id >> 22) % num_shards, and 0 without a guild.
func shardFor(guildID string, numShards int) (int, error) {
	if guildID == "" || numShards <= 1 {
		return 0, nil
	}
	id, err := strconv.ParseUint(guildID, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("discordtest: guild id %q is not a snowflake", guildID)
	}
	return int((id >> 22) % uint64(numShards)), nil
}

// waitConn blocks until a ready connection serves the shard of guildID,
// and returns the newest such connection.
func (s *Server) waitConn(ctx context.Context, guildID string) (*conn, error) {
	var found *conn
	err := s.waitUntil(ctx, func() (bool, error) {
		for _, c := range s.conns {
			if !c.ready {
				continue
			}
			shard, err := shardFor(guildID, c.sess.shard[1])
			if err != nil {
				return false, err
			}
			if shard == c.sess.shard[0] {
				found = c
			}
		}
		return found != nil, nil
	})
	return found, err
}
