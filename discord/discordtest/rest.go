package discordtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Discord's JSON error codes the fake answers with.
const (
	codeGeneral             = 0
	codeUnknownApplication  = 10002
	codeUnknownMessage      = 10008
	codeUnknownUser         = 10013
	codeUnknownWebhook      = 10015
	codeUnknownInteraction  = 10062
	codeAlreadyAcknowledged = 40060
	codeEmptyMessage        = 50006
	codeInvalidWebhookToken = 50027
	codeInvalidFormBody     = 50035
	codeInvalidJSON         = 50109
)

// maxBody is the largest request body read: Discord's upload limit.
const maxBody = 25 << 20

// apiPrefix is the path of the REST API.
const apiPrefix = "/api/v" + "9"

// apiError is Discord's error body; its field order is Discord's.
type apiError struct {
	Message string         `json:"message"`
	Code    int            `json:"code"`
	Errors  map[string]any `json:"errors,omitempty"`
}

// reply is a REST answer, written and recorded by Server.api.
type reply struct {
	status    int
	body      any    // marshalled as JSON; nil for no body
	raw       []byte // a literal body, used instead of body if not nil
	code      int    // Discord error code, for the record
	header    http.Header
	unhandled bool
}

func errReply(status, code int, message string) reply {
	return reply{status: status, body: apiError{Message: message, Code: code}, code: code}
}

func formReply(errs []fieldError) reply {
	return reply{status: http.StatusBadRequest, code: codeInvalidFormBody,
		body: apiError{Message: "Invalid Form Body", Code: codeInvalidFormBody, Errors: nestErrors(errs)}}
}

func okReply(body any) reply { return reply{status: http.StatusOK, body: body} }

var (
	noContent    = reply{status: http.StatusNoContent}
	unauthorized = errReply(http.StatusUnauthorized, codeGeneral, "401: Unauthorized")
	notFound     = reply{status: http.StatusNotFound, body: apiError{Message: "404: Not Found"}, unhandled: true}
	badJSON      = errReply(http.StatusBadRequest, codeInvalidJSON, "The request body contains invalid JSON.")
	unknownMsg   = errReply(http.StatusNotFound, codeUnknownMessage, "Unknown Message")
	unknownHook  = errReply(http.StatusNotFound, codeUnknownWebhook, "Unknown Webhook")
	badHookToken = errReply(http.StatusUnauthorized, codeInvalidWebhookToken, "Invalid Webhook Token")
)

