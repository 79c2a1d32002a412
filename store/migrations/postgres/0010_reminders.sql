-- The turn whose player to move was reminded (the moves played before it,
-- plus one; 0: none), so that a turn gets one reminder, whichever process
-- sends it and across restarts. The reminder's message is the game's ping
-- (board_ping) until the turn is over.
ALTER TABLE games ADD COLUMN reminded integer NOT NULL DEFAULT 0;
-- /ttt config reminders:false: no reminders in this server.
ALTER TABLE settings ADD COLUMN no_reminders boolean NOT NULL DEFAULT false;
