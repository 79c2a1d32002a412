package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
)

// recorder is a Discord that records what the bot sends, for unit tests of
// the router. The end-to-end tests use the real session against the fake
// Discord in package discordtest instead.
type recorder struct {
	mu        sync.Mutex
	responses []*discordgo.InteractionResponse
	edits     []*discordgo.WebhookEdit
	editRefs  []string         // of each edit, the token of the message
	files     [][]recordedFile // of each edit, the files it uploaded
	edited    chan struct{}    // if not nil, gets a value after every edit or delete
	deleted   []string         // tokens of the deleted messages
	failNext  error
	// editFail, if not nil, is asked before each edit through a token,
	// with the request's context: an error fails the edit, which is then
	// not recorded (a rate limit, a slow Discord).
	editFail func(ctx context.Context) error
	// deleteErrs fails the next deletes through a channel with these
	// errors, in turn; they are then not recorded.
	deleteErrs []error
	// failUploads, if not nil, fails every edit that uploads files, which
	// is then not recorded; failedUploads counts them.
	failUploads   func() error
	failedUploads int

	// What went through the bot token's channel routes, and the @original
	// messages read (by token); each @original has the id "m-" + token.
	channelEdits   []*discordgo.MessageEdit
	channelDeletes []string                 // "channel/message"
	sent           []*discordgo.MessageSend // sent[i] got the id "sent-" + (i+1)
	sentTo         []string                 // the channel of each of sent
	lookups        []string

	// Follow-ups, through interaction tokens: followups[i] got the id
	// "followup-" + (i+1); followupDeletes are "token/message".
	followups    []*discordgo.WebhookParams
	followupRefs []string // the token of each of followups
	// followupsEarly fails that many follow-ups, as Discord does when it
	// has not yet read the answer they follow (Unknown Webhook).
	followupsEarly  int
	followupDeletes []string
	// followupErrs fails the next follow-ups with these errors, in turn.
	followupErrs []error

	// nonces are the nonce of each of sent, "" for a message sent
	// without one; a message sent again with a nonce of sent is not
	// recorded again, and gets sent's message, as on Discord.
	nonces []string
	// sendErrs fails the next messages sent with a nonce with these
	// errors, in turn; a taken error records the message first.
	sendErrs []error
	// nonceSends counts the messages sent with a nonce, repeats too.
	nonceSends int
}

// taken is an error of a request that Discord carried out all the same:
// a 5xx after it created the message, or an answer lost.
type taken struct{ error }

func (t taken) Unwrap() error { return t.error }

// nonceSent returns how many messages were sent to channels, their
// nonces, and how many sends with a nonce were tried.
func (r *recorder) nonceSent() (sent int, nonces []string, tries int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sent), slices.Clone(r.nonces), r.nonceSends
}

func (r *recorder) FollowupMessageCreate(i *discordgo.Interaction, _ bool, p *discordgo.WebhookParams, _ ...discordgo.RequestOption) (*discordgo.Message, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.followupsEarly > 0 {
		r.followupsEarly--
		return nil, &discordgo.RESTError{Response: &http.Response{StatusCode: http.StatusNotFound},
			Message: &discordgo.APIErrorMessage{Code: discordgo.ErrCodeUnknownWebhook, Message: "Unknown Webhook"}}
	}
	if len(r.followupErrs) > 0 {
		err := r.followupErrs[0]
		r.followupErrs = r.followupErrs[1:]
		return nil, err
	}
	r.followups, r.followupRefs = append(r.followups, p), append(r.followupRefs, i.Token)
	return &discordgo.Message{ID: "followup-" + strconv.Itoa(len(r.followups))}, nil
}

func (r *recorder) FollowupMessageDelete(i *discordgo.Interaction, messageID string, _ ...discordgo.RequestOption) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.followupDeletes = append(r.followupDeletes, i.Token+"/"+messageID)
	if r.edited != nil {
		r.edited <- struct{}{}
	}
	return nil
}

func (r *recorder) InteractionResponse(i *discordgo.Interaction, _ ...discordgo.RequestOption) (*discordgo.Message, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups = append(r.lookups, i.Token)
	return &discordgo.Message{ID: "m-" + i.Token}, nil
}

