package discordtest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// Defaults of the Server's configuration fields.
const (
	// DefaultAckDeadline is how long Discord waits for the first callback.
	DefaultAckDeadline = 3 * time.Second
	// DefaultTokenTTL is how long an interaction token stays valid.
	DefaultTokenTTL = 15 * time.Minute
	// DefaultNonceWindow is how long a message's nonce is remembered for
	// enforce_nonce. Discord says "a few minutes"; the fake takes the
	// least that may mean to a client, one minute.
	DefaultNonceWindow = time.Minute
	// DefaultHeartbeatInterval is the heartbeat_interval sent in Hello.
	DefaultHeartbeatInterval = 41250 * time.Millisecond
	// DefaultPermissions are the permissions of a member made by NewMember:
	// what @everyone has in a new guild's text channel.
	DefaultPermissions int64 = discordgo.PermissionViewChannel |
		discordgo.PermissionSendMessages |
		discordgo.PermissionEmbedLinks |
		discordgo.PermissionAttachFiles |
		discordgo.PermissionReadMessageHistory |
		discordgo.PermissionAddReactions |
		discordgo.PermissionUseExternalEmojis |
		discordgo.PermissionUseSlashCommands
)

// discordEpoch is the first millisecond of 2015, the epoch of snowflakes.
const discordEpoch = 1420070400000

// Errors returned by the Server's methods; test them with errors.Is.
var (
	// ErrInteractionFailed means the bot did not acknowledge an interaction
	// within the deadline: the user saw "This interaction failed".
	ErrInteractionFailed = errors.New("interaction failed")
	// ErrClosed means the Server was closed.
	ErrClosed = errors.New("discordtest: server closed")
	// ErrUnknownCommand means Send was given a slash command that is not
	// registered in the guild nor globally.
	ErrUnknownCommand = errors.New("discordtest: command not registered")
	// ErrBadOption means the options of a slash command do not fit the
	// registered schema, so no Discord client could send them.
	ErrBadOption = errors.New("discordtest: options do not fit the command")
	// ErrUnknownMessage means a message does not exist (or was deleted, or
	// is an ephemeral message the user cannot see).
	ErrUnknownMessage = errors.New("discordtest: unknown message")
	// ErrUnknownComponent means the message has no enabled component with
	// that custom_id, so no user could click it.
	ErrUnknownComponent = errors.New("discordtest: no enabled component with that custom_id")
	// ErrAlreadySent means Send was called twice with one Interaction.
	ErrAlreadySent = errors.New("discordtest: interaction already sent")
)

// Server is a fake Discord: a REST API and a gateway on 127.0.0.1.
//
// Create it with NewServer (the zero Server is not usable) and stop it with
// Close. Its configuration fields may be changed after NewServer but before
// the bot first uses the server; they are read without locking. The methods
// are safe for concurrent use; the ones that return state (Messages,
// Requests, Commands…) return copies, at a cost linear in what they copy.
//
// The server keeps everything it is sent until Close: it is meant for tests,
// not for long runs.
type Server struct {
	// APIURL is the base URL of the REST API including the version, without
	// a trailing slash, e.g. "http://127.0.0.1:41234/api/v9": the value for
	// DISCORD_API_URL.
	APIURL string
	// GatewayURL is the websocket URL that GET /gateway returns.
	GatewayURL string
	// Token is the bot token; REST calls must send "Authorization: Bot " +
	// Token, and Identify must carry Token (with or without "Bot ").
	Token string
	// AppID is the application's ID; it equals BotUser.ID as for every bot
	// made since 2020.
	AppID string
	// BotUser is the bot's user, sent in READY and as the author of messages.
	BotUser *discordgo.User

	// AckDeadline is the time the bot has for the first callback of an
	// interaction; default (and if not positive) DefaultAckDeadline.
	AckDeadline time.Duration
	// TokenTTL is how long after dispatch an interaction token can edit
	// and follow up; default (and if not positive) DefaultTokenTTL.
	TokenTTL time.Duration
	// HeartbeatInterval is sent in Hello, in whole milliseconds; default
	// (and if not positive) DefaultHeartbeatInterval.
	HeartbeatInterval time.Duration
	// PrivilegedIntents are the privileged intents (GuildMembers,
	// GuildPresences, MessageContent) enabled for the application; an
	// Identify asking for others is closed with 4014. Default none.
	PrivilegedIntents discordgo.Intent
	// Shards is the shard count that GET /gateway/bot recommends; default 1.
	Shards int
	// MaxConcurrency is the session_start_limit.max_concurrency that GET
	// /gateway/bot gives: how many shards may identify at once; default 1.
	MaxConcurrency int
	// Guilds is the approximate_guild_count of GET /applications/@me.
	Guilds int
	// NonceWindow is how long after a message was created with a nonce
	// another create with that nonce and enforce_nonce gets it instead of
	// a new message; default (and if not positive) DefaultNonceWindow.
	NonceWindow time.Duration

	endpoint endpoint // set by UseEndpoint: interactions go over HTTP

	act activities // OAuth2 codes and tokens, activity instances (activity.go)

	http      *http.Server
	served    chan struct{} // closed when http.Serve returned
	closeOnce sync.Once
	closed    chan struct{}  // closed by Close
	wg        sync.WaitGroup // gateway connections and REST handlers

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every change of state
	isClosed bool

	requests    []Request
	faults      []fault
	holds       []*Hold
	policies    []*faultPolicy       // InjectFaults
	routeLimits map[string]heldLimit // rateRoute → the limit a 429 announced
	global      heldLimit            // the global limit a 429 announced
	identifies  []Identify
	heartbeats  int
	resumes     int
	conns       []*conn
	sessions    map[string]*session

	commands map[string][]commandEntry // by guild ID, "" = global
	written  map[string]bool           // scopes that got a bulk overwrite

	activities bool // set by EnableActivities

	messages     map[string]*message
	nonces       map[string]*message // author + " " + nonce → the message created with it, as created
	noncesSwept  int                 // len(nonces) after the last sweep of ended entries
	channels     map[string][]string // channel ID → visible message IDs, oldest first
	history      map[string][]string // channel ID → every public message ID, deleted too
	interactions map[string]*interactionState
	tokens       map[string]*interactionState
	users        map[string]*discordgo.User // made by NewMember (users.go)
}

