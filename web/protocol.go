// Package web is tttbot's second face: the live board, a web page that
// Discord opens as an Activity in a channel, served by the bot on WEB_ADDR.
// The page holds one WebSocket; everything about a game comes from, and
// goes to, the same tables as a click in chat (the Games interface, which
// package bot implements). This file is the contract between the page,
// this package and the bot.
//
// # The wire
//
// The page first asks for a session (HTTP, JSON):
//
//	POST /api/session  {"code": "...", "instance_id": "..."}
//	→ 200 {"session": "...", "access_token": "...", "user": User, "channel_id": "...", "locale": "de"}
//	→ 4xx {"error": "code", "message": "text in the user's language"}
//
// The server exchanges the OAuth2 code at Discord (/oauth2/token), reads
// /users/@me, and checks the activity instance with the bot token
// (GET /applications/{app}/activity-instances/{instance_id}): the user
// is among its users, and its location's channel is the channel the
// session is for. Nothing the page says about user, channel or guild is
// believed. The session is signed (HMAC-SHA256, key kept in the store so
// any replica checks it) and says user, channel, guild, instance, locale,
// expiry.
//
// Then GET /ws (WebSocket, text frames of JSON, at most MaxFrame bytes).
// The first frame from the page must be Hello; every frame after it is a
// ClientMsg; the server sends ServerMsg frames.
package web

import "context"

// MaxFrame is the largest frame either side may send, in bytes.
const MaxFrame = 4096

// ClientMsg is a frame from the page.
type ClientMsg struct {
	Type string `json:"type"` // "hello", "move", "resign", "offer_draw", "answer_draw", "rematch", "ping"
	// Seq numbers the page's requests; the answer carries it back.
	Seq int64 `json:"seq,omitempty"`
	// hello
	Session string `json:"session,omitempty"`
	// move: 1-based row and column, as labelled on the board; Version is
	// the game version the page saw when the player tapped (a replay of
	// an old move, or a tap on a stale board, is refused).
	Row     int   `json:"row,omitempty"`
	Col     int   `json:"col,omitempty"`
	Version int64 `json:"version,omitempty"`
	// GameID and Ply, on a move: the game and the number of moves the
	// page showed. Where the page sends them, a tap is stale only when
	// the game or its position changed, not when a save touched only the
	// game's board message (a ping, a reminder, a looked-up message id),
	// and an old tap can never land on a newer game of the same version.
	GameID string `json:"game_id,omitempty"`
	Ply    int    `json:"ply,omitempty"`
	// answer_draw
	Accept bool `json:"accept,omitempty"`
}

// ServerMsg is a frame from the server.
type ServerMsg struct {
	Type string `json:"type"` // "state", "result", "error", "pong"
	Seq  int64  `json:"seq,omitempty"`
	// state: the whole state of the channel's game (sent after hello,
	// after every change, and whenever the server is unsure).
	State *State `json:"state,omitempty"`
	// result: OK false with Message: the refusal, in the user's language,
	// the same text chat would give; nothing changed.
	OK bool `json:"ok,omitempty"`
	// error: Code is stable for the page and tests ("bad_frame",
	// "unknown_type", "session_expired", "session_invalid",
	// "left_instance", "too_fast", "not_player", ...); Message is for
	// people. session_expired ends the socket at the session's expiry
	// (the page signs in again); left_instance ends it when Discord no
	// longer counts the user in the activity (member.go).
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// State is what the page draws. All texts in it are already in the
// viewer's language.
type State struct {
	ChannelID string `json:"channel_id"`
	GameID    string `json:"game_id,omitempty"` // empty: no game has been played here
	Version   int64  `json:"version"`           // the stored game's version
	Running   bool   `json:"running"`
	Size      int    `json:"size"`
	Win       int    `json:"win"`
	// Cells row by row, Size*Size of "", "X" or "O".
	Cells   []string `json:"cells"`
	Players [2]User  `json:"players"` // X, then O
	// Turn is "X" or "O" while the game runs.
	Turn string `json:"turn,omitempty"`
	// Deadline in Unix milliseconds, 0 if the turn is not timed.
	Deadline int64 `json:"deadline,omitempty"`
	// Now is the server's clock in Unix milliseconds when the state was
	// made, so the page counts down against it, not its own clock.
	Now       int64  `json:"now"`
	Moves     []Move `json:"moves"`
	WinLine   []Move `json:"win_line,omitempty"`
	DrawOffer string `json:"draw_offer,omitempty"` // "X", "O" or ""
	// You: the viewer's side, "X", "O" or "" for a spectator.
	You string `json:"you,omitempty"`
	// Status: one line for people ("Your move", "Alice won", "No game
	// here: start one with /ttt start"), in the viewer's language.
	Status string `json:"status"`
	// Labels the page needs, in the viewer's language (button captions
	// and the like), by key.
	Labels map[string]string `json:"labels,omitempty"`
}

// User is a player as the page shows them.
type User struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Avatar string `json:"avatar,omitempty"` // an avatar URL the page may load through the proxy, or ""
	Mark   string `json:"mark"`             // "X" or "O"
	Bot    bool   `json:"bot,omitempty"`    // the computer
}

// Move is one cell, 1-based as labelled.
type Move struct {
	Row  int    `json:"row"`
	Col  int    `json:"col"`
	Mark string `json:"mark,omitempty"`
}

// Viewer is who looks at the page, as the session (never the page) says.
type Viewer struct {
	UserID    string
	Name      string
	GuildID   string // "" in a DM or group DM
	ChannelID string
	Locale    string // the user's Discord locale
}

// Action is one request of a player: Type as in ClientMsg.
type Action struct {
	Type    string
	Row     int
	Col     int
	Version int64
	GameID  string
	Ply     int
	Accept  bool
}

// Games is what the page needs from the bot. Package bot implements it on
// the same tables, locks, versioned saves, refusals and follow-ups as a
// click in chat.
type Games interface {
	// State is the channel's game as v sees it; with no game running,
	// the last finished one (GameID set, Running false) or none.
	State(ctx context.Context, v Viewer) (State, error)
	// Act does a for v. refusal is the text chat would give, in v's
	// language, when the game refuses it (nothing changed); err is for
	// failures of the bot itself.
	Act(ctx context.Context, v Viewer, a Action) (refusal string, err error)
}

// Failer is implemented by a Games that can say what an Act that failed
// did, in the viewer's language: whether anything changed (a save whose
// outcome is unknown may have). The page is told that text, with code
// "internal"; without it, web's own "nothing was changed".
type Failer interface {
	Failure(err error, locale string) string
}

// Change says that the game of a channel was saved at a version. Version
// 0 says that changes may have been missed (the feed's connection to the
// database dropped and came back): read the whole state again.
type Change struct {
	ChannelID string
	GameID    string
	Version   int64
}

// Feed tells of saved changes, from this process and, on PostgreSQL,
// from every replica (LISTEN/NOTIFY, sent in the save's transaction).
// Watch marks a channel as having pages open (so that moves in channels
// nobody watches cost nothing more); the returned func ends the watch, as
// does the end of ctx, and the channel is then closed. A reader that falls
// behind loses older changes, never the newest (each says "read again").
type Feed interface {
	Watch(ctx context.Context, channelID string) (changes <-chan Change, stop func(), err error)
}
