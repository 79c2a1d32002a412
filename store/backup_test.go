package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// withoutHardLinks makes linkFile fail as on a filesystem without hard
// links (vfat says EPERM), calling also first, for the test's run.
func withoutHardLinks(t *testing.T, also func(dst string)) {
	old := linkFile
	t.Cleanup(func() { linkFile = old })
	linkFile = func(from, to string) error {
		if also != nil {
			also(to)
		}
		return &os.LinkError{Op: "link", Old: from, New: to, Err: syscall.EPERM}
	}
}

// newBackupSource is a tttbot database at dir/tttbot.db.
func newBackupSource(t *testing.T, dir string) string {
	path := filepath.Join(dir, "tttbot.db")
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// noPartials fails the test if a backup left its unfinished copy.
func noPartials(t *testing.T, dst string) {
	t.Helper()
	if left, _ := filepath.Glob(dst + ".partial-*"); len(left) != 0 {
		t.Errorf("the backup left %v behind", left)
	}
}

// On a filesystem without hard links (vfat, exFAT, many CIFS and FUSE
// ones), a backup is renamed into place instead, and is a database.
func TestBackupWithoutHardLinks(t *testing.T) {
	dir := t.TempDir()
	path := newBackupSource(t, dir)
	withoutHardLinks(t, nil)
	dst := filepath.Join(dir, "backup.db")
	if err := BackupSQLite(context.Background(), path, dst); err != nil {
		t.Fatalf("backup where hard links fail: %v; want it written by a rename", err)
	}
	noPartials(t, dst)
	s, err := OpenSQLite(dst)
	if err != nil {
		t.Fatalf("the backup does not open: %v", err)
	}
	if _, err := s.CountRunning(context.Background()); err != nil {
		t.Errorf("the backup is no tttbot database: %v", err)
	}
	s.Close()
}

// Without hard links, a dst made while the backup ran is still not
// replaced: the backup says so, and removes its own copy.
func TestBackupWithoutHardLinksKeepsANewFile(t *testing.T) {
	dir := t.TempDir()
	path := newBackupSource(t, dir)
	withoutHardLinks(t, func(dst string) {
		if err := os.WriteFile(dst, []byte("made meanwhile"), 0o600); err != nil {
			t.Error(err)
		}
	})
	dst := filepath.Join(dir, "backup.db")
	err := BackupSQLite(context.Background(), path, dst)
	if err == nil || !strings.Contains(err.Error(), "created meanwhile") {
		t.Errorf("backup onto a file made meanwhile, without hard links: %v; want a refusal", err)
	}
	if b, err := os.ReadFile(dst); err != nil || string(b) != "made meanwhile" {
		t.Errorf("the file made meanwhile is now %q, %v; want it untouched", b, err)
	}
	noPartials(t, dst)
}