// routes returns the server's HTTP handler.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	p := apiPrefix
	handle := func(pattern string, h func(*http.Request, []byte) reply) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.Handle(method+" "+p+path, s.api(h))
	}
	handle("GET /gateway", s.getGateway)
	handle("GET /gateway/bot", s.bot(s.getGatewayBot))
	handle("GET /users/@me", s.usersMe) // the bot's token, or a user's (activity.go)
	handle("GET /users/{user}", s.bot(s.getUser))
	handle("GET /applications/@me", s.bot(s.getApplication))
	handle("PUT /applications/{app}/commands", s.bot(s.putCommands))
	handle("GET /applications/{app}/commands", s.bot(s.getCommands))
	handle("PUT /applications/{app}/guilds/{guild}/commands", s.bot(s.putCommands))
	handle("GET /applications/{app}/guilds/{guild}/commands", s.bot(s.getCommands))
	handle("POST /interactions/{id}/{token}/callback", s.postCallback)
	handle("POST /webhooks/{app}/{token}", s.postFollowup)
	handle("GET /webhooks/{app}/{token}/messages/{msg}", s.webhookMessage)
	handle("PATCH /webhooks/{app}/{token}/messages/{msg}", s.webhookMessage)
	handle("DELETE /webhooks/{app}/{token}/messages/{msg}", s.webhookMessage)
	handle("POST /channels/{channel}/messages", s.bot(s.postChannelMessage))
	handle("GET /channels/{channel}/messages", s.bot(s.getChannelMessages))
	handle("GET /channels/{channel}/messages/{msg}", s.bot(s.channelMessage))
	handle("PATCH /channels/{channel}/messages/{msg}", s.bot(s.channelMessage))
	handle("DELETE /channels/{channel}/messages/{msg}", s.bot(s.channelMessage))
	s.activityRoutes(handle)
	mux.HandleFunc("/gateway", s.handleGateway)
	mux.HandleFunc("/gateway/", s.handleGateway) // discordgo appends a slash
	unhandled := s.api(func(*http.Request, []byte) reply { return notFound })
	mux.Handle("/", unhandled)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// ServeMux would redirect an unclean path such as /api/v9//users/@me,
		// the mark of a bad URL rewrite; Discord does not.
		if p := r.URL.Path; strings.Contains(p, "//") || strings.Contains(p, "/./") || strings.Contains(p, "/../") {
			unhandled.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// api adapts a handler: it reads the body, applies injected faults, writes
// the reply and records the request.
func (s *Server) api(h func(*http.Request, []byte) reply) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.isClosed {
			s.mu.Unlock()
			http.Error(w, "discordtest: server closed", http.StatusServiceUnavailable)
			return
		}
		s.wg.Add(1) // Close waits for the handler
		s.mu.Unlock()
		defer s.wg.Done()

		body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
		rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Body: body, Time: time.Now()}
		s.holdIfAsked(rec)
		s.mu.Lock()
		f, limit, limited := s.limitedLocked(r.Method, r.URL.Path, rec.Time)
		var injected bool
		var latency time.Duration
		if !limited {
			if f, injected = s.takeFaultLocked(r.Method, r.URL.Path); !injected {
				f, injected, latency = s.drawFaultLocked(r.Method, r.URL.Path)
			}
		}
		s.mu.Unlock()
		if latency > 0 && !s.wait(r, latency) {
			return // the client left, or the server is closing
		}
		var rep reply
		switch {
		case injected && f.lost:
			// Carried out, and the answer lost to trouble.
			if rep = h(r, body); rep.status < 300 {
				rep = f.reply()
			} else {
				injected = false
			}
		case injected || limited:
			rep = f.reply()
		default:
			rep = h(r, body)
		}
		if rep.status == http.StatusTooManyRequests {
			s.mu.Lock()
			s.announceLocked(r.Method, r.URL.Path, f, time.Now())
			s.mu.Unlock()
		}
		out := rep.raw
		if out != nil {
			w.Header().Set("Content-Type", "application/json")
		} else if rep.body != nil {
			var err error
			if out, err = json.Marshal(rep.body); err != nil {
				rep = errReply(http.StatusInternalServerError, codeGeneral, "discordtest: "+err.Error())
				out, _ = json.Marshal(rep.body)
			}
			w.Header().Set("Content-Type", "application/json")
		}
		for k, v := range rep.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rep.status)
		_, _ = w.Write(out)
		if fl, ok := w.(http.Flusher); ok && rep.status == http.StatusTooManyRequests {
			fl.Flush()
		}

		rec.Status, rec.Code, rec.Reply = rep.status, rep.code, out
		rec.Unhandled, rec.Injected, rec.Lost = rep.unhandled, injected, injected && f.lost
		s.mu.Lock()
		if rep.status == http.StatusTooManyRequests {
			s.writtenLocked(r.Method, r.URL.Path, f, time.Now())
		}
		if limited {
			rec.early = s.earlyLocked(limit, rec.Time)
		}
		s.requests = append(s.requests, rec)
		s.broadcastLocked()
		s.mu.Unlock()
	})
}

// wait waits d before answering r, and says whether to answer: not if r's
// client gave up, or the server is closing, meanwhile.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.closed:
	}
	return false
}

