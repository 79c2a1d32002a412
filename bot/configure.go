package bot

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/i18n"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// /ttt config shows a server's settings and changes them (settings.go
// applies them). Every option is optional: without any, it only shows
// them. Timeouts are whole seconds; channels is `all` or channel
// mentions; stop_role_clear:true removes the stop role; reset:true goes
// back to the defaults, and the other options given with it apply after.

// canConfigure says whether the member may use /ttt config: Manage Server
// or Administrator, in the permissions Discord computed for them in this
// channel (the interaction's member.permissions).
//
// Discord's default_member_permissions would hide the command from
// everyone else, but it applies to a whole top-level command, never to one
// of its subcommands, and /ttt must stay usable by everyone. So config is a
// subcommand that everyone sees, and this check is what keeps it to the
// server's managers.
func canConfigure(req *request) bool {
	return req.Member != nil && req.Member.Permissions&(discordgo.PermissionManageServer|discordgo.PermissionAdministrator) != 0
}

// configure answers /ttt config, ephemerally: the server's settings, and
// after a change the same summary marking what changed. The change starts
// from the settings as stored, not as cached, so that it builds on the
// latest save of any process; two managers saving at the same moment on
// two processes: the last save wins.
func (b *Bot) configure(ctx context.Context, req *request) error {
	if req.GuildID == "" || req.Member == nil {
		return refuse("config.dm", nil)
	}
	if !canConfigure(req) {
		return refuse("config.not_allowed", nil)
	}
	sub, err := subcommand(req.commandData())
	if err != nil {
		return err
	}
	change, err := decodeConfig(sub)
	if err != nil {
		return err
	}
	if change.stopRole != nil && *change.stopRole == req.GuildID {
		// @everyone's id is the guild's. Every member has it, but
		// Discord does not list it among a member's roles: it would
		// stop nothing, and if it did it would let anyone stop games.
		return refuse("config.stop_role_everyone", nil)
	}
	cur, err := b.stores.Settings.Settings(ctx, req.GuildID)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	next, err := change.apply(cur, b.cfg.Table)
	if err != nil {
		return err
	}
	changed := changedSettings(cur, next)
	header := "config.title"
	switch {
	case len(sub.Options) == 0:
	case len(changed) == 0:
		header = "config.unchanged"
	default:
		next.UpdatedBy, next.UpdatedAt = req.user.ID, b.cfg.Now()
		if err := b.settings.save(ctx, next); err != nil {
			return err
		}
		header = "config.saved"
		if change.reset {
			header = "config.reset"
		}
	}
	return req.say(ctx, b.settings.summary(req.lang, header, next, cur, changed))
}

// configChange is what the options of one /ttt config ask for: each field
// that is not nil is a new value.
type configChange struct {
	reset            bool
	turnTimeout      *time.Duration
	challengeTimeout *time.Duration
	size, win        *int
	channels         *[]string // empty: every channel
	stopRole         *string   // "": none
	computerRanked   *bool
	pictures         *bool
	reminders        *bool
}

// decodeConfig reads and checks the options of /ttt config.
func decodeConfig(sub *discordgo.ApplicationCommandInteractionDataOption) (configChange, error) {
	var c configChange
	seconds := func(name string, lo, hi time.Duration) (*time.Duration, error) {
		if findOption(sub, name) == nil {
			return nil, nil
		}
		n, err := intOption(sub, name, 0, int(lo/time.Second), int(hi/time.Second))
		if err != nil {
			return nil, err
		}
		d := time.Duration(n) * time.Second
		return &d, nil
	}
	integer := func(name string, lo, hi int) (*int, error) {
		if findOption(sub, name) == nil {
			return nil, nil
		}
		n, err := intOption(sub, name, 0, lo, hi)
		return &n, err
	}
	var err error
	if c.reset, err = boolOption(sub, "reset"); err != nil {
		return c, err
	}
	if c.turnTimeout, err = seconds("turn_timeout", MinTimeout, MaxTurnTimeout); err != nil {
		return c, err
	}
	if c.challengeTimeout, err = seconds("challenge_timeout", MinChallengeTimeout, MaxTimeout); err != nil {
		return c, err
	}
	if c.size, err = integer("size", MinSize, MaxSize); err != nil {
		return c, err
	}
	if c.win, err = integer("win", MinWin, MaxSize); err != nil {
		return c, err
	}
	if o := findOption(sub, "channels"); o != nil {
		s, ok := o.Value.(string)
		if o.Type != discordgo.ApplicationCommandOptionString || !ok {
			return c, refuse("option.bad_value", map[string]any{"Option": optionName(sub, "channels")})
		}
		ids, err := parseChannels(s)
		if err != nil {
			return c, err
		}
		c.channels = &ids
	}
	if o := findOption(sub, "stop_role"); o != nil {
		id, _ := o.Value.(string)
		if o.Type != discordgo.ApplicationCommandOptionRole || !snowflake(id) {
			return c, refuse("option.bad_value", map[string]any{"Option": optionName(sub, "stop_role")})
		}
		c.stopRole = &id
	}
	clear, err := boolOption(sub, "stop_role_clear")
	if err != nil {
		return c, err
	}
	if clear {
		if c.stopRole != nil {
			return c, refuse("config.stop_role_both", nil)
		}
		none := ""
		c.stopRole = &none
	}
	for _, o := range []struct {
		name string
		dst  **bool
	}{{"computer_ranked", &c.computerRanked}, {"pictures", &c.pictures}, {"reminders", &c.reminders}} {
		if findOption(sub, o.name) == nil {
			continue
		}
		on, err := boolOption(sub, o.name)
		if err != nil {
			return c, err
		}
		*o.dst = &on
	}
	return c, nil
}

