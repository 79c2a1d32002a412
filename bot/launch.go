package bot

import (
	"context"

	"github.com/bwmarrin/discordgo"
)

// The way into the live board from Discord. The live board is an
// Activity (package web): a page of ours that Discord opens in the
// channel. A user opens it three ways, none of which the bot needs to
// know the game for (the page shows the channel's game):
//
//   - the Open board button under every current board message
//     (matchComponents), which the bot answers with LAUNCH_ACTIVITY;
//   - the app's entry point command (PRIMARY_ENTRY_POINT), from Discord's
//     App Launcher: Discord creates it, named Launch, when Activities are
//     enabled in the developer portal. With its handler
//     DISCORD_LAUNCH_ACTIVITY (Discord's default) Discord opens the
//     Activity itself; with APP_HANDLER it sends the bot the command, which
//     the bot answers with LAUNCH_ACTIVITY too;
//   - Discord's own Activity shelf.
//
// Only a bot that serves the page (Config.Activity) shows the button; an
// old button, or the entry point command, reaching a bot that does not
// gets a refusal in plain words. Registering /ttt keeps the entry point
// command (Register): Discord refuses a bulk overwrite of the global
// commands that drops it.

// launch answers a click on Open board, or the entry point command, by
// opening the Activity for the user. Anyone may open it (a spectator
// watches), so nothing is locked or read. Without an Activity (an old
// button, an entry point with APP_HANDLER left from a configuration of
// the app that had one) it refuses in plain words.
func (b *Bot) launch(ctx context.Context, req *request) error {
	if !b.cfg.Activity {
		return refuse("launch.off", nil)
	}
	return req.send(ctx, &discordgo.InteractionResponse{Type: InteractionResponseLaunchActivity})
}
