//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// LockSQLite takes the lock name beside the SQLite database at path: a
// flock on the file path + "." + name + ".lock" (created if need be),
// which then holds the holder's process id, for whoever wonders. It does
// not wait: a held lock is ErrLockHeld. The lock file stays after Close;
// only the flock matters.
func LockSQLite(path, name string, shared bool) (*Lock, error) {
	file := path + "." + name + ".lock"
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
	return &Lock{close: f.Close}, nil // closing the file lets the flock go
}
