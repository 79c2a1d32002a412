// Package discord holds tttbot's transports to Discord: the gateway session
// that delivers interactions, and the REST calls that answer and edit. The
// bot package answers through the small interfaces it declares; this
// package provides them over discordgo.
package discord

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Options say how to reach Discord and which gateway shards to run. The
// zero value of each field but Token is a sensible default.
type Options struct {
	// Token is the bot token, without "Bot ".
	Token string
	// APIURL is a Discord-compatible REST API including the version, such
	// as https://discord.com/api/v9; "" means Discord's own.
	APIURL string
	// Log gets the transport's log lines; nil discards them.
	Log *slog.Logger

	// ShardID and ShardCount run one shard of a sharded bot: this process
	// gets the interactions of the guilds with (guild_id >> 22) %
	// ShardCount == ShardID. ShardCount 0 runs one unsharded connection.
	ShardID, ShardCount int
	// AutoShards asks Discord (GET /gateway/bot) for the recommended shard
	// count and runs every shard in this process, starting at most
	// session_start_limit.max_concurrency of them per StartInterval.
	AutoShards bool
	// StartInterval is how long Discord wants between two rounds of
	// identifies; 0 means Discord's 5 s. Tests make it small.
	StartInterval time.Duration
	// Counters, if not nil, count reconnects, rate limits and server errors
	// for the metrics endpoint.
	Counters *Counters
	// Halt, if not nil, bounds every REST call: once it is done, the
	// calls in flight are cancelled and new ones fail at once (ErrHalted).
	// A shutdown sets it so that a stalled Discord cannot hold the process
	// past its grace period.
	Halt context.Context
}

// ErrHalted is the error of a REST call made, or cut short, after
// Options.Halt was done.
var ErrHalted = errors.New("REST calls are halted: the bot is shutting down")

// Counters count what went wrong between the bot and Discord; the metrics
// endpoint reads them. All fields are updated atomically; the zero value
// is ready to use, and one Counters may serve several sessions.
type Counters struct {
	// Reconnects counts gateway sessions re-established after the first
	// READY of their shard, by resume or by a new identify, over all shards.
	Reconnects atomic.Uint64
	// RateLimited counts REST responses with status 429, of every request
	// made through the session's HTTP client (interaction callbacks too).
	RateLimited atomic.Uint64
	// ServerErrors counts REST responses with a 5xx status.
	ServerErrors atomic.Uint64
}

// NewSession returns a discordgo session for o's bot token that asks for
// no gateway intents: the bot only answers interactions, which need none.
// It does not connect; OpenWith does. The session's HTTP client counts
// 429s and 5xx in o.Counters and logs each of them in one line.
//
// If o.APIURL is not empty, every REST call, and so the gateway lookup,
// goes there instead of discordgo.EndpointAPI. discordgo builds its
// endpoint strings once, at init, so the redirect happens in the HTTP
// client.
func NewSession(o Options) (*discordgo.Session, error) {
	s, err := discordgo.New("Bot " + o.Token)
	if err != nil {
		return nil, fmt.Errorf("new discord session: %w", err)
	}
	s.Identify.Intents = discordgo.IntentsNone
	// The bot keeps no cache of guilds, channels or members: it needs none,
	// and memory then does not grow with the number of servers.
	s.StateEnabled = false
	s.LogLevel = discordgo.LogWarning
	// Go's default keeps 2 idle connections per host: under load, most
	// calls to an HTTP/1.1 API (a proxy, a self-hosted Discord) would dial
	// afresh. discord.com speaks HTTP/2, where this changes nothing.
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 100
	var next http.RoundTripper = t
	if o.APIURL != "" {
		if err := CheckAPIURL(o.APIURL); err != nil {
			return nil, err
		}
		next = redirect{from: discordgo.EndpointAPI, to: strings.TrimSuffix(o.APIURL, "/") + "/", next: next}
	}
	s.Client = &http.Client{
		Timeout:   20 * time.Second, // discordgo's default
		Transport: counting{counters: orNewCounters(o.Counters), log: orDiscard(o.Log), next: halting{halt: o.Halt, next: next}},
	}
	return s, nil
}

// CheckAPIURL says what is wrong with an Options.APIURL, if anything: it
// must be an absolute http(s) URL, such as https://discord.com/api/v9.
func CheckAPIURL(apiURL string) error {
	u, err := url.Parse(apiURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("APIURL %q is not an absolute http(s) URL such as https://discord.com/api/v9", apiURL)
	}
	return nil
}

// usedURL returns err with the URL that a *url.Error in its chain names
// changed to the one actually asked, when s's client redirects
// discordgo's requests (Options.APIURL): the http.Client names the URL
// discordgo built, https://discord.com/api/v9/…, in its errors, which
// misleads whoever set Options.APIURL. Other errors are returned as
// they are.
func usedURL(s *discordgo.Session, err error) error {
	var uerr *url.Error
	if err == nil || s == nil || s.Client == nil || !errors.As(err, &uerr) {
		return err
	}
	c, ok := s.Client.Transport.(counting)
	if !ok {
		return err
	}
	next := c.next
	if h, ok := next.(halting); ok {
		next = h.next
	}
	if r, ok := next.(redirect); ok {
		if rest, ok := strings.CutPrefix(uerr.URL, r.from); ok {
			uerr.URL = r.to + rest
		}
	}
	return err
}