// reply returns the injected answer of the fault.
func (f fault) reply() reply {
	rep := reply{status: f.status, header: http.Header{}}
	secs := f.retryAfter.Seconds()
	switch {
	case f.global():
		// Discord's global limit has no bucket: its 429 says only how
		// long, and that it is the global one.
		rep.header.Set("Retry-After", strconv.Itoa(int(math.Ceil(secs))))
		rep.header.Set("X-RateLimit-Global", "true")
		rep.header.Set("X-RateLimit-Scope", "global")
	case f.status == http.StatusTooManyRequests:
		rep.header.Set("Retry-After", strconv.Itoa(int(math.Ceil(secs))))
		rep.header.Set("X-RateLimit-Limit", "5")
		rep.header.Set("X-RateLimit-Remaining", "0")
		rep.header.Set("X-RateLimit-Reset", strconv.FormatFloat(float64(time.Now().Add(f.retryAfter).UnixMilli())/1000, 'f', 3, 64))
		rep.header.Set("X-RateLimit-Reset-After", strconv.FormatFloat(secs, 'f', 3, 64))
		rep.header.Set("X-RateLimit-Bucket", randomHex(8))
		rep.header.Set("X-RateLimit-Scope", "user")
	}
	switch {
	case f.body != "":
		rep.raw = []byte(f.body)
		var e apiError
		if json.Unmarshal(rep.raw, &e) == nil {
			rep.code = e.Code
		} else {
			rep.header.Set("Content-Type", "text/plain; charset=utf-8")
		}
	case f.status == http.StatusTooManyRequests:
		rep.body = map[string]any{"message": "You are being rate limited.", "retry_after": secs, "global": false}
	default:
		rep.body = apiError{Message: fmt.Sprintf("%d: %s", f.status, http.StatusText(f.status))}
	}
	return rep
}

// bot wraps a handler of a route that needs the bot's token.
func (s *Server) bot(h func(*http.Request, []byte) reply) func(*http.Request, []byte) reply {
	return func(r *http.Request, body []byte) reply {
		if s.Token == "" || r.Header.Get("Authorization") != "Bot "+s.Token {
			return unauthorized
		}
		return h(r, body)
	}
}

// parseBody returns the JSON of a request body, which is either JSON or
// multipart/form-data with a payload_json part; files become attachments.
func (s *Server) parseBody(r *http.Request, body []byte) (json.RawMessage, []attachment, bool) {
	mediaType, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mediaType != "multipart/form-data" {
		if len(bytes.TrimSpace(body)) == 0 {
			return nil, nil, true
		}
		return body, nil, json.Valid(body)
	}
	var payload json.RawMessage
	var files []attachment
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, false
		}
		data, err := io.ReadAll(part)
		if err != nil {
			return nil, nil, false
		}
		switch {
		case part.FormName() == "payload_json":
			payload = data
		case part.FileName() != "":
			id := s.NewID()
			files = append(files, attachment{
				ID:          id,
				Filename:    part.FileName(),
				Size:        len(data),
				ContentType: part.Header.Get("Content-Type"),
				URL:         "https://cdn.discordapp.com/attachments/0/" + id + "/" + part.FileName(),
				ProxyURL:    "https://media.discordapp.net/attachments/0/" + id + "/" + part.FileName(),
			})
		}
	}
	if payload != nil && !json.Valid(payload) {
		return nil, nil, false
	}
	return payload, files, true
}

func (s *Server) getGateway(*http.Request, []byte) reply {
	return okReply(map[string]any{"url": s.GatewayURL})
}

func (s *Server) getGatewayBot(*http.Request, []byte) reply {
	s.mu.Lock()
	remaining := max(1000-len(s.identifies), 0)
	s.mu.Unlock()
	return okReply(map[string]any{
		"url":    s.GatewayURL,
		"shards": max(s.Shards, 1),
		"session_start_limit": map[string]any{
			"total":           1000,
			"remaining":       remaining,
			"reset_after":     86400000,
			"max_concurrency": max(s.MaxConcurrency, 1),
		},
	})
}

func (s *Server) getMe(*http.Request, []byte) reply {
	u := renderUser(s.BotUser)
	u["verified"] = true
	u["mfa_enabled"] = false
	u["flags"] = 0
	u["email"] = nil
	u["locale"] = "en-US"
	return okReply(u)
}

// getApplication answers GET /applications/@me: the bot's application,
// with the counts Discord estimates.
func (s *Server) getApplication(*http.Request, []byte) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	return okReply(map[string]any{
		"id": s.AppID, "name": s.BotUser.Username, "description": "", "icon": nil,
		"bot_public": true, "bot_require_code_grant": false, "verify_key": strings.Repeat("0", 64),
		"flags": 0, "approximate_guild_count": s.Guilds, "approximate_user_install_count": 0,
		"bot": renderUser(s.BotUser),
	})
}