func (r *recorder) ChannelMessageSendComplex(channelID string, m *discordgo.MessageSend, _ ...discordgo.RequestOption) (*discordgo.Message, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent, r.sentTo = append(r.sent, m), append(r.sentTo, channelID)
	return &discordgo.Message{ID: "sent-" + strconv.Itoa(len(r.sent)), ChannelID: channelID}, nil
}

func (r *recorder) ChannelMessageSendNonce(channelID string, m *discordgo.MessageSend, nonce string, _ ...discordgo.RequestOption) (*discordgo.Message, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nonceSends++
	var err error
	if len(r.sendErrs) > 0 {
		err = r.sendErrs[0]
		r.sendErrs = r.sendErrs[1:]
		if !errors.As(err, new(taken)) {
			return nil, err
		}
	}
	for i, n := range r.nonces {
		if n != nonce {
			continue
		}
		id := "sent-" + strconv.Itoa(i+1)
		if slices.Contains(r.channelDeletes, r.sentTo[i]+"/"+id) {
			return nil, &discordgo.RESTError{Response: &http.Response{StatusCode: http.StatusNotFound},
				Message: &discordgo.APIErrorMessage{Code: discordgo.ErrCodeUnknownMessage, Message: "Unknown Message"}}
		}
		if err != nil {
			return nil, err
		}
		return &discordgo.Message{ID: id, ChannelID: r.sentTo[i]}, nil
	}
	for len(r.nonces) < len(r.sent) {
		r.nonces = append(r.nonces, "")
	}
	r.sent, r.sentTo, r.nonces = append(r.sent, m), append(r.sentTo, channelID), append(r.nonces, nonce)
	if err != nil {
		return nil, err
	}
	return &discordgo.Message{ID: "sent-" + strconv.Itoa(len(r.sent)), ChannelID: channelID}, nil
}

func (r *recorder) ChannelMessageEditComplex(m *discordgo.MessageEdit, _ ...discordgo.RequestOption) (*discordgo.Message, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.channelEdits = append(r.channelEdits, m)
	if r.edited != nil {
		r.edited <- struct{}{}
	}
	return &discordgo.Message{ID: m.ID, ChannelID: m.Channel}, nil
}

func (r *recorder) ChannelMessageDelete(channelID, messageID string, _ ...discordgo.RequestOption) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.deleteErrs) > 0 {
		err := r.deleteErrs[0]
		r.deleteErrs = r.deleteErrs[1:]
		return err
	}
	r.channelDeletes = append(r.channelDeletes, channelID+"/"+messageID)
	if r.edited != nil {
		r.edited <- struct{}{}
	}
	return nil
}

// A recordedFile is a file an edit uploaded, as Discord would read it.
type recordedFile struct {
	name, contentType string
	data              []byte
}

func (r *recorder) InteractionResponseDelete(i *discordgo.Interaction, _ ...discordgo.RequestOption) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deleted = append(r.deleted, i.Token)
	if r.edited != nil {
		r.edited <- struct{}{}
	}
	return nil
}

func (r *recorder) InteractionRespond(_ *discordgo.Interaction, resp *discordgo.InteractionResponse, _ ...discordgo.RequestOption) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.failNext; err != nil {
		r.failNext = nil
		return err
	}
	r.responses = append(r.responses, resp)
	return nil
}

