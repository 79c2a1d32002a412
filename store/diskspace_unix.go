//go:build unix

package store

import "syscall"

// freeSpace returns the bytes that the file system holding dir has free
// for an unprivileged user, and whether it could tell.
func freeSpace(dir string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}
