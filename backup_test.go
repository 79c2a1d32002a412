package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
)

// tttbot -backup FILE copies a live SQLite database, saves still in its
// WAL included: the copy opens as a database with every game in it.
func TestBackupLiveDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "tttbot.db")
	live, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	start := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	var ids []string
	for i := range 5 {
		g := &store.Game{ID: fmt.Sprintf("g%d", i), GuildID: "guild", ChannelID: fmt.Sprintf("chan%d", i),
			Players: [3]string{game.X: "alice", game.O: "bob"}, Size: 3, Win: 3, First: game.X, StartedAt: start}
		if err := live.Save(ctx, g); err != nil {
			t.Fatal(err)
		}
		g.Moves = append(g.Moves, store.Move{Move: game.Move{Row: 1, Col: 1, Player: game.X}, At: start.Add(time.Second)})
		if err := live.Save(ctx, g); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, g.ID)
	}

	dst := filepath.Join(dir, "backup.db")
	var out bytes.Buffer
	env := map[string]string{"DATABASE_URL": path}
	if err := run(ctx, []string{"-backup", dst}, func(k string) string { return env[k] }, &out, io.Discard); err != nil {
		t.Fatalf("tttbot -backup %s: %v", dst, err)
	}
	if !strings.Contains(out.String(), dst) {
		t.Errorf("tttbot -backup said %q; want it to name %s", out.String(), dst)
	}
	if _, err := os.Stat(dst + "-wal"); err == nil {
		t.Errorf("the backup has a -wal file beside it; want one self-contained file")
	}
	copy, err := store.OpenSQLite(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer copy.Close()
	for _, id := range ids {
		g, err := copy.Game(ctx, id)
		if err != nil || len(g.Moves) != 1 || g.Moves[0].Row != 1 {
			t.Errorf("game %s in the backup: %+v, %v; want it with its one move", id, g, err)
		}
	}

	// A second backup to the same file is refused; PostgreSQL is pg_dump's.
	if err := run(ctx, []string{"-backup", dst}, func(k string) string { return env[k] }, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("backup onto an existing file: %v; want a refusal", err)
	}
	env["DATABASE_URL"] = "postgres://bot:hunter2@db/ttt"
	if err := run(ctx, []string{"-backup", filepath.Join(dir, "pg.db")}, func(k string) string { return env[k] }, io.Discard, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "pg_dump") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("backup of PostgreSQL: %v; want a pointer to pg_dump, without the password", err)
	}
}

// A backup never deletes a file it did not create: a dst+".partial" left
// by someone else is still there, unchanged, after a backup; and a source
// that is no tttbot database (an empty file) is refused, with nothing
// written.
func TestBackupTouchesOnlyItsOwnFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "tttbot.db")
	live, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	dst := filepath.Join(dir, "backup.db")
	theirs := dst + ".partial"
	if err := os.WriteFile(theirs, []byte("someone else's file"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DATABASE_URL": path}
	if err := run(ctx, []string{"-backup", dst}, func(k string) string { return env[k] }, io.Discard, io.Discard); err != nil {
		t.Fatalf("tttbot -backup %s beside an existing %s: %v", dst, filepath.Base(theirs), err)
	}
	if b, err := os.ReadFile(theirs); err != nil || string(b) != "someone else's file" {
		t.Errorf("after the backup, %s = %q, %v; want it untouched", theirs, b, err)
	}
	if left, _ := filepath.Glob(dst + ".partial-*"); len(left) != 0 {
		t.Errorf("the backup left %v behind", left)
	}

	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env["DATABASE_URL"] = empty
	var out bytes.Buffer
	emptyDst := filepath.Join(dir, "empty-backup.db")
	err = run(ctx, []string{"-backup", emptyDst}, func(k string) string { return env[k] }, &out, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not a tttbot database") {
		t.Errorf("tttbot -backup of an empty file = %v (said %q); want a refusal saying it is not a tttbot database", err, out.String())
	}
	if _, err := os.Stat(emptyDst); err == nil {
		t.Errorf("a backup of an empty file wrote %s", emptyDst)
	}
}
