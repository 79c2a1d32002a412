package bot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/i18n"
)

// A Responder sends an interaction's one answer: the gateway transport posts
// it to Discord's callback endpoint; an HTTP endpoint writes it as the
// response body. Handlers never know which.
type Responder interface {
	Respond(ctx context.Context, r *discordgo.InteractionResponse) error
}

// A Responder that says Replayable answers an interaction that someone
// other than Discord could send again: a signed HTTP request stays valid
// for minutes, and whoever captured it may replay it to any replica. The
// bot records such interactions in the store before acting on them
// (seen), so that each is acted on once by all processes. Over the
// gateway only Discord delivers, and each interaction to one process,
// whose memory (recent) is enough.
type replayable interface{ Replayable() bool }

// isReplayable says whether r's interaction could be replayed.
func isReplayable(r Responder) bool {
	rp, ok := r.(replayable)
	return ok && rp.Replayable()
}

// A request is one decoded interaction, whatever transport brought it, with
// the responder its one answer goes through.
type request struct {
	*discordgo.Interaction
	user      *discordgo.User // who caused it
	lang      *i18n.Language  // the user's language, for what only they see
	responder Responder
	answered  *atomic.Bool // set once the answer went (or may have gone) out
	// activity says the bot serves the live board: boards it answers
	// with carry the Open board button (view.buttonsFor).
	activity bool

	// For the meter: when it arrived, what it asked for (the subcommand
	// or button action), and how long its answer took to go out.
	arrived    time.Time
	kind       string
	answerTook time.Duration
}

// A handler answers one kind of interaction. It answers through req.respond
// or req.say; if it returns an error instead, the router answers for it.
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

// commandData returns the interaction's command data; route has checked
// its type. (A click's custom_id reaches its handler parsed, as a route.)
func (req *request) commandData() discordgo.ApplicationCommandInteractionData {
	d, _ := req.Data.(discordgo.ApplicationCommandInteractionData)
	return d
}

// respond answers req. It is the only way handlers answer, so the router can
// tell whether a handler answered.
func (req *request) respond(ctx context.Context, typ discordgo.InteractionResponseType, v view, ephemeral bool) error {
	// The answer and its data in one allocation.
	r := &struct {
		resp discordgo.InteractionResponse
		data discordgo.InteractionResponseData
	}{data: discordgo.InteractionResponseData{
		Content:         v.content,
		Components:      v.buttonsFor(req.activity),
		Embeds:          v.embeds,
		AllowedMentions: allowed(v.ping),
	}}
	if ephemeral {
		r.data.Flags = discordgo.MessageFlagsEphemeral
	}
	r.resp.Type, r.resp.Data = typ, &r.data
	return req.send(ctx, &r.resp)
}

// modal answers req with a modal (MODAL): its custom_id, title and
// components, the text fields in action rows.
func (req *request) modal(ctx context.Context, customID, title string, components []discordgo.MessageComponent) error {
	return req.send(ctx, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseModal,
		Data: &discordgo.InteractionResponseData{CustomID: customID, Title: title, Components: components}})
}

// suggest answers an autocomplete interaction with choices, perhaps none.
func (req *request) suggest(ctx context.Context, choices []*discordgo.ApplicationCommandOptionChoice) error {
	if choices == nil {
		choices = []*discordgo.ApplicationCommandOptionChoice{}
	}
	return req.send(ctx, &discordgo.InteractionResponse{Type: discordgo.InteractionApplicationCommandAutocompleteResult,
		Data: &discordgo.InteractionResponseData{Choices: choices}})
}

