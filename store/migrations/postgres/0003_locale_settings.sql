-- The language a game's and a challenge's public messages are drawn in (a
-- Discord locale such as "de" or "pt-BR"; empty: English), so that edits
-- made later, without an interaction (a timeout, an expiry), speak it too.
ALTER TABLE games ADD COLUMN locale text NOT NULL DEFAULT '';
-- The side whose offer of a draw waits for an answer (1 X, 2 O; 0: none).
ALTER TABLE games ADD COLUMN draw_offer integer NOT NULL DEFAULT 0;
ALTER TABLE challenges ADD COLUMN locale text NOT NULL DEFAULT '';

-- A server's settings, from /ttt config. Zero (or empty) means the bot's
-- default.
CREATE TABLE settings (
	guild_id          text COLLATE "C" PRIMARY KEY,
	turn_timeout      bigint NOT NULL,  -- seconds
	challenge_timeout bigint NOT NULL,  -- seconds
	size              integer NOT NULL,
	win               integer NOT NULL,
	channels          text NOT NULL,    -- channel ids where games may be played, space-separated; empty: all
	stop_role         text NOT NULL,    -- a role whose members may stop games
	computer_ranked   boolean NOT NULL, -- games against the computer count on the leaderboard
	pictures          boolean NOT NULL, -- boards too big for buttons are shown as a PNG picture
	updated_by        text NOT NULL,
	updated_at        bigint NOT NULL   -- microseconds since the Unix epoch
);

-- The guilds whose own copy of the commands this bot registered (with
-- DISCORD_GUILD_ID): registering globally later removes those copies, so
-- that nobody sees every command twice.
CREATE TABLE command_guilds (
	guild_id text COLLATE "C" PRIMARY KEY
);

-- The board message of a game (and the message of a challenge) as the bot
-- can reach it with its own token, once the interaction token that drew it
-- has expired (after 15 minutes): its channel and id; empty while unknown.
ALTER TABLE games ADD COLUMN board_channel text NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN board_message text NOT NULL DEFAULT '';
ALTER TABLE challenges ADD COLUMN msg_channel text NOT NULL DEFAULT '';
ALTER TABLE challenges ADD COLUMN msg_id text NOT NULL DEFAULT '';