// NewServer starts a fake Discord on 127.0.0.1 with a random port. The bot's
// token is token (without "Bot "). It panics if it cannot listen, like
// httptest.NewServer.
func NewServer(token string) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("discordtest: failed to listen on a port: %v", err))
	}
	s := &Server{
		Token:             token,
		AckDeadline:       DefaultAckDeadline,
		TokenTTL:          DefaultTokenTTL,
		HeartbeatInterval: DefaultHeartbeatInterval,
		Shards:            1,
		served:            make(chan struct{}),
		closed:            make(chan struct{}),
		changed:           make(chan struct{}),
		sessions:          map[string]*session{},
		commands:          map[string][]commandEntry{},
		written:           map[string]bool{},
		messages:          map[string]*message{},
		nonces:            map[string]*message{},
		channels:          map[string][]string{},
		history:           map[string][]string{},
		interactions:      map[string]*interactionState{},
		tokens:            map[string]*interactionState{},
	}
	addr := ln.Addr().String()
	s.APIURL = "http://" + addr + "/api/v9"
	s.GatewayURL = "ws://" + addr + "/gateway"
	s.BotUser = &discordgo.User{
		ID:            s.NewID(),
		Username:      "tttbot",
		GlobalName:    "tttbot",
		Discriminator: "0",
		Bot:           true,
	}
	s.AppID = s.BotUser.ID
	s.http = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.served)
		_ = s.http.Serve(ln) // returns http.ErrServerClosed on Close
	}()
	return s
}

// Close closes every gateway socket and the HTTP server, stops the
// interaction timers and waits for the server's goroutines. Waits in
// progress return ErrClosed. Close may be called more than once.
//
// Close the bot's session first: a discordgo session that loses its
// gateway reconnects, with back-off, until it is closed.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.isClosed = true
		conns := s.conns
		s.conns = nil
		for _, st := range s.interactions {
			if st.timer != nil {
				st.timer.Stop()
			}
		}
		close(s.closed)
		s.broadcastLocked()
		s.mu.Unlock()
		for _, c := range conns {
			c.close(websocket.CloseGoingAway, "going away")
		}
		_ = s.http.Close()
		<-s.served
		s.wg.Wait()
	})
}

// NewID returns a new snowflake: unique, increasing, and with the current
// time in its top bits like Discord's IDs. Use it for guild, channel and
// user IDs in tests. IDs are unique across the Servers of a process, as
// Discord's are across its workers: two fakes that play one Discord for
// two processes sharing a database never give two things one ID.
func (s *Server) NewID() string {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	id := uint64(time.Now().UnixMilli()-discordEpoch) << 22
	if id <= ids.last {
		id = ids.last + 1
	}
	ids.last = id
	return fmt.Sprint(id)
}

// ids is the last ID that NewID gave, of any Server.
var ids struct {
	mu   sync.Mutex
	last uint64
}

// NewMember returns a guild member with a new user ID, the given username
// and DefaultPermissions.
func (s *Server) NewMember(username string) Member {
	m := Member{
		User: &discordgo.User{
			ID:            s.NewID(),
			Username:      username,
			GlobalName:    username,
			Discriminator: "0",
		},
		Permissions: DefaultPermissions,
	}
	s.knowUser(m.User)
	return m
}

// Request is one REST request the server received, with its answer.
type Request struct {
	Method string
	Path   string // e.g. "/api/v9/interactions/123/tok/callback"
	Query  url.Values
	Body   []byte // as received (for multipart bodies, the whole body)
	Time   time.Time

	Status    int    // HTTP status of the answer
	Code      int    // Discord's JSON error code in the answer, 0 if none
	Reply     []byte // body of the answer
	Unhandled bool   // no route of the fake matched
	Injected  bool   // the answer was a fault injected (FailNext, InjectFaults…)
	// Lost marks an injected fault that replaced the answer of a request
	// carried out all the same (LoseNextAnswer, Faults.LostAnswers).
	Lost bool

	// early marks a 429 of a limit whose first 429 had not been written
	// yet when the request arrived: its client could not have known of
	// it, and did not ignore it.
	early bool
}

