package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Settings are one server's choices, made with /ttt config. The zero value
// of each field means the bot's default, so a server that never chose
// anything has the zero Settings (with its GuildID).
type Settings struct {
	GuildID          string
	TurnTimeout      time.Duration // whole seconds
	ChallengeTimeout time.Duration // whole seconds
	Size, Win        int           // of a game started without them
	// Channels are the channels where games may be played, sorted; none
	// means every channel.
	Channels []string
	// StopRole is a role whose members may stop games, besides those with
	// Manage Messages; empty: none.
	StopRole string
	// ComputerRanked makes games against the computer count on the
	// leaderboard.
	ComputerRanked bool
	// Pictures shows boards too big for buttons as a PNG picture instead
	// of an emoji grid: each board costs the bot a drawing and an upload,
	// so it is off unless a server turns it on.
	Pictures bool
	// NoReminders turns off the reminder a player to move gets when half
	// of their time has passed: reminders are on unless a server turns
	// them off.
	NoReminders bool
	UpdatedBy   string
	UpdatedAt   time.Time
}

// AllowsChannel reports whether games may be played in the channel.
func (s *Settings) AllowsChannel(channelID string) bool {
	return len(s.Channels) == 0 || slices.Contains(s.Channels, channelID)
}

// normalizeSettings returns s as a store keeps it: seconds, sorted unique
// channels, UTC microseconds, no memory shared with s.
func normalizeSettings(s Settings) Settings {
	s.TurnTimeout = s.TurnTimeout.Truncate(time.Second)
	s.ChallengeTimeout = s.ChallengeTimeout.Truncate(time.Second)
	s.Channels = slices.Compact(slices.Sorted(slices.Values(s.Channels)))
	if len(s.Channels) == 0 {
		s.Channels = nil
	}
	s.UpdatedAt = storeTime(s.UpdatedAt)
	return s
}

func checkSettings(s Settings) error {
	switch {
	case s.GuildID == "":
		return errors.New("store: save settings: no guild")
	case s.TurnTimeout < 0 || s.ChallengeTimeout < 0 || s.Size < 0 || s.Win < 0:
		return fmt.Errorf("store: save settings of guild %s: negative value", s.GuildID)
	}
	for _, c := range s.Channels {
		if c == "" || strings.ContainsRune(c, ' ') {
			return fmt.Errorf("store: save settings of guild %s: bad channel id %q", s.GuildID, c)
		}
	}
	return nil
}

const settingsColumns = `guild_id, turn_timeout, challenge_timeout, size, win, channels, stop_role, computer_ranked, pictures, no_reminders, updated_by, updated_at`

// Settings returns the guild's settings; a guild that has none gets the
// zero Settings with its GuildID.
func (s *sqlStore) Settings(ctx context.Context, guildID string) (st Settings, err error) {
	defer s.observe.done("settings", time.Now(), &err)
	st, err = s.readSettings(ctx, guildID)
	if err != nil {
		return Settings{}, fmt.Errorf("store: settings of guild %s: %w", guildID, err)
	}
	return st, nil
}

func (s *sqlStore) readSettings(ctx context.Context, guildID string) (st Settings, err error) {
	err = s.direct(ctx, func(t tx) error {
		var turn, challenge, updated int64
		var channels string
		err := t.queryRow(ctx, `SELECT `+settingsColumns+` FROM settings WHERE guild_id = ?`, guildID).Scan(
			&st.GuildID, &turn, &challenge, &st.Size, &st.Win, &channels, &st.StopRole, &st.ComputerRanked, &st.Pictures, &st.NoReminders, &st.UpdatedBy, &updated)
		if errors.Is(err, errNoRows) {
			st = Settings{GuildID: guildID}
			return nil
		}
		if err != nil {
			return err
		}
		st.TurnTimeout, st.ChallengeTimeout = time.Duration(turn)*time.Second, time.Duration(challenge)*time.Second
		if channels != "" {
			st.Channels = strings.Fields(channels)
		}
		st.UpdatedAt = time.UnixMicro(updated).UTC()
		return nil
	})
	return st, err
}

// SaveSettings stores the guild's settings, replacing what it had. A
// commit whose answer was lost is resolved by reading the settings back:
// nil if they are stored as given, a plain error if not.
func (s *sqlStore) SaveSettings(ctx context.Context, st Settings) (err error) {
	defer s.observe.done("save_settings", time.Now(), &err)
	if err := checkSettings(st); err != nil {
		return err
	}
	st = normalizeSettings(st)
	err = s.write(ctx, func(t tx) error {
		_, err := t.exec(ctx, `INSERT INTO settings (`+settingsColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (guild_id) DO UPDATE SET turn_timeout = excluded.turn_timeout, challenge_timeout = excluded.challenge_timeout,
			size = excluded.size, win = excluded.win, channels = excluded.channels, stop_role = excluded.stop_role,
			computer_ranked = excluded.computer_ranked, pictures = excluded.pictures, no_reminders = excluded.no_reminders, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
			st.GuildID, int64(st.TurnTimeout/time.Second), int64(st.ChallengeTimeout/time.Second), st.Size, st.Win,
			strings.Join(st.Channels, " "), st.StopRole, st.ComputerRanked, st.Pictures, st.NoReminders, st.UpdatedBy, st.UpdatedAt.UnixMicro())
		return err
	})
	if errors.Is(err, ErrOutcomeUnknown) {
		err = s.resolve(ctx, err, func(ctx context.Context) (bool, error) {
			got, err := s.readSettings(ctx, st.GuildID)
			return reflect.DeepEqual(got, st), err
		})
	}
	if err != nil {
		return fmt.Errorf("store: save settings of guild %s: %w", st.GuildID, err)
	}
	return nil
}

// resolve finds out whether a write whose COMMIT went unanswered (err,
// wrapping ErrOutcomeUnknown) was made: once the transaction is over
// (settled), made looks at the database and says whether the write is
// there. It returns nil if it is, a plain error if it is not (the commit
// failed and nothing changed, or, as for any write, another one replaced
// it since), and err if it cannot tell: the transaction does not settle,
// or made fails (a save's outcome, say, when another save changed the
// game since).
func (s *sqlStore) resolve(ctx context.Context, err error, made func(ctx context.Context) (bool, error)) error {
	if s.settled == nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	if s.settled(ctx, err) != nil {
		return err
	}
	ok, rerr := made(ctx)
	switch {
	case rerr != nil:
		return err
	case ok:
		return nil
	}
	cause := err
	var cu *commitUnknown
	if errors.As(err, &cu) {
		cause = cu.err
	}
	return fmt.Errorf("commit failed, nothing changed: %w", cause)
}

// Settings returns the guild's settings; a guild that has none gets the
// zero Settings with its GuildID.
func (m *Memory) Settings(ctx context.Context, guildID string) (_ Settings, err error) {
	defer m.observe.done("settings", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.settings[guildID]
	if !ok {
		return Settings{GuildID: guildID}, nil
	}
	st.Channels = slices.Clone(st.Channels)
	return st, nil
}

// SaveSettings stores the guild's settings, replacing what it had.
func (m *Memory) SaveSettings(ctx context.Context, st Settings) (err error) {
	defer m.observe.done("save_settings", time.Now(), &err)
	if err := checkSettings(st); err != nil {
		return err
	}
	st = normalizeSettings(st)
	st.Channels = slices.Clone(st.Channels)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.settings == nil {
		m.settings = make(map[string]Settings)
	}
	m.settings[st.GuildID] = st
	return nil
}