func (r *recorder) InteractionResponseEdit(i *discordgo.Interaction, e *discordgo.WebhookEdit, opts ...discordgo.RequestOption) (*discordgo.Message, error) {
	r.mu.Lock()
	fail := r.editFail
	r.mu.Unlock()
	if fail != nil {
		if err := fail(requestContext(opts)); err != nil {
			return nil, err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var files []recordedFile
	for _, f := range e.Files {
		data, err := io.ReadAll(f.Reader)
		if err != nil {
			return nil, err
		}
		files = append(files, recordedFile{name: f.Name, contentType: f.ContentType, data: data})
	}
	if r.failUploads != nil && len(files) > 0 {
		if err := r.failUploads(); err != nil {
			r.failedUploads++
			return nil, err
		}
	}
	r.edits = append(r.edits, e)
	r.editRefs = append(r.editRefs, i.Token)
	r.files = append(r.files, files)
	if r.edited != nil {
		r.edited <- struct{}{}
	}
	return &discordgo.Message{}, nil
}

func (r *recorder) ApplicationCommandBulkOverwrite(string, string, []*discordgo.ApplicationCommand, ...discordgo.RequestOption) ([]*discordgo.ApplicationCommand, error) {
	return nil, nil
}

func (r *recorder) ApplicationCommandsJSON(string, string, ...discordgo.RequestOption) ([]json.RawMessage, error) {
	return nil, nil
}

func (r *recorder) ApplicationCommandBulkOverwriteJSON(string, string, []json.RawMessage, ...discordgo.RequestOption) error {
	return nil
}

func (r *recorder) last(t *testing.T) *discordgo.InteractionResponse {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.responses) == 0 {
		t.Fatal("no response recorded")
	}
	return r.responses[len(r.responses)-1]
}

func newTestBot(t *testing.T) (*Bot, *recorder, *bytes.Buffer) {
	t.Helper()
	rec := new(recorder)
	var logs bytes.Buffer
	b := New(rec, StoresOf(new(store.Memory)), DefaultConfig(), slog.New(slog.NewTextHandler(&logs, nil)))
	b.SetSelf("1000000000000000001")
	t.Cleanup(b.Close)
	return b, rec, &logs
}

// internalErrorText is what a user hears when the bot failed, in English.
var internalErrorText = english().T("error.internal", nil)

func wantEphemeral(t *testing.T, r *discordgo.InteractionResponse, contains string) {
	t.Helper()
	if r.Type != discordgo.InteractionResponseChannelMessageWithSource || r.Data == nil || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("response = type %d %+v; want an ephemeral message", r.Type, r.Data)
	}
	if said := saidText(r.Data); !strings.Contains(said, contains) {
		t.Errorf("response content = %q; want it to contain %q", said, contains)
	}
}

// saidText is what a message says: its content and its embeds' text.
func saidText(d *discordgo.InteractionResponseData) string {
	s := d.Content
	for _, e := range d.Embeds {
		s += "\n" + e.Title + "\n" + e.Description
	}
	return s
}

// An interaction that names nobody (neither member nor user) is refused:
// nothing is played for an empty player.
func TestInteractionWithoutUser(t *testing.T) {
	b, rec, _ := newTestBot(t)
	m := slashMap(t, "start", nil, nil)
	delete(m, "member")
	delete(m, "user")
	ic := decode(t, m)
	b.serveIC(context.Background(), ic)
	wantEphemeral(t, rec.last(t), english().T("error.no_user", nil))
	if g, err := b.stores.Games.Current(context.Background(), ic.ChannelID); g != nil || err != nil {
		t.Errorf("after an interaction without a user the channel's game is %+v, %v; want none", g, err)
	}
}

func TestRouterRefusals(t *testing.T) {
	tests := []struct {
		name string
		ic   func(t *testing.T) *discordgo.InteractionCreate
		want string
	}{
		{"another command", func(t *testing.T) *discordgo.InteractionCreate {
			return decode(t, fixture(t, "slash_command_interaction.json"))
		}, "I don't know the command /cardsearch"},
		{"unknown subcommand", func(t *testing.T) *discordgo.InteractionCreate {
			return slashPayload(t, "fly", nil, nil)
		}, "I don't know `/ttt fly`"},
		{"foreign button", func(t *testing.T) *discordgo.InteractionCreate {
			return buttonPayload(t, "click_one")
		}, "not one of mine"},
		{"move without a game", func(t *testing.T) *discordgo.InteractionCreate {
			return slashPayload(t, "move", []map[string]any{intOpt("row", 1), intOpt("col", 1)}, nil)
		}, "No game in this channel"},
		{"click on a gone game", func(t *testing.T) *discordgo.InteractionCreate {
			return buttonPayload(t, "move/abc/1/1/1")
		}, "is not played in this channel"},
		{"stop without permission", func(t *testing.T) *discordgo.InteractionCreate {
			ic := slashPayload(t, "stop", nil, nil)
			ic.Member.Permissions = 0
			return ic
		}, "Manage Messages"},
		{"help", func(t *testing.T) *discordgo.InteractionCreate {
			return slashPayload(t, "help", nil, nil)
		}, "5 minutes per move"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, rec, _ := newTestBot(t)
			b.serveIC(context.Background(), tt.ic(t))
			wantEphemeral(t, rec.last(t), tt.want)
		})
	}
}

