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
	"strconv"
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
// Interaction endpoints are not bound by the bot's global rate limit, so
// nothing is lost by leaving that limiter out: a 429 is retried once if its
// retry_after ends before the request's deadline, and is an error otherwise;
// a 5xx is retried once after a short pause, if there is time.
type REST struct {
	*discordgo.Session
}

// InteractionRespond posts the interaction callback.
func (d REST) InteractionRespond(i *discordgo.Interaction, r *discordgo.InteractionResponse, opts ...discordgo.RequestOption) error {
	_, err := d.call(http.MethodPost, discordgo.EndpointInteractionResponse(i.ID, i.Token), r, opts)
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

// call sends one request, JSON, or multipart/form-data when the body
// uploads files, and returns the response body. Errors from Discord are
// *discordgo.RESTError, as from the session's own calls. The URL carries
// the interaction token; it appears in no error text.
func (d REST) call(method, endpoint string, body any, opts []discordgo.RequestOption) ([]byte, error) {
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
	for attempt := 0; ; attempt++ {
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
		if resp.StatusCode == http.StatusTooManyRequests && attempt == 0 {
			retry, err := pauseToRetry(req.Context(), retryAfter(resp, respBody))
			if err != nil {
				return nil, notSent{fmt.Errorf("waiting out a rate limit: %w", err)}
			}
			if retry {
				continue
			}
		}
		if resp.StatusCode >= 500 && attempt == 0 {
			// Discord's own trouble, often a moment's: try once more if
			// there is time. Had the first one taken effect after all, the
			// second is refused as already acknowledged, which the bot
			// counts as answered.
			if retry, _ := pauseToRetry(req.Context(), serverErrorPause); retry {
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

// serverErrorPause is the wait before the one retry of a request Discord
// answered with a 5xx.
const serverErrorPause = 100 * time.Millisecond

// retryAfter reads how long Discord asks us to wait: the JSON retry_after
// (seconds, fractional) or the Retry-After header.
func retryAfter(resp *http.Response, body []byte) time.Duration {
	var rl discordgo.TooManyRequests
	if json.Unmarshal(body, &rl) == nil && rl.RetryAfter > 0 {
		return rl.RetryAfter
	}
	if s, err := strconv.ParseFloat(resp.Header.Get("Retry-After"), 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	return time.Second
}

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