// String formats the request for test failures, e.g.
// "POST /api/v9/channels/1/messages: 400 (50035)".
func (r Request) String() string {
	s := fmt.Sprintf("%s %s: %d", r.Method, r.Path, r.Status)
	if r.Code != 0 {
		s += fmt.Sprintf(" (%d)", r.Code)
	}
	if r.Injected {
		s += " injected"
	}
	return s
}

// Requests returns every REST request received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// WaitRequests blocks until at least n recorded requests satisfy match,
// and returns those, oldest first. A request is recorded once its answer
// is written, so after the state it changed (a message edited) can be
// seen: a test that asks how a change was made waits for its request.
func (s *Server) WaitRequests(ctx context.Context, n int, match func(Request) bool) ([]Request, error) {
	var out []Request
	err := s.waitUntil(ctx, func() (bool, error) {
		out = out[:0]
		for _, r := range s.requests {
			if match(r) {
				out = append(out, r)
			}
		}
		return len(out) >= n, nil
	})
	return out, err
}

// Unhandled returns the requests no route of the fake matched (answered 404).
func (s *Server) Unhandled() []Request {
	return s.filterRequests(func(r Request) bool { return r.Unhandled })
}

// Rejected returns the requests answered with a 4xx or 5xx status, other
// than faults injected with FailNext: bad bodies, broken limits, late or
// repeated callbacks, unknown routes, bad authentication. A test of a
// healthy bot asserts that there are none.
func (s *Server) Rejected() []Request {
	return s.filterRequests(func(r Request) bool { return r.Status >= 400 && !r.Injected })
}

func (s *Server) filterRequests(keep func(Request) bool) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

type fault struct {
	method, prefix string
	status         int
	body           string
	retryAfter     time.Duration
	// lost makes the request carried out before it fails: Discord acted
	// on it, and the client hears only of trouble (LoseNextAnswer).
	lost bool
}

// FailNext makes the next request whose method is method ("" for any) and
// whose path starts with pathPrefix fail once with status and body. A
// pathPrefix that does not start with "/api/" is taken relative to /api/v9,
// so "/interactions/" matches every interaction callback.
//
// If body is "", a status of 429 gets Discord's rate-limit body
// {"message":"You are being rate limited.","retry_after":…,"global":false}
// and any other status {"message":"<status>: <text>","code":0}. A 429 also
// carries the Retry-After and X-RateLimit-* headers computed from
// retryAfter. Faults are used in the order they were added.
func (s *Server) FailNext(method, pathPrefix string, status int, body string, retryAfter time.Duration) {
	if !strings.HasPrefix(pathPrefix, "/api/") {
		pathPrefix = "/api/v9/" + strings.TrimPrefix(pathPrefix, "/")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, fault{method: method, prefix: pathPrefix, status: status, body: body, retryAfter: retryAfter})
}

// LoseNextAnswer makes the next request whose method is method ("" for
// any) and whose path starts with pathPrefix (as for FailNext) carried
// out as usual, and then answered with status (a 5xx) and its usual
// body instead of its own answer: Discord acted on it, but the client
// cannot know. Only a request made again with a way to recognise it (a
// message's nonce with enforce_nonce) is then safe to make again.
func (s *Server) LoseNextAnswer(method, pathPrefix string, status int) {
	if !strings.HasPrefix(pathPrefix, "/api/") {
		pathPrefix = "/api/v9/" + strings.TrimPrefix(pathPrefix, "/")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, fault{method: method, prefix: pathPrefix, status: status, lost: true})
}

// takeFaultLocked removes and returns the first fault matching r.
func (s *Server) takeFaultLocked(method, path string) (fault, bool) {
	for i, f := range s.faults {
		if (f.method == "" || strings.EqualFold(f.method, method)) && strings.HasPrefix(path, f.prefix) {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
			return f, true
		}
	}
	return fault{}, false
}

// broadcastLocked wakes every goroutine waiting for a change of state.
func (s *Server) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitUntil blocks until cond (called with s.mu held) reports done or an
// error, or ctx ends, or the server closes. It is woken by broadcastLocked,
// never by a timer.
func (s *Server) waitUntil(ctx context.Context, cond func() (bool, error)) error {
	for {
		s.mu.Lock()
		done, err := cond()
		ch := s.changed
		closed := s.isClosed
		s.mu.Unlock()
		if done || err != nil {
			return err
		}
		if closed {
			return ErrClosed
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// randomString returns n random bytes encoded for URLs.
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails since Go 1.24
	return base64.RawURLEncoding.EncodeToString(b)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// timestamp formats t like Discord: "2021-05-19T02:12:51.710000+00:00".
func timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000") + "+00:00"
}

// orDefault returns d, or def if d is not positive.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
