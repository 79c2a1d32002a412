package discord

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
)

// REST is the Discord the bot runs on: the discordgo session, with
// the interaction-token calls made directly over the session's HTTP
// client (and so through Options.APIURL) instead of through discordgo's
// rate limiter. In discordgo v0.29.0 that limiter
//
//   - keeps a bucket per interaction callback URL, which holds the
//     interaction's token, in a map that never shrinks: memory would grow
//     with every click for as long as the bot runs;
//   - puts every webhook edit, of every channel, in one bucket that it keeps
//     locked for the whole request, so one slow edit holds up all others;
//   - answers a 429 by sleeping retry_after, however long, which can carry a
//     response past Discord's 3 seconds.
//
// Instead, REST keeps what Discord's 429s said (limits): until when the
// global limit holds, and until when each route's does, a route being an
// interaction or a webhook token, whose entries go once their time has
// passed. No request is sent on a route, or while the global limit holds
// (which does not bind the interaction endpoints: the callbacks, and the
// follow-ups and edits through an interaction's token), before Discord
// said it may be: a request that would wait past its deadline fails at
// once, not sent.
//
// The interaction callback, which must be answered within Discord's 3
// seconds, is retried once: after a 429 whose retry_after ends before its
// deadline, after a 5xx after a short pause. Every other call, background
// work that nobody waits for, is retried until its deadline: after a 429
// once its retry_after has passed, after a 5xx with a doubling pause
// (backoff), up to maxTries tries in all; but a call made with
// discordgo.WithRestRetries(0), which must not take effect twice, is not
// retried after a 5xx (Discord may have carried it out).
//
// discordgo's own calls (the channel's message endpoints, with the bot's
// token) keep its limiter, with its retry after a 429 off (it would sleep
// retry_after without looking at the context, without end): REST holds
// them to the limits as its own calls (viaDiscordgo), and retries the
// 5xx of the message calls without files with the same backoff
// (retryServerErrors); discordgo retries a 502 at once.
type REST struct {
	*discordgo.Session
}

// InteractionRespond posts the interaction callback.
func (d REST) InteractionRespond(i *discordgo.Interaction, r *discordgo.InteractionResponse, opts ...discordgo.RequestOption) error {
	_, err := d.do(http.MethodPost, discordgo.EndpointInteractionResponse(i.ID, i.Token), r, opts, answering)
	return err
}

// InteractionResponse returns the interaction's @original message, which
// names its channel and id.
func (d REST) InteractionResponse(i *discordgo.Interaction, opts ...discordgo.RequestOption) (*discordgo.Message, error) {
	return message(d.call(http.MethodGet, discordgo.EndpointWebhookMessage(i.AppID, i.Token, "@original"), nil, opts))
}

// InteractionResponseEdit edits the interaction's @original message.
func (d REST) InteractionResponseEdit(i *discordgo.Interaction, e *discordgo.WebhookEdit, opts ...discordgo.RequestOption) (*discordgo.Message, error) {
	return message(d.call(http.MethodPatch, discordgo.EndpointWebhookMessage(i.AppID, i.Token, "@original"), e, opts))
}

// message decodes the message a call answered with.
func message(body []byte, err error) (*discordgo.Message, error) {
	if err != nil {
		return nil, err
	}
	m := new(discordgo.Message)
	if err := json.Unmarshal(body, m); err != nil {
		return nil, fmt.Errorf("decode the message: %w", err)
	}
	return m, nil
}

// InteractionResponseDelete deletes the message that i's @original points
// at.
func (d REST) InteractionResponseDelete(i *discordgo.Interaction, opts ...discordgo.RequestOption) error {
	_, err := d.call(http.MethodDelete, discordgo.EndpointWebhookMessage(i.AppID, i.Token, "@original"), nil, opts)
	return err
}

