package bot

import (
	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
)

// Board sizes and win lengths a player may ask for.
//
// MaxSize is 10 because a board line is one label and n cells, and eleven
// emoji is what a phone shows on one line without wrapping; it is also the
// last size whose labels are single keycaps (1️⃣ … 🔟). MaxButtonSize is 5
// because a message holds at most 5 action rows of 5 buttons.
const (
	MinSize       = 3
	MaxSize       = 10
	DefaultSize   = 3
	MinWin        = 3
	MaxButtonSize = 5
)

// Commands returns the /ttt command with its subcommands, as registered with
// Discord by one bulk overwrite. Discord checks the ranges it declares; the
// handlers check them again, because a stale client or a hand-made request
// can send anything.
func Commands() []*discordgo.ApplicationCommand {
	minSize, minWin, one := float64(MinSize), float64(MinWin), float64(1)
	guildOnly := []discordgo.InteractionContextType{discordgo.InteractionContextGuild}
	integer := func(name, desc string, required bool, min *float64, max float64) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{
			Type:        discordgo.ApplicationCommandOptionInteger,
			Name:        name,
			Description: desc,
			Required:    required,
			MinValue:    min,
			MaxValue:    max,
		}
	}
	sub := func(name, desc string, opts ...*discordgo.ApplicationCommandOption) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{
			Type:        discordgo.ApplicationCommandOptionSubCommand,
			Name:        name,
			Description: desc,
			Options:     opts,
		}
	}
	levels := make([]*discordgo.ApplicationCommandOptionChoice, 0, 3)
	for _, l := range []game.Level{game.Easy, game.Medium, game.Hard} {
		levels = append(levels, &discordgo.ApplicationCommandOptionChoice{Name: l.String(), Value: l.String()})
	}
	return []*discordgo.ApplicationCommand{{
		Name:        "ttt",
		Description: "Play n×n tic-tac-toe in this channel",
		Contexts:    &guildOnly,
		Options: []*discordgo.ApplicationCommandOption{
			sub("start", "Start a game: challenge someone, or play the computer",
				&discordgo.ApplicationCommandOption{
					Type:        discordgo.ApplicationCommandOptionUser,
					Name:        "opponent",
					Description: "Who to challenge (leave empty, or pick the bot, to play the computer)",
				},
				integer("size", "Board size, 3 to 10 (default 3)", false, &minSize, MaxSize),
				integer("win", "Marks in a row to win, 3 to size (default: size)", false, &minWin, MaxSize),
				&discordgo.ApplicationCommandOption{
					Type:        discordgo.ApplicationCommandOptionString,
					Name:        "difficulty",
					Description: "How well the computer plays (default hard)",
					Choices:     levels,
				},
			),
			sub("move", "Place your mark",
				integer("row", "Row number, as labelled on the board", true, &one, MaxSize),
				integer("col", "Column number, as labelled on the board", true, &one, MaxSize),
			),
			sub("board", "Show the current game again"),
			sub("resign", "Give up your game (or cancel your challenge)"),
			sub("stop", "Stop the game in this channel (members with Manage Messages)"),
			sub("stats", "Games, wins, streaks and rating in this server",
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionUser, Name: "user", Description: "Whose stats (default: yours)"},
			),
			sub("leaderboard", "The best rated players of this server"),
			sub("history", "The last games played",
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionUser, Name: "user", Description: "Whose games (default: yours)"},
			),
			sub("help", "How to play"),
		},
	}}
}
