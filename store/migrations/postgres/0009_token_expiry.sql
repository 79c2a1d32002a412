-- Interaction tokens are secrets that Discord accepts for 15 minutes: a
-- game's board token is cleared ('') once they are over (Due does it as
-- the bot sweeps). This clears those of the games saved before, and the
-- index finds the tokens still kept, few at any time.
UPDATE games SET board_token = ''
	WHERE board_token <> '' AND (board_at IS NULL OR board_at < (extract(epoch FROM now())::bigint - 900) * 1000000);
CREATE INDEX games_tokens ON games (board_at) WHERE board_token <> '';
-- The planner must learn that few games keep a token now, or it reads the
-- whole table for the few that do.
ANALYZE games;