// boolOption returns the boolean option name, false when it is absent.
func boolOption(sub *discordgo.ApplicationCommandInteractionDataOption, name string) (bool, error) {
	o := findOption(sub, name)
	if o == nil {
		return false, nil
	}
	v, ok := o.Value.(bool)
	if o.Type != discordgo.ApplicationCommandOptionBoolean || !ok {
		return false, refuse("option.bad_value", map[string]any{"Option": optionName(sub, name)})
	}
	return v, nil
}

// snowflake says whether s looks like a Discord id.
func snowflake(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// parseChannels reads the channels option: `all` (nil), or channel
// mentions <#id>, as Discord's client writes a channel picked after #,
// separated by spaces or commas; sorted, each once. The ids are not
// checked against the server's channels: Discord does not resolve
// mentions in a string option, and one that names no channel of the
// server only allows games nowhere else.
func parseChannels(s string) ([]string, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ',' })
	if len(fields) == 1 && strings.EqualFold(fields[0], "all") {
		return nil, nil
	}
	if len(fields) == 0 {
		return nil, refuse("config.bad_channels", map[string]any{"Value": "“”"})
	}
	ids := make([]string, 0, len(fields))
	for _, f := range fields {
		id, ok := strings.CutPrefix(f, "<#")
		id, ok2 := strings.CutSuffix(id, ">")
		if !ok || !ok2 || !snowflake(id) {
			return nil, refuse("config.bad_channels", map[string]any{"Value": "“" + truncate(f, 40) + "”"})
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) > maxChannels {
		return nil, refuse("config.too_many_channels", map[string]any{"Max": maxChannels, "Given": len(ids)})
	}
	return ids, nil
}

// truncate cuts s to at most n code points, marking a cut with "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// apply returns cur changed as c asks, or refuses a default win length
// longer than the default board size (the state stays as it was). A
// timeout or size equal to the bot's default (def, DefaultSize) is stored
// as the default, zero, so that it follows the bot's default.
func (c configChange) apply(cur store.Settings, def table.Config) (store.Settings, error) {
	next := cur
	next.Channels = slices.Clone(cur.Channels)
	if c.reset {
		next = store.Settings{GuildID: cur.GuildID, UpdatedBy: cur.UpdatedBy, UpdatedAt: cur.UpdatedAt}
	}
	orZero := func(v, def time.Duration) time.Duration {
		if v == def {
			return 0
		}
		return v
	}
	if c.turnTimeout != nil {
		next.TurnTimeout = orZero(*c.turnTimeout, def.TurnTimeout)
	}
	if c.challengeTimeout != nil {
		next.ChallengeTimeout = orZero(*c.challengeTimeout, def.ChallengeTimeout)
	}
	if c.size != nil {
		next.Size = *c.size
		if next.Size == DefaultSize {
			next.Size = 0
		}
	}
	if c.win != nil {
		next.Win = *c.win
	}
	if c.channels != nil {
		next.Channels = *c.channels
	}
	if c.stopRole != nil {
		next.StopRole = *c.stopRole
	}
	if c.computerRanked != nil {
		next.ComputerRanked = *c.computerRanked
	}
	if c.pictures != nil {
		next.Pictures = *c.pictures
	}
	if c.reminders != nil {
		next.NoReminders = !*c.reminders
	}
	if size := defaultSize(next); next.Win > size {
		return cur, refuse("config.win_too_long", map[string]any{"Win": next.Win, "Size": size})
	}
	return next, nil
}

