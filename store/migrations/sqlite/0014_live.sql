-- The key that signs the sessions of the live board's page (package web):
-- one row, made once at random by the first process that needs it
-- (WebKey), the same for every process sharing the database.
CREATE TABLE web_key (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	secret BLOB NOT NULL
);

-- How a game's board message stands with the live board (Board.Outside,
-- 1: the game is played on the page too; Board.Stale, 2: the message
-- does not show the stored game).
ALTER TABLE games ADD COLUMN board_live INTEGER NOT NULL DEFAULT 0;
