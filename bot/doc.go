// Package bot is tttbot's face on Discord: the /ttt command schema, the
// router that answers every interaction, the handlers, and the renderer of
// boards, challenges and stats. The rules of a channel's game live in
// package table, the judge in package game, and games are kept by the store (Stores).
// Every text comes from package i18n's catalog, in the language of whoever
// sees it (locale.go).
//
// # Words
//
// One name for each thing, in this package and the ones it uses:
//
//   - judge: a game.Judge, which plays the moves on one board and says,
//     in O(1) a move, whether someone has won (package game).
//   - match: a table.Match, one channel's game as its rules see it:
//     players, judge, turns and deadlines, how it ended (package table).
//     The bot's match (match.go) is that match with what the bot keeps
//     beside it: the message its board is on, the store version it was
//     read at, its locale and its ping.
//   - stored game: a store.Game, a match as the store keeps it, kept after
//     it ends (toStored, fromStored).
//   - challenge: an invitation to play, not yet accepted (table.Challenge;
//     stored, store.Challenge).
//   - board: the picture of a match on Discord, and the message that shows
//     it (store.Board).
//   - locale: the name Discord gives a language, such as "de" or "en-US":
//     a user's, a guild's, and the one a stored game or challenge speaks.
//   - language: an i18n.Language, which writes texts in one language;
//     Catalog.For gives the one for a list of locales (req.lang, l).
//   - tag: the BCP 47 name the catalog gives a language, such as "de" or
//     "pt-BR" (Language.Tag).
//   - catalog: the i18n.Catalog, every text in every language.
//   - text: a catalog text not yet written in any language (locale.go).
//
// # Shape
//
// The router (router.go) parses each interaction once, by subcommand (of
// a command or its autocomplete) or by the custom_id of a button, a select
// menu or a modal (route.go), and calls its handler from one registration
// table beside the command schema (commands.go). A handler
// (handlers.go) reads top to bottom: it locks the channel with its game
// (tables), lets package table decide on a clone, commits (a
// versioned save, durable before anyone is answered, then the answer),
// and returns what follows on Discord as data (followUps), which boards
// queues before the channel is unlocked and sends in the background.
//
//   - tables (tables.go, registry.go) holds each channel's game through
//     time: locks, loading, saves and taking a change back, turn timers,
//     sweeps, expiring challenges. It draws no message: what a change
//     means on Discord it tells boards through the upkeep interface.
//   - boards (boards.go, picture.go) keeps the messages in line once an
//     answer went out: edits, deletes of replaced boards, pings, pictures,
//     boards reached through their channel once their token expired. What
//     must be remembered with a game (a board's message id, a ping's id)
//     it hands to tables through the keeper interface; it never locks or
//     saves by itself.
//   - the runner (runner.go) runs background edits and timer callbacks on
//     pools of their own, and is what Close waits for.
//   - records (stats.go, about.go) answers the commands that only read:
//     stats, leaderboard, history and about.
//   - seen (seen.go) records in the store each interaction acted on, so
//     that one delivered or replayed again, to any process, is acted on
//     once; duplicate.go answers such a one.
//
// Each of them holds only the part of the store it uses (store.go).
//
// Files refer only downward (TestFilesDoNotLoop; go test -run
// TestFilesDoNotLoop -v ./bot/ prints the floors): bot.go builds the bot
// (New) from the registration table (commands.go) over the handlers
// (picker.go over handlers.go, configure.go), which stand on the router's type Bot
// (router.go); below them tables and boards, which do not use each other,
// and the leaves (request, match, settings, render, route, registry,
// runner, config).
//
// # Correspondence games
//
// A server may give each move up to a day
// (MaxTurnTimeout, /ttt config turn_timeout), far longer than the 15
// minutes for which Discord lets the bot edit a board through the token of
// the interaction that drew it (tokenLife).
//
// How a board outlives its token: a board is edited in place, as in every
// game; once its token has expired, with the bot's own token through
// PATCH and DELETE /channels/{channel}/messages/{id}. Discord lets an app
// edit its public interaction responses there (discord-api-docs#3090), and
// those routes' rate limits are per channel, which a game uses alone. The
// other way, posting a fresh board and retiring the old one, would post a
// new message at every timeout and still need the old one's id to retire
// it. So a game keeps its board's channel and message id with it
// (match.Board, stored). A click brings the id for free: a component
// interaction carries the message it is on, which UPDATE_MESSAGE redraws.
// A board drawn as a new message (a slash command, Rematch) has its id
// read from Discord (GET @original) lookupAfter after the answer, while
// its token is young: an answer given as the response of an HTTP
// interaction reaches Discord only after that response, so a read at once
// could find no message yet. Only a game whose board may outlive its token
// (outlivesToken) learns the id; a game with short turns makes exactly the
// calls it made before, and its boards stay as they are once their token
// has expired.
//
// Only where the server installed the bot. An app that a user installed,
// and that is not in the server, has no channel access: its boards live
// and die with their tokens. So a turn longer than MaxTimeout is given
// only to an interaction that shows the bot in the server, able to reach
// the channel (hasChannel); anywhere else the turn gets MaxTimeout,
// whatever the server's setting. The setting belongs to the server, but
// the cap applies per interaction, and so per move: the interaction that
// sets a deadline is the one that shows whether the bot will be able to
// reach the board when it falls.
//
// One ping per turn: a board drawn by a slash command is a new message
// that pings the player to move. A click redraws the board with
// UPDATE_MESSAGE, which pings nobody: fine while both players sit at the
// board, not when the next move may come tomorrow. So after a click that
// leaves a correspondence game to the other player, that player (never the
// computer) gets one short message, a reply to the board, that pings them
// (pingMover). It is posted with the bot token to the channel, which such
// a game may use anyway, rather than as a follow-up through the click's
// token, which over the HTTP transport could reach Discord before the
// click's answer. A turn has one move, so one ping; /ttt board pings
// nobody. The ping carries the turn's nonce with enforce_nonce
// (turnNonce; see Reminders): the REST layer's retry after a 5xx, which
// Discord may have carried out, finds the ping made, and never pings
// twice.
//
// A ping serves one turn: its id is stored with the game (keepPing), and
// the change that ends that turn (a move, the end of the game) deletes it
// (servedPing), whichever process makes it, even after a restart: a long
// game leaves its board in the channel, not a trail of pings.
//
// # Reminders
//
// A clicked board pings nobody, so a player who looks away would lose on
// time. When half of a turn has passed, the player to move gets one
// reminder (remindAt): a message that mentions them alone, says when
// their time runs out, and links to the board when its message is known.
// Not in a turn shorter than minRemindedTurn, where the board they just
// saw says it all; never for the computer; not in a server that turned
// them off (/ttt config reminders:false; on by default).
//
// Once per turn, whichever process reminds: each process that holds the
// channel has a reminder timer beside its turn timer (armReminder), and
// Restore arms it for every running game, as it does the turn timer.
// When it fires, the process loads the game and claims the turn's
// reminder with a versioned save (match.reminded, the turn's number, kept
// with the game); only the process whose save wins sends it, and a
// process that restarts finds the turn claimed. It claims before it
// sends, not after: two replicas firing at the same moment would
// otherwise both notify the player, and a deleted message does not take
// back a notification.
//
// The claim is a lease (match.lease, stored as the RemindAt of a turn
// whose reminder is claimed): it lasts half of what is left of the turn
// for a reminder (remindLease), and the claimer sends the reminder only
// within it: a send that waited in the queue past it renews it first
// (renewReminder), unless another process took the reminder meanwhile,
// and the claimer does not claim again a reminder it has queued
// (channel.sending). Once Discord has taken the reminder, keeping its message as
// the turn's ping ends the claim: the turn is reminded. If Discord
// certainly did not take it (a rate limit, which the send does not wait
// out, or a request never sent), the claimer releases the claim to be
// tried again once the limit has passed, remindRetry at least
// (releaseReminder); a 4xx gives the turn up. If the claimer dies, the
// claim ends by itself. Either way the reminder is due again, to any
// process's timer or sweep.
//
// An outcome the bot cannot know (a 5xx, no answer, an answer it cannot
// read) may mean Discord took the reminder. A reminder sent to the
// channel carries a nonce with enforce_nonce (reminderNonce: a hash of
// the game and the turn's number, the same in every process and every
// try): Discord creates one message of the bot's with a nonce within a
// few minutes, and answers a request that repeats it with that message
// (Unknown Message if it was deleted since). So the claimer tries such a
// reminder again at once, with a doubling pause, up to remindTries
// times, within its claim and editWithin (sendOnce): every try falls far
// inside Discord's few minutes, and the player hears once. Past that, or
// after a rate limit that outlasts the claim, a reminder of unknown
// outcome is given up for the turn: a try released to later could come
// after Discord forgot the nonce. A process that dies holding a claim of
// unknown outcome leaves the reminder to another, whose try with the
// same nonce Discord dedupes too as long as it remembers it.
//
// A follow-up takes no nonce: Discord's webhooks, the interaction's
// token's included, have none (only the Create Message endpoint does).
// So wherever the bot reaches the board's channel, a reminder goes there,
// with its nonce, in short turns too; a follow-up only where the bot
// cannot (below). A follow-up reminder of unknown outcome is not sent
// again, since the player might hear twice: there it is reminded at most
// once, and a 5xx that Discord answers without taking it loses it. That
// is Discord's API, not a choice. So the player hears once, as long as
// the reminder is of use and, for a follow-up, Discord's answers reach
// the bot.
//
// A process that never loaded the channel has no timer for it, so each
// save also stores when the turn's reminder is due (store.Game.RemindAt,
// from remindAt; none once sent, or where the server turned reminders
// off as far as the saving process knows), and the sweep of every process
// (sweepReminders, every sweepEvery, as for timeouts) loads the channels
// whose reminder is due within remindAhead and it has no reminder timer
// for: that arms one, and sends those due. A reminder is of use for half
// a turn less remindLeast (15 s in a turn of a minute), less than
// sweepEvery, so a sweep that waited for them to be due would miss some;
// looking ahead, the turn is reminded in time even if the process timing
// it stopped for good, holding its claim or not. The server's setting is
// read again before any claim.
//
// A reminder is a ping sent later: its id is kept as the turn's ping
// (keepPing), so the change that ends the turn (a move, any end of the
// game, a timeout) deletes it, in any process. It goes where it is
// delivered best until the turn ends: wherever the bot reached the
// board's channel at the game's last interaction (store.Board.Reached,
// from hasChannel: a server that installed the bot, which may post
// there), to the channel with the bot's token and the turn's nonce, as a
// reply to the board when its message is known, deleted with the bot's
// token too; so in every correspondence game, which only such a server
// may have. Elsewhere (a user install, a DM, a channel where the bot may
// not post), the turn is short and the board's token outlives it: as a
// follow-up through that token, deleted through it too (pingOf). A
// delete that fails for a while (a rate limit, a 5xx, no answer) is made
// again after a pause, as a board's edit is (againAfter). A correspondence ping
// already kept for the turn is replaced: deleted once the reminder is
// kept, so that the channel keeps one message per turn, the one that
// notified last and says when time runs out. A follow-up reminder goes
// when /ttt board draws the turn again on a new message (servedPing):
// only its own token deletes it, and the game keeps its board's alone.
//
// # The live board
//
// The game can also be played on a web page that Discord opens as an
// Activity (package web), which calls the bot through Live (live.go): its
// State, read from the store; its Act, a tap, which is a request like an
// interaction's but without a token, through the same cores as the chat
// handlers (onMove and playOn, resignOn, offerDrawOn, answerDrawOn,
// startRematch), commit and followUp: same lock, versioned save,
// refusals and follow-ups; and its Watch, the store's change feed
// (FeedStore), which tells of every save of a channel watched, by any
// process. Nothing about a game is kept in the page or in package web.
// A tap has no token to draw the chat board with: the board follows
// where the bot can reach it, and otherwise is marked stale and drawn
// anew at the next click on it; a board of a game played on the page
// that the bot may lose says that the game goes on in the Activity
// (outside.go).
//
// # Playing a big board by tap: the picker
//
// A message holds at most 25 buttons, so a board bigger than
// MaxButtonSize×MaxButtonSize cannot be all buttons. It carries the picker
// (picker.go) instead, on the board message itself: a select menu of the
// rows with a free cell; once the player to move picks one, that row's
// cells as buttons under it (tap 2 plays, as a click on a small board); and
// a Move… button whose modal takes a typed cell. Every tap is an
// interaction on the board, answered with UPDATE_MESSAGE of the board and
// bringing a fresh token: the same in a server, a DM or a user install,
// and the board stays editable for the whole game played in chat (moves
// made on the live board bring no token: see The live board). Picking a
// row stores nothing; it is the one answer drawn from a game read from the
// store rather than from memory, since it redraws the board for everyone.
//
// On such a board every move counts as a new serial (newPicker), and every
// custom_id of the picker carries it: a tap on a picker drawn before the
// last move, or on a board a newer message replaced, never plays. It is
// refused in plain words. A tap on the board's own message is answered by
// redrawing it as it stands, a fresh picker, in the same answer (never by
// an edit in the background, which could undo the player's next tap), the
// refusal following to the player alone (answerStale). Anyone but the
// player to move is told whose turn it is.
// /ttt move autocompletes its row and col with the free rows and columns
// (suggestMove).
//
// # Opening the live board
//
// Where the bot serves the live board (Config.Activity), every current
// board has an Open board button, which anyone may click: the bot answers
// with LAUNCH_ACTIVITY, and Discord opens the Activity (package web) in the
// channel. It joins the row of Move… or of Rematch, or has a row of its
// own under the cells; a running 5×5 board, whose cells fill the five rows
// a message may have, has none. The app's entry point command, from
// Discord's App Launcher, opens it too, and Register keeps that command
// (launch.go).
//
// # Pictures of big boards
//
// A server that turns on /ttt config pictures sees
// every board bigger than pictureAbove×pictureAbove (none has buttons) as
// a PNG picture drawn by package picture, in place of the emoji grid:
// easier to read on a phone. It is off by default: each board then costs
// a drawing (about 7 ms of CPU for 10×10) and an upload. A board bigger
// than MaxEmojiSize has no emoji grid (no keycap labels past 🔟, and its
// lines would wrap on a phone): it is always a picture, whatever the
// setting, and its text never holds a grid.
//
// An interaction answered over the HTTP endpoint cannot carry files in its
// answer, so on both transports a board is answered as ever, with its emoji
// grid, and the picture follows in the background by an edit of that
// message (the @original of the interaction that drew it): board.png, and
// the text without the grid. If that edit fails, the emoji board stays, as
// the text fallback, and a warning is logged. Every such edit names no
// attachment to keep (an empty attachments array: with API v9 the files
// it uploads are added all the same), so its picture replaces the one
// before: a message carries one picture, of its latest state.
//
// An edit of a board that fails for a while (a rate limit, a 5xx, an
// answer later than the second an edit of its buttons has under the
// channel's lock) is wanted again by the board's slot, after the limit's
// retry_after or a doubling pause, up to editTries times (editAgain); it
// holds no worker meanwhile, and reads the stored game again as every
// edit does, so that a timed-out board under a busy Discord still ends
// right. Under the lock, a limit or a 5xx is not waited out: the edit
// fails at once, and the channel's taps do not wait for it.
//
// A board's background edits go out one at a time, and only its newest
// state matters: an edit wanted while another of the same board is being
// made replaces what was wanted next, so that a fast game makes one edit at
// a time and never holds a worker that other boards' edits need
// (boardSlots). Across processes sharing one database, each edit reads the
// stored game just before it is made and draws it instead when it is newer,
// and reads it again once the edit is made, drawing it if it moved on: a
// board converges to the stored game, whichever process's edit Discord
// takes last. A row picked in the picker, drawn from a read of the store,
// is checked the same way once its answer is on Discord (checkShown).
package bot
