package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tttbot/tttbot/game"
)

// Memory is a store that keeps everything in memory, with the same
// semantics as the SQLite and PostgreSQL stores: for unit tests of the
// bot, and for running without a disk.
//
// The zero Memory is an empty store, ready to use. A Memory is safe for
// concurrent use; each method holds one lock for its whole call, so saves
// are atomic. Games and stats are copied in and out: nothing returned
// shares memory with the store. Current, Game and Save cost O(moves of the
// game); Running, History and Leaderboard scan every game or player.
// A Memory must not be copied after first use.
type Memory struct {
	mu       sync.Mutex
	games    map[string]*Game  // by id, normalized, with the stored version
	channels map[string]string // channel id → current game id
	stats    map[statsKey]*Stats
	// challenges are the open challenges, by channel id.
	challenges map[string]*Challenge
	settings   map[string]Settings // by guild id
	// commandGuilds are the guilds with a copy of the commands of their own.
	commandGuilds map[string]bool
	// interactions are the interactions seen, by id, with when.
	interactions map[string]seenInteraction
	// observe, when set, hears of each call the bot makes (Observe).
	observe Observer
	// feed tells watchers of the changes saved (Watch); webKey is WebKey's.
	feed   feed
	webKey []byte
}

// NewMemory returns an empty Memory, as the zero Memory is, with opts.
func NewMemory(opts ...Option) *Memory {
	return &Memory{observe: collect(opts).observe}
}

type statsKey struct{ guild, user string }

// Current returns the channel's current game (running or ended), or nil
// if the channel never had one.
func (m *Memory) Current(ctx context.Context, channelID string) (_ *Game, err error) {
	defer m.observe.done("current", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	if g := m.games[m.channels[channelID]]; g != nil {
		return g.Clone(), nil
	}
	return nil, nil
}

// Game returns the game with that id, or nil if there is none.
func (m *Memory) Game(ctx context.Context, id string) (*Game, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g := m.games[id]; g != nil {
		return g.Clone(), nil
	}
	return nil, nil
}

// Save stores g, as the package documentation and the SQLite store's Save
// describe. On success it sets g.Version; it changes nothing else in g.
func (m *Memory) Save(ctx context.Context, g *Game) (err error) {
	defer m.observe.done("save", time.Now(), &err)
	if err := check(g); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: save game %s: %w", g.ID, err)
	}
	n := normalize(g)
	var saved *Game
	defer func() {
		if saved != nil {
			m.feed.savedLocally(saved) // once unlocked
		}
	}()
	m.mu.Lock()
	defer m.mu.Unlock()
	stored := m.games[n.ID]
	wasRunning := true
	if n.Version == 0 {
		if stored != nil {
			return fmt.Errorf("store: save new game %s: a game with that id exists: %w", n.ID, ErrConflict)
		}
		if cur := m.games[m.channels[n.ChannelID]]; cur != nil && cur.Running() {
			return fmt.Errorf("store: save new game %s: channel %s has game %s running: %w", n.ID, n.ChannelID, cur.ID, ErrConflict)
		}
	} else {
		if stored == nil {
			return fmt.Errorf("store: save game %s: no such game: %w", n.ID, ErrConflict)
		}
		if stored.Version != n.Version {
			return fmt.Errorf("store: save game %s: read at version %d, stored version is %d: %w", n.ID, n.Version, stored.Version, ErrConflict)
		}
		if err := checkFinal(stored, n); err != nil {
			return err
		}
		wasRunning = stored.Running()
	}
	if counts(wasRunning, n) {
		m.settle(n)
	}
	n.Version++
	if m.games == nil {
		m.games = make(map[string]*Game)
		m.channels = make(map[string]string)
	}
	m.games[n.ID] = n
	if n.Version == 1 {
		m.channels[n.ChannelID] = n.ID
	}
	g.Version = n.Version
	saved = n
	return nil
}

func (m *Memory) settle(g *Game) {
	if m.stats == nil {
		m.stats = make(map[statsKey]*Stats)
	}
	before := make(map[string]*Stats)
	for _, u := range statsUsers(g) {
		k := statsKey{g.GuildID, u}
		s := m.stats[k]
		if s == nil {
			ns := newStats(g.GuildID, u)
			s = &ns
			m.stats[k] = s
		}
		before[u] = s
	}
	settle(g, before)
}

