package store

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplaceFile renames from to to, unless to exists (then an error
// that is fs.ErrExist): renameat2 with RENAME_NOREPLACE, in one step. A
// filesystem that does not know the flag gets a check, then a rename.
func renameNoReplaceFile(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return statRename(from, to)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
