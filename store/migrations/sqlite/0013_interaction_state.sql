-- What became of each interaction's action: 1 under way (its process
-- acts on it now, or died doing so), 2 done, 3 outcome unknown. An
-- action known not done deletes its row, so that a later delivery acts.
-- Rows recorded before this were all acted on.
ALTER TABLE interactions ADD COLUMN state INTEGER NOT NULL DEFAULT 2;