// FollowupMessageCreate posts a follow-up message through i's token; with
// wait, Discord answers with the message (its id, to delete it later).
func (d REST) FollowupMessageCreate(i *discordgo.Interaction, wait bool, data *discordgo.WebhookParams, opts ...discordgo.RequestOption) (*discordgo.Message, error) {
	endpoint := discordgo.EndpointFollowupMessage(i.AppID, i.Token)
	if !wait {
		_, err := d.call(http.MethodPost, endpoint, data, opts)
		return nil, err
	}
	return message(d.call(http.MethodPost, endpoint+"?wait=true", data, opts))
}

// FollowupMessageDelete deletes a follow-up message sent through i's token.
func (d REST) FollowupMessageDelete(i *discordgo.Interaction, messageID string, opts ...discordgo.RequestOption) error {
	_, err := d.call(http.MethodDelete, discordgo.EndpointFollowupMessageActions(i.AppID, i.Token, messageID), nil, opts)
	return err
}

// GuildCount returns how many servers have the app installed, as Discord
// estimates it (GET /applications/@me, approximate_guild_count).
func (d REST) GuildCount(ctx context.Context) (int, error) {
	u := discordgo.EndpointApplication("@me")
	body, err := d.RequestWithBucketID(http.MethodGet, u, nil, u, discordgo.WithContext(ctx))
	if err != nil {
		return 0, err
	}
	var app struct {
		Count int `json:"approximate_guild_count"`
	}
	if err := json.Unmarshal(body, &app); err != nil {
		return 0, fmt.Errorf("decode the application: %w", err)
	}
	return app.Count, nil
}

// ApplicationCommandsJSON returns the application's commands of a scope
// (guildID "": the global ones) as Discord sends them, one JSON object
// each, with their localizations: every field, such as the handler of an
// entry point command, which discordgo's ApplicationCommand lacks.
func (d REST) ApplicationCommandsJSON(appID, guildID string, opts ...discordgo.RequestOption) ([]json.RawMessage, error) {
	u := commandsEndpoint(appID, guildID)
	body, err := d.RequestWithBucketID(http.MethodGet, u+"?with_localizations=true", nil, u, opts...)
	if err != nil {
		return nil, err
	}
	var cmds []json.RawMessage
	if err := json.Unmarshal(body, &cmds); err != nil {
		return nil, fmt.Errorf("decode the commands: %w", err)
	}
	return cmds, nil
}

// ApplicationCommandBulkOverwriteJSON overwrites the application's
// commands of a scope with cmds, JSON objects, as
// ApplicationCommandBulkOverwrite does with discordgo's type, which
// lacks fields the bot must send back (an entry point's handler).
func (d REST) ApplicationCommandBulkOverwriteJSON(appID, guildID string, cmds []json.RawMessage, opts ...discordgo.RequestOption) error {
	if cmds == nil {
		cmds = []json.RawMessage{} // an empty list, not null
	}
	u := commandsEndpoint(appID, guildID)
	_, err := d.RequestWithBucketID(http.MethodPut, u, cmds, u, opts...)
	return err
}

// commandsEndpoint is the URL of the commands of a scope.
func commandsEndpoint(appID, guildID string) string {
	if guildID == "" {
		return discordgo.EndpointApplicationGlobalCommands(appID)
	}
	return discordgo.EndpointApplicationGuildCommands(appID, guildID)
}

// filesOf returns the files a request body uploads: they make it a
// multipart/form-data request.
func filesOf(body any) []*discordgo.File {
	switch b := body.(type) {
	case *discordgo.WebhookEdit:
		return b.Files
	case *discordgo.WebhookParams:
		return b.Files
	case *discordgo.InteractionResponse:
		if b.Data != nil {
			return b.Data.Files
		}
	}
	return nil
}

// call sends one request of background work (retried until its
// deadline; see REST), and returns the response body.
func (d REST) call(method, endpoint string, body any, opts []discordgo.RequestOption) ([]byte, error) {
	return d.do(method, endpoint, body, opts, background)
}