// Running returns every game that has not ended, sorted by channel id,
// then game id.
func (m *Memory) Running(ctx context.Context) (_ []*Game, err error) {
	defer m.observe.done("running", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Game
	for _, g := range m.games {
		if g.Running() {
			out = append(out, g.Clone())
		}
	}
	slices.SortFunc(out, func(a, b *Game) int {
		if c := strings.Compare(a.ChannelID, b.ChannelID); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// CountRunning returns how many games have not ended.
func (m *Memory) CountRunning(ctx context.Context) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, g := range m.games {
		if g.Running() {
			n++
		}
	}
	return n, nil
}

// CountGames returns how many games were ever started, ended or not.
func (m *Memory) CountGames(ctx context.Context) (_ int, err error) {
	defer m.observe.done("count_games", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.games), nil
}

// Due returns the channels whose running game has a deadline at or before
// before, sorted, and forgets the expired board tokens, as the SQL stores'
// Due does.
func (m *Memory) Due(ctx context.Context, before time.Time) (_ []string, err error) {
	defer m.observe.done("due", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, g := range m.games {
		if g.Running() && !g.Deadline.IsZero() && !g.Deadline.After(before) {
			out = append(out, g.ChannelID)
		}
		if g.Board.Token != "" && g.Board.At.Before(storeTime(before.Add(-TokenLife))) {
			g.Board.Token = "" // as the SQL stores forget it
		}
	}
	slices.Sort(out)
	return out, nil
}

// DueReminders returns the channels whose running game has a reminder
// due at or before before, sorted, as the SQL stores' DueReminders does.
func (m *Memory) DueReminders(ctx context.Context, before time.Time) (_ []string, err error) {
	defer m.observe.done("due_reminders", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, g := range m.games {
		if g.Running() && !g.RemindAt.IsZero() && !g.RemindAt.After(before) {
			out = append(out, g.ChannelID)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Ping reports nil: memory always answers.
func (m *Memory) Ping(ctx context.Context) error { return nil }

// Stats returns what the store knows of a player in a guild, with Rank
// set when the player has at least minRated rated games.
func (m *Memory) Stats(ctx context.Context, guildID, userID string, minRated int) (_ Stats, err error) {
	defer m.observe.done("stats", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.stats[statsKey{guildID, userID}]
	if s == nil {
		return newStats(guildID, userID), nil
	}
	out := *s
	if out.Rated >= minRated {
		out.Rank = 1
		for k, o := range m.stats {
			if k.guild == guildID && o.Rated >= minRated && compareRank(o, s) < 0 {
				out.Rank++
			}
		}
	}
	return out, nil
}

// Leaderboard returns the players of the guild with at least minRated
// rated games, best first, Rank set; at most limit of them (limit <= 0:
// all).
func (m *Memory) Leaderboard(ctx context.Context, guildID string, minRated, limit int) (_ []Stats, err error) {
	defer m.observe.done("leaderboard", time.Now(), &err)
	return m.ranked(guildID, func(s *Stats) bool { return s.Rated >= minRated }, compareRank, limit), nil
}

// ranked returns the players of the guild that keep takes, sorted by
// compare, Rank set; at most limit of them (limit <= 0: all).
func (m *Memory) ranked(guildID string, keep func(*Stats) bool, compare func(a, b *Stats) int, limit int) []Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Stats
	for k, s := range m.stats {
		if k.guild == guildID && keep(s) {
			out = append(out, *s)
		}
	}
	slices.SortFunc(out, func(a, b Stats) int { return compare(&a, &b) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// History returns the player's ended games in the guild, the most recently
// ended first (ties: larger id first), at most limit of them (limit <= 0:
// all).
func (m *Memory) History(ctx context.Context, guildID, userID string, limit int) (_ []*Game, err error) {
	defer m.observe.done("history", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Game
	for _, g := range m.games {
		if g.GuildID == guildID && !g.Running() && (g.Players[game.X] == userID || g.Players[game.O] == userID) {
			out = append(out, g)
		}
	}
	slices.SortFunc(out, compareHistory)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	for i, g := range out {
		out[i] = g.Clone()
	}
	return out, nil
}

// compareHistory orders ended games newest first, then by id descending.
func compareHistory(a, b *Game) int {
	if c := b.EndedAt.Compare(a.EndedAt); c != 0 {
		return c
	}
	return strings.Compare(b.ID, a.ID)
}

// Close does nothing; a Memory needs no closing.
func (m *Memory) Close() error { return nil }
