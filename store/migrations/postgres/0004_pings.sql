-- The last "your move" reply to a game's board (a correspondence game's
-- ping), in the board's channel: the bot deletes it once that move is
-- made, from whichever process sees the move. Empty: none.
ALTER TABLE games ADD COLUMN board_ping text NOT NULL DEFAULT '';
