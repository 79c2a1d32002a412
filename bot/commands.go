package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
)

// Commands returns the /ttt command with its subcommands, as registered with
// Discord by one bulk overwrite. Discord checks the ranges it declares; the
// handlers check them again, because a stale client or a hand-made request
// can send anything.
//
// Descriptions, and the names and descriptions players of other languages
// see, come from the catalog's command.ttt.* texts (the command itself
// stays /ttt); the names are the English ones of the catalog, which
// Discord sends back in every interaction whatever the player's language,
// and which the handlers route by.
func Commands() []*discordgo.ApplicationCommand {
	c, _ := catalog() // Register reports an error; a nil catalog gives its keys
	en := c.For()
	// texts fills in o's description and the translations of its name and
	// description from the catalog's texts under key.
	texts := func(o *discordgo.ApplicationCommandOption, key string) *discordgo.ApplicationCommandOption {
		o.Description = en.T(key+".description", nil)
		o.NameLocalizations = c.Localizations(key + ".name")
		o.DescriptionLocalizations = c.Localizations(key + ".description")
		return o
	}
	minSize, minWin, one := float64(MinSize), float64(MinWin), float64(1)
	minTurn, minChallenge := float64(MinTimeout/time.Second), float64(MinChallengeTimeout/time.Second)
	maxTurn, maxChallenge := float64(MaxTurnTimeout/time.Second), float64(MaxTimeout/time.Second)
	// Anywhere: installed by a server, or by a user (then in their DMs,
	// group DMs and any server). Everything a game needs goes through
	// interaction tokens, so no context needs the bot in the channel; only
	// turns longer than a token lives do, and where the bot is not there
	// they are cut to MaxTimeout (rulesFor).
	contexts := []discordgo.InteractionContextType{discordgo.InteractionContextGuild,
		discordgo.InteractionContextBotDM, discordgo.InteractionContextPrivateChannel}
	installs := []discordgo.ApplicationIntegrationType{discordgo.ApplicationIntegrationGuildInstall,
		discordgo.ApplicationIntegrationUserInstall}
	integer := func(sub, name string, required bool, min *float64, max float64) *discordgo.ApplicationCommandOption {
		return texts(&discordgo.ApplicationCommandOption{
			Type:     discordgo.ApplicationCommandOptionInteger,
			Name:     name,
			Required: required,
			MinValue: min,
			MaxValue: max,
		}, "command.ttt."+sub+"."+name)
	}
	// autocomplete makes Discord ask the bot what to offer for o
	// (suggestMove) as the player types it.
	autocomplete := func(o *discordgo.ApplicationCommandOption) *discordgo.ApplicationCommandOption {
		o.Autocomplete = true
		return o
	}
	user := func(sub, name string) *discordgo.ApplicationCommandOption {
		return texts(&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionUser, Name: name}, "command.ttt."+sub+"."+name)
	}
	option := func(sub, name string, typ discordgo.ApplicationCommandOptionType) *discordgo.ApplicationCommandOption {
		return texts(&discordgo.ApplicationCommandOption{Type: typ, Name: name}, "command.ttt."+sub+"."+name)
	}
	sub := func(name string, opts ...*discordgo.ApplicationCommandOption) *discordgo.ApplicationCommandOption {
		return texts(&discordgo.ApplicationCommandOption{
			Type:    discordgo.ApplicationCommandOptionSubCommand,
			Name:    name,
			Options: opts,
		}, "command.ttt."+name)
	}
	levels := make([]*discordgo.ApplicationCommandOptionChoice, 0, 3)
	for _, l := range []game.Level{game.Easy, game.Medium, game.Hard} {
		levels = append(levels, &discordgo.ApplicationCommandOptionChoice{
			Name:              l.String(),
			NameLocalizations: c.Localizations("level." + l.String()),
			Value:             l.String(),
		})
	}
	channels := option("config", "channels", discordgo.ApplicationCommandOptionString)
	channels.MaxLength = 400 // maxChannels mentions with room to spare
	description := c.Localizations("command.ttt.description")
	return []*discordgo.ApplicationCommand{{
		Name:                     "ttt",
		Description:              en.T("command.ttt.description", nil),
		DescriptionLocalizations: &description,
		Contexts:                 &contexts,
		IntegrationTypes:         &installs,
		Options: []*discordgo.ApplicationCommandOption{
			sub("start",
				user("start", "opponent"),
				integer("start", "size", false, &minSize, MaxSize),
				integer("start", "win", false, &minWin, MaxSize),
				texts(&discordgo.ApplicationCommandOption{
					Type:    discordgo.ApplicationCommandOptionString,
					Name:    "difficulty",
					Choices: levels,
				}, "command.ttt.start.difficulty"),
				texts(&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionBoolean, Name: "open"}, "command.ttt.start.open"),
			),
			sub("move",
				autocomplete(integer("move", "row", true, &one, MaxSize)),
				autocomplete(integer("move", "col", true, &one, MaxSize)),
			),
			sub("board"),
			sub("resign"),
			sub("draw"),
			sub("stop"),
			sub("stats", user("stats", "user")),
			sub("leaderboard"),
			sub("history", user("history", "user")),
			sub("help"),
			sub("about"),
			// Everyone sees config; its handler lets only managers use
			// it (see canConfigure).
			sub("config",
				integer("config", "turn_timeout", false, &minTurn, maxTurn),
				integer("config", "challenge_timeout", false, &minChallenge, maxChallenge),
				integer("config", "size", false, &minSize, MaxSize),
				integer("config", "win", false, &minWin, MaxSize),
				channels,
				option("config", "stop_role", discordgo.ApplicationCommandOptionRole),
				option("config", "stop_role_clear", discordgo.ApplicationCommandOptionBoolean),
				option("config", "computer_ranked", discordgo.ApplicationCommandOptionBoolean),
				option("config", "pictures", discordgo.ApplicationCommandOptionBoolean),
				option("config", "reminders", discordgo.ApplicationCommandOptionBoolean),
				option("config", "reset", discordgo.ApplicationCommandOptionBoolean),
			),
		},
	}}
}