// A retryPolicy says how a request is retried.
type retryPolicy int

const (
	answering  retryPolicy = iota // an interaction's answer: one retry at most
	background                    // work nobody waits for: until its deadline
)

// Retries of background work.
const (
	maxTries         = 10                     // tries of one request, the first included
	firstServerPause = 100 * time.Millisecond // after the first 5xx; doubled after each
	maxServerPause   = 2 * time.Second        // so that a 10 s deadline has room for 9 tries
)

// do sends one request, JSON, or multipart/form-data when the body
// uploads files, retried as policy says, and returns the response body.
// Errors from Discord are *discordgo.RESTError, as from the session's own
// calls. The URL carries the interaction token; it appears in no error
// text.
func (d REST) do(method, endpoint string, body any, opts []discordgo.RequestOption, policy retryPolicy) ([]byte, error) {
	contentType := "application/json"
	var payload []byte
	var err error
	if files := filesOf(body); len(files) > 0 {
		contentType, payload, err = discordgo.MultipartBodyWithJSON(body, files)
	} else if r, ok := body.(*discordgo.InteractionResponse); ok {
		payload, err = encodeResponse(r, true)
	} else if body != nil {
		payload, err = json.Marshal(body)
	}
	if err != nil {
		return nil, fmt.Errorf("encode %s request: %w", method, err)
	}
	lim := limitsOf(d.Session)
	rt := rateRoute(endpoint)
	pause := firstServerPause
	once := onceOn5xx(opts)
	noWait := policy == background && !waitsOnLimits(opts)
	for tries := 1; ; tries++ {
		req, err := http.NewRequest(method, endpoint, bytes.NewReader(payload))
		if err != nil {
			return nil, fmt.Errorf("%s interaction request: %w", method, err)
		}
		if payload != nil {
			req.Header.Set("Content-Type", contentType)
		}
		req.Header.Set("User-Agent", d.UserAgent)
		cfg := &discordgo.RequestConfig{Request: req, Client: d.Client}
		for _, o := range opts {
			o(cfg)
		}
		req = cfg.Request
		if noWait {
			if w := time.Until(lim.until(rt)); w > 0 {
				return nil, fmt.Errorf("%s interaction request: %w", method, limitedFor{notSent{fmt.Errorf("rate limited for %v more", w.Round(time.Millisecond))}, w})
			}
		}
		if err := lim.wait(req.Context(), rt); err != nil {
			return nil, fmt.Errorf("%s interaction request: %w", method, err)
		}
		resp, err := cfg.Client.Do(req)
		if err != nil {
			// The *url.Error would quote the URL, token and all.
			var uerr *url.Error
			if errors.As(err, &uerr) {
				err = uerr.Err
			}
			var op *net.OpError
			if errors.As(err, &op) && op.Op == "dial" {
				err = notSent{err}
			}
			return nil, fmt.Errorf("%s interaction request: %w", method, err)
		}
		respBody, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("%s interaction response: %w", method, err)
		}
		if resp.StatusCode < 300 {
			return respBody, nil
		}
		again := policy == background && tries < maxTries || tries == 1
		if resp.StatusCode == http.StatusTooManyRequests {
			wait, global := retryAfter(resp, respBody)
			lim.hold(rt, global, time.Now().Add(wait))
			if noWait {
				return nil, fmt.Errorf("%s interaction request: %w", method, limitedFor{notSent{fmt.Errorf("rate limited for %v", wait.Round(time.Millisecond))}, wait})
			}
			if again {
				retry, err := pauseToRetry(req.Context(), wait)
				if err != nil {
					return nil, notSent{fmt.Errorf("waiting out a rate limit: %w", err)}
				}
				if retry {
					continue
				}
			}
		}
		if resp.StatusCode >= 500 && again && !once {
			// Discord's own trouble, often a moment's: try again if there
			// is time. Had an earlier try taken effect after all, an
			// interaction's answer is refused as already acknowledged,
			// which the bot counts as answered.
			wait := serverErrorPause
			if policy == background {
				wait, pause = pause, min(2*pause, maxServerPause)
			}
			if retry, _ := pauseToRetry(req.Context(), wait); retry {
				continue
			}
		}
		rerr := &discordgo.RESTError{Request: req, Response: resp, ResponseBody: respBody}
		var msg discordgo.APIErrorMessage
		if json.Unmarshal(respBody, &msg) == nil && (msg.Code != 0 || msg.Message != "") {
			rerr.Message = &msg
		}
		return nil, rerr
	}
}

