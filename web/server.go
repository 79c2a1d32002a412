package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tttbot/tttbot/i18n"
)

// DefaultAPIURL is Discord's REST API, for Config.APIURL.
const DefaultAPIURL = "https://discord.com/api/v10"

// Config is what a Server needs. Games, Feed, Key, ClientID,
// ClientSecret and BotToken are required.
type Config struct {
	Games Games
	Feed  Feed
	// Key signs sessions (HMAC-SHA256); every replica must have the
	// same one (the store keeps it). At least MinKeyLen bytes.
	Key []byte
	// ClientID is the application's id (the OAuth2 client id); the
	// activity's origin is ClientID.discordsays.com.
	ClientID     string
	ClientSecret string // DISCORD_CLIENT_SECRET
	BotToken     string // without "Bot "
	// APIURL is Discord's REST API, e.g. DefaultAPIURL (the default), or
	// a fake Discord's in tests.
	APIURL string
	// Page serves everything that is not /api/ or /ws: the page and its
	// assets. Nil: 404.
	Page http.Handler
	// Catalog gives the texts of refusals; nil: i18n.New().
	Catalog *i18n.Catalog
	// Clock is the time of sessions and rate limits; nil: time.Now.
	Clock func() time.Time
	// AfterFunc runs f in its own goroutine once d has passed on Clock,
	// unless the func it returns is called first; nil: time.AfterFunc.
	// (A test whose Clock it moves gives its own.)
	AfterFunc func(d time.Duration, f func()) (stop func())
	// HTTPClient asks Discord; nil: a client with a 10 s timeout.
	HTTPClient *http.Client
	// Origins are more origin host patterns allowed to open a WebSocket
	// (path.Match, e.g. "localhost:*" for development without Discord's
	// proxy), besides ClientID.discordsays.com and the server's own host.
	Origins []string
	Log     *slog.Logger
	Limits  Limits
}

// Limits bound what pages may cost. Zero fields take the defaults of
// DefaultLimits.
type Limits struct {
	SessionTTL time.Duration // how long a session is good for
	// MemberCheck is how often Discord is asked again whether a page's
	// user is still in its activity instance (member.go).
	MemberCheck time.Duration
	// Sockets: open at once per user, per activity instance, and in all
	// on this server.
	PerUser, PerInstance, Total int
	// Actions (moves, resigns, draw offers and answers, rematches) per
	// second per user, and how many may come at once (the bucket).
	ActionsPerSecond float64
	ActionBurst      int
	// FramesPerSecond and FrameBurst bound every frame a socket sends;
	// beyond, the socket is closed.
	FramesPerSecond float64
	FrameBurst      int
	// SendQueue is how many answers (results, errors) may wait for a
	// slow page; beyond, it is dropped (states do not queue: the newest
	// replaces one not sent). WriteTimeout is how long one frame may
	// take to send; beyond, the page is dropped.
	SendQueue    int
	WriteTimeout time.Duration
	// HelloWithin is how long a new socket has to send hello.
	HelloWithin time.Duration
	// PingEvery is how often the server pings a socket to find dead ones.
	PingEvery time.Duration
	// ActWithin bounds one action of the bot, StateWithin one read.
	ActWithin, StateWithin time.Duration
	// Sessions a second this server opens (each asks Discord three
	// times), and how many at once; beyond, 429.
	SessionsPerSecond float64
	SessionBurst      int
	// Session requests a second, and at once, per remote address
	// (AddressSessions...) and per activity instance claimed
	// (InstanceSessions...), within the server's (sources.go).
	AddressSessionsPerSecond  float64
	AddressSessionBurst       int
	InstanceSessionsPerSecond float64
	InstanceSessionBurst      int
}

