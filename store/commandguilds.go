package store

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"
)

// CommandGuilds returns the guilds that hold a copy of the commands of
// their own (see SetCommandGuild), sorted.
func (s *sqlStore) CommandGuilds(ctx context.Context) (_ []string, err error) {
	defer s.observe.done("command_guilds", time.Now(), &err)
	guilds, err := s.column(ctx, `SELECT guild_id FROM command_guilds ORDER BY guild_id`)
	if err != nil {
		return nil, fmt.Errorf("store: command guilds: %w", err)
	}
	return guilds, nil
}

// SetCommandGuild records whether the guild holds a copy of the commands of
// its own.
func (s *sqlStore) SetCommandGuild(ctx context.Context, guildID string, registered bool) (err error) {
	defer s.observe.done("set_command_guild", time.Now(), &err)
	err = s.write(ctx, func(t tx) error {
		var err error
		if registered {
			_, err = t.exec(ctx, `INSERT INTO command_guilds (guild_id) VALUES (?) ON CONFLICT DO NOTHING`, guildID)
		} else {
			_, err = t.exec(ctx, `DELETE FROM command_guilds WHERE guild_id = ?`, guildID)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store: set command guild %s: %w", guildID, err)
	}
	return nil
}

// CommandGuilds returns the guilds that hold a copy of the commands of
// their own (see SetCommandGuild), sorted.
func (m *Memory) CommandGuilds(ctx context.Context) (_ []string, err error) {
	defer m.observe.done("command_guilds", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.commandGuilds) == 0 {
		return nil, nil
	}
	return slices.Sorted(maps.Keys(m.commandGuilds)), nil
}

// SetCommandGuild records whether the guild holds a copy of the commands of
// its own.
func (m *Memory) SetCommandGuild(ctx context.Context, guildID string, registered bool) (err error) {
	defer m.observe.done("set_command_guild", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	if !registered {
		delete(m.commandGuilds, guildID)
		return nil
	}
	if m.commandGuilds == nil {
		m.commandGuilds = make(map[string]bool)
	}
	m.commandGuilds[guildID] = true
	return nil
}
