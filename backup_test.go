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
