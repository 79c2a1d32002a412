-- One row that Ping writes, to tell that the database can be written (a
-- full disk, a read-only database or file fail it), for /readyz.
CREATE TABLE readiness (
	id INTEGER PRIMARY KEY,
	at INTEGER NOT NULL -- microseconds since the Unix epoch
);
INSERT INTO readiness (id, at) VALUES (1, 0);
