package bot

import (
	"context"
	"errors"
	"time"

	"github.com/tttbot/tttbot/store"
)

// A Meter counts what the bot does, for the operator's metrics. The bot
// calls it on every interaction, so it must be cheap and safe for
// concurrent use. Config.Meter nil counts nothing.
type Meter interface {
	// Interaction counts one interaction: kind is the subcommand or the
	// button's action ("unknown" when it could not be read); outcome is
	// "ok", "refused" (a refusal in plain words), "error" (ours) or
	// "duplicate"; answer is the time from its arrival to its answer
	// going out, zero when none went out.
	Interaction(kind, outcome string, answer time.Duration)
	// Moves counts moves played, by players and by the computer.
	Moves(n int)
	// GameStarted counts a game that began; GameEnded one that ended, by
	// how (game.Ending's String: "won", "draw", "resigned"…).
	GameStarted()
	GameEnded(how string)
	// StoreCall counts one call of the store: its method, how long it took
	// and whether it failed (a lost race, store.ErrConflict, is not a
	// failure).
	StoreCall(method string, took time.Duration, err error)
}

// noMeter counts nothing.
type noMeter struct{}

func (noMeter) Interaction(string, string, time.Duration) {}
func (noMeter) Moves(int)                                 {}
func (noMeter) GameStarted()                              {}
func (noMeter) GameEnded(string)                          {}
func (noMeter) StoreCall(string, time.Duration, error)    {}

// meteredStore times every call of the store it wraps.
type meteredStore struct {
	st    Store
	meter Meter
}

func (m meteredStore) done(method string, start time.Time, err error) {
	if errors.Is(err, store.ErrConflict) {
		err = nil
	}
	m.meter.StoreCall(method, time.Since(start), err)
}

func (m meteredStore) Current(ctx context.Context, channelID string) (g *store.Game, err error) {
	defer func(start time.Time) { m.done("current", start, err) }(time.Now())
	return m.st.Current(ctx, channelID)
}

func (m meteredStore) Save(ctx context.Context, g *store.Game) (err error) {
	defer func(start time.Time) { m.done("save", start, err) }(time.Now())
	return m.st.Save(ctx, g)
}

func (m meteredStore) Running(ctx context.Context) (gs []*store.Game, err error) {
	defer func(start time.Time) { m.done("running", start, err) }(time.Now())
	return m.st.Running(ctx)
}

func (m meteredStore) Due(ctx context.Context, before time.Time) (chs []string, err error) {
	defer func(start time.Time) { m.done("due", start, err) }(time.Now())
	return m.st.Due(ctx, before)
}

func (m meteredStore) Stats(ctx context.Context, guildID, userID string, minRated int) (s store.Stats, err error) {
	defer func(start time.Time) { m.done("stats", start, err) }(time.Now())
	return m.st.Stats(ctx, guildID, userID, minRated)
}

func (m meteredStore) Leaderboard(ctx context.Context, guildID string, minRated, limit int) (s []store.Stats, err error) {
	defer func(start time.Time) { m.done("leaderboard", start, err) }(time.Now())
	return m.st.Leaderboard(ctx, guildID, minRated, limit)
}

func (m meteredStore) History(ctx context.Context, guildID, userID string, limit int) (gs []*store.Game, err error) {
	defer func(start time.Time) { m.done("history", start, err) }(time.Now())
	return m.st.History(ctx, guildID, userID, limit)
}

func (m meteredStore) ComputerLeaderboard(ctx context.Context, guildID string, limit int) (s []store.Stats, err error) {
	defer func(start time.Time) { m.done("computer_leaderboard", start, err) }(time.Now())
	return m.st.ComputerLeaderboard(ctx, guildID, limit)
}

func (m meteredStore) Settings(ctx context.Context, guildID string) (s store.Settings, err error) {
	defer func(start time.Time) { m.done("settings", start, err) }(time.Now())
	return m.st.Settings(ctx, guildID)
}

func (m meteredStore) SaveSettings(ctx context.Context, s store.Settings) (err error) {
	defer func(start time.Time) { m.done("save_settings", start, err) }(time.Now())
	return m.st.SaveSettings(ctx, s)
}

func (m meteredStore) CountGames(ctx context.Context) (n int, err error) {
	defer func(start time.Time) { m.done("count_games", start, err) }(time.Now())
	return m.st.CountGames(ctx)
}

func (m meteredStore) CommandGuilds(ctx context.Context) (gs []string, err error) {
	defer func(start time.Time) { m.done("command_guilds", start, err) }(time.Now())
	return m.st.CommandGuilds(ctx)
}

func (m meteredStore) SetCommandGuild(ctx context.Context, guildID string, registered bool) (err error) {
	defer func(start time.Time) { m.done("set_command_guild", start, err) }(time.Now())
	return m.st.SetCommandGuild(ctx, guildID, registered)
}

func (m meteredStore) Challenge(ctx context.Context, channelID string) (c *store.Challenge, err error) {
	defer func(start time.Time) { m.done("challenge", start, err) }(time.Now())
	return m.st.Challenge(ctx, channelID)
}

func (m meteredStore) OpenChallenge(ctx context.Context, c *store.Challenge) (err error) {
	defer func(start time.Time) { m.done("open_challenge", start, err) }(time.Now())
	return m.st.OpenChallenge(ctx, c)
}

func (m meteredStore) CloseChallenge(ctx context.Context, id string) (ok bool, err error) {
	defer func(start time.Time) { m.done("close_challenge", start, err) }(time.Now())
	return m.st.CloseChallenge(ctx, id)
}

func (m meteredStore) Challenges(ctx context.Context) (cs []*store.Challenge, err error) {
	defer func(start time.Time) { m.done("challenges", start, err) }(time.Now())
	return m.st.Challenges(ctx)
}
