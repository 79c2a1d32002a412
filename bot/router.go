package bot

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"

	"github.com/bwmarrin/discordgo"
)

// A handler answers one kind of interaction. It answers through Bot.respond
// or Bot.say; if it returns an error instead, the router answers for it.
type handler func(ctx context.Context, ic *discordgo.InteractionCreate) error

// A userError is a refusal meant for the user: its text is plain words and is
// shown to them as it is (ephemerally). Any other error is ours; its text is
// logged and the user only learns that something went wrong.
type userError string

func (e userError) Error() string { return string(e) }

func sayf(format string, args ...any) error { return userError(fmt.Sprintf(format, args...)) }

const internalErrorText = "Something went wrong on our side; nothing was changed. Please try again."

type answeredKey struct{}

// markAnswered records in ctx that the interaction got its one response.
func markAnswered(ctx context.Context) {
	if p, ok := ctx.Value(answeredKey{}).(*atomic.Bool); ok {
		p.Store(true)
	}
}

// Handle is the discordgo event handler for INTERACTION_CREATE. Every
// interaction gets exactly one answer within Discord's 3 seconds, whatever
// the handler does, so no user ever sees "This interaction failed".
func (b *Bot) Handle(_ *discordgo.Session, ic *discordgo.InteractionCreate) {
	ctx, cancel := context.WithTimeout(context.Background(), answerWithin)
	defer cancel()
	b.bgMu.Lock()
	closed := b.closed
	if !closed {
		b.handlers.Add(1) // Close waits for this answer
		defer b.handlers.Done()
	}
	b.bgMu.Unlock()
	if closed {
		if ic != nil && ic.Interaction != nil {
			if err := b.say(ctx, ic, restartingText); err != nil {
				b.log.Warn("could not answer during shutdown", "err", err)
			}
		}
		return
	}
	b.serve(ctx, ic)
}

const restartingText = "I'm restarting right now; your game is kept. Please try again in a moment."

func (b *Bot) serve(ctx context.Context, ic *discordgo.InteractionCreate) {
	if ic == nil || ic.Interaction == nil {
		return
	}
	answered := new(atomic.Bool)
	ctx = context.WithValue(ctx, answeredKey{}, answered)
	log := b.log.With("guild", ic.GuildID, "channel", ic.ChannelID, "user", invoker(ic).ID)

	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		h, herr := b.route(ic)
		if herr != nil {
			err = herr
			return
		}
		err = h(ctx, ic)
	}()

	var ue userError
	switch {
	case err == nil && answered.Load():
		return
	case err == nil:
		err = errors.New("handler returned without answering")
	case errors.As(err, &ue):
		if !answered.Load() {
			if rerr := b.say(ctx, ic, string(ue)); rerr != nil {
				log.Error("could not answer", "err", rerr)
			}
		}
		return
	}
	log.Error("interaction failed", "type", ic.Type.String(), "err", err)
	if !answered.Load() {
		if rerr := b.say(ctx, ic, internalErrorText); rerr != nil {
			log.Error("could not answer", "err", rerr)
		}
	}
}

// route finds the handler: by subcommand for /ttt, by custom_id action for
// buttons.
func (b *Bot) route(ic *discordgo.InteractionCreate) (handler, error) {
	switch ic.Type {
	case discordgo.InteractionApplicationCommand:
		data := ic.ApplicationCommandData()
		if data.Name != "ttt" {
			return nil, sayf("I don't know the command /%s. Try `/ttt help`.", data.Name)
		}
		sub, err := subcommand(data)
		if err != nil {
			return nil, err
		}
		if h, ok := b.commands[sub.Name]; ok {
			return h, nil
		}
		return nil, sayf("I don't know `/ttt %s`. Try `/ttt help`.", sub.Name)
	case discordgo.InteractionMessageComponent:
		r, err := parseRoute(ic.MessageComponentData().CustomID)
		if err != nil {
			return nil, userError("That button is not one of mine any more. Use `/ttt board` to get the current board.")
		}
		return b.buttons[r.action], nil
	}
	return nil, sayf("I can't handle that kind of interaction.")
}

// invoker is the user who caused ic: the member's user in a guild, the user
// in a DM.
func invoker(ic *discordgo.InteractionCreate) *discordgo.User {
	if ic.Member != nil && ic.Member.User != nil {
		return ic.Member.User
	}
	if ic.User != nil {
		return ic.User
	}
	return &discordgo.User{}
}
