-- Open challenges, so that every process sharing the database can accept,
-- decline or expire them. A channel has at most one; a row is deleted when
-- its challenge is accepted, declined, withdrawn or expires.
CREATE TABLE challenges (
	channel_id TEXT PRIMARY KEY,
	id         TEXT NOT NULL UNIQUE,
	guild_id   TEXT NOT NULL,
	from_user  TEXT NOT NULL,
	to_user    TEXT NOT NULL,
	size       INTEGER NOT NULL,
	win        INTEGER NOT NULL,
	expires_at INTEGER NOT NULL,  -- microseconds since the Unix epoch
	msg_app    TEXT NOT NULL,     -- the challenge message's interaction
	msg_token  TEXT NOT NULL,
	msg_at     INTEGER NOT NULL
);
