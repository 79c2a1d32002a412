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
		return nil, refuse("option.no_subcommand", nil)
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

// optionName is the name of option name of subcommand sub, as a text:
// players see the option names of their language.
func optionName(sub *discordgo.ApplicationCommandInteractionDataOption, name string) text {
	return text{key: "command.ttt." + sub.Name + "." + name + ".name"}
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
		return 0, refuse("option.not_integer", map[string]any{"Option": optionName(sub, name), "Min": lo, "Max": hi})
	}
	if f < float64(lo) || f > float64(hi) {
		return 0, refuse("option.out_of_range", map[string]any{"Option": optionName(sub, name), "Min": lo, "Max": hi,
			"Value": strconv.FormatFloat(f, 'f', -1, 64)})
	}
	return int(f), nil
}

// startOptions are the options of /ttt start, decoded and checked.
type startOptions struct {
	opponent *discordgo.User // nil: play the computer
	size     int
	win      int
	level    game.Level
	open     bool // a challenge anyone in the channel may take
}

// decodeStart reads the options of /ttt start. Without size, the board is
// defSize; without win, the win length is defWin, at most the board's
// size (a server's default must not refuse the size a player chose), or
// the size when defWin is 0.
func decodeStart(data discordgo.ApplicationCommandInteractionData, sub *discordgo.ApplicationCommandInteractionDataOption, defSize, defWin int) (startOptions, error) {
	var so startOptions
	var err error
	if so.size, err = intOption(sub, "size", defSize, MinSize, MaxSize); err != nil {
		return so, err
	}
	win := so.size
	if defWin >= MinWin {
		win = min(defWin, so.size)
	}
	if so.win, err = intOption(sub, "win", win, MinWin, MaxSize); err != nil {
		return so, err
	}
	if so.win > so.size {
		return so, refuse("option.win_too_long", map[string]any{"Win": so.win, "Size": so.size})
	}
	so.level = game.Hard
	if o := findOption(sub, "difficulty"); o != nil {
		s, _ := o.Value.(string)
		if so.level, err = game.ParseLevel(s); err != nil {
			return so, refuse("option.bad_difficulty", nil)
		}
	}
	if so.opponent, err = userOption(data, sub, "opponent"); err != nil {
		return so, err
	}
	if o := findOption(sub, "open"); o != nil {
		so.open, _ = o.Value.(bool)
	}
	if so.open && so.opponent != nil {
		return so, refuse("start.open_and_opponent", nil)
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
		return nil, refuse("option.not_member", map[string]any{"Option": optionName(sub, name)})
	}
	var u *discordgo.User
	if data.Resolved != nil {
		u = data.Resolved.Users[id]
	}
	if u == nil {
		// Discord always resolves user options; without it we cannot
		// tell a bot from a person, so we do not guess.
		return nil, refuse("option.unknown_user", map[string]any{"User": mention(id), "Option": optionName(sub, name)})
	}
	return u, nil
}

// decodeMove returns the 1-based row and column of /ttt move; their upper
// bound is checked against the board by the caller.
func decodeMove(sub *discordgo.ApplicationCommandInteractionDataOption) (row, col int, err error) {
	if findOption(sub, "row") == nil || findOption(sub, "col") == nil {
		return 0, 0, refuse("option.move_incomplete", nil)
	}
	if row, err = intOption(sub, "row", 0, 1, MaxSize); err != nil {
		return 0, 0, err
	}
	if col, err = intOption(sub, "col", 0, 1, MaxSize); err != nil {
		return 0, 0, err
	}
	return row, col, nil
}
