package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
)

// BackupSQLite writes a copy of the SQLite database at path into dst, a
// file that must not exist yet, while the bot goes on using the database.
// Copying the database file alone can miss the saves still in its -wal
// file; SQLite's VACUUM INTO reads one consistent snapshot, the WAL
// included, and writes a compact database that needs no -wal. The copy
// is written beside dst and renamed into place when complete, so dst is
// never a half-written database. It holds no lock the bot waits for
// longer than a read.
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
	partial := dst + ".partial"
	_ = os.Remove(partial) // a previous backup cut short
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", partial); err != nil {
		_ = os.Remove(partial)
		return fmt.Errorf("store: backup %s: %w", path, err)
	}
	if err := os.Rename(partial, dst); err != nil {
		_ = os.Remove(partial)
		return fmt.Errorf("store: backup: %w", err)
	}
	return nil
}
