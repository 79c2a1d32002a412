package store

import (
	"cmp"
	"context"
	"fmt"
	"time"
)

// The players who did best against the computer, for servers whose
// /ttt config counts those games on the leaderboard. Games against the
// computer are never rated; this ranks them by their record alone.

// compareComputer orders players by their record against the computer,
// best first: more wins, then more draws, then fewer losses, then the
// smaller user id (byte order), so that every store agrees.
func compareComputer(a, b *Stats) int {
	if c := cmp.Compare(b.Computer.Wins, a.Computer.Wins); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Computer.Draws, a.Computer.Draws); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Computer.Losses, b.Computer.Losses); c != 0 {
		return c
	}
	return cmp.Compare(a.UserID, b.UserID)
}

// ComputerLeaderboard returns the players of the guild with at least one
// game against the computer, best first by that record (most wins, then
// most draws, then fewest losses, then user id), Rank set to the place in
// that order; at most limit of them (limit <= 0: all). The computer's own
// user id has a record too (every game against it, from its side): the
// caller leaves it out. It reads the first limit of them in the order of
// an index (players_computer), not the whole guild.
func (s *sqlStore) ComputerLeaderboard(ctx context.Context, guildID string, limit int) (out []Stats, err error) {
	defer s.observe.done("computer_leaderboard", time.Now(), &err)
	out, err = s.ranked(ctx, `SELECT `+statsColumns+` FROM players WHERE guild_id = ? AND computer_games > 0
			ORDER BY computer_wins DESC, computer_draws DESC, computer_losses, user_id`, limit, guildID)
	if err != nil {
		return nil, fmt.Errorf("store: leaderboard against the computer of guild %q: %w", guildID, err)
	}
	return out, nil
}

// ComputerLeaderboard returns the players of the guild with at least one
// game against the computer, best first, Rank set; at most limit of them
// (limit <= 0: all). See sqlStore.ComputerLeaderboard.
func (m *Memory) ComputerLeaderboard(ctx context.Context, guildID string, limit int) (_ []Stats, err error) {
	defer m.observe.done("computer_leaderboard", time.Now(), &err)
	return m.ranked(guildID, func(s *Stats) bool { return s.Computer.Games > 0 }, compareComputer, limit), nil
}
