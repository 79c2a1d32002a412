package bot

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// Server settings, as /ttt config stores them (store.Settings) and as the
// bot applies them: each guild's timeouts replace those of Config.Table,
// its default board is the one of /ttt start without size or win, its
// channels are where games may start, its role may stop games, and it
// may show games against the computer on the leaderboard. A zero field
// is the bot's default. DMs have no settings: the defaults.

// settingsTTL is how long a guild's settings are used from memory. Every
// move needs them (the turn timeout sets the next deadline), so they are
// not read from the store each time. The process that saves a change
// updates its copy at once; other processes sharing the database
// (replicas) keep theirs, and so see the change within settingsTTL.
const settingsTTL = 30 * time.Second

// maxCachedSettings bounds the memory of the cache: a bot in many guilds
// keeps the settings of the most recently active ones.
const maxCachedSettings = 1 << 14

// settingsCache holds guilds' settings as read from the store, for
// settingsTTL, including those of guilds that have none (the zero
// Settings), so that a move reads nothing. The zero value is ready to use
// and safe for concurrent use.
type settingsCache struct {
	mu      sync.Mutex
	entries map[string]cachedSettings // by guild id
	// saves counts the saves of this process. A read from the store that
	// began before a save must not replace the saved settings with what
	// it read: it is dropped when saves moved on meanwhile.
	saves uint64
}

type cachedSettings struct {
	s  store.Settings // shared with callers, who must not change it
	at time.Time      // when it was read or saved
}

// get returns guildID's settings if they are at most settingsTTL old at
// now, and the save count to pass to put after reading the store.
func (c *settingsCache) get(guildID string, now time.Time) (s store.Settings, ok bool, saves uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[guildID]
	if ok && now.Sub(e.at) < settingsTTL && !now.Before(e.at) {
		return e.s, true, c.saves
	}
	return store.Settings{}, false, c.saves
}

// put keeps s, read at now, unless this process saved settings since
// saves was read from get.
func (c *settingsCache) put(s store.Settings, now time.Time, saves uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.saves == saves {
		c.setLocked(s, now)
	}
}

// keepSaved keeps s, which this process has just saved.
func (c *settingsCache) keepSaved(s store.Settings, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.saves++
	c.setLocked(s, now)
}

func (c *settingsCache) setLocked(s store.Settings, now time.Time) {
	if c.entries == nil {
		c.entries = make(map[string]cachedSettings)
	}
	if _, ok := c.entries[s.GuildID]; !ok && len(c.entries) >= maxCachedSettings {
		for id, e := range c.entries {
			if now.Sub(e.at) >= settingsTTL || now.Before(e.at) {
				delete(c.entries, id)
			}
		}
		for id := range c.entries {
			if len(c.entries) < maxCachedSettings {
				break
			}
			delete(c.entries, id) // all fresh: any one goes
		}
	}
	s.Channels = slices.Clip(slices.Clone(s.Channels))
	c.entries[s.GuildID] = cachedSettings{s: s, at: now}
}

// settings reads and saves guilds' settings, through a cache, and turns
// them into the rules of their games. It is safe for concurrent use.
type settings struct {
	store SettingsStore
	table table.Config // the bot's rules, which a guild's settings change
	// activity says the bot serves the live board (Config.Activity):
	// the boards it edits carry the Open board button.
	activity bool
	now      func() time.Time
	log      *slog.Logger
	cache    settingsCache // guilds' /ttt config, read on every move
}

// get returns the guild's settings: from memory when they were read
// or saved here less than settingsTTL ago, else from the store (one read,
// for a guild with settings or without). Outside a guild: the defaults.
// The caller must not change the result's Channels.
func (st *settings) get(ctx context.Context, guildID string) (store.Settings, error) {
	if guildID == "" {
		return store.Settings{}, nil
	}
	now := st.now()
	s, ok, saves := st.cache.get(guildID, now)
	if ok {
		return s, nil
	}
	s, err := st.store.Settings(ctx, guildID)
	if err != nil {
		return store.Settings{}, fmt.Errorf("read the settings of guild %s: %w", guildID, err)
	}
	st.cache.put(s, now, saves)
	return s, nil
}

// save stores s and makes it this process's copy at once.
func (st *settings) save(ctx context.Context, s store.Settings) error {
	if err := st.store.SaveSettings(ctx, s); err != nil {
		return fmt.Errorf("save the settings of guild %s: %w", s.GuildID, err)
	}
	st.cache.keepSaved(s, st.now())
	return nil
}

// rules returns the table rules in force in the guild, the bot's with the
// guild's timeouts, and the guild's settings.
func (st *settings) rules(ctx context.Context, guildID string) (table.Config, store.Settings, error) {
	s, err := st.get(ctx, guildID)
	if err != nil {
		return table.Config{}, store.Settings{}, err
	}
	return st.tableConfig(s), s, nil
}

