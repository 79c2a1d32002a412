-- tttbot's schema for SQLite. Times are microseconds since the Unix epoch
-- (UTC), NULL for none; players and endings are the numbers of package game.

-- One row per game, kept after it ends.
CREATE TABLE games (
	id          TEXT PRIMARY KEY,
	guild_id    TEXT NOT NULL,           -- '' in a DM
	channel_id  TEXT NOT NULL,
	player_x    TEXT NOT NULL,           -- user ids
	player_o    TEXT NOT NULL,
	computer    INTEGER NOT NULL,        -- the computer's side, 0 for none
	level       INTEGER NOT NULL,
	size        INTEGER NOT NULL,
	win         INTEGER NOT NULL,
	first       INTEGER NOT NULL,
	ending      INTEGER NOT NULL,        -- 0 while the game runs
	loser       INTEGER NOT NULL,
	stopped_by  TEXT NOT NULL,
	started_at  INTEGER,
	ended_at    INTEGER,
	deadline    INTEGER,
	serial      INTEGER NOT NULL,
	board_app   TEXT NOT NULL,
	board_token TEXT NOT NULL,
	board_at    INTEGER,
	version     INTEGER NOT NULL
) STRICT;

-- Running: the games still running, in the order Running returns them.
CREATE INDEX games_running ON games (channel_id, id) WHERE ending = 0;
-- History: a player's ended games in a guild, newest first, on either side.
CREATE INDEX games_history_x ON games (guild_id, player_x, ended_at DESC, id DESC) WHERE ending <> 0;
CREATE INDEX games_history_o ON games (guild_id, player_o, ended_at DESC, id DESC) WHERE ending <> 0;

CREATE TABLE moves (
	game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
	seq     INTEGER NOT NULL,            -- 0, 1, 2, … in the order played
	row     INTEGER NOT NULL,
	col     INTEGER NOT NULL,
	player  INTEGER NOT NULL,
	at      INTEGER,
	PRIMARY KEY (game_id, seq)
) STRICT, WITHOUT ROWID;

-- A channel's current game, running or last ended.
CREATE TABLE channels (
	channel_id TEXT PRIMARY KEY,
	game_id    TEXT NOT NULL REFERENCES games (id)
) STRICT, WITHOUT ROWID;

-- A player's stats in one guild ('' for DMs).
CREATE TABLE players (
	guild_id        TEXT NOT NULL,
	user_id         TEXT NOT NULL,
	people_games    INTEGER NOT NULL,
	people_wins     INTEGER NOT NULL,
	people_losses   INTEGER NOT NULL,
	people_draws    INTEGER NOT NULL,
	streak          INTEGER NOT NULL,
	best_streak     INTEGER NOT NULL,
	rating          REAL NOT NULL,
	rd              REAL NOT NULL,
	vol             REAL NOT NULL,
	rated           INTEGER NOT NULL,
	computer_games  INTEGER NOT NULL,
	computer_wins   INTEGER NOT NULL,
	computer_losses INTEGER NOT NULL,
	computer_draws  INTEGER NOT NULL,
	PRIMARY KEY (guild_id, user_id)
) STRICT, WITHOUT ROWID;

-- Leaderboard and rank: best first.
CREATE INDEX players_rank ON players (guild_id, rating DESC, rated DESC, user_id);