// pauseToRetry waits d before a retry and reports true, unless ctx's
// deadline comes first: then it reports false at once, without waiting.
// The error is ctx's, if ctx ends while it waits.
func pauseToRetry(ctx context.Context, d time.Duration) (bool, error) {
	if deadline, ok := ctx.Deadline(); ok && !time.Now().Add(d).Before(deadline) {
		return false, nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// serverErrorPause is the wait before the one retry of an interaction's
// answer that Discord answered with a 5xx.
const serverErrorPause = 100 * time.Millisecond

// retryAfter reads how long Discord asks us to wait, the JSON retry_after
// (seconds, fractional) or the Retry-After header, and whether the limit
// is the global one.
func retryAfter(resp *http.Response, body []byte) (time.Duration, bool) {
	var rl struct {
		RetryAfter float64 `json:"retry_after"`
		Global     bool    `json:"global"`
	}
	_ = json.Unmarshal(body, &rl)
	global := rl.Global || resp.Header.Get("X-RateLimit-Global") == "true" || resp.Header.Get("X-RateLimit-Scope") == "global"
	if rl.RetryAfter > 0 {
		return time.Duration(rl.RetryAfter * float64(time.Second)), global
	}
	if s, err := strconv.ParseFloat(resp.Header.Get("Retry-After"), 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second)), global
	}
	return time.Second, global
}

// limits holds what Discord's 429s told one session: until when the
// global limit holds, and until when each route's does. A route's entry
// goes once its time has passed, so the map holds the routes limited now,
// not every route ever limited.
type limits struct {
	mu     sync.Mutex
	global time.Time
	routes map[string]time.Time
	swept  int // len(routes) after the last sweep of ended entries
}

// botLimits holds the limits of each bot token REST has used: Discord's
// global limit is the bot's, whichever shard's session meets it. A process
// runs one bot.
var botLimits sync.Map // "Bot " + token → *limits

func limitsOf(s *discordgo.Session) *limits { return limitsFor(s.Token) }

// limitsFor returns the limits of the bot whose Authorization header is
// auth.
func limitsFor(auth string) *limits {
	if l, ok := botLimits.Load(auth); ok {
		return l.(*limits)
	}
	l, _ := botLimits.LoadOrStore(auth, &limits{routes: map[string]time.Time{}})
	return l.(*limits)
}

// wait waits until a request on r may be sent, as long as the limits
// that bind it, which other requests' 429s may extend meanwhile, end
// before ctx's deadline; else it fails at once, with the request not
// sent.
func (l *limits) wait(ctx context.Context, r rateKey) error {
	for {
		wait := time.Until(l.until(r))
		if wait <= 0 {
			return nil
		}
		if retry, err := pauseToRetry(ctx, wait); err != nil || !retry {
			return notSent{fmt.Errorf("rate limited for %v more", wait.Round(time.Millisecond))}
		}
	}
}

// A rateKey is what a per-route limit binds, as REST keeps them: one
// interaction (its callback) or one webhook token (its follow-ups and
// edits); bound is false for both, interaction endpoints, which the
// bot's global limit does not bind (Discord's docs, "Rate Limits"), and
// true for the calls with the bot's token.
type rateKey struct {
	key   string
	bound bool
}