// rulesFor returns the rules of a game played through req: the guild's
// (rules), with turns of at most MaxTimeout where req does not show the bot
// able to reach the channel.
func (st *settings) rulesFor(ctx context.Context, req *request) (table.Config, store.Settings, error) {
	tc, s, err := st.rules(ctx, req.GuildID)
	if err == nil && tc.TurnTimeout > MaxTimeout && !hasChannel(req.Interaction) {
		tc.TurnTimeout = MaxTimeout
	}
	return tc, s, err
}

// tableConfig is the bot's table.Config with s's timeouts, where s has
// them; a stored timeout out of the bot's limits (set by hand in the
// database, or by a version with other limits) is not used. A turn may be
// as long as MaxTurnTimeout here: rulesFor caps it where the bot cannot
// reach the channel.
func (st *settings) tableConfig(s store.Settings) table.Config {
	cfg := st.table
	if s.TurnTimeout >= MinTimeout && s.TurnTimeout <= MaxTurnTimeout {
		cfg.TurnTimeout = s.TurnTimeout
	}
	if s.ChallengeTimeout >= MinChallengeTimeout && s.ChallengeTimeout <= MaxTimeout {
		cfg.ChallengeTimeout = s.ChallengeTimeout
	}
	return cfg
}

// mayStop refuses /ttt stop to a member who has neither Manage Messages
// (or Administrator) nor the guild's stop role.
func (st *settings) mayStop(ctx context.Context, req *request) error {
	if canModerate(req) {
		return nil
	}
	s, err := st.get(ctx, req.GuildID)
	if err != nil {
		return err
	}
	if s.StopRole == "" {
		return refuse("stop.not_allowed", nil)
	}
	if req.Member != nil && slices.Contains(req.Member.Roles, s.StopRole) {
		return nil
	}
	return refuse("stop.not_allowed_role", map[string]any{"Role": "<@&" + s.StopRole + ">"})
}

// canModerate says whether the member may stop other people's games.
func canModerate(req *request) bool {
	return req.Member != nil && req.Member.Permissions&(discordgo.PermissionManageMessages|discordgo.PermissionAdministrator) != 0
}

// pictureAbove is the largest board never shown as a picture: up to 8×8
// the emoji grid stays readable on a phone.
const pictureAbove = 8

// pictured says whether m's board is shown as a picture in a guild with
// settings s: a board bigger than MaxEmojiSize always is, whatever the
// guild's pictures setting (it has no emoji grid); one bigger than
// pictureAbove is if the guild turned pictures on.
func pictured(s store.Settings, m *table.Match) bool {
	n := m.Judge.Size()
	return n > MaxEmojiSize || s.Pictures && n > pictureAbove
}

// showsPicture says whether m's board is shown as a picture in the guild.
// Only for a board bigger than pictureAbove, and no bigger than
// MaxEmojiSize, does it read the guild's settings (from memory, mostly);
// if they cannot be read, such a board is emoji.
func (st *settings) showsPicture(ctx context.Context, guildID string, m *table.Match) bool {
	switch n := m.Judge.Size(); {
	case n <= pictureAbove:
		return false
	case n > MaxEmojiSize:
		return true
	}
	s, err := st.get(ctx, guildID)
	if err != nil {
		st.log.Warn("could not tell whether a board is a picture; it stays an emoji board", "guild", guildID, "err", err)
		return false
	}
	return pictured(s, m)
}

// reminds says whether the guild reminds players to move (/ttt config
// reminders, on by default); if its settings cannot be read, it does.
func (st *settings) reminds(ctx context.Context, guildID string) bool {
	s, err := st.get(ctx, guildID)
	if err != nil {
		st.log.Warn("could not tell whether the server has reminders; reminding", "guild", guildID, "err", err)
		return true
	}
	return !s.NoReminders
}

// defaultSize is the board size of /ttt start without size in a guild
// with settings s.
func defaultSize(s store.Settings) int {
	if s.Size >= MinSize && s.Size <= MaxSize {
		return s.Size
	}
	return DefaultSize
}

// channelAllowed refuses a new game in a channel where the guild's
// settings s do not allow games, naming the channels that do.
func channelAllowed(s store.Settings, channelID string) error {
	if s.AllowsChannel(channelID) {
		return nil
	}
	return refuse("start.channel_not_allowed", map[string]any{"Channels": channelMentions(s.Channels)})
}

// channelMentions writes channel ids as mentions, separated by commas,
// which read the same in every language the bot speaks.
func channelMentions(ids []string) string {
	ms := make([]string, len(ids))
	for i, id := range ids {
		ms[i] = "<#" + id + ">"
	}
	return strings.Join(ms, ", ")
}
