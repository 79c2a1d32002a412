-- When the player to move is due the turn's reminder (microseconds, as
-- deadline), kept by the bot with each save; NULL when the turn has none
-- to come (reminded already, too short, the computer's, or the server has
-- no reminders). The sweep of every process finds the reminders due
-- through the index, as few as the turns past their middle, and sends
-- those of the games no process is timing. Games saved before have NULL
-- until their next save: every process times them since it restored.
ALTER TABLE games ADD COLUMN remind_at bigint;
CREATE INDEX games_remind ON games (remind_at) WHERE remind_at IS NOT NULL;
