-- The channels whose current game is a game: what a foreign key check on
-- a game's id looks up, so that it reads an index, not every channel.
CREATE INDEX channels_game ON channels (game_id);
