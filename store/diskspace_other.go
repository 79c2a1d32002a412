//go:build !unix

package store

// freeSpace cannot tell on this system.
func freeSpace(dir string) (uint64, bool) { return 0, false }
