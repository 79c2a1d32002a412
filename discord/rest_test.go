package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/bot"
	"github.com/tttbot/tttbot/discord/discordtest"
)

// connected opens a real discordgo session on a fake Discord, with the /ttt
// command registered in a guild, and calls answer for every interaction.
func connected(t *testing.T, answer func(s *discordgo.Session, ic *discordgo.InteractionCreate)) (*discordtest.Server, *discordgo.Session, string) {
	t.Helper()
	srv := discordtest.NewServer(testToken("rest-test-token"))
	s, err := NewSession(Options{Token: srv.Token, APIURL: srv.APIURL})
	if err != nil {
		t.Fatal(err)
	}
	s.ShouldReconnectOnError = false
	// discordgo does not decode interactions in a program that imports
	// this package (events.go): they are decoded from the event.
	s.AddHandler(func(s *discordgo.Session, e *discordgo.Event) {
		if e.Type != interactionCreate {
			return
		}
		i, err := DecodeInteraction(e.RawData)
		if err != nil {
			t.Errorf("decode an interaction: %v", err)
			return
		}
		answer(s, &discordgo.InteractionCreate{Interaction: i})
	})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		srv.Close()
	})
	guild := srv.NewID()
	if _, err := s.ApplicationCommandBulkOverwrite(srv.AppID, guild, bot.Commands()); err != nil {
		t.Fatal(err)
	}
	return srv, s, guild
}

// tokens numbers the bot tokens of the tests: each fake Discord has a
// bot of its own, so that the rate limits one test meets (which REST
// keeps per bot token) do not hold another's calls.
var tokens atomic.Int64

// testToken returns a bot token no other test of this run uses.
func testToken(prefix string) string { return fmt.Sprintf("%s-%d", prefix, tokens.Add(1)) }

// buckets is how many rate-limit buckets discordgo holds.
func buckets(s *discordgo.Session) int {
	s.Ratelimiter.Lock()
	defer s.Ratelimiter.Unlock()
	return reflect.ValueOf(s.Ratelimiter).Elem().FieldByName("buckets").Len()
}

func help(t *testing.T, srv *discordtest.Server, guild string) *discordtest.Interaction {
	t.Helper()
	in := srv.SlashCommand(guild, srv.NewID(), srv.NewMember("u"), "ttt", discordtest.Sub("help"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Send(ctx, in); err != nil {
		t.Fatal(err)
	}
	return in
}

// discordgo's own InteractionRespond leaves a bucket behind per interaction;
// REST leaves none, so memory does not grow with use.
func TestInteractionsLeaveNoBuckets(t *testing.T) {
	for _, tt := range []struct {
		name   string
		direct bool
		grows  bool
	}{{"discordgo", true, true}, {"REST", false, false}} {
		t.Run(tt.name, func(t *testing.T) {
			srv, s, guild := connected(t, func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
				r := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
					Data: &discordgo.InteractionResponseData{Content: "ok", Flags: discordgo.MessageFlagsEphemeral}}
				var d interface {
					InteractionRespond(*discordgo.Interaction, *discordgo.InteractionResponse, ...discordgo.RequestOption) error
				} = REST{s}
				if tt.direct {
					d = s
				}
				if err := d.InteractionRespond(ic.Interaction, r); err != nil {
					t.Error(err)
				}
			})
			before := buckets(s)
			const n = 30
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for i := 0; i < n; i++ {
				if _, err := help(t, srv, guild).Response(ctx); err != nil {
					t.Fatal(err)
				}
			}
			grew := buckets(s) - before
			if tt.grows != (grew >= n) || !tt.grows && grew != 0 {
				t.Errorf("after %d interactions the rate limiter holds %d more buckets; want grows = %v", n, grew, tt.grows)
			}
		})
	}
}

