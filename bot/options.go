package bot

import (
	"math"
	"strconv"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
)

// Option decoding. discordgo's IntValue and friends panic on a type they do
// not expect; these functions never do: anything unexpected is a userError.

// subcommand returns the subcommand option of a /ttt interaction.
func subcommand(data discordgo.ApplicationCommandInteractionData) (*discordgo.ApplicationCommandInteractionDataOption, error) {
	if len(data.Options) != 1 || data.Options[0] == nil || data.Options[0].Type != discordgo.ApplicationCommandOptionSubCommand {
		return nil, userError("Use /ttt with a subcommand, such as `/ttt start` or `/ttt help`.")
	}
	return data.Options[0], nil
}

func findOption(sub *discordgo.ApplicationCommandInteractionDataOption, name string) *discordgo.ApplicationCommandInteractionDataOption {
	for _, o := range sub.Options {
		if o != nil && o.Name == name {
			return o
		}
	}
	return nil
}

// intOption returns the integer option name, or def when it is absent; it
// refuses values outside lo..hi with a message that names the option.
func intOption(sub *discordgo.ApplicationCommandInteractionDataOption, name string, def, lo, hi int) (int, error) {
	o := findOption(sub, name)
	if o == nil {
		return def, nil
	}
	f, ok := o.Value.(float64) // JSON numbers decode as float64
	if o.Type != discordgo.ApplicationCommandOptionInteger || !ok || f != math.Trunc(f) {
		return 0, sayf("`%s` must be a whole number from %d to %d.", name, lo, hi)
	}
	if f < float64(lo) || f > float64(hi) {
		return 0, sayf("`%s` must be from %d to %d; you gave %s.", name, lo, hi, strconv.FormatFloat(f, 'f', -1, 64))
	}
	return int(f), nil
}

// startOptions are the options of /ttt start, decoded and checked.
type startOptions struct {
	opponent *discordgo.User // nil: play the computer
	size     int
	win      int
	level    game.Level
}

func decodeStart(data discordgo.ApplicationCommandInteractionData, sub *discordgo.ApplicationCommandInteractionDataOption) (startOptions, error) {
	var so startOptions
	var err error
	if so.size, err = intOption(sub, "size", DefaultSize, MinSize, MaxSize); err != nil {
		return so, err
	}
	if so.win, err = intOption(sub, "win", so.size, MinWin, MaxSize); err != nil {
		return so, err
	}
	if so.win > so.size {
		return so, sayf("`win` can't be more than the board size: %d in a row doesn't fit on a %d×%d board.", so.win, so.size, so.size)
	}
	so.level = game.Hard
	if o := findOption(sub, "difficulty"); o != nil {
		s, _ := o.Value.(string)
		if so.level, err = game.ParseLevel(s); err != nil {
			return so, sayf("`difficulty` must be easy, medium or hard.")
		}
	}
	if so.opponent, err = userOption(data, sub, "opponent"); err != nil {
		return so, err
	}
	return so, nil
}

// userOption returns the user named by option name, or nil if it is absent.
func userOption(data discordgo.ApplicationCommandInteractionData, sub *discordgo.ApplicationCommandInteractionDataOption, name string) (*discordgo.User, error) {
	o := findOption(sub, name)
	if o == nil {
		return nil, nil
	}
	id, _ := o.Value.(string)
	if o.Type != discordgo.ApplicationCommandOptionUser || id == "" {
		return nil, sayf("`%s` must be a member of this server.", name)
	}
	var u *discordgo.User
	if data.Resolved != nil {
		u = data.Resolved.Users[id]
	}
	if u == nil {
		// Discord always resolves user options; without it we cannot
		// tell a bot from a person, so we do not guess.
		return nil, sayf("I couldn't see who %s is. Please pick the %s again.", mention(id), name)
	}
	return u, nil
}

// decodeMove returns the 1-based row and column of /ttt move; their upper
// bound is checked against the board by the caller.
func decodeMove(sub *discordgo.ApplicationCommandInteractionDataOption) (row, col int, err error) {
	if findOption(sub, "row") == nil || findOption(sub, "col") == nil {
		return 0, 0, sayf("Give both a row and a column, like `/ttt move row:2 col:3`.")
	}
	if row, err = intOption(sub, "row", 0, 1, MaxSize); err != nil {
		return 0, 0, err
	}
	if col, err = intOption(sub, "col", 0, 1, MaxSize); err != nil {
		return 0, 0, err
	}
	return row, col, nil
}
