package bot

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Discord is what the bot does through Discord's REST API besides
// answering: reading, editing and deleting messages it drew through an
// interaction token, registering its commands, and, in correspondence
// games only, editing and deleting its boards and
// pinging and reminding players with its own bot token through the
// channel's message endpoints (a reminder with a nonce); and reminding
// players with follow-ups.
type Discord interface {
	InteractionResponse(i *discordgo.Interaction, opts ...discordgo.RequestOption) (*discordgo.Message, error)
	InteractionResponseEdit(i *discordgo.Interaction, e *discordgo.WebhookEdit, opts ...discordgo.RequestOption) (*discordgo.Message, error)
	InteractionResponseDelete(i *discordgo.Interaction, opts ...discordgo.RequestOption) error
	ApplicationCommandBulkOverwrite(appID, guildID string, cmds []*discordgo.ApplicationCommand, opts ...discordgo.RequestOption) ([]*discordgo.ApplicationCommand, error)
	// The commands of a scope as JSON objects, every field kept, and
	// their bulk overwrite: registering the global commands keeps the
	// app's entry point command (Register), whose handler discordgo's
	// type lacks.
	ApplicationCommandsJSON(appID, guildID string, opts ...discordgo.RequestOption) ([]json.RawMessage, error)
	ApplicationCommandBulkOverwriteJSON(appID, guildID string, cmds []json.RawMessage, opts ...discordgo.RequestOption) error
	ChannelMessageSendComplex(channelID string, m *discordgo.MessageSend, opts ...discordgo.RequestOption) (*discordgo.Message, error)
	// ChannelMessageSendNonce sends m as ChannelMessageSendComplex does,
	// with nonce and enforce_nonce: Discord creates one message of the
	// bot's with that nonce within a few minutes, however often the
	// request is made, and answers a repeat with it (or Unknown Message
	// if it was deleted since). A correspondence game's reminder
	// (boards.remind), tried again when its outcome is unknown.
	ChannelMessageSendNonce(channelID string, m *discordgo.MessageSend, nonce string, opts ...discordgo.RequestOption) (*discordgo.Message, error)
	ChannelMessageEditComplex(m *discordgo.MessageEdit, opts ...discordgo.RequestOption) (*discordgo.Message, error)
	ChannelMessageDelete(channelID, messageID string, opts ...discordgo.RequestOption) error
	// Follow-ups through an interaction token: a turn's reminder, which
	// works wherever the interaction happened (boards.remind).
	FollowupMessageCreate(i *discordgo.Interaction, wait bool, data *discordgo.WebhookParams, opts ...discordgo.RequestOption) (*discordgo.Message, error)
	FollowupMessageDelete(i *discordgo.Interaction, messageID string, opts ...discordgo.RequestOption) error
}

// unknownMessage says whether Discord answered that the message does not
// exist.
func unknownMessage(err error) bool {
	var rerr *discordgo.RESTError
	return errors.As(err, &rerr) && rerr.Message != nil && rerr.Message.Code == discordgo.ErrCodeUnknownMessage
}

// notAnsweredYet says whether Discord answered a follow-up as if the
// interaction had no answer yet: no message, or no webhook, known for it.
func notAnsweredYet(err error) bool {
	var rerr *discordgo.RESTError
	return unknownMessage(err) || errors.As(err, &rerr) && rerr.Message != nil && rerr.Message.Code == discordgo.ErrCodeUnknownWebhook
}

// Tries of a request that Discord may refuse only because an
// interaction's answer is not there yet (retryUnanswered).
const (
	answerTries      = 5
	answerFirstPause = 50 * time.Millisecond // doubled after each try
)

// retryUnanswered calls try until it succeeds, at most answerTries times,
// with a pause between tries, while again says that its error may only
// mean the interaction's answer is not there yet: over the HTTP endpoint,
// Discord creates an answer's message once it has read the response,
// perhaps after the bot's next request arrives. It returns the last
// error, also when ctx ends first.
func retryUnanswered(ctx context.Context, try func() error, again func(error) bool) error {
	pause := answerFirstPause
	for n := 1; ; n++ {
		err := try()
		if err == nil || n == answerTries || !again(err) {
			return err
		}
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		}
		pause *= 2
	}
}

// Values of Discord's API that discordgo v0.29 lacks, as Discord documents
// them: the command type in "Application Command Types" and the handler
// in "Entry Point Command Handler Types" (developers/interactions/
// application-commands), the callback type in "Interaction Callback Type"
// (developers/interactions/receiving-and-responding), in
// github.com/discord/discord-api-docs.
const (
	// PrimaryEntryPointCommand is the command type PRIMARY_ENTRY_POINT:
	// the command that opens the app's Activity from the App Launcher.
	// An app has at most one, global, without options.
	PrimaryEntryPointCommand discordgo.ApplicationCommandType = 4
	// InteractionResponseLaunchActivity is the callback type
	// LAUNCH_ACTIVITY: open the app's Activity for the user, where the
	// interaction happened. It has no data. It answers an application
	// command, a component or a modal submit, of an app with Activities
	// enabled.
	InteractionResponseLaunchActivity discordgo.InteractionResponseType = 12
)

// EntryPointHandler is the handler field of an entry point command: who
// answers it.
type EntryPointHandler int

// Entry point handlers.
const (
	// EntryPointAppHandler (APP_HANDLER): Discord sends the command to
	// the app, which answers it, e.g. with LAUNCH_ACTIVITY.
	EntryPointAppHandler EntryPointHandler = 1
	// EntryPointDiscordLaunchActivity (DISCORD_LAUNCH_ACTIVITY): Discord
	// opens the Activity itself and posts a message in the channel; the
	// app hears nothing.
	EntryPointDiscordLaunchActivity EntryPointHandler = 2
)