// A 429 on a callback is retried when Discord's retry_after fits in the
// 3 s; otherwise the call fails at once instead of sleeping past it.
func TestInteractionRateLimited(t *testing.T) {
	var mu sync.Mutex
	errs := map[string]error{}
	var wg sync.WaitGroup
	srv, _, guild := connected(t, func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
		defer wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
		defer cancel()
		err := REST{s}.InteractionRespond(ic.Interaction, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "ok"},
		}, discordgo.WithContext(ctx))
		if ctx.Err() != nil {
			err = errors.Join(err, errors.New("still waiting at the deadline"))
		}
		mu.Lock()
		errs[ic.ID] = err
		mu.Unlock()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	srv.FailNext("POST", "/interactions/", http.StatusTooManyRequests, "", 50*time.Millisecond)
	wg.Add(1)
	in := help(t, srv, guild)
	if _, err := in.Response(ctx); err != nil {
		t.Fatalf("short 429: %v; want answered after one retry", err)
	}
	wg.Wait()
	mu.Lock()
	if err := errs[in.ID]; err != nil {
		t.Errorf("short 429: InteractionRespond = %v; want nil", err)
	}
	mu.Unlock()

	srv.FailNext("POST", "/interactions/", http.StatusTooManyRequests, "", time.Minute)
	wg.Add(1)
	in = help(t, srv, guild)
	wg.Wait()
	mu.Lock()
	err := errs[in.ID]
	mu.Unlock()
	var rerr *discordgo.RESTError
	if !errors.As(err, &rerr) || rerr.Response.StatusCode != http.StatusTooManyRequests || strings.Contains(err.Error(), "deadline") {
		t.Fatalf("long 429: InteractionRespond = %v; want the 429 returned at once", err)
	}
	if strings.Contains(err.Error(), in.Token) {
		t.Errorf("error text %q contains the interaction token", err)
	}
}

// answeredBoard connects a bot that answers every interaction with the
// message "board", sends it /help, and returns the interaction and the
// answer Discord took.
func answeredBoard(t *testing.T) (*discordtest.Server, *discordgo.Session, *discordtest.Interaction, *discordtest.Response) {
	t.Helper()
	srv, s, guild := connected(t, func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
		err := REST{s}.InteractionRespond(ic.Interaction, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "board"},
		})
		if err != nil {
			t.Error(err)
		}
	})
	in := help(t, srv, guild)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := in.Response(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return srv, s, in, r
}

// An edit can upload a file (multipart/form-data), and replace the file of
// an earlier edit by naming only the new one; the message can be deleted.
func TestEditUploadsAndDeletes(t *testing.T) {
	srv, s, in, msg := answeredBoard(t)
	i := &discordgo.Interaction{AppID: srv.AppID, Token: in.Token}
	for n, name := range []string{"one.png", "two.png"} {
		m, err := REST{s}.InteractionResponseEdit(i, &discordgo.WebhookEdit{
			Files:       []*discordgo.File{{Name: name, ContentType: "image/png", Reader: strings.NewReader("\x89PNG" + name)}},
			Attachments: &[]*discordgo.MessageAttachment{{ID: "0", Filename: name}},
		})
		if err != nil {
			t.Fatalf("edit %d: %v", n, err)
		}
		if len(m.Attachments) != 1 || m.Attachments[0].Filename != name || m.Content != "board" {
			t.Fatalf("after edit %d the message has content %q and attachments %+v; want %q and only %s", n, m.Content, m.Attachments, "board", name)
		}
	}
	if err := (REST{s}).InteractionResponseDelete(i); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, ok := srv.Message(msg.Message.ChannelID, msg.Message.ID); ok {
		t.Error("the message is still there after the delete")
	}
}

