package bot

import (
	"context"
	"time"

	"github.com/tttbot/tttbot/table"
)

// Config holds the bot's settings. The zero value is not useful: use
// DefaultConfig and change what you need.
type Config struct {
	// GuildID, when set, registers the commands in that guild only (they
	// appear at once) instead of globally.
	GuildID string
	// Table holds the game rules that are not the judge's: timeouts and
	// the computer's seed.
	Table table.Config
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Meter counts interactions, moves and games; nil counts nothing.
	// The store counts its own calls (store.Observe).
	Meter Meter
	// About is what /ttt about tells beyond the store's counts.
	About About
	// Activity says that the live board is served (package web) and the
	// app's Activity points at it: every board gets an Open board button,
	// and the entry point command opens the Activity (launch.go). Off,
	// no board has the button.
	Activity bool
}

// About is what /ttt about says of the running program; a nil func means
// unknown.
type About struct {
	Version string
	// Latency is the gateway's heartbeat latency; nil or zero: no gateway.
	Latency func() time.Duration
	// Servers is how many servers have the app, as Discord estimates it.
	Servers func(ctx context.Context) (int, error)
}

// DefaultConfig returns the defaults: challenges wait 60 s, turns 5 min.
func DefaultConfig() Config {
	return Config{Table: table.DefaultConfig()}
}
