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
// removes, and linked into place when complete (renamed, where the
// filesystem has no hard links, without replacing), so dst is never a
// half-written database, and a dst created meanwhile is not overwritten.
// A path that holds no tttbot database (an empty file, another program's
// database) is refused. It holds no lock the bot waits for longer than a
// read.
func BackupSQLite(ctx context.Context, path, dst string) (err error) {
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
	defer func() { // ours: created empty above (VACUUM INTO fills an empty file)
		if rerr := os.Remove(partial); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			if err != nil {
				err = fmt.Errorf("%w (and %s, this backup's unfinished copy, could not be removed: %v; delete it)", err, partial, rerr)
			} else {
				err = fmt.Errorf("store: backup: %s is written, but %s, a second name of it, could not be removed: %w; delete it", dst, partial, rerr)
			}
		}
	}()
	if err := f.Close(); err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", partial); err != nil {
		return fmt.Errorf("store: backup %s: %w", path, err)
	}
	if err := place(partial, dst); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("store: backup: %s was created meanwhile: name a new file", dst)
		}
		return fmt.Errorf("store: backup: %w", err)
	}
	return nil
}

// linkFile and renameNoReplace are os.Link and the rename of
// renameNoReplace.go; tests replace them to play filesystems that have
// no hard links.
var (
	linkFile        = os.Link
	renameNoReplace = renameNoReplaceFile
)

// place gives the complete copy partial the name dst, never replacing a
// dst made meanwhile (then the error is fs.ErrExist): a hard link (partial
// is removed after), or, on a filesystem without hard links (vfat, exFAT,
// many CIFS and FUSE ones), a rename that does not replace.
func place(partial, dst string) error {
	err := linkFile(partial, dst)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	if rerr := renameNoReplace(partial, dst); rerr != nil {
		if errors.Is(rerr, fs.ErrExist) {
			return rerr
		}
		return fmt.Errorf("neither a hard link (%v) nor a rename that does not replace (%v) can name the copy %s", err, rerr, dst)
	}
	return nil
}

// statRename renames from to to if to does not exist (else an error that
// is fs.ErrExist). A to made between the check and the rename is
// replaced: only where no better way is.
func statRename(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: fs.ErrExist}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Rename(from, to)
}
