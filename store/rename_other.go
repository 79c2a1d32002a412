//go:build !linux

package store

// renameNoReplaceFile renames from to to, unless to exists (then an error
// that is fs.ErrExist): a check, then a rename.
func renameNoReplaceFile(from, to string) error { return statRename(from, to) }
