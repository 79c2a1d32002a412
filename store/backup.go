package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
)

// BackupSQLite writes a copy of the SQLite database at path into dst, a
// file that must not exist yet, while the bot goes on using the database.
// Copying the database file alone can miss the saves still in its -wal
// file; SQLite's VACUUM INTO reads one consistent snapshot, the WAL
// included, and writes a compact database that needs no -wal. The copy
// is written into a new file of a unique name beside dst (dst +
// ".partial-" and random digits), which only this call creates and
// removes, and linked into place when complete, so dst is never a
// half-written database, and a dst created meanwhile is not overwritten.
// A path that holds no tttbot database (an empty file, another program's
// database) is refused. It holds no lock the bot waits for longer than a
// read.
func BackupSQLite(ctx context.Context, path, dst string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("store: backup: %w", err) // not a new, empty database
	}
	if _, err := os.Stat(dst); !errors.Is(err, fs.ErrNotExist) {
		if err == nil {
			return fmt.Errorf("store: backup: %s exists already: name a new file", dst)
		}
		return fmt.Errorf("store: backup: %w", err)
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_busy_timeout=10000")
	if err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	defer db.Close()
	var tables int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&tables); err != nil {
		return fmt.Errorf("store: backup: %s is not a tttbot database: %w", path, err)
	}
	if tables == 0 {
		return fmt.Errorf("store: backup: %s is not a tttbot database (it has none of its tables): check DATABASE_URL", path)
	}
	f, err := os.CreateTemp(filepath.Dir(dst), filepath.Base(dst)+".partial-*")
	if err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	partial := f.Name()
	defer os.Remove(partial) // ours: created empty above (VACUUM INTO fills an empty file)
	if err := f.Close(); err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", partial); err != nil {
		return fmt.Errorf("store: backup %s: %w", path, err)
	}
	if err := os.Link(partial, dst); err != nil { // unlike Rename, never replaces a dst made meanwhile
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("store: backup: %s was created meanwhile: name a new file", dst)
		}
		return fmt.Errorf("store: backup: %w", err)
	}
	return nil
}
