-- The key that signs the sessions of the live board's page (package web):
-- one row, made once at random by the first process that needs it
-- (WebKey), the same for every replica.
CREATE TABLE web_key (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	secret BYTEA NOT NULL
);

-- The channels whose game a page of the live board watches, on any
-- replica, until an expiry that the replicas watching renew (Watch).
CREATE TABLE live_watches (
	channel_id TEXT PRIMARY KEY,
	until TIMESTAMPTZ NOT NULL
);

-- A save of a watched channel's game tells every replica, in the save's
-- transaction (NOTIFY is delivered at commit): "schema channel game
-- version" (the schema, so that databases of several bots sharing a
-- server, in schemas of their own, hear only their own).
-- A channel nobody watches costs one index look-up, and no round trip.
CREATE FUNCTION ttt_live_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF EXISTS (SELECT 1 FROM live_watches WHERE channel_id = NEW.channel_id AND until > now()) THEN
		PERFORM pg_notify('ttt_live', current_schema() || ' ' || NEW.channel_id || ' ' || NEW.id || ' ' || NEW.version);
	END IF;
	RETURN NULL;
END
$$;

CREATE TRIGGER games_live AFTER INSERT OR UPDATE ON games
	FOR EACH ROW EXECUTE FUNCTION ttt_live_notify();

-- How a game's board message stands with the live board (Board.Outside,
-- 1: the game is played on the page too; Board.Stale, 2: the message
-- does not show the stored game).
ALTER TABLE games ADD COLUMN board_live INTEGER NOT NULL DEFAULT 0;