// DefaultLimits are the limits of a Server whose Config leaves them zero.
var DefaultLimits = Limits{
	SessionTTL:        6 * time.Hour,
	MemberCheck:       10 * time.Minute,
	PerUser:           4,
	PerInstance:       1000,
	Total:             3000,
	ActionsPerSecond:  4,
	ActionBurst:       6,
	FramesPerSecond:   20,
	FrameBurst:        40,
	SendQueue:         16,
	WriteTimeout:      10 * time.Second,
	HelloWithin:       10 * time.Second,
	PingEvery:         30 * time.Second,
	ActWithin:         15 * time.Second,
	StateWithin:       10 * time.Second,
	SessionsPerSecond: 20,
	SessionBurst:      60,
	// An address, often a proxy many users share: half the server's.
	AddressSessionsPerSecond: 10,
	AddressSessionBurst:      30,
	// An instance: its pages opening at once.
	InstanceSessionsPerSecond: 5,
	InstanceSessionBurst:      20,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	setD := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	setF := func(v *float64, def float64) {
		if *v <= 0 {
			*v = def
		}
	}
	setD(&l.SessionTTL, d.SessionTTL)
	setD(&l.MemberCheck, d.MemberCheck)
	set(&l.PerUser, d.PerUser)
	set(&l.PerInstance, d.PerInstance)
	set(&l.Total, d.Total)
	setF(&l.ActionsPerSecond, d.ActionsPerSecond)
	set(&l.ActionBurst, d.ActionBurst)
	setF(&l.FramesPerSecond, d.FramesPerSecond)
	set(&l.FrameBurst, d.FrameBurst)
	set(&l.SendQueue, d.SendQueue)
	setD(&l.WriteTimeout, d.WriteTimeout)
	setD(&l.HelloWithin, d.HelloWithin)
	setD(&l.PingEvery, d.PingEvery)
	setD(&l.ActWithin, d.ActWithin)
	setD(&l.StateWithin, d.StateWithin)
	setF(&l.SessionsPerSecond, d.SessionsPerSecond)
	set(&l.SessionBurst, d.SessionBurst)
	setF(&l.AddressSessionsPerSecond, d.AddressSessionsPerSecond)
	set(&l.AddressSessionBurst, d.AddressSessionBurst)
	setF(&l.InstanceSessionsPerSecond, d.InstanceSessionsPerSecond)
	set(&l.InstanceSessionBurst, d.InstanceSessionBurst)
	return l
}

// Server serves the live board: POST /api/session, GET /ws, and the page.
// Create it with New; it is safe for concurrent use. Close closes its
// sockets (http.Server's Shutdown does not: they are hijacked).
type Server struct {
	cfg     Config
	limits  Limits
	api     string
	client  *http.Client
	catalog *i18n.Catalog
	log     *slog.Logger
	now     func() time.Time
	origins []string
	mux     *http.ServeMux
	hub     *hub
	members *members
	cdnOnce sync.Once // the log's word on a missing CDN mapping
	// afterFunc is Config.AfterFunc's.
	afterFunc func(d time.Duration, f func()) (stop func())
	opened    bucket // sessions opened
	// Session requests by remote address and by instance claimed.
	byAddress, byInstance *sources
}