// rateRoute returns the route of an endpoint URL.
func rateRoute(endpoint string) rateKey {
	path := endpoint
	if u, err := url.Parse(endpoint); err == nil {
		path = u.Path
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i, s := range segs {
		switch {
		case s == "interactions" && i+1 < len(segs):
			return rateKey{key: "interactions/" + segs[i+1]}
		case s == "webhooks" && i+2 < len(segs):
			return rateKey{key: "webhooks/" + segs[i+1] + "/" + segs[i+2]}
		}
	}
	return rateKey{key: path, bound: true}
}

// until returns when a request on r may be sent: in the past if now.
func (l *limits) until(r rateKey) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.routes[r.key]
	if r.bound && l.global.After(t) {
		t = l.global
	}
	return t
}

// hold records a 429: nothing goes on r (global: on any route the global
// limit binds) before until.
func (l *limits) hold(r rateKey, global bool, until time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if global {
		if until.After(l.global) {
			l.global = until
		}
		return
	}
	if len(l.routes) >= 2*l.swept+64 {
		now := time.Now()
		for k, t := range l.routes {
			if !now.Before(t) {
				delete(l.routes, k)
			}
		}
		l.swept = len(l.routes)
	}
	if until.After(l.routes[r.key]) {
		l.routes[r.key] = until
	}
}

// retryServerErrors calls try, and again after a 5xx with a doubling
// pause while ctx leaves time for it, up to maxTries tries: the message
// calls that go through discordgo, which retries a 502 but no other 5xx.
func retryServerErrors(ctx context.Context, try func() error) error {
	pause := firstServerPause
	for tries := 1; ; tries++ {
		err := try()
		var rerr *discordgo.RESTError
		if err == nil || tries == maxTries || !errors.As(err, &rerr) || rerr.Response == nil || rerr.Response.StatusCode < 500 {
			return err
		}
		if retry, _ := pauseToRetry(ctx, pause); !retry {
			return err
		}
		pause = min(2*pause, maxServerPause)
	}
}

// contextOf returns the context that opts give a request.
func contextOf(opts []discordgo.RequestOption) context.Context {
	req, _ := http.NewRequest(http.MethodGet, "http://localhost/", nil)
	cfg := &discordgo.RequestConfig{Request: req}
	for _, o := range opts {
		o(cfg)
	}
	return cfg.Request.Context()
}

// onceOn5xx says whether opts ask that a 5xx not be retried
// (discordgo.WithRestRetries(0)): a request that must not take effect
// twice, which Discord may have carried out before its trouble.
func onceOn5xx(opts []discordgo.RequestOption) bool {
	req, _ := http.NewRequest(http.MethodGet, "http://localhost/", nil)
	cfg := &discordgo.RequestConfig{Request: req, MaxRestRetries: -1}
	for _, o := range opts {
		o(cfg)
	}
	return cfg.MaxRestRetries == 0
}

// ChannelMessageSendComplex sends a message to a channel through
// discordgo, retried after a 5xx if it uploads no file (a file's reader
// is read once), and after a 429 as long as its context leaves time
// (viaDiscordgo).
func (d REST) ChannelMessageSendComplex(channelID string, m *discordgo.MessageSend, opts ...discordgo.RequestOption) (msg *discordgo.Message, err error) {
	ctx := contextOf(opts)
	send := func() error {
		return d.viaDiscordgo(ctx, "channels/"+channelID+"/messages", opts, func() (err error) {
			msg, err = d.Session.ChannelMessageSendComplex(channelID, m, noRetryOnRatelimit(opts)...)
			return err
		})
	}
	if len(m.Files) > 0 || m.File != nil || onceOn5xx(opts) {
		return msg, send()
	}
	return msg, retryServerErrors(ctx, send)
}

// MaxNonce is the longest nonce Discord takes with a message: 25
// characters.
const MaxNonce = 25

