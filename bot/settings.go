package bot

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

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

// saved keeps s, which this process has just saved.
func (c *settingsCache) saved(s store.Settings, now time.Time) {
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

// settings returns the guild's settings: from memory when they were read
// or saved here less than settingsTTL ago, else from the store (one read,
// for a guild with settings or without). Outside a guild: the defaults.
// The caller must not change the result's Channels.
func (b *Bot) settings(ctx context.Context, guildID string) (store.Settings, error) {
	if guildID == "" {
		return store.Settings{}, nil
	}
	now := b.now()
	s, ok, saves := b.settingsCache.get(guildID, now)
	if ok {
		return s, nil
	}
	s, err := b.store.Settings(ctx, guildID)
	if err != nil {
		return store.Settings{}, fmt.Errorf("read the settings of guild %s: %w", guildID, err)
	}
	b.settingsCache.put(s, now, saves)
	return s, nil
}

// saveSettings stores s and makes it this process's copy at once.
func (b *Bot) saveSettings(ctx context.Context, s store.Settings) error {
	if err := b.store.SaveSettings(ctx, s); err != nil {
		return fmt.Errorf("save the settings of guild %s: %w", s.GuildID, err)
	}
	b.settingsCache.saved(s, b.now())
	return nil
}

// rules returns the table rules in force in the guild, the bot's with the
// guild's timeouts, and the guild's settings.
func (b *Bot) rules(ctx context.Context, guildID string) (table.Config, store.Settings, error) {
	s, err := b.settings(ctx, guildID)
	if err != nil {
		return table.Config{}, store.Settings{}, err
	}
	return b.tableConfig(s), s, nil
}

// tableConfig is the bot's table.Config with s's timeouts, where s has
// them; a stored timeout out of the bot's limits (set by hand in the
// database, or by a version with other limits) is not used. A turn may be
// as long as MaxTurnTimeout here: rulesFor caps it where the bot cannot
// reach the channel.
func (b *Bot) tableConfig(s store.Settings) table.Config {
	cfg := b.cfg.Table
	if s.TurnTimeout >= MinTimeout && s.TurnTimeout <= MaxTurnTimeout {
		cfg.TurnTimeout = s.TurnTimeout
	}
	if s.ChallengeTimeout >= MinChallengeTimeout && s.ChallengeTimeout <= MaxTimeout {
		cfg.ChallengeTimeout = s.ChallengeTimeout
	}
	return cfg
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

// mayStop refuses /ttt stop to a member who has neither Manage Messages
// (or Administrator) nor the guild's stop role.
func (b *Bot) mayStop(ctx context.Context, req *request) error {
	if canModerate(req) {
		return nil
	}
	s, err := b.settings(ctx, req.GuildID)
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

// channelMentions writes channel ids as mentions, separated by commas,
// which read the same in every language the bot speaks.
func channelMentions(ids []string) string {
	ms := make([]string, len(ids))
	for i, id := range ids {
		ms[i] = "<#" + id + ">"
	}
	return strings.Join(ms, ", ")
}