// New checks cfg and returns its Server.
func New(cfg Config) (*Server, error) {
	switch {
	case cfg.Games == nil || cfg.Feed == nil:
		return nil, errors.New("web: Config needs Games and Feed")
	case len(cfg.Key) < MinKeyLen:
		return nil, errors.New("web: the session key is shorter than 32 bytes")
	case cfg.ClientID == "" || cfg.ClientSecret == "" || cfg.BotToken == "":
		return nil, errors.New("web: Config needs ClientID, ClientSecret and BotToken")
	}
	s := &Server{
		cfg:     cfg,
		limits:  cfg.Limits.withDefaults(),
		api:     strings.TrimRight(cfg.APIURL, "/"),
		client:  cfg.HTTPClient,
		catalog: cfg.Catalog,
		log:     cfg.Log,
		now:     cfg.Clock,
	}
	if s.api == "" {
		s.api = DefaultAPIURL
	}
	if s.client == nil {
		s.client = &http.Client{Timeout: 10 * time.Second}
	}
	if s.catalog == nil {
		c, err := i18n.New()
		if err != nil {
			return nil, err
		}
		s.catalog = c
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.afterFunc = cfg.AfterFunc
	if s.afterFunc == nil {
		s.afterFunc = func(d time.Duration, f func()) func() {
			t := time.AfterFunc(d, f)
			return func() { t.Stop() }
		}
	}
	s.members = &members{m: make(map[string]*memberEntry)}
	// Inside Discord the page's origin is the activity's proxy host; the
	// WebSocket reaches this server through that proxy, with the Host of
	// the URL mapping's target, so the origin is not this server's host.
	s.origins = append([]string{cfg.ClientID + ".discordsays.com"}, cfg.Origins...)
	s.hub = newHub(s)
	s.opened = bucket{rate: s.limits.SessionsPerSecond, burst: float64(s.limits.SessionBurst)}
	s.byAddress = newSources(s.limits.AddressSessionsPerSecond, s.limits.AddressSessionBurst, maxSources)
	s.byInstance = newSources(s.limits.InstanceSessionsPerSecond, s.limits.InstanceSessionBurst, maxSources)
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /api/session", s.serveSession)
	s.mux.HandleFunc("/api/", s.serveAPINotFound)
	s.mux.HandleFunc("GET /ws", s.serveSocket)
	s.mux.HandleFunc("GET "+CDNPrefix+"/", s.serveCDN)
	page := cfg.Page
	if page == nil {
		page = http.NotFoundHandler()
	}
	s.mux.Handle("/", page)
	return s, nil
}

// ServeHTTP serves the live board. Inside Discord the page asks for
// /.proxy/api/session and /.proxy/ws (the activity's URL mapping of "/"
// to this server); Discord's proxy takes the prefix off, and a request
// that still has it (the page served without the proxy, in development)
// is served as if it had not.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if rest, ok := strings.CutPrefix(r.URL.Path, "/.proxy/"); ok {
		r = r.Clone(r.Context())
		r.URL.Path, r.URL.RawPath = "/"+rest, ""
	}
	s.mux.ServeHTTP(w, r)
}

// Close closes every socket (telling the pages to come back: 1001), and
// refuses new ones. A page reconnects, to this replica once it is back,
// or to another.
func (s *Server) Close() { s.hub.close() }

// Sockets says how many sockets are open (after hello or not).
func (s *Server) Sockets() int { return s.hub.open() }

// sessionRequest is the body of POST /api/session.
type sessionRequest struct {
	Code       string `json:"code"`
	InstanceID string `json:"instance_id"`
	// ChannelID is where the page's SDK says it runs: never believed,
	// only compared with the instance's channel, so that a page told
	// the wrong channel is refused rather than shown another game.
	ChannelID string `json:"channel_id,omitempty"`
}

// sessionReply is the answer of POST /api/session.
type sessionReply struct {
	Session     string `json:"session"`
	AccessToken string `json:"access_token"`
	User        User   `json:"user"`
	ChannelID   string `json:"channel_id"`
	GuildID     string `json:"guild_id,omitempty"`
	Locale      string `json:"locale"`
	Expires     int64  `json:"expires"` // Unix milliseconds
}

// apiError is every refusal of the HTTP API.
type apiError struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

// sessionWithin bounds the three calls to Discord for a session: it is
// below the HTTP server's WriteTimeout (10 s, in package main), so that a
// slow Discord gets the page an answer it can show (discord_unreachable)
// rather than a connection cut.
const sessionWithin = 8 * time.Second

// maxSessionBody bounds the body of POST /api/session.
const maxSessionBody = 4 << 10