// ChannelMessageSendNonce sends m to a channel as ChannelMessageSendComplex
// does, with nonce (at most MaxNonce characters) and enforce_nonce, which
// discordgo v0.29's MessageSend lacks: Discord then creates at most one
// message of the bot's with that nonce within a few minutes, and answers a
// request that repeats it with the message it created (or Unknown Message,
// if that was deleted since). A request whose outcome is unknown (a 5xx,
// no answer) may then be made again; the caller chooses whether, as
// discordgo.WithRestRetries(0) says to REST (see ChannelMessageSendComplex).
// Webhooks and interaction follow-ups take no nonce.
func (d REST) ChannelMessageSendNonce(channelID string, m *discordgo.MessageSend, nonce string, opts ...discordgo.RequestOption) (msg *discordgo.Message, err error) {
	if nonce == "" || len(nonce) > MaxNonce {
		return nil, notSent{fmt.Errorf("nonce %q: want 1 to %d characters", nonce, MaxNonce)}
	}
	if m.Embed != nil || m.File != nil {
		return nil, notSent{errors.New("send a message with a nonce: use Embeds and Files, not the deprecated Embed and File")}
	}
	body := nonceMessage{MessageSend: m, Nonce: nonce, EnforceNonce: true}
	endpoint := discordgo.EndpointChannelMessages(channelID)
	ctx := contextOf(opts)
	send := func() error {
		return d.viaDiscordgo(ctx, "channels/"+channelID+"/messages", opts, func() error {
			var resp []byte
			var err error
			if len(m.Files) > 0 {
				contentType, payload, encErr := discordgo.MultipartBodyWithJSON(body, m.Files)
				if encErr != nil {
					return notSent{encErr}
				}
				resp, err = d.Session.RequestRaw(http.MethodPost, endpoint, contentType, payload, endpoint, 0, noRetryOnRatelimit(opts)...)
			} else {
				resp, err = d.Session.RequestWithBucketID(http.MethodPost, endpoint, body, endpoint, noRetryOnRatelimit(opts)...)
			}
			if err != nil {
				return err
			}
			msg, err = message(resp, nil)
			return err
		})
	}
	if len(m.Files) > 0 || onceOn5xx(opts) {
		return msg, send()
	}
	return msg, retryServerErrors(ctx, send)
}

// nonceMessage is the body of a message sent with a nonce.
type nonceMessage struct {
	*discordgo.MessageSend
	Nonce        string `json:"nonce"`
	EnforceNonce bool   `json:"enforce_nonce"`
}

// ChannelMessageEditComplex edits a channel's message through discordgo,
// retried after a 5xx if it uploads no file, and after a 429 as long as
// its context leaves time.
func (d REST) ChannelMessageEditComplex(m *discordgo.MessageEdit, opts ...discordgo.RequestOption) (msg *discordgo.Message, err error) {
	ctx := contextOf(opts)
	edit := func() error {
		return d.viaDiscordgo(ctx, "channels/"+m.Channel+"/messages/", opts, func() (err error) {
			msg, err = d.Session.ChannelMessageEditComplex(m, noRetryOnRatelimit(opts)...)
			return err
		})
	}
	if len(m.Files) > 0 || onceOn5xx(opts) {
		return msg, edit()
	}
	return msg, retryServerErrors(ctx, edit)
}

// ChannelMessageDelete deletes a channel's message through discordgo,
// retried after a 5xx, and after a 429 as long as its context leaves
// time.
func (d REST) ChannelMessageDelete(channelID, messageID string, opts ...discordgo.RequestOption) error {
	ctx := contextOf(opts)
	return retryServerErrors(ctx, func() error {
		return d.viaDiscordgo(ctx, "channels/"+channelID+"/messages/", opts, func() error {
			return d.Session.ChannelMessageDelete(channelID, messageID, noRetryOnRatelimit(opts)...)
		})
	})
}