// InteractionResponse reads the @original message, with its channel and
// id, and leaves no rate-limit bucket behind.
func TestInteractionResponse(t *testing.T) {
	srv, s, in, r := answeredBoard(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	before := buckets(s)
	m, err := REST{s}.InteractionResponse(&discordgo.Interaction{AppID: srv.AppID, Token: in.Token}, discordgo.WithContext(ctx))
	if err != nil || m.ID != r.Message.ID || m.ChannelID != in.ChannelID || m.Content != "board" {
		t.Fatalf("InteractionResponse = %+v, %v; want message %s in channel %s", m, err, r.Message.ID, in.ChannelID)
	}
	if grew := buckets(s) - before; grew != 0 {
		t.Errorf("the rate limiter holds %d more buckets; want none", grew)
	}
}

// GuildCount reads Discord's estimate of the app's servers.
func TestGuildCount(t *testing.T) {
	srv, s, _ := connected(t, func(*discordgo.Session, *discordgo.InteractionCreate) {})
	srv.Guilds = 42
	n, err := REST{s}.GuildCount(context.Background())
	if err != nil || n != 42 {
		t.Errorf("GuildCount = %d, %v; want 42, nil", n, err)
	}
}

// Background calls (everything but the interaction's answer) get through
// a busy Discord: they wait out each 429's retry_after, sending nothing
// on the route meanwhile, and retry 5xx with a growing pause, until their
// deadline.
func TestBackgroundCallsRetried(t *testing.T) {
	srv, s, in, _ := answeredBoard(t)
	i := &discordgo.Interaction{AppID: srv.AppID, Token: in.Token}
	hook := "/webhooks/" + srv.AppID + "/"
	for range 3 {
		srv.FailNext("POST", hook, http.StatusTooManyRequests, "", 50*time.Millisecond)
	}
	srv.FailNext("POST", hook, http.StatusInternalServerError, "", 0)
	srv.FailNext("POST", hook, http.StatusBadGateway, "", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := REST{s}.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "reminder"}, discordgo.WithContext(ctx))
	if err != nil || m.Content != "reminder" {
		t.Fatalf("FollowupMessageCreate after three 429s and two 5xx = %+v, %v; want the message", m, err)
	}
	srv.FailNext("DELETE", "/channels/", http.StatusInternalServerError, "", 0)
	srv.FailNext("DELETE", "/channels/", http.StatusServiceUnavailable, "", 0)
	if err := (REST{s}).ChannelMessageDelete(m.ChannelID, m.ID, discordgo.WithContext(ctx)); err != nil {
		t.Errorf("ChannelMessageDelete after a 500 and a 503 = %v; want it deleted", err)
	}
	if got := srv.RateLimitsIgnored(); len(got) != 0 {
		t.Errorf("requests that ignored a rate limit: %v", got)
	}
}

// A route's limit binds every call on it, and the global limit every
// call, discordgo's too, whichever call met it: nothing is sent before
// its time, and a call whose deadline comes first fails at once, not
// sent.
func TestRateLimitsHeld(t *testing.T) {
	srv, s, in, _ := answeredBoard(t)
	i := &discordgo.Interaction{AppID: srv.AppID, Token: in.Token}
	hook := "/webhooks/" + srv.AppID + "/"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// The global limit, met by a follow-up, holds discordgo's call.
	srv.FailNextGlobal("POST", hook, 300*time.Millisecond)
	done := make(chan error, 1)
	go func() {
		_, err := REST{s}.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "one"}, discordgo.WithContext(ctx))
		done <- err
	}()
	if _, err := srv.WaitRequests(ctx, 1, func(r discordtest.Request) bool { return r.Status == http.StatusTooManyRequests }); err != nil {
		t.Fatal(err)
	}
	// Once the follow-up has read the 429 (a request sent before that
	// cannot know of it).
	for heard := false; !heard; {
		select {
		case err := <-done: // done already: it had heard of it
			done <- err
			heard = true
		default:
			heard = time.Until(limitsOf(s).until(rateKey{bound: true})) > 0
			time.Sleep(time.Millisecond)
		}
	}
	if _, err := (REST{s}).ChannelMessageSendComplex(in.ChannelID, &discordgo.MessageSend{Content: "two"}, discordgo.WithContext(ctx)); err != nil {
		t.Errorf("ChannelMessageSendComplex under the global limit = %v; want it sent once the limit ends", err)
	}
	if err := <-done; err != nil {
		t.Errorf("FollowupMessageCreate after a global 429 = %v; want it sent", err)
	}

	// A route's limit that outlasts the deadline: the second call on the
	// token sends nothing.
	srv.FailNext("POST", hook, http.StatusTooManyRequests, "", time.Minute)
	short, stop := context.WithTimeout(ctx, time.Second)
	defer stop()
	for n := range 2 {
		_, err := REST{s}.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "three"}, discordgo.WithContext(short))
		var ns interface{ NotSent() bool }
		if n == 1 && (!errors.As(err, &ns) || !ns.NotSent()) {
			t.Errorf("a call on a route limited for a minute = %v; want it not sent", err)
		}
	}
	if got := srv.RateLimitsIgnored(); len(got) != 0 {
		t.Errorf("requests that ignored a rate limit: %v", got)
	}
}

