package bot

import (
	"context"
	"time"

	"github.com/tttbot/tttbot/store"
)

// The store, as the bot sees it, split by who uses it: tables keep games
// (GameStore) and challenges (ChallengeStore), settings the servers'
// /ttt config (SettingsStore), the handlers of stats, leaderboard,
// history and about the record (StatsStore), and Register the guilds with
// commands of their own (CommandGuildStore), and the router the
// interactions acted on (InteractionStore). New takes one of each
// (Stores); store.SQLite, store.Postgres and store.Memory implement all
// six (StoresOf). The store times its own calls for the operator
// (store.Observe): the bot wraps nothing.

// GameStore keeps each channel's current game. The bot loads it each time
// it locks the channel, and saves every change, under that lock and before
// it answers anyone. Saves are versioned: store.ErrConflict means another
// process changed the game first.
type GameStore interface {
	// Current returns the channel's current game, or nil if it has none.
	Current(ctx context.Context, channelID string) (*store.Game, error)
	// Save stores g if nobody saved it since g.Version, and updates the
	// players' stats in the same transaction when g ends.
	Save(ctx context.Context, g *store.Game) error
	// Running returns every game that has not ended; Due the channels of
	// those whose deadline is at or before a time, DueReminders of those
	// whose turn's reminder is due by then (store.Game.RemindAt).
	Running(ctx context.Context) ([]*store.Game, error)
	Due(ctx context.Context, before time.Time) ([]string, error)
	DueReminders(ctx context.Context, before time.Time) ([]string, error)
}

// ChallengeStore keeps the open challenges. Challenge returns the
// channel's open challenge, or nil; OpenChallenge stores one
// (store.ErrConflict if the channel has one), and OpenChallengeAtMost
// one unless its maker has that many open already (store.ErrTooMany,
// counted with the insert, exact across replicas); CloseChallenge removes one
// and reports whether this call did; Challenges lists them, and
// ChallengesFrom those one user made (expired or not), which the limit on
// a user's open challenges counts (startLimits).
type ChallengeStore interface {
	Challenge(ctx context.Context, channelID string) (*store.Challenge, error)
	OpenChallenge(ctx context.Context, c *store.Challenge) error
	OpenChallengeAtMost(ctx context.Context, c *store.Challenge, most int, now time.Time) error
	CloseChallenge(ctx context.Context, id string) (bool, error)
	Challenges(ctx context.Context) ([]*store.Challenge, error)
	ChallengesFrom(ctx context.Context, user string) ([]*store.Challenge, error)
}

// SettingsStore keeps the servers' /ttt config. Settings returns a guild's
// (the zero Settings with its GuildID if it has none); SaveSettings
// replaces it.
type SettingsStore interface {
	Settings(ctx context.Context, guildID string) (store.Settings, error)
	SaveSettings(ctx context.Context, s store.Settings) error
}

// StatsStore tells what the games say about players.
type StatsStore interface {
	// Stats, Leaderboard and History answer /ttt stats, leaderboard and
	// history.
	Stats(ctx context.Context, guildID, userID string, minRated int) (store.Stats, error)
	Leaderboard(ctx context.Context, guildID string, minRated, limit int) ([]store.Stats, error)
	History(ctx context.Context, guildID, userID string, limit int) ([]*store.Game, error)
	// ComputerLeaderboard ranks a guild's players by their record against
	// the computer, for servers that show it (/ttt config computer_ranked).
	ComputerLeaderboard(ctx context.Context, guildID string, limit int) ([]store.Stats, error)
	// CountGames counts every game ever started, for /ttt about.
	CountGames(ctx context.Context) (int, error)
}

// CommandGuildStore remembers the guilds that hold a copy of the commands
// of their own, so that registering globally can remove it.
type CommandGuildStore interface {
	CommandGuilds(ctx context.Context) ([]string, error)
	SetCommandGuild(ctx context.Context, guildID string, registered bool) error
}

// InteractionStore records the interactions acted on, so that one
// delivered or replayed again, to this process or another, is acted on
// once (router.go). A store that can also record what became of an
// action without its caller waiting (SettleInteractionLater: store.SQLite
// joins it to the next writes' transaction) is asked so for actions done
// or of unknown outcome (seen.settle).
type InteractionStore interface {
	// SeeInteraction records id, seen at at, its action under way,
	// and reports whether it is the first to.
	SeeInteraction(ctx context.Context, id string, at time.Time) (first bool, err error)
	// SettleInteraction records what became of the action on id:
	// done, outcome unknown, or (store.InteractionNew) known not done,
	// which forgets id so that a later delivery is acted on.
	SettleInteraction(ctx context.Context, id string, state store.InteractionState) error
	// InteractionState reads what became of the action on id.
	InteractionState(ctx context.Context, id string) (store.InteractionState, error)
	// ForgetInteractions deletes up to limit of those seen before
	// before, and says how many it deleted.
	ForgetInteractions(ctx context.Context, before time.Time, limit int) (int, error)
}

// FeedStore tells of the saved changes of the channels watched, by this
// process and, on PostgreSQL, by every process sharing the database: the
// live board's pages read the game again (live.go). fn must not block.
type FeedStore interface {
	Watch(ctx context.Context, channelID string, fn func(store.Change)) (stop func(), err error)
}

// Stores is the store as New takes it: one field per part, each handed on
// only to what uses it. Feed is optional: without it the live board has
// no feed (Live.Watch fails).
type Stores struct {
	Games         GameStore
	Challenges    ChallengeStore
	Settings      SettingsStore
	Stats         StatsStore
	CommandGuilds CommandGuildStore
	Interactions  InteractionStore
	Feed          FeedStore
}

// StoresOf returns Stores whose every part is st, for a store that keeps
// all six; and its Feed if it has one (store.SQLite, store.Postgres and
// store.Memory do).
func StoresOf[S interface {
	GameStore
	ChallengeStore
	SettingsStore
	StatsStore
	CommandGuildStore
	InteractionStore
}](st S) Stores {
	s := Stores{Games: st, Challenges: st, Settings: st, Stats: st, CommandGuilds: st, Interactions: st}
	if f, ok := any(st).(FeedStore); ok {
		s.Feed = f
	}
	return s
}
