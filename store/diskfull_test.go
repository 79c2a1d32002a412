package store

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// smallDisk mounts a tmpfs of size bytes for the test, or skips: it needs
// root (or CAP_SYS_ADMIN), as in a container run by root.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("disk-full test skipped: it mounts a small tmpfs, which needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("disk-full test skipped: cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fillDisk writes a file that takes all the space left in dir, and
// returns its name.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	name := filepath.Join(dir, "ballast")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			return name
		}
	}
}

// A full disk fails saves (and Ping) with an error, loses nothing saved
// before, and once space is back the store works again by itself: in the
// same process, and after a restart.
func TestSQLiteDiskFull(t *testing.T) {
	ctx := context.Background()
	dir := smallDisk(t, 4<<20)
	path := filepath.Join(dir, "tttbot.db")
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	long := strings.Repeat("x", 2000)
	saved := 0
	save := func(i int) error {
		g := newGame(fmt.Sprintf("g%d", i), "guild", fmt.Sprintf("c%d", i), "alice", "bob")
		g.Board.Token = long
		return s.Save(ctx, g)
	}
	for ; saved < 100; saved++ {
		if err := save(saved); err != nil {
			t.Fatalf("Save %d on an empty disk = %v", saved, err)
		}
	}
	ballast := fillDisk(t, dir)
	failed := 0
	for i := saved; i < saved+1000 && failed == 0; i++ {
		if err := save(i); err != nil {
			failed = i
			t.Logf("Save on a full disk = %v", err)
		} else {
			saved++
		}
	}
	if failed == 0 {
		t.Fatal("1000 saves on a full disk succeeded")
	}
	if err := s.Ping(ctx); err == nil {
		t.Error("Ping on a full disk = nil; want an error")
	}
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	// Many saves: more than the WAL holds before a checkpoint, which
	// would fill the small disk again.
	for i := failed; i < failed+300; i++ {
		if err := save(i); err != nil {
			t.Fatalf("Save %d once space is back = %v; want nil", i-failed+1, err)
		}
		saved = i + 1
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping once space is back = %v; want nil", err)
	}
	s.Close()
	if s, err = OpenSQLite(path); err != nil {
		t.Fatalf("OpenSQLite after the disk was full = %v", err)
	}
	for i := range saved {
		if g, err := s.Game(ctx, fmt.Sprintf("g%d", i)); g == nil || err != nil {
			t.Fatalf("Game(g%d), saved before the disk was full = %v, %v", i, g, err)
		}
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > walPages*4096+64<<10 {
		t.Errorf("after a restart the WAL is %d bytes; want at most about %d", fi.Size(), walPages*4096)
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping after a restart = %v; want nil", err)
	}
	if err := save(saved); err != nil {
		t.Errorf("Save after a restart = %v; want nil", err)
	}
}