// allowedResponseFlags are the flags an interaction response or followup
// may set; others are dropped.
const allowedResponseFlags = int(discordgo.MessageFlagsSuppressEmbeds | discordgo.MessageFlagsEphemeral |
	discordgo.MessageFlagsSuppressNotifications | discordgo.MessageFlagsIsComponentsV2 | discordgo.MessageFlagsIsVoiceMessage)

// allowedBotFlags are the flags a bot may set on a channel message.
const allowedBotFlags = int(discordgo.MessageFlagsSuppressEmbeds | discordgo.MessageFlagsSuppressNotifications |
	discordgo.MessageFlagsIsComponentsV2)

// postCallback answers POST /interactions/{id}/{token}/callback.
func (s *Server) postCallback(r *http.Request, body []byte) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.interactions[r.PathValue("id")]
	if st == nil || st.token != r.PathValue("token") {
		return errReply(http.StatusNotFound, codeUnknownInteraction, "Unknown interaction")
	}
	return s.answerLocked(st, r, body)
}

// answerLocked takes body as the answer to st: a callback over REST, or
// the response body of the bot's interactions endpoint.
func (s *Server) answerLocked(st *interactionState, r *http.Request, body []byte) reply {
	if st.acked {
		return errReply(http.StatusBadRequest, codeAlreadyAcknowledged, "Interaction has already been acknowledged.")
	}
	if st.failed || time.Since(st.dispatched) > st.deadline {
		s.failLocked(st)
		return errReply(http.StatusNotFound, codeUnknownInteraction, "Unknown interaction")
	}
	rep, msg := s.callbackLocked(st, r, body)
	if rep.status >= 400 {
		st.rejected = append(st.rejected, rejection(rep))
		return rep
	}

	st.acked = true
	st.timer.Stop()
	st.resp.At = time.Since(st.dispatched)
	if msg != nil {
		st.resp.Message = s.snapshot(msg)
		st.resp.Ephemeral = msg.flags&flagEphemeral != 0
		st.originalID = msg.id
	}
	close(st.done)
	s.broadcastLocked()

	if r.URL.Query().Get("with_response") != "true" {
		return noContent
	}
	cb := map[string]any{"id": st.id, "type": int(st.kind)}
	res := map[string]any{"type": int(st.resp.Type)}
	if msg != nil {
		cb["response_message_id"] = msg.id
		cb["response_message_loading"] = msg.flags&flagLoading != 0
		cb["response_message_ephemeral"] = msg.flags&flagEphemeral != 0
		if t := st.resp.Type; t == discordgo.InteractionResponseChannelMessageWithSource || t == discordgo.InteractionResponseUpdateMessage {
			res["message"] = s.render(msg)
		}
	}
	return okReply(map[string]any{"interaction": cb, "resource": res})
}

// rejection describes a rejected callback for the failure message.
func rejection(rep reply) string {
	s := fmt.Sprintf("%d", rep.status)
	if e, ok := rep.body.(apiError); ok {
		s += fmt.Sprintf(" %d %s", e.Code, e.Message)
		if len(e.Errors) > 0 {
			b, _ := json.Marshal(e.Errors)
			s += " " + string(b)
		}
	}
	return s
}

