-- tttbot's schema for PostgreSQL. Times are microseconds since the Unix
-- epoch (UTC), NULL for none, as in the SQLite schema, so that both keep
-- exactly the same values; players and endings are the numbers of package
-- game. Ids sort in byte order (COLLATE "C"), as Go compares strings.

-- One row per game, kept after it ends.
CREATE TABLE games (
	id          text COLLATE "C" PRIMARY KEY,
	guild_id    text COLLATE "C" NOT NULL,   -- '' in a DM
	channel_id  text COLLATE "C" NOT NULL,
	player_x    text COLLATE "C" NOT NULL,   -- user ids
	player_o    text COLLATE "C" NOT NULL,
	computer    smallint NOT NULL,           -- the computer's side, 0 for none
	level       smallint NOT NULL,
	size        integer NOT NULL,
	win         integer NOT NULL,
	first       smallint NOT NULL,
	ending      smallint NOT NULL,           -- 0 while the game runs
	loser       smallint NOT NULL,
	stopped_by  text NOT NULL,
	started_at  bigint,
	ended_at    bigint,
	deadline    bigint,
	serial      integer NOT NULL,
	board_app   text NOT NULL,
	board_token text NOT NULL,
	board_at    bigint,
	version     bigint NOT NULL
);

-- Running: the games still running, in the order Running returns them.
CREATE INDEX games_running ON games (channel_id, id) WHERE ending = 0;
-- History: a player's ended games in a guild, newest first, on either side.
CREATE INDEX games_history_x ON games (guild_id, player_x, ended_at DESC NULLS LAST, id DESC) WHERE ending <> 0;
CREATE INDEX games_history_o ON games (guild_id, player_o, ended_at DESC NULLS LAST, id DESC) WHERE ending <> 0;

CREATE TABLE moves (
	game_id text COLLATE "C" NOT NULL REFERENCES games (id) ON DELETE CASCADE,
	seq     integer NOT NULL,                -- 0, 1, 2, … in the order played
	row     integer NOT NULL,
	col     integer NOT NULL,
	player  smallint NOT NULL,
	at      bigint,
	PRIMARY KEY (game_id, seq)
);

-- A channel's current game, running or last ended.
CREATE TABLE channels (
	channel_id text COLLATE "C" PRIMARY KEY,
	game_id    text COLLATE "C" NOT NULL REFERENCES games (id)
);

-- A player's stats in one guild ('' for DMs).
CREATE TABLE players (
	guild_id        text COLLATE "C" NOT NULL,
	user_id         text COLLATE "C" NOT NULL,
	people_games    integer NOT NULL,
	people_wins     integer NOT NULL,
	people_losses   integer NOT NULL,
	people_draws    integer NOT NULL,
	streak          integer NOT NULL,
	best_streak     integer NOT NULL,
	rating          double precision NOT NULL,
	rd              double precision NOT NULL,
	vol             double precision NOT NULL,
	rated           integer NOT NULL,
	computer_games  integer NOT NULL,
	computer_wins   integer NOT NULL,
	computer_losses integer NOT NULL,
	computer_draws  integer NOT NULL,
	PRIMARY KEY (guild_id, user_id)
);

-- Leaderboard and rank: best first.
CREATE INDEX players_rank ON players (guild_id, rating DESC, rated DESC, user_id);