// Interaction endpoints are not bound by the bot's global rate limit
// (Discord's docs, "Rate Limits"): while a global limit that the bot
// met on a call with its token holds, a follow-up and an edit of the
// @original through an interaction's token still go at once, and the
// fake Discord takes them.
func TestInteractionWebhooksNotBoundByTheGlobalLimit(t *testing.T) {
	srv, s, in, _ := answeredBoard(t)
	i := &discordgo.Interaction{AppID: srv.AppID, Token: in.Token}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// A call with the bot's token meets the global limit, for a minute.
	srv.FailNextGlobal("GET", "/users/", time.Minute)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.APIURL+"/users/@me", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bot "+srv.Token)
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || time.Until(limitsOf(s).until(rateKey{bound: true})) <= 0 {
		t.Fatalf("GET /users/@me answered %d, the global limit held %v; want a global 429 heard", resp.StatusCode, limitsOf(s).until(rateKey{bound: true}))
	}
	if _, err := (REST{s}).FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "reminder"}, discordgo.WithContext(ctx)); err != nil {
		t.Errorf("FollowupMessageCreate under the global limit = %v; want it sent", err)
	}
	edited := "edited"
	if _, err := (REST{s}).InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &edited}, discordgo.WithContext(ctx)); err != nil {
		t.Errorf("InteractionResponseEdit under the global limit = %v; want it sent", err)
	}
	if got := srv.RateLimitsIgnored(); len(got) != 0 {
		t.Errorf("requests that ignored a rate limit: %v", got)
	}
}