// callbackLocked validates and applies a callback body. It returns the
// reply for an invalid body, or a 2xx reply and the message the callback
// created or edited (nil for a modal).
func (s *Server) callbackLocked(st *interactionState, r *http.Request, body []byte) (reply, *message) {
	raw, files, ok := s.parseBody(r, body)
	if !ok {
		return badJSON, nil
	}
	var cb struct {
		Type *int            `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &cb) != nil {
		return badJSON, nil
	}
	if cb.Type == nil {
		return formReply([]fieldError{required("type")}), nil
	}
	typ := discordgo.InteractionResponseType(*cb.Type)
	st.resp.Type = typ
	st.resp.Data = append(json.RawMessage(nil), cb.Data...)
	// UPDATE_MESSAGE and DEFERRED_UPDATE_MESSAGE edit the message of a
	// component, or of the component that opened a submitted modal.
	onMessage := st.componentMsgID != ""
	wrongKind := func() reply {
		return formReply([]fieldError{{"type", "INTERACTION_CALLBACK_TYPE_INVALID",
			fmt.Sprintf("Interaction callback type %d is not valid for interaction type %d", typ, st.kind)}})
	}
	// An autocomplete is answered with choices alone, and choices answer
	// nothing else; a modal submit cannot be answered with a modal.
	if (st.kind == discordgo.InteractionApplicationCommandAutocomplete) != (typ == discordgo.InteractionApplicationCommandAutocompleteResult) ||
		typ == discordgo.InteractionResponseModal && st.kind == discordgo.InteractionModalSubmit {
		return wrongKind(), nil
	}

	switch typ {
	case discordgo.InteractionResponseChannelMessageWithSource:
		f, errs := parseFields("data.", cb.Data)
		f.attachments = files
		f.flags &= allowedResponseFlags
		errs = append(errs, validateFields("data.", f, f.flags)...)
		if len(errs) > 0 {
			return formReply(errs), nil
		}
		m := s.newMessage(st.channelID, f)
		m.webhook, m.interaction = true, st
		if st.kind == discordgo.InteractionApplicationCommand {
			m.typ = messageTypeChatInput
		}
		if m.flags&flagEphemeral != 0 {
			m.visibleTo = st.user.ID
		}
		if rep, bad := resultReply("data.", m); bad {
			return rep, nil
		}
		s.storeLocked(m)
		return noContent, m

	case discordgo.InteractionResponseDeferredChannelMessageWithSource:
		f, errs := parseFields("data.", cb.Data)
		if len(errs) > 0 {
			return formReply(errs), nil
		}
		m := s.newMessage(st.channelID, fields{})
		m.webhook, m.interaction = true, st
		if st.kind == discordgo.InteractionApplicationCommand {
			m.typ = messageTypeChatInput
		}
		// Only EPHEMERAL counts on a deferred response.
		m.flags = flagLoading | f.flags&flagEphemeral
		if m.flags&flagEphemeral != 0 {
			m.visibleTo = st.user.ID
		}
		s.storeLocked(m)
		return noContent, m

	case discordgo.InteractionResponseDeferredMessageUpdate, discordgo.InteractionResponseUpdateMessage:
		if !onMessage {
			return wrongKind(), nil
		}
		m := s.messages[st.componentMsgID]
		if m == nil || m.deleted {
			return unknownMsg, nil
		}
		if typ == discordgo.InteractionResponseDeferredMessageUpdate {
			return noContent, m
		}
		f, errs := parseFields("data.", cb.Data)
		f.attachments = files
		errs = append(errs, validateFields("data.", f, m.flags)...)
		if len(errs) > 0 {
			return formReply(errs), nil
		}
		n := m.patched(f)
		if rep, bad := resultReply("data.", n); bad {
			return rep, nil
		}
		s.replaceLocked(n)
		return noContent, n

	case discordgo.InteractionResponseModal:
		if errs := validateModal("data.", cb.Data); len(errs) > 0 {
			return formReply(errs), nil
		}
		st.modal = parseModal(cb.Data)
		st.resp.Modal = st.modal
		return noContent, nil

	case discordgo.InteractionApplicationCommandAutocompleteResult:
		choices, errs := validateChoices(cb.Data, st.focusedType)
		if len(errs) > 0 {
			return formReply(errs), nil
		}
		st.resp.Choices = choices
		return noContent, nil

	case callbackLaunchActivity:
		return s.launchLocked(st, cb.Data), nil

	case discordgo.InteractionResponsePong:
		return wrongKind(), nil

	default:
		return formReply([]fieldError{{"type", "BASE_TYPE_CHOICES", "Value must be one of {1, 4, 5, 6, 7, 8, 9, 10, 12}."}}), nil
	}
}

// resultReply checks the message as it would be stored; bad reports
// whether it must be rejected with rep.
func resultReply(prefix string, m *message) (rep reply, bad bool) {
	code, msg, errs := checkResult(prefix, m)
	switch {
	case code == 0:
		return reply{}, false
	case len(errs) > 0:
		return formReply(errs), true
	default:
		return errReply(http.StatusBadRequest, code, msg), true
	}
}

// webhookLocked finds the interaction of an interaction webhook route.
func (s *Server) webhookLocked(r *http.Request) (*interactionState, reply, bool) {
	if r.PathValue("app") != s.AppID {
		return nil, unknownHook, false
	}
	st := s.tokens[r.PathValue("token")]
	if st == nil || st.failed || st.expired || time.Since(st.dispatched) > st.ttl {
		return nil, badHookToken, false
	}
	return st, reply{}, true
}

// postFollowup answers POST /webhooks/{app}/{token}: a followup. Like
// Discord, it always returns the message (wait is implied), and right
// after a deferred response it completes the loading message instead.
func (s *Server) postFollowup(r *http.Request, body []byte) reply {
	s.awaitAnswer(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	st, rep, ok := s.webhookLocked(r)
	if !ok {
		return rep
	}
	if !st.acked {
		return unknownHook // the webhook exists once the interaction is answered
	}
	raw, files, ok := s.parseBody(r, body)
	if !ok {
		return badJSON
	}
	f, errs := parseFields("", raw)
	f.attachments = files
	f.flags &= allowedResponseFlags
	if orig := s.messages[st.originalID]; orig != nil && !orig.deleted && orig.flags&flagLoading != 0 {
		return s.patchLocked(orig, f, errs)
	}
	errs = append(errs, validateFields("", f, f.flags)...)
	if len(errs) > 0 {
		return formReply(errs)
	}
	m := s.newMessage(st.channelID, f)
	m.webhook, m.interaction = true, st
	if m.flags&flagEphemeral != 0 {
		m.visibleTo = st.user.ID
	}
	if rep, bad := resultReply("", m); bad {
		return rep
	}
	s.storeLocked(m)
	st.followups = append(st.followups, m.id)
	return okReply(s.render(m))
}

// webhookMessage answers GET, PATCH and DELETE of
// /webhooks/{app}/{token}/messages/{msg}, where msg is "@original" or the
// ID of a message sent with the token.
func (s *Server) webhookMessage(r *http.Request, body []byte) reply {
	s.awaitAnswer(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	st, rep, ok := s.webhookLocked(r)
	if !ok {
		return rep
	}
	id := r.PathValue("msg")
	if id == "@original" {
		id = st.originalID
	} else if id != st.originalID && !slices.Contains(st.followups, id) {
		return unknownMsg
	}
	m := s.messages[id]
	if id == "" || m == nil || m.deleted {
		return unknownMsg
	}
	return s.messageMethodLocked(r, body, m)
}

// messageMethodLocked applies GET, PATCH or DELETE to a stored message.
func (s *Server) messageMethodLocked(r *http.Request, body []byte, m *message) reply {
	switch r.Method {
	case http.MethodGet:
		return okReply(s.render(m))
	case http.MethodDelete:
		s.deleteLocked(m)
		return noContent
	}
	raw, files, ok := s.parseBody(r, body)
	if !ok {
		return badJSON
	}
	f, errs := parseFields("", raw)
	f.attachments = files
	return s.patchLocked(m, f, errs)
}

// patchLocked edits m with the fields f of a PATCH (or of the followup that
// completes a loading message), after the errors already found in parsing.
func (s *Server) patchLocked(m *message, f fields, errs []fieldError) reply {
	errs = append(errs, validateFields("", f, m.flags)...)
	if len(errs) > 0 {
		return formReply(errs)
	}
	n := m.patched(f)
	if rep, bad := resultReply("", n); bad {
		return rep
	}
	s.replaceLocked(n)
	return okReply(s.render(n))
}

// postChannelMessage answers POST /channels/{channel}/messages.
func (s *Server) postChannelMessage(r *http.Request, body []byte) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	raw, files, ok := s.parseBody(r, body)
	if !ok {
		return badJSON
	}
	f, errs := parseFields("", raw)
	f.attachments = files
	f.flags &= allowedBotFlags
	errs = append(errs, validateFields("", f, f.flags)...)
	if len(errs) > 0 {
		return formReply(errs)
	}
	nonce, enforce, nerrs := nonceOf(raw)
	if len(nerrs) > 0 {
		return formReply(nerrs)
	}
	author := s.BotUser.ID
	if enforce && nonce != "" {
		if prev := s.nonces[author+" "+nonce]; prev != nil && time.Since(prev.created) < s.nonceWindow() {
			// Discord's dedupe: the message made with this nonce, as
			// it is now, not a new one; none again if it was deleted
			// since.
			if now := s.messages[prev.id]; now != nil && !now.deleted {
				return okReply(s.render(now))
			}
			return unknownMsg
		}
	}
	m := s.newMessage(r.PathValue("channel"), f)
	m.nonce = nonce
	if rep, bad := resultReply("", m); bad {
		return rep
	}
	s.storeLocked(m)
	if nonce != "" {
		s.rememberNonceLocked(author+" "+nonce, m)
	}
	return okReply(s.render(m))
}

// nonceOf reads the nonce of a message create body (a string of at most
// 25 characters, or an integer, whose digits it takes), and whether it
// asks for enforce_nonce.
func nonceOf(raw json.RawMessage) (nonce string, enforce bool, errs []fieldError) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return "", false, nil // parseFields said what is wrong
	}
	if v, ok := obj["nonce"]; ok && !isNull(v) {
		var n json.Number
		switch {
		case json.Unmarshal(v, &nonce) == nil:
		case json.Unmarshal(v, &n) == nil:
			nonce = n.String()
		default:
			errs = append(errs, fieldError{"nonce", "BASE_TYPE_STRING", "Could not interpret " + string(v) + " as string."})
		}
		if len([]rune(nonce)) > maxNonce {
			errs = append(errs, tooLong("nonce", maxNonce))
		}
	}
	if v, ok := obj["enforce_nonce"]; ok && !isNull(v) && json.Unmarshal(v, &enforce) != nil {
		errs = append(errs, fieldError{"enforce_nonce", "BASE_TYPE_BOOLEAN", "Must be either true or false."})
	}
	return nonce, enforce, errs
}

// maxNonce is the longest nonce Discord takes, in characters.
const maxNonce = 25

// nonceWindow is how long a nonce is remembered (NonceWindow).
func (s *Server) nonceWindow() time.Duration {
	if s.NonceWindow > 0 {
		return s.NonceWindow
	}
	return DefaultNonceWindow
}

// rememberNonceLocked remembers m as the message created with key (its
// author and nonce), unless another within the window holds it; the
// entries past the window go now and then.
func (s *Server) rememberNonceLocked(key string, m *message) {
	if prev := s.nonces[key]; prev != nil && time.Since(prev.created) < s.nonceWindow() {
		return
	}
	if len(s.nonces) >= 2*s.noncesSwept+64 {
		for k, x := range s.nonces {
			if time.Since(x.created) >= s.nonceWindow() {
				delete(s.nonces, k)
			}
		}
		s.noncesSwept = len(s.nonces)
	}
	s.nonces[key] = m
}

// getChannelMessages answers GET /channels/{channel}/messages: the newest
// messages first, at most limit (default 50, at most 100).
func (s *Server) getChannelMessages(r *http.Request, _ []byte) reply {
	limit := 50
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return formReply([]fieldError{{"limit", "NUMBER_TYPE_MAX", "int value should be less than or equal to 100."}})
		}
		limit = n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := s.channels[r.PathValue("channel")]
	out := []any{}
	for i := len(ids) - 1; i >= 0 && len(out) < limit; i-- {
		out = append(out, s.render(s.messages[ids[i]]))
	}
	return okReply(out)
}

// channelMessage answers GET, PATCH and DELETE of
// /channels/{channel}/messages/{msg}. Ephemeral messages are not found.
func (s *Server) channelMessage(r *http.Request, body []byte) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.messages[r.PathValue("msg")]
	if m == nil || m.deleted || m.visibleTo != "" || m.channelID != r.PathValue("channel") {
		return unknownMsg
	}
	return s.messageMethodLocked(r, body, m)
}
