package bot

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
)

var oneClick = flag.Bool("oneclick", true, "TestOneClick makes its last click (false: only what comes before it)")

// TestOneClick plays a click on a 3×3 board, kept in a real SQLite file,
// after warming up with four. The blocks of code that one click runs are
// those whose count differs between two coverage profiles, with and
// without the last click:
//
//	go test ./bot/ -run '^TestOneClick$' -count=1 -coverpkg=./... -coverprofile=with.out
//	go test ./bot/ -run '^TestOneClick$' -count=1 -coverpkg=./... -coverprofile=without.out -args -oneclick=false
//	awk 'NR==FNR {n[$1]=$3; next} $3!=n[$1] {split($1, f, ":"); print f[1]}' without.out with.out | uniq -c
//
// (the last line lists the files, in the order of the profile).
func TestOneClick(t *testing.T) {
	st, err := openClickStore(t)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rec := new(recorder)
	b := New(rec, StoresOf(st), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf(botID)
	ctx := context.Background()
	m := challengeAccepted(t, b, rec)
	// A first click by each player warms what runs once per process
	// (the catalog's languages, the settings cache, prepared statements).
	b.serveIC(ctx, click(t, mason, cell(m, 1, 1)))
	m = current(t, b)
	b.serveIC(ctx, click(t, bob, cell(m, 2, 2)))
	m = current(t, b)
	b.Close() // waits for the background edits of the warm-up
	b = New(rec, StoresOf(st), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf(botID)
	b.serveIC(ctx, click(t, mason, cell(m, 1, 2)))
	m = current(t, b)
	b.serveIC(ctx, click(t, bob, cell(m, 3, 3)))
	m = current(t, b)
	if !*oneClick {
		b.Close()
		return
	}
	b.serveIC(ctx, click(t, mason, cell(m, 3, 1)))
	b.Close() // the click's follow-ups, if any, are part of it
	if r := rec.last(t); r.Type != discordgo.InteractionResponseUpdateMessage {
		t.Fatalf("the click was answered %d %q; want the board", r.Type, r.Data.Content)
	}
	if got := current(t, b); got.Version <= m.Version {
		t.Errorf("after the click the stored game is at version %d, as before; want the move saved", got.Version)
	}
}

var clickStore = flag.String("clickstore", "sqlite", "TestOneClick's store: sqlite (a real file) or memory")

func openClickStore(t *testing.T) (interface {
	wholeStore
	Close() error
}, error) {
	if *clickStore == "memory" {
		return new(store.Memory), nil
	}
	return store.OpenSQLite(filepath.Join(t.TempDir(), "click.db"))
}
