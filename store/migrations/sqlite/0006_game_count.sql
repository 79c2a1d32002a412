-- How many games were ever saved, for /ttt about: counted in the
-- transaction that first saves a game, so that reading the count costs a
-- few rows, not one per game. The count is the sum of the shards: games
-- are counted in the shard their id hashes to, so that PostgreSQL
-- processes saving new games at once rarely wait for one another's row
-- (SQLite has one writer anyway; it keeps the same rows).
CREATE TABLE game_count (
	shard INTEGER PRIMARY KEY,
	n     INTEGER NOT NULL
) STRICT;
INSERT INTO game_count (shard, n) SELECT 0, count(*) FROM games;
INSERT INTO game_count (shard, n) VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0);
