// Package store keeps tttbot's games, and what they say about the players,
// across restarts and across bot processes.
//
// A game is a row of its own, keyed by the game's id and kept after the game
// ends: enough to replay it (players, size, win length, the computer's
// level, every move with its time, how it ended). A channel points at its
// current game. Players' stats and ratings change in the transaction that
// ends a game, so a crash can neither count a game twice nor lose it.
//
// Three stores offer the same methods: SQLite (OpenSQLite, the embedded
// default), PostgreSQL (OpenPostgres, for several bot processes sharing one
// database) and Memory (for unit tests). One contract test suite runs
// against all of them. The bot declares the interface it needs; this
// package does not import the bot.
//
// Saves are versioned: a Game carries the version it was read at, and Save
// fails with ErrConflict, changing nothing, when another save came first.
//
// The live board (a web page that Discord opens as an Activity) hears of
// saves through the change feed (Watch, feed.go): in the process on SQLite
// and Memory, from every process on PostgreSQL (LISTEN/NOTIFY, sent in the
// save's transaction, only for the channels a page watches). Its sessions
// are signed with a key kept in the database (WebKey), the same for every
// process.
package store

import (
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/rating"
)

// Errors callers test with errors.Is.
var (
	// ErrConflict: the game was saved by someone else since it was read
	// (its version moved on), or a new game was saved in a channel whose
	// current game is still running. Nothing was changed.
	ErrConflict = errors.New("store: conflict: the game changed since it was read")
	// ErrTooNew: the database was migrated by a newer tttbot than this one.
	ErrTooNew = errors.New("store: the database schema is newer than this program")
	// ErrUnavailable: the database cannot be written (its file was
	// deleted or replaced while open, say); nothing was changed. It lasts
	// until an admin repairs the database and restarts the bot.
	ErrUnavailable = errors.New("store: the database is unavailable")
	// ErrOutcomeUnknown: the database did not say whether the write was
	// committed (the reply to COMMIT was lost or came too late), and the
	// store could not find out: it may or may not have been made.
	ErrOutcomeUnknown = errors.New("store: the outcome of the write is unknown")
)

// Game is one game as stored. A store gives back exactly what it was given
// (times in UTC, to the microsecond), with Version set to the stored
// version.
type Game struct {
	ID        string
	GuildID   string // empty in a DM
	ChannelID string
	Players   [3]string   // user ids, indexed by game.X and game.O
	Computer  game.Player // the side the computer plays, or game.None
	Level     game.Level  // the computer's level (when Computer is set)
	Size      int
	Win       int
	First     game.Player
	Moves     []Move
	End       game.Ending
	Loser     game.Player // for game.EndResigned and game.EndTimeout
	StoppedBy string      // for game.EndStopped: the moderator's user id
	StartedAt time.Time
	EndedAt   time.Time   // zero while the game runs
	Deadline  time.Time   // when the player to move loses; zero if nobody is timed
	DrawOffer game.Player // the side whose draw offer waits, or game.None
	Serial    int         // numbers the game's board messages
	Board     Board       // the current board message, to edit it later
	Ping      string      // the id of the last "your move" reply to the board, in its channel; "" if none
	// Reminded is the turn whose player to move was reminded that time
	// runs out, counted as the moves played before it plus one; 0: none.
	Reminded int
	// RemindAt is when the player to move is due the turn's reminder,
	// for a process that does not time the game (DueReminders); zero
	// when the turn has none to come. While the turn's reminder is
	// claimed (Reminded is this turn) but not yet sent, it is when the
	// claim ends, and the reminder is due again.
	RemindAt time.Time
	Locale   string // the Discord locale its public messages speak; empty: English

	// Version is the version this copy was read at: 0 for a game never
	// saved. Save checks it and, on success, sets it to the new version.
	Version int64
}

// Move is one move of a game and when it was made.
type Move struct {
	game.Move
	At time.Time
}

// Board names a message the bot drew: a game's current board, or a
// challenge. AppID and Token are the interaction whose @original message it
// is, and At is when Discord created it: Discord accepts the token for 15
// minutes from then. ChannelID and MessageID name the message itself, when
// the bot knows them: with them, and its own token, the bot can still edit
// the message once the interaction token has expired. The token is a
// secret: it never prints.
type Board struct {
	AppID string
	Token string
	At    time.Time

	ChannelID string // "" when unknown
	MessageID string // "" when unknown

	// Outside says that the game is played outside chat too: a move of it
	// was made on the live board (package web), which has no interaction
	// token to draw the message with. Stale says that the message does
	// not show the game as stored: a move was made there that the bot
	// could not draw on it (its token expired, and the bot cannot reach
	// the channel); the next interaction on the board draws it anew.
	Outside, Stale bool
	// Reached says that the bot reached the board's channel with its own
	// token at the game's last interaction: it is in the server, which
	// installed the app, and may post in the channel (a reminder goes
	// there, with a nonce, rather than as a follow-up).
	Reached bool
}

// LogValue keeps the token out of logs.
func (b Board) LogValue() slog.Value {
	return slog.GroupValue(slog.String("app", b.AppID), slog.Time("at", b.At),
		slog.String("channel", b.ChannelID), slog.String("message", b.MessageID))
}

// Running reports whether g has not ended.
func (g *Game) Running() bool { return g.End == game.EndNone }

// Winner returns the side that won, or game.None (a draw, a stopped game,
// or one still running).
func (g *Game) Winner() game.Player {
	var last game.Player
	if len(g.Moves) > 0 {
		last = g.Moves[len(g.Moves)-1].Player
	}
	return g.End.Winner(last, g.Loser)
}

// Rated reports whether g changes ratings when it ends: games between two
// people are rated; games against the computer, and stopped games, are not.
func (g *Game) Rated() bool { return g.Computer == game.None && g.End != game.EndStopped }

// Clone returns a copy of g that shares no memory with it.
func (g *Game) Clone() *Game {
	c := *g
	c.Moves = slices.Clone(g.Moves)
	return &c
}

// Record counts games: played, won, lost, drawn.
type Record struct {
	Games, Wins, Losses, Draws int
}

// Stats is what a store knows of one player in one server (GuildID empty:
// DMs). Games against people and games against the computer are counted
// apart; only games against people are rated. The zero Stats, with
// Rating.Default, is a player with no games.
type Stats struct {
	GuildID string
	UserID  string
	People  Record // games against people: resign and timeout count as losses
	// Streak is the current run of wins against people, BestStreak the
	// longest ever.
	Streak, BestStreak int
	Rating             rating.Rating
	Rated              int    // rated games played
	Computer           Record // games against the computer
	// Rank is the player's place on the server's leaderboard (1 is the
	// best), or 0 when not ranked (fewer rated games than the minimum).
	Rank int
}