// UsedURL returns err naming the URL of the REST call actually made (see
// Options.APIURL), for errors of calls made through d's session.
func (d REST) UsedURL(err error) error { return usedURL(d.Session, err) }

func orNewCounters(c *Counters) *Counters {
	if c == nil {
		return new(Counters)
	}
	return c
}

func orDiscard(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return log
}

// redirect sends requests whose URL starts with from to the same path below
// to.
type redirect struct {
	from, to string
	next     http.RoundTripper
}

func (t redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	u := req.URL.String()
	if !strings.HasPrefix(u, t.from) {
		return t.next.RoundTrip(req)
	}
	nu, err := url.Parse(t.to + strings.TrimPrefix(u, t.from))
	if err != nil {
		return nil, fmt.Errorf("redirect %s: %w", req.URL.Path, err)
	}
	r := req.Clone(req.Context())
	r.URL, r.Host = nu, nu.Host
	return t.next.RoundTrip(r)
}

// halting fails requests once halt is done, and cancels those in flight
// then (until their response body is closed).
type halting struct {
	halt context.Context
	next http.RoundTripper
}

func (t halting) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.halt == nil {
		return t.next.RoundTrip(req)
	}
	if t.halt.Err() != nil {
		return nil, ErrHalted
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	stop := context.AfterFunc(t.halt, func() { cancel(ErrHalted) })
	done := func() {
		stop()
		cancel(nil)
	}
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		done()
		if context.Cause(ctx) == ErrHalted {
			return nil, ErrHalted
		}
		return nil, err
	}
	resp.Body = &haltingBody{ReadCloser: resp.Body, done: done}
	return resp, nil
}

// haltingBody ends its request's halting watch when it is closed.
type haltingBody struct {
	io.ReadCloser
	done func()
	once sync.Once
}

func (b *haltingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
}

// counting counts and logs the responses that say Discord is pushing back:
// 429 (rate limited) and 5xx. It sees every REST call of the session,
// discordgo's own and the interaction calls REST makes directly, but not
// the gateway websocket. What to do about the response (retry, give up)
// is the caller's business.
type counting struct {
	counters *Counters
	log      *slog.Logger
	next     http.RoundTripper
}

func (t counting) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	switch code := resp.StatusCode; {
	case code == http.StatusTooManyRequests:
		t.counters.RateLimited.Add(1)
		// The body says how long and whether the limit is global; read it
		// and put it back for the caller.
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("read a 429 response: %w", err)
		}
		wait, global := retryAfter(resp, body)
		if auth := req.Header.Get("Authorization"); auth != "" && global {
			// Every call with the bot's token waits for it (limits):
			// REST's own, and discordgo's, whose retry is off.
			limitsFor(auth).hold(rateKey{bound: true}, true, time.Now().Add(wait))
		}
		t.log.Warn("REST rate limited", "method", req.Method, "route", route(req.URL.Path),
			"retry_after", wait, "global", global, "scope", resp.Header.Get("X-RateLimit-Scope"))
	case code >= 500 && code <= 599:
		t.counters.ServerErrors.Add(1)
		t.log.Warn("REST server error", "method", req.Method, "route", route(req.URL.Path), "status", code)
	}
	return resp, nil
}

// route returns the path of a REST request with its IDs and tokens
// replaced by placeholders, e.g. "/interactions/:id/:token/callback": fit
// for logs (an interaction token is a credential for 15 minutes) and of
// bounded variety. Everything up to the API version is dropped.
func route(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if i := indexVersion(segs); i >= 0 {
		segs = segs[i+1:]
	}
	out := make([]string, len(segs))
	for i, seg := range segs {
		switch {
		case i >= 2 && (segs[i-2] == "interactions" || segs[i-2] == "webhooks"):
			out[i] = ":token"
		case isWord(seg):
			out[i] = seg
		default:
			out[i] = ":id"
		}
	}
	return "/" + strings.Join(out, "/")
}

// indexVersion returns the index of the "v9"-like segment, or -1.
func indexVersion(segs []string) int {
	for i, s := range segs {
		if len(s) >= 2 && s[0] == 'v' && strings.Trim(s[1:], "0123456789") == "" {
			return i
		}
	}
	return -1
}

// isWord reports whether seg is a fixed part of a route such as
// "messages" or "@original", not an ID or a token.
func isWord(seg string) bool {
	if seg == "" || len(seg) > 32 {
		return false
	}
	for _, r := range seg {
		if (r < 'a' || r > 'z') && r != '@' && r != '-' && r != '_' {
			return false
		}
	}
	return true
}
