-- The interactions the bot acted on, by id, with when it first saw each
-- (microseconds): an interaction delivered or replayed again, to this
-- process or another, is acted on once for as long as Discord's signature
-- of it is accepted. Rows older than that are deleted in batches
-- (ForgetInteractions), through the index.
CREATE TABLE interactions (
	id TEXT PRIMARY KEY,
	seen_at BIGINT NOT NULL
);
CREATE INDEX interactions_seen ON interactions (seen_at);
