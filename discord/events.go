package discord

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	_ "unsafe" // go:linkname

	"github.com/bwmarrin/discordgo"
)

// discordgoEvents is discordgo's table of the gateway events it decodes
// into their types before its handlers see them (event.go in discordgo
// v0.29.0, filled by its init).
//
//go:linkname discordgoEvents github.com/bwmarrin/discordgo.registeredInterfaceProviders
var discordgoEvents map[string]discordgo.EventInterfaceProvider

// interactionCreate is the gateway event of an interaction.
const interactionCreate = "INTERACTION_CREATE"

// Every interaction that comes over the gateway is decoded once, by
// DecodeInteraction, from the event's bytes (Gateway.addHandlers). discordgo
// would decode it first into a *discordgo.InteractionCreate, whole, the
// clicked message and each of its components with a json.Unmarshal of its
// own: on a 5×5 board a third of the bot's CPU for a click, thrown away.
// So this package takes INTERACTION_CREATE out of discordgo's table when
// it is loaded (before any session reads the table): discordgo then hands
// the event to *discordgo.Event handlers alone, with its bytes, and a
// handler of *discordgo.InteractionCreate, in any session of a program
// that imports this package, gets nothing. discordgo logs such an event as
// unknown, at warning level: logs demotes that line to debug.
func init() {
	delete(discordgoEvents, interactionCreate)
	discordgo.Logger = logs
}

// discordgoLog gets discordgo's log lines (see logs): the logger of the
// first OpenWith (routeLogs), or until then slog's default.
var discordgoLog atomic.Pointer[slog.Logger]

// routeLogs sends discordgo's own log lines to log. discordgo has a single
// package-wide logger, so the first OpenWith's logger gets them.
func routeLogs(log *slog.Logger) { discordgoLog.CompareAndSwap(nil, log) }

// quieter are discordgo's log lines, by the start of their format, that
// the Gateway's own lines replace (see addHandlers): they are logged at
// debug level.
var quieter = []string{
	"error reading from gateway",          // the connection dropped
	"Expected READY/RESUMED, instead got", // Invalid Session on resume: a multi-line dump
	"error closing session connection",
}

// logs is discordgo's Logger: its lines go to discordgoLog, at the slog
// level of theirs, or at debug for the lines that say nothing this
// package does not say itself.
func logs(msgL, _ int, format string, a ...any) {
	level := slog.LevelDebug
	switch msgL {
	case discordgo.LogError:
		level = slog.LevelError
	case discordgo.LogWarning:
		level = slog.LevelWarn
	case discordgo.LogInformational:
		level = slog.LevelInfo
	}
	for _, q := range quieter {
		if strings.HasPrefix(format, q) {
			level = slog.LevelDebug
		}
	}
	switch {
	case strings.HasPrefix(format, "error unmarshalling") && len(a) > 0 && a[0] == interactionCreate,
		strings.HasPrefix(format, "unknown event") && len(a) > 2 && a[2] == interactionCreate:
		// The Gateway decodes interactions itself, and says when it
		// cannot (addHandlers).
		level = slog.LevelDebug
	case strings.HasPrefix(format, "haven't gotten a heartbeat ACK"):
		// The only word on why a zombie connection was dropped;
		// the reconnect that follows is no error.
		level = slog.LevelWarn
	}
	log := discordgoLog.Load()
	if log == nil {
		log = slog.Default()
	}
	if !log.Enabled(context.Background(), level) {
		return
	}
	log.Log(context.Background(), level, strings.TrimSpace(fmt.Sprintf(format, a...)), "source", "discordgo")
}
