-- The language a game's and a challenge's public messages are drawn in (a
-- Discord locale such as "de" or "pt-BR"; empty: English), so that edits
-- made later, without an interaction (a timeout, an expiry), speak it too.
ALTER TABLE games ADD COLUMN locale TEXT NOT NULL DEFAULT '';
-- The side whose offer of a draw waits for an answer (1 X, 2 O; 0: none).
ALTER TABLE games ADD COLUMN draw_offer INTEGER NOT NULL DEFAULT 0;
ALTER TABLE challenges ADD COLUMN locale TEXT NOT NULL DEFAULT '';

-- A server's settings, from /ttt config. Zero (or empty) means the bot's
-- default.
CREATE TABLE settings (
	guild_id          TEXT PRIMARY KEY,
	turn_timeout      INTEGER NOT NULL,  -- seconds
	challenge_timeout INTEGER NOT NULL,  -- seconds
	size              INTEGER NOT NULL,
	win               INTEGER NOT NULL,
	channels          TEXT NOT NULL,     -- channel ids where games may be played, space-separated; empty: all
	stop_role         TEXT NOT NULL,     -- a role whose members may stop games
	computer_ranked   INTEGER NOT NULL,  -- 1: games against the computer count on the leaderboard
	pictures          INTEGER NOT NULL,  -- 1: boards too big for buttons are shown as a PNG picture
	updated_by        TEXT NOT NULL,
	updated_at        INTEGER NOT NULL   -- microseconds since the Unix epoch
);

-- The guilds whose own copy of the commands this bot registered (with
-- DISCORD_GUILD_ID): registering globally later removes those copies, so
-- that nobody sees every command twice.
CREATE TABLE command_guilds (
	guild_id TEXT PRIMARY KEY
);

-- The board message of a game (and the message of a challenge) as the bot
-- can reach it with its own token, once the interaction token that drew it
-- has expired (after 15 minutes): its channel and id; empty while unknown.
ALTER TABLE games ADD COLUMN board_channel TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN board_message TEXT NOT NULL DEFAULT '';
ALTER TABLE challenges ADD COLUMN msg_channel TEXT NOT NULL DEFAULT '';
ALTER TABLE challenges ADD COLUMN msg_id TEXT NOT NULL DEFAULT '';