// serveSession opens a session: it asks Discord who the code's user is
// and where the activity instance runs, and believes nothing else.
func (s *Server) serveSession(w http.ResponseWriter, r *http.Request) {
	l := s.catalog.For(acceptLanguage(r))
	var req sessionRequest
	body, err := io.ReadAll(io.LimitReader(r.Body, maxSessionBody+1))
	if err != nil || len(body) > maxSessionBody || json.Unmarshal(body, &req) != nil ||
		req.Code == "" || len(req.Code) > 256 || req.InstanceID == "" || len(req.InstanceID) > 256 {
		s.refuse(w, http.StatusBadRequest, l, "bad_request")
		return
	}
	// Per source first: a source out of tokens takes none of the
	// server's (sources.go).
	now := s.now()
	if !s.byAddress.take(remoteHost(r), now) || !s.byInstance.take(req.InstanceID, now) || !s.opened.take(now) {
		w.Header().Set("Retry-After", "1")
		s.refuse(w, http.StatusTooManyRequests, l, "crowded")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), sessionWithin)
	defer cancel()
	token, err := s.exchange(ctx, req.Code)
	if err != nil {
		s.discordFailed(w, l, err, "code_refused")
		return
	}
	u, err := s.me(ctx, token)
	if err != nil {
		s.discordFailed(w, l, err, "code_refused")
		return
	}
	l = s.catalog.For(u.Locale, acceptLanguage(r))
	in, err := s.instance(ctx, req.InstanceID)
	if err != nil {
		s.discordFailed(w, l, err, "instance_unknown")
		return
	}
	switch {
	case in.ApplicationID != s.cfg.ClientID || in.InstanceID != req.InstanceID || in.Location == nil || in.Location.ChannelID == "":
		s.refuse(w, http.StatusForbidden, l, "instance_unknown")
		return
	case !slices.Contains(in.Users, u.ID):
		s.refuse(w, http.StatusForbidden, l, "not_in_instance")
		return
	case req.ChannelID != "" && req.ChannelID != in.Location.ChannelID:
		s.refuse(w, http.StatusForbidden, l, "instance_elsewhere")
		return
	}
	c := claims{
		User:     u.ID,
		Name:     u.name(),
		Channel:  in.Location.ChannelID,
		Instance: in.InstanceID,
		Locale:   u.Locale,
		Expiry:   s.now().Add(s.limits.SessionTTL).Unix(),
		Checked:  s.now().Unix(),
	}
	if in.Location.GuildID != nil {
		c.Guild = *in.Location.GuildID
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, sessionReply{
		Session:     sign(s.cfg.Key, c),
		AccessToken: token,
		User:        User{ID: u.ID, Name: u.name(), Avatar: u.avatarURL()},
		ChannelID:   c.Channel,
		GuildID:     c.Guild,
		Locale:      c.Locale,
		Expires:     c.Expiry * 1000,
	})
}

// discordFailed answers a failed call to Discord: refused (the code or
// instance is not good) with code; the app's own credentials refused,
// internal (the server's fault, logged as an error); else Discord is out
// of reach.
func (s *Server) discordFailed(w http.ResponseWriter, l *i18n.Language, err error, code string) {
	var refused *errDiscordRefused
	var misconfigured *errOurCredentials
	switch {
	case errors.As(err, &misconfigured):
		s.log.Error("live board: Discord refuses the application's credentials", "err", err)
		s.refuse(w, http.StatusInternalServerError, l, "internal")
		return
	case errors.As(err, &refused):
		s.refuse(w, http.StatusForbidden, l, code)
		return
	}
	s.log.Warn("live board: asking Discord for a session", "err", err)
	s.refuse(w, http.StatusBadGateway, l, "discord_unreachable")
}

func (s *Server) serveAPINotFound(w http.ResponseWriter, r *http.Request) {
	s.refuse(w, http.StatusNotFound, s.catalog.For(acceptLanguage(r)), "not_found")
}

// refuse answers with the refusal code and its text in l.
func (s *Server) refuse(w http.ResponseWriter, status int, l *i18n.Language, code string) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, apiError{Error: code, Message: text(l, code)})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// acceptLanguage is the first language of the request's Accept-Language,
// for answers given before Discord says the user's locale.
func acceptLanguage(r *http.Request) string {
	a := r.Header.Get("Accept-Language")
	first, _, _ := strings.Cut(a, ",")
	first, _, _ = strings.Cut(first, ";")
	first = strings.TrimSpace(first)
	if len(first) > 35 || first == "*" {
		return ""
	}
	return first
}

// text is the catalog text of a refusal code, under the key "web." +
// code.
func text(l *i18n.Language, code string) string {
	return l.T("web."+code, nil)
}