// configSettings are the settings in the order the summary lists them;
// each is named after the option that sets it.
var configSettings = [...]string{"turn_timeout", "challenge_timeout", "size", "win", "channels", "stop_role", "computer_ranked", "pictures", "reminders"}

// changedSettings returns the names of the settings that differ between a
// and b.
func changedSettings(a, b store.Settings) []string {
	differs := map[string]bool{
		"turn_timeout":      a.TurnTimeout != b.TurnTimeout,
		"challenge_timeout": a.ChallengeTimeout != b.ChallengeTimeout,
		"size":              a.Size != b.Size,
		"win":               a.Win != b.Win,
		"channels":          !slices.Equal(a.Channels, b.Channels),
		"stop_role":         a.StopRole != b.StopRole,
		"computer_ranked":   a.ComputerRanked != b.ComputerRanked,
		"pictures":          a.Pictures != b.Pictures,
		"reminders":         a.NoReminders != b.NoReminders,
	}
	var out []string
	for _, name := range configSettings {
		if differs[name] {
			out = append(out, name)
		}
	}
	return out
}

// value writes the setting name of s as it applies, in l's
// language, and says whether it is the bot's default.
func (st *settings) value(l *i18n.Language, s store.Settings, name string) (value string, isDefault bool) {
	cfg := st.tableConfig(s)
	switch name {
	case "turn_timeout":
		return humanDuration(l, cfg.TurnTimeout), cfg.TurnTimeout == st.table.TurnTimeout
	case "challenge_timeout":
		return humanDuration(l, cfg.ChallengeTimeout), cfg.ChallengeTimeout == st.table.ChallengeTimeout
	case "size":
		n := defaultSize(s)
		return fmt.Sprintf("%d×%d", n, n), n == DefaultSize
	case "win":
		if s.Win < MinWin {
			return l.T("config.value.win_size", nil), true
		}
		return strconv.Itoa(s.Win), false
	case "channels":
		if len(s.Channels) == 0 {
			return l.T("config.value.all_channels", nil), true
		}
		return channelMentions(s.Channels), false
	case "stop_role":
		if s.StopRole == "" {
			return l.T("config.value.no_role", nil), true
		}
		return "<@&" + s.StopRole + ">", false
	case "computer_ranked":
		return yesNo(l, s.ComputerRanked)
	case "pictures":
		return yesNo(l, s.Pictures)
	case "reminders":
		v, _ := yesNo(l, !s.NoReminders)
		return v, !s.NoReminders // on by default
	}
	return "", false
}

// yesNo writes a setting that is on or off, off being the default.
func yesNo(l *i18n.Language, on bool) (value string, isDefault bool) {
	if on {
		return l.T("config.value.yes", nil), false
	}
	return l.T("config.value.no", nil), true
}

// summary writes the summary of s in l's language under the
// catalog's text header: a line per setting with its value and whether it
// is the default, the settings named in changed marked with their value in
// prev, then who changed them last and how to change them.
func (st *settings) summary(l *i18n.Language, header string, s, prev store.Settings, changed []string) string {
	lines := []string{l.T(header, nil)}
	for _, name := range configSettings {
		value, isDefault := st.value(l, s, name)
		data := map[string]any{"Setting": l.T("config.setting."+name, nil), "Value": value}
		key := "config.line"
		if slices.Contains(changed, name) {
			key += "_changed"
			data["Old"], _ = st.value(l, prev, name)
		}
		if isDefault {
			key += "_default"
		}
		lines = append(lines, l.T(key, data))
	}
	if st.tableConfig(s).TurnTimeout > MaxTimeout {
		// Not in every channel, nor for every install (rulesFor).
		lines = append(lines, l.T("config.turn_timeout_long", map[string]any{"Max": humanDuration(l, MaxTimeout)}))
	}
	if s.UpdatedBy != "" {
		lines = append(lines, l.T("config.updated", map[string]any{"User": mention(s.UpdatedBy), "At": s.UpdatedAt.Unix()}))
	}
	lines = append(lines, l.T("config.hint", nil))
	return strings.Join(lines, "\n")
}
