-- Open challenges, so that every process sharing the database can accept,
-- decline or expire them. A channel has at most one; a row is deleted when
-- its challenge is accepted, declined, withdrawn or expires.
CREATE TABLE challenges (
	channel_id text COLLATE "C" PRIMARY KEY,
	id         text COLLATE "C" NOT NULL UNIQUE,
	guild_id   text COLLATE "C" NOT NULL,
	from_user  text COLLATE "C" NOT NULL,
	to_user    text COLLATE "C" NOT NULL,
	size       integer NOT NULL,
	win        integer NOT NULL,
	expires_at bigint NOT NULL,   -- microseconds since the Unix epoch
	msg_app    text NOT NULL,     -- the challenge message's interaction
	msg_token  text NOT NULL,
	msg_at     bigint NOT NULL
);
