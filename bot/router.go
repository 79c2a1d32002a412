package bot

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/store"
)

// A request is one decoded interaction, whatever transport brought it, with
// the responder its one answer goes through.
type request struct {
	*discordgo.Interaction
	user      *discordgo.User // who caused it
	lang      *i18n.Localizer // the user's language, for what only they see
	responder Responder
	answered  *atomic.Bool // set once the answer went (or may have gone) out

	// For the meter: when it arrived, what it asked for (the subcommand
	// or button action), and how long its answer took to go out.
	arrived    time.Time
	kind       string
	answerTook time.Duration
}

// A handler answers one kind of interaction. It answers through Bot.respond
// or Bot.say; if it returns an error instead, the router answers for it.
type handler func(ctx context.Context, req *request) error

// A userError is a refusal meant for the user: a text in plain words,
// shown to them (ephemerally) in their language. Any other error is ours;
// its text is logged and the user only learns that something went wrong.
type userError struct{ text }

// Error returns the refusal in English.
func (e userError) Error() string { return e.in(english()) }

// refuse returns the refusal of the catalog's text key with data.
func refuse(key string, data map[string]any) error {
	return userError{text{key: key, data: data}}
}

// refuseN is refuse for a counted text, in the plural form of count.
func refuseN(key string, count int, data map[string]any) error {
	return userError{text{key: key, data: data, counted: true, count: count}}
}

// Handle answers one interaction through r. Every interaction gets exactly
// one answer within Discord's 3 seconds, whatever the handler does, so no
// user ever sees "This interaction failed". Transports call it in a
// goroutine of its own per interaction.
func (b *Bot) Handle(i *discordgo.Interaction, r Responder) {
	ctx, cancel := context.WithTimeout(context.Background(), answerWithin)
	defer cancel()
	b.handle(ctx, i, r)
}

func (b *Bot) handle(ctx context.Context, i *discordgo.Interaction, r Responder) {
	if i == nil || r == nil {
		return
	}
	req := &request{Interaction: i, user: invoker(i), responder: r, answered: new(atomic.Bool), arrived: time.Now(), kind: "unknown",
		lang: b.texts.For(string(i.Locale), guildLocale(i))}
	b.bgMu.Lock()
	closed := b.closed
	if !closed {
		b.handlers.Add(1) // Close waits for this answer
		defer b.handlers.Done()
	}
	b.bgMu.Unlock()
	if closed {
		if err := b.say(ctx, req, req.lang.T("error.restarting", nil)); err != nil {
			b.log.Warn("could not answer during shutdown", "err", err)
		}
		return
	}
	if !b.recent.first(i.ID) {
		// Acting on it again could, for instance, play a move twice.
		b.log.Warn("an interaction arrived twice; answering the second without acting on it", "channel", i.ChannelID, "interaction", i.ID)
		if err := b.say(ctx, req, req.lang.T("error.duplicate", nil)); err != nil {
			b.log.Warn("could not answer a duplicate", "err", err)
		}
		b.meter.Interaction(req.kind, "duplicate", req.answerTook)
		return
	}
	b.serve(ctx, req)
}

// answerReserve is the time kept for answering a handler that ran out of
// its own: answerWithin plus this stays within Discord's 3 s.
const answerReserve = 300 * time.Millisecond

func (b *Bot) serve(ctx context.Context, req *request) {
	log := b.log.With("guild", req.GuildID, "channel", req.ChannelID, "user", req.user.ID)

	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		if req.user.ID == "" {
			// Discord names who sent every interaction; one that does
			// not would play for nobody.
			err = refuse("error.no_user", nil)
			return
		}
		h, herr := b.route(req)
		if herr != nil {
			err = herr
			return
		}
		err = h(ctx, req)
	}()

	// The answer to an error keeps a reserve of time: the handler may
	// have used all of its own (a save stuck behind other writers).
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), answerReserve)
		defer cancel()
	}
	var ue userError
	switch {
	case err == nil && req.answered.Load():
		b.meter.Interaction(req.kind, "ok", req.answerTook)
		return
	case err == nil:
		err = errors.New("handler returned without answering")
	case errors.As(err, &ue):
		if !req.answered.Load() {
			if rerr := b.say(ctx, req, ue.in(req.lang)); rerr != nil {
				log.Error("could not answer", "err", rerr)
			}
		}
		b.meter.Interaction(req.kind, "refused", req.answerTook)
		return
	}
	defer func() { b.meter.Interaction(req.kind, "error", req.answerTook) }()
	log.Error("interaction failed", "type", req.Type.String(), "err", err)
	if !req.answered.Load() {
		if rerr := b.say(ctx, req, req.lang.T(failureKey(err), nil)); rerr != nil {
			log.Error("could not answer", "err", rerr)
		}
	}
}

// failureKey is the text that tells a user what became of their
// interaction when it failed on our side: the store's own errors say
// whether anything changed; any other error changed nothing.
func failureKey(err error) string {
	switch {
	case errors.Is(err, store.ErrOutcomeUnknown):
		return "error.outcome_unknown"
	case errors.Is(err, store.ErrUnavailable):
		return "error.store_unavailable"
	}
	return "error.internal"
}

// route finds the handler: by subcommand for /ttt, by custom_id action for
// buttons.
func (b *Bot) route(req *request) (handler, error) {
	switch req.Type {
	case discordgo.InteractionApplicationCommand:
		data, ok := req.Data.(discordgo.ApplicationCommandInteractionData)
		if !ok {
			return nil, refuse("route.unreadable_command", nil)
		}
		if data.Name != "ttt" {
			return nil, refuse("route.unknown_command", map[string]any{"Command": data.Name})
		}
		sub, err := subcommand(data)
		if err != nil {
			return nil, err
		}
		if h, ok := b.commands[sub.Name]; ok {
			req.kind = sub.Name
			return h, nil
		}
		return nil, refuse("route.unknown_subcommand", map[string]any{"Subcommand": sub.Name})
	case discordgo.InteractionMessageComponent:
		data, ok := req.Data.(discordgo.MessageComponentInteractionData)
		if !ok {
			return nil, refuse("route.unreadable_click", nil)
		}
		r, err := parseRoute(data.CustomID)
		if err != nil {
			return nil, refuse("route.unknown_button", nil)
		}
		req.kind = r.action
		return b.buttons[r.action], nil
	}
	return nil, refuse("route.unknown_interaction", nil)
}

// invoker is the user who caused i: the member's user in a guild, the user
// in a DM.
func invoker(i *discordgo.Interaction) *discordgo.User {
	if i.Member != nil && i.Member.User != nil {
		return i.Member.User
	}
	if i.User != nil {
		return i.User
	}
	return &discordgo.User{}
}

// commandData and componentData return the interaction's data; route has
// checked its type.
func (req *request) commandData() discordgo.ApplicationCommandInteractionData {
	d, _ := req.Data.(discordgo.ApplicationCommandInteractionData)
	return d
}

func (req *request) componentData() discordgo.MessageComponentInteractionData {
	d, _ := req.Data.(discordgo.MessageComponentInteractionData)
	return d
}