// send sends resp, req's one answer.
func (req *request) send(ctx context.Context, resp *discordgo.InteractionResponse) error {
	if req.Type == discordgo.InteractionModalSubmit && req.Message == nil {
		// A modal opened by a command, or a submit a client sent
		// without the message, has no message to update: Discord
		// refuses UPDATE_MESSAGE there. What would have updated it
		// becomes a new message.
		switch resp.Type {
		case discordgo.InteractionResponseUpdateMessage:
			resp.Type = discordgo.InteractionResponseChannelMessageWithSource
		case discordgo.InteractionResponseDeferredMessageUpdate:
			resp.Type = discordgo.InteractionResponseDeferredChannelMessageWithSource
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("respond to interaction: %w: %w", errNotSent, err)
	}
	err := req.responder.Respond(ctx, resp)
	if !rejected(err) || acknowledged(err) {
		// Delivered, perhaps delivered (a timeout, a lost reply), or
		// answered before: another answer would be refused or would
		// double what the user sees.
		req.answered.Store(true)
		req.answerTook = time.Since(req.arrived)
	}
	if err != nil {
		return fmt.Errorf("respond to interaction: %w", err)
	}
	return nil
}

// errNotSent marks a request that certainly never reached Discord.
var errNotSent = errors.New("bot: request not sent")

// rejected says whether err means the request certainly did not take
// effect: Discord refused it (a 4xx), or it was never sent. Then any change
// made for it can be undone. Timeouts and lost replies are not definite:
// the request may have been carried out.
func rejected(err error) bool {
	if err == nil {
		return false
	}
	var ns interface{ NotSent() bool }
	if errors.Is(err, errNotSent) || errors.As(err, &ns) && ns.NotSent() {
		return true
	}
	var rerr *discordgo.RESTError
	if !errors.As(err, &rerr) || rerr.Response == nil {
		return false
	}
	return rerr.Response.StatusCode >= 400 && rerr.Response.StatusCode < 500
}

// acknowledged says whether Discord refused an answer because the
// interaction already has one (a duplicate delivery): nothing this answer
// would have changed may be kept, and no other answer may be sent.
func acknowledged(err error) bool {
	var rerr *discordgo.RESTError
	return errors.As(err, &rerr) && rerr.Message != nil &&
		rerr.Message.Code == discordgo.ErrCodeInteractionHasAlreadyBeenAcknowledged
}

// say answers req with an ephemeral message in plain words; an
// autocomplete, which cannot be answered with a message, gets no choices.
func (req *request) say(ctx context.Context, text string) error {
	if req.Type == discordgo.InteractionApplicationCommandAutocomplete {
		return req.suggest(ctx, nil)
	}
	return req.respond(ctx, discordgo.InteractionResponseChannelMessageWithSource, view{content: text}, true)
}

// hasChannel says whether i shows the bot in i's server able to reach its
// messages in i's channel with its own token: the server installed the app
// (authorizing_integration_owners names the guild under GUILD_INSTALL,
// "0"), and the bot's permissions in the channel (app_permissions) let it
// see the channel, post there and read its history (to reply to a board).
func hasChannel(i *discordgo.Interaction) bool {
	if i.GuildID == "" || i.AuthorizingIntegrationOwners[discordgo.ApplicationIntegrationGuildInstall] != i.GuildID {
		return false
	}
	const need = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages | discordgo.PermissionReadMessageHistory
	p := i.AppPermissions
	return p&discordgo.PermissionAdministrator != 0 || p&need == need
}

// guildLocale is the Discord locale of i's guild, or "" outside a guild.
func guildLocale(i *discordgo.Interaction) string {
	if i.GuildLocale == nil {
		return ""
	}
	return string(*i.GuildLocale)
}

// newLocale is the locale of a new public message (a new game, a
// challenge, stats): the guild's, or outside a guild the user's.
func (req *request) newLocale() string {
	return cmp.Or(guildLocale(req.Interaction), string(req.Locale))
}

// keptLocale is the locale of a public message about a game or challenge
// whose messages speak prev: the guild's, or outside a guild prev, so that
// a game in a DM keeps its language whoever clicks.
func (req *request) keptLocale(prev string) string {
	return cmp.Or(guildLocale(req.Interaction), prev)
}