// registerGlobal overwrites the app's global commands with Commands() and
// the ones keptCommands keeps of those registered.
func (b *Bot) registerGlobal(ctx context.Context, appID string) error {
	have, err := b.dc.ApplicationCommandsJSON(appID, "", discordgo.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("read the commands: %w", err)
	}
	kept, err := keptCommands(have)
	if err != nil {
		return err
	}
	cmds := make([]json.RawMessage, 0, len(kept)+1)
	for _, c := range Commands() {
		raw, err := json.Marshal(c)
		if err != nil {
			return err
		}
		cmds = append(cmds, raw)
	}
	return b.dc.ApplicationCommandBulkOverwriteJSON(appID, "", append(cmds, kept...), discordgo.WithContext(ctx))
}

// keptCommands returns, of the global commands registered (have, as
// Discord sends them), the ones an overwrite keeps: the app's entry point
// command (PRIMARY_ENTRY_POINT), which Discord creates when Activities
// are enabled and refuses to drop in a bulk overwrite (error 50240). It
// is the app owner's: it goes back as it is, handler and all, by its id,
// with the fields a command is written with (those Discord adds when it
// returns one left out).
func keptCommands(have []json.RawMessage) ([]json.RawMessage, error) {
	var kept []json.RawMessage
	for _, raw := range have {
		var c map[string]json.RawMessage
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("read a registered command: %w", err)
		}
		var typ discordgo.ApplicationCommandType
		if err := json.Unmarshal(c["type"], &typ); err != nil || typ != PrimaryEntryPointCommand {
			continue
		}
		for k := range c {
			if !writableCommandField[k] {
				delete(c, k)
			}
		}
		out, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		kept = append(kept, out)
	}
	return kept, nil
}

// writableCommandField names the fields of an application command that a
// bulk overwrite takes ("JSON Params" of Bulk Overwrite Guild Application
// Commands and of Create Global Application Command, in Discord's
// documentation): the rest (application_id, version, guild_id, the
// name_localized Discord adds) Discord sets itself.
var writableCommandField = map[string]bool{
	"id": true, "type": true, "name": true, "name_localizations": true, "description": true,
	"description_localizations": true, "options": true, "default_member_permissions": true,
	"dm_permission": true, "default_permission": true, "integration_types": true, "contexts": true,
	"nsfw": true, "handler": true,
}

// newRoutes is the registration table: the handler of each /ttt
// subcommand of Commands, of each button action and modal (route.go), of
// the autocomplete of /ttt move, and of the app's entry point command
// (launch.go).
func newRoutes(b *Bot) routes {
	return routes{
		commands: map[string]handler{
			"start":       b.start,
			"move":        b.moveByCommand,
			"board":       b.showBoard,
			"resign":      b.resign,
			"stop":        b.stop,
			"help":        b.showHelp,
			"draw":        b.offerDraw,
			"about":       b.records.showAbout,
			"stats":       b.records.showStats,
			"leaderboard": b.records.showLeaderboard,
			"history":     b.records.showHistory,
			"config":      b.configure,
		},
		buttons: map[string]clickHandler{
			actMove:    b.moveByClick,
			actAccept:  b.accept,
			actDecline: b.decline,
			actRematch: b.rematch,
			actDrawYes: b.answerDraw,
			actDrawNo:  b.answerDraw,
			actRow:     b.pickRow,
			actType:    b.openMoveModal,
			actLaunch:  func(ctx context.Context, req *request, _ route) error { return b.launch(ctx, req) },
		},
		modals: map[string]clickHandler{
			actTyped: b.moveByModal,
		},
		suggest: map[string]handler{
			"move": b.suggestMove,
		},
		entryPoint: b.launch,
	}
}
