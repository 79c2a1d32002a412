package bot

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
)

// A request is one decoded interaction, whatever transport brought it, with
// the responder its one answer goes through.
type request struct {
	*discordgo.Interaction
	user      *discordgo.User // who caused it
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

// A userError is a refusal meant for the user: its text is plain words and is
// shown to them as it is (ephemerally). Any other error is ours; its text is
// logged and the user only learns that something went wrong.
type userError string

func (e userError) Error() string { return string(e) }

func sayf(format string, args ...any) error { return userError(fmt.Sprintf(format, args...)) }

const internalErrorText = "Something went wrong on our side; nothing was changed. Please try again."

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
	req := &request{Interaction: i, user: invoker(i), responder: r, answered: new(atomic.Bool), arrived: time.Now(), kind: "unknown"}
	b.bgMu.Lock()
	closed := b.closed
	if !closed {
		b.handlers.Add(1) // Close waits for this answer
		defer b.handlers.Done()
	}
	b.bgMu.Unlock()
	if closed {
		if err := b.say(ctx, req, restartingText); err != nil {
			b.log.Warn("could not answer during shutdown", "err", err)
		}
		return
	}
	if !b.recent.first(i.ID) {
		// Acting on it again could, for instance, play a move twice.
		b.log.Warn("an interaction arrived twice; answering the second without acting on it", "channel", i.ChannelID, "interaction", i.ID)
		if err := b.say(ctx, req, duplicateText); err != nil {
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

const (
	restartingText = "I'm restarting right now. Games are saved and continue when I'm back; please try again in a moment."
	duplicateText  = "Discord sent me this twice; I acted on it once, and nothing more was done."
)

func (b *Bot) serve(ctx context.Context, req *request) {
	log := b.log.With("guild", req.GuildID, "channel", req.ChannelID, "user", req.user.ID)

	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
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
			if rerr := b.say(ctx, req, string(ue)); rerr != nil {
				log.Error("could not answer", "err", rerr)
			}
		}
		b.meter.Interaction(req.kind, "refused", req.answerTook)
		return
	}
	defer func() { b.meter.Interaction(req.kind, "error", req.answerTook) }()
	log.Error("interaction failed", "type", req.Type.String(), "err", err)
	if !req.answered.Load() {
		if rerr := b.say(ctx, req, internalErrorText); rerr != nil {
			log.Error("could not answer", "err", rerr)
		}
	}
}

// route finds the handler: by subcommand for /ttt, by custom_id action for
// buttons.
func (b *Bot) route(req *request) (handler, error) {
	switch req.Type {
	case discordgo.InteractionApplicationCommand:
		data, ok := req.Data.(discordgo.ApplicationCommandInteractionData)
		if !ok {
			return nil, sayf("I can't read that command. Try `/ttt help`.")
		}
		if data.Name != "ttt" {
			return nil, sayf("I don't know the command /%s. Try `/ttt help`.", data.Name)
		}
		sub, err := subcommand(data)
		if err != nil {
			return nil, err
		}
		if h, ok := b.commands[sub.Name]; ok {
			req.kind = sub.Name
			return h, nil
		}
		return nil, sayf("I don't know `/ttt %s`. Try `/ttt help`.", sub.Name)
	case discordgo.InteractionMessageComponent:
		data, ok := req.Data.(discordgo.MessageComponentInteractionData)
		if !ok {
			return nil, sayf("I can't read that click. Use `/ttt board` to get the current board.")
		}
		r, err := parseRoute(data.CustomID)
		if err != nil {
			return nil, userError("That button is not one of mine any more. Use `/ttt board` to get the current board.")
		}
		req.kind = r.action
		return b.buttons[r.action], nil
	}
	return nil, sayf("I can't handle that kind of interaction.")
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
