//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// LockSQLite takes the lock name beside the SQLite database at path: a
// flock on the file path + "." + name + ".lock" (created if need be),
// which then holds the holder's process id, for whoever wonders. It does
// not wait: a held lock is ErrLockHeld. The lock file stays after Close;
// only the flock matters.
//
// The lock is the database's, not the path's: path is first resolved
// through its symbolic links, and, once the database exists, a second
// lock file beside it is named by the file's device and inode (a hard
// link has its own path but the same inode), and both are taken. (A hard
// link in another directory is not seen: its lock files are in its own.)
// The database file itself is never opened here: closing a file the
// process has open drops SQLite's own locks on it.
func LockSQLite(path, name string, shared bool) (*Lock, error) {
	files := []string{realPath(path) + "." + name + ".lock"}
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err == nil {
		files = append(files, filepath.Join(filepath.Dir(files[0]),
			fmt.Sprintf(".tttbot-%d-%d.%s.lock", uint64(st.Dev), uint64(st.Ino), name)))
	}
	var held []*os.File
	release := func() error {
		var errs []error
		for _, f := range held {
			errs = append(errs, f.Close()) // closing the file lets the flock go
		}
		held = nil
		return errors.Join(errs...)
	}
	for _, file := range files {
		f, err := flock(file, shared)
		if err != nil {
			release()
			return nil, err
		}
		held = append(held, f)
	}
	return &Lock{close: release}, nil
}

// realPath is path with its symbolic links resolved, as far as they
// exist: a database not created yet resolves its directory.
func realPath(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(dir, filepath.Base(path))
	}
	return path
}

// flock opens (or creates) file and flocks it, without waiting.
func flock(file string, shared bool) (*os.File, error) {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("store: lock: %w", err)
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s", ErrLockHeld, file)
		}
		return nil, fmt.Errorf("store: lock %s: %w", file, err)
	}
	if !shared {
		_ = f.Truncate(0)
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}