// A 429 to a channel call through discordgo is waited out within the
// call's context, and a retry_after that outlasts it fails the call at
// once, not sent, instead of sleeping it out (discordgo's own retry
// sleeps retry_after, twenty minutes for a shared limit, whatever the
// context); the next call on the route is not sent before its time.
func TestChannelCallsDoNotSleepThroughRateLimits(t *testing.T) {
	srv, s, in, _ := answeredBoard(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv.FailNext("POST", "/channels/", http.StatusTooManyRequests, "", 100*time.Millisecond)
	m, err := REST{s}.ChannelMessageSendComplex(in.ChannelID, &discordgo.MessageSend{Content: "one"}, discordgo.WithContext(ctx))
	if err != nil {
		t.Fatalf("ChannelMessageSendComplex after a 429 of 100 ms = %v; want it sent", err)
	}
	srv.FailNext("PATCH", "/channels/", http.StatusTooManyRequests, "", time.Hour)
	short, stop := context.WithTimeout(ctx, 2*time.Second)
	defer stop()
	done := make(chan error, 1)
	go func() {
		_, err := REST{s}.ChannelMessageEditComplex(discordgo.NewMessageEdit(m.ChannelID, m.ID).SetContent("two"), discordgo.WithContext(short))
		done <- err
	}()
	select {
	case err := <-done:
		var ns interface{ NotSent() bool }
		if !errors.As(err, &ns) || !ns.NotSent() {
			t.Errorf("ChannelMessageEditComplex after a 429 of an hour = %v; want it not sent", err)
		}
	case <-ctx.Done():
		t.Fatal("ChannelMessageEditComplex sleeps through a 429 of an hour")
	}
	if err := (REST{s}).ChannelMessageDelete(m.ChannelID, m.ID, discordgo.WithContext(short)); err == nil {
		t.Error("ChannelMessageDelete on a route limited for an hour went")
	}
	if got := srv.RateLimitsIgnored(); len(got) != 0 {
		t.Errorf("requests that ignored a rate limit: %v", got)
	}
}

// A global 429 that says so only in its headers (X-RateLimit-Scope:
// global, Retry-After), as Discord documents it, holds every call with
// the bot's token: the session's transport reads it as REST does.
func TestGlobalLimitFromHeaders(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.Header().Set("X-RateLimit-Scope", "global")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"message":"You are being rate limited."}`))
	}))
	defer api.Close()
	token := testToken("headers-token")
	s, err := NewSession(Options{Token: token, APIURL: api.URL + "/api/v9"})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodGet, discordgo.EndpointUser("@me"), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bot "+token)
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if until := limitsOf(s).until(rateKey{bound: true}); time.Until(until) < 20*time.Second {
		t.Errorf("after a global 429 of 30 s in headers the global limit holds until %v; want 30 s from now", until)
	}
}

// A call that must not take effect twice (a reminder), made with
// discordgo.WithRestRetries(0), is not made again after a 5xx, which
// Discord may have carried out before its trouble: one request, and the
// 5xx as the error.
func TestOnceOn5xx(t *testing.T) {
	srv, s, in, _ := answeredBoard(t)
	i := &discordgo.Interaction{AppID: srv.AppID, Token: in.Token}
	hook := "/webhooks/" + srv.AppID + "/"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	count := func(method, part string) int {
		n := 0
		for _, r := range srv.Requests() {
			if r.Method == method && strings.Contains(r.Path, part) {
				n++
			}
		}
		return n
	}
	srv.FailNext("POST", hook, http.StatusInternalServerError, "", 0)
	_, err := REST{s}.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "reminder"}, discordgo.WithContext(ctx), discordgo.WithRestRetries(0))
	var rerr *discordgo.RESTError
	if !errors.As(err, &rerr) || rerr.Response.StatusCode != http.StatusInternalServerError {
		t.Errorf("FollowupMessageCreate once on a 500 = %v; want the 500", err)
	}
	if n := count("POST", "/webhooks/"); n != 1 {
		t.Errorf("%d follow-ups posted; want 1", n)
	}
	srv.FailNext("POST", "/channels/", http.StatusGatewayTimeout, "", 0)
	if _, err := (REST{s}).ChannelMessageSendComplex(in.ChannelID, &discordgo.MessageSend{Content: "reminder"}, discordgo.WithContext(ctx), discordgo.WithRestRetries(0)); !errors.As(err, &rerr) {
		t.Errorf("ChannelMessageSendComplex once on a 504 = %v; want the 504", err)
	}
	if n := count("POST", "/channels/"); n != 1 {
		t.Errorf("%d channel messages posted; want 1", n)
	}
}

// A background call made with discordgo.WithRetryOnRatelimit(false)
// does not wait out a 429, nor a limit held already: it fails at once,
// not sent, saying how long the limit holds, for its caller to try again
// then without holding a worker.
func TestNoWaitOnRateLimits(t *testing.T) {
	srv, s, in, _ := answeredBoard(t)
	i := &discordgo.Interaction{AppID: srv.AppID, Token: in.Token}
	hook := "/webhooks/" + srv.AppID + "/"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	check := func(what string, err error) {
		t.Helper()
		var rl interface {
			NotSent() bool
			RetryAfter() time.Duration
		}
		if !errors.As(err, &rl) || !rl.NotSent() || rl.RetryAfter() < 10*time.Second || rl.RetryAfter() > 20*time.Second {
			t.Errorf("%s = %v; want it not sent, the limit holding about 20 s", what, err)
		}
	}
	srv.FailNext("POST", hook, http.StatusTooManyRequests, "", 20*time.Second)
	params := &discordgo.WebhookParams{Content: "reminder"}
	for _, what := range []string{"FollowupMessageCreate on a 429 of 20 s", "FollowupMessageCreate while the limit holds"} {
		_, err := REST{s}.FollowupMessageCreate(i, true, params, discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false))
		check(what, err)
	}
	srv.FailNext("POST", "/channels/", http.StatusTooManyRequests, "", 20*time.Second)
	for _, what := range []string{"ChannelMessageSendComplex on a 429 of 20 s", "ChannelMessageSendComplex while the limit holds"} {
		_, err := REST{s}.ChannelMessageSendComplex(in.ChannelID, &discordgo.MessageSend{Content: "reminder"}, discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false))
		check(what, err)
	}
	if got := srv.RateLimitsIgnored(); len(got) != 0 {
		t.Errorf("requests that ignored a rate limit: %v", got)
	}
}

// A message sent with a nonce carries it with enforce_nonce: a 5xx after
// Discord made it is tried again, and the try gets the message it made,
// none other; with discordgo.WithRestRetries(0) the 5xx is the error. A
// nonce longer than Discord takes is not sent.
func TestChannelMessageSendNonce(t *testing.T) {
	srv, s, in, _ := answeredBoard(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	before := len(srv.History(in.ChannelID))
	srv.LoseNextAnswer("POST", "/channels/", http.StatusInternalServerError)
	msg, err := REST{s}.ChannelMessageSendNonce(in.ChannelID, &discordgo.MessageSend{Content: "reminder"}, "r1", discordgo.WithContext(ctx))
	if err != nil {
		t.Fatalf("ChannelMessageSendNonce after a lost answer = %v; want the message", err)
	}
	hist := srv.History(in.ChannelID)[before:]
	if len(hist) != 1 || hist[0].ID != msg.ID || hist[0].Nonce != "r1" {
		t.Errorf("the channel got %d messages; want one, %s, with nonce r1", len(hist), msg.ID)
	}
	var posts []discordtest.Request
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPost && strings.Contains(r.Path, "/channels/") {
			posts = append(posts, r)
		}
	}
	var body struct {
		Content, Nonce string
		EnforceNonce   bool `json:"enforce_nonce"`
	}
	if len(posts) != 2 || json.Unmarshal(posts[1].Body, &body) != nil || body.Nonce != "r1" || !body.EnforceNonce || body.Content != "reminder" {
		t.Errorf("%d posts, the last %s; want 2, with the content, nonce r1 and enforce_nonce", len(posts), posts[len(posts)-1].Body)
	}

	srv.LoseNextAnswer("POST", "/channels/", http.StatusInternalServerError)
	_, err = REST{s}.ChannelMessageSendNonce(in.ChannelID, &discordgo.MessageSend{Content: "reminder"}, "r2", discordgo.WithContext(ctx), discordgo.WithRestRetries(0))
	var rerr *discordgo.RESTError
	if !errors.As(err, &rerr) || rerr.Response.StatusCode != http.StatusInternalServerError {
		t.Errorf("ChannelMessageSendNonce once on a lost answer = %v; want the 500", err)
	}
	var ns interface{ NotSent() bool }
	if _, err := (REST{s}).ChannelMessageSendNonce(in.ChannelID, &discordgo.MessageSend{Content: "x"}, strings.Repeat("n", MaxNonce+1), discordgo.WithContext(ctx)); !errors.As(err, &ns) {
		t.Errorf("a nonce of %d characters = %v; want it not sent", MaxNonce+1, err)
	}
}