// A handler that panics, fails, or forgets to answer still leaves the user
// with an answer, and the internal error text stays in the log.
func TestRouterInternalErrors(t *testing.T) {
	tests := []struct {
		name string
		h    handler
		log  string
	}{
		{"panic", func(context.Context, *request) error { panic("boom") }, "panic: boom"},
		{"error", func(context.Context, *request) error { return errors.New("disk on fire") }, "disk on fire"},
		{"silence", func(context.Context, *request) error { return nil }, "without answering"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, rec, logs := newTestBot(t)
			b.routes.commands["help"] = tt.h
			b.serveIC(context.Background(), slashPayload(t, "help", nil, nil))
			r := rec.last(t)
			wantEphemeral(t, r, internalErrorText)
			if strings.Contains(r.Data.Content, tt.log) {
				t.Errorf("user saw the internal error %q", r.Data.Content)
			}
			if !strings.Contains(logs.String(), tt.log) {
				t.Errorf("log = %q; want it to contain %q", logs.String(), tt.log)
			}
		})
	}
}

// moves returns how many moves the game in ic's channel has.
func moves(t *testing.T, b *Bot, ic *discordgo.InteractionCreate) int {
	t.Helper()
	tb, err := b.tables.lock(context.Background(), ic.ChannelID, false)
	if err != nil {
		t.Fatal(err)
	}
	defer b.tables.unlock(tb)
	return tb.match.Judge.Len()
}

// If Discord refuses the answer to a move, the move is taken back: the player
// saw "This interaction failed" and must find the game as it was. If the
// answer may have been shown (the connection broke), the move stays, since
// the board the players may see must be the game.
func TestMoveAndFailedAnswer(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		kept bool
	}{
		{"refused", &discordgo.RESTError{Response: &http.Response{StatusCode: http.StatusBadRequest}}, false},
		{"maybe delivered", errors.New("connection reset by peer"), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, rec, _ := newTestBot(t)
			b.serveIC(context.Background(), slashPayload(t, "start", []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}, nil))
			if r := rec.last(t); r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
				t.Fatalf("start answered %q; want a board", r.Data.Content)
			}
			ic := slashPayload(t, "move", []map[string]any{intOpt("row", 2), intOpt("col", 2)}, nil)
			before := moves(t, b, ic)
			rec.mu.Lock()
			rec.failNext = tt.err
			rec.mu.Unlock()
			b.serveIC(context.Background(), ic)
			after := moves(t, b, ic)
			if kept := after == before+2; kept != tt.kept || !kept && after != before {
				t.Fatalf("moves after the failed answer = %d (before %d); want the move kept = %v", after, before, tt.kept)
			}
			if tt.kept {
				return
			}
			// Refused: the user was told, and the same move, tried again
			// (a new interaction), then works.
			wantEphemeral(t, rec.last(t), internalErrorText)
			b.serveIC(context.Background(), slashPayload(t, "move", []map[string]any{intOpt("row", 2), intOpt("col", 2)}, nil))
			if r := rec.last(t); r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
				t.Fatalf("retried move answered %q; want a board", r.Data.Content)
			}
		})
	}
}

// viaDiscord answers through a test Discord's InteractionRespond, as the
// gateway transport does through REST.
type viaDiscord struct {
	dc interface {
		InteractionRespond(*discordgo.Interaction, *discordgo.InteractionResponse, ...discordgo.RequestOption) error
	}
	i *discordgo.Interaction
}

func (v viaDiscord) Respond(ctx context.Context, r *discordgo.InteractionResponse) error {
	return v.dc.InteractionRespond(v.i, r, discordgo.WithContext(ctx))
}

// serveIC answers ic as a transport would, through the test's Discord.
func (b *Bot) serveIC(ctx context.Context, ic *discordgo.InteractionCreate) {
	dc := b.dc.(interface {
		InteractionRespond(*discordgo.Interaction, *discordgo.InteractionResponse, ...discordgo.RequestOption) error
	})
	b.handle(ctx, ic.Interaction, viaDiscord{dc, ic.Interaction})
}

// requestContext is the context that opts give a request.
func requestContext(opts []discordgo.RequestOption) context.Context {
	req, _ := http.NewRequest(http.MethodGet, "http://localhost/", nil)
	cfg := &discordgo.RequestConfig{Request: req}
	for _, o := range opts {
		o(cfg)
	}
	return cfg.Request.Context()
}
