package bot

import "time"

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
}

// noMeter counts nothing.
type noMeter struct{}

func (noMeter) Interaction(string, string, time.Duration) {}
func (noMeter) Moves(int)                                 {}
func (noMeter) GameStarted()                              {}
func (noMeter) GameEnded(string)                          {}