// noRetryOnRatelimit returns opts with discordgo's retry after a 429 off:
// discordgo would sleep retry_after, however long (a shared limit's may
// be twenty minutes), without looking at the request's context, and try
// again without end, holding a worker that Close waits for.
func noRetryOnRatelimit(opts []discordgo.RequestOption) []discordgo.RequestOption {
	return append(slices.Clip(opts), discordgo.WithRetryOnRatelimit(false))
}

// viaDiscordgo makes call, a request through discordgo on the route that
// discordgo's bucket key names, as do makes its own: not before the
// limits that bind it (the route's, the global one) end, failing at once,
// not sent, if they outlast ctx's deadline; after a 429 (which call
// returns as *discordgo.RateLimitError, discordgo's retry being off),
// again once its retry_after has passed if ctx leaves time for it, else
// not sent. The global limit a 429 announces is held by the session's
// transport (counting), which reads the body discordgo does not keep.
func (d REST) viaDiscordgo(ctx context.Context, route string, opts []discordgo.RequestOption, call func() error) error {
	lim := limitsOf(d.Session)
	rt := rateKey{key: route, bound: true}
	noWait := !waitsOnLimits(opts)
	for {
		if w := time.Until(lim.until(rt)); noWait && w > 0 {
			return limitedFor{notSent{fmt.Errorf("rate limited for %v more", w.Round(time.Millisecond))}, w}
		}
		if err := lim.wait(ctx, rt); err != nil {
			return err
		}
		err := call()
		var rerr *discordgo.RateLimitError
		if !errors.As(err, &rerr) || rerr.RateLimit == nil || rerr.TooManyRequests == nil {
			return err
		}
		wait := rerr.RetryAfter
		if wait <= 0 {
			wait = time.Second
		}
		lim.hold(rt, false, time.Now().Add(wait))
		if noWait {
			return limitedFor{notSent{fmt.Errorf("rate limited for %v: %w", wait.Round(time.Millisecond), err)}, wait}
		}
		if retry, werr := pauseToRetry(ctx, wait); werr != nil || !retry {
			return notSent{fmt.Errorf("rate limited for %v: %w", wait.Round(time.Millisecond), err)}
		}
	}
}

// waitsOnLimits says whether opts let a background call wait out a rate
// limit (the default): with discordgo.WithRetryOnRatelimit(false) it
// fails at once instead, not sent, saying how long the limit holds
// (limitedFor), for its caller to try again then without holding a
// worker meanwhile.
func waitsOnLimits(opts []discordgo.RequestOption) bool {
	req, _ := http.NewRequest(http.MethodGet, "http://localhost/", nil)
	cfg := &discordgo.RequestConfig{Request: req, ShouldRetryOnRateLimit: true}
	for _, o := range opts {
		o(cfg)
	}
	return cfg.ShouldRetryOnRateLimit
}

// limitedFor is a request not sent because a rate limit holds for the
// time it says (RetryAfter).
type limitedFor struct {
	notSent
	after time.Duration
}

// RetryAfter is how long the limit holds from when the request failed.
func (e limitedFor) RetryAfter() time.Duration { return e.after }

// notSent marks a request that certainly never reached Discord, so that
// whatever was done for it can be undone. The bot recognises it by its
// NotSent method.
type notSent struct{ err error }

func (e notSent) Error() string { return "request not sent: " + e.err.Error() }
func (e notSent) Unwrap() error { return e.err }

// NotSent reports true: the request never left.
func (notSent) NotSent() bool { return true }

// Callback answers one interaction through Discord's callback endpoint: the
// responder of interactions that arrive over the gateway.
type Callback struct {
	REST        REST
	Interaction *discordgo.Interaction
}

// Respond posts r as the interaction's answer, without discordgo's rate
// limiter (see REST).
func (c Callback) Respond(ctx context.Context, r *discordgo.InteractionResponse) error {
	return c.REST.InteractionRespond(c.Interaction, r, discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false))
}
