package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
)

func TestStoredRoundTrip(t *testing.T) {
	m := testMatch(t, 7, 4, game.Move{Row: 3, Col: 3, Player: game.X}, game.Move{Row: 2, Col: 4, Player: game.O})
	m.Computer, m.Level, m.Serial = game.O, game.Medium, 4
	m.Times = []time.Time{time.Unix(100, 0), time.Unix(200, 0)}
	board := store.Board{AppID: "1", Token: "tok", At: time.Unix(300, 0)}
	got, err := fromStored(toStored(&match{Match: m, Board: board, locale: "pt-BR"}))
	if err != nil {
		t.Fatalf("fromStored(toStored(m)) = %v", err)
	}
	if a, b := renderMatch(english(), got.Match).content, renderMatch(english(), m).content; a != b {
		t.Errorf("round trip draws\n%s\nwant\n%s", a, b)
	}
	if got.Serial != 4 || got.Computer != game.O || got.Level != game.Medium || got.Board != board || got.Judge.Len() != 2 || !got.Times[1].Equal(m.Times[1]) ||
		got.locale != "pt-BR" {
		t.Errorf("round trip = %+v; want the same match", got)
	}
}

func TestStoredRejectsCorruption(t *testing.T) {
	good := toStored(&match{Match: testMatch(t, 3, 3, game.Move{Row: 0, Col: 0, Player: game.X})})
	for name, spoil := range map[string]func(g *store.Game){
		"occupied twice": func(g *store.Game) {
			g.Moves = append(g.Moves, store.Move{Move: game.Move{Row: 0, Col: 0, Player: game.O}})
		},
		"bad size":   func(g *store.Game) { g.Size = 0 },
		"bad id":     func(g *store.Game) { g.ID = "../x" },
		"no player":  func(g *store.Game) { g.Players[game.O] = "" },
		"bad ending": func(g *store.Game) { g.End = 200 },
	} {
		g := good.Clone()
		spoil(g)
		if _, err := fromStored(g); !errors.Is(err, errBadGame) {
			t.Errorf("%s: fromStored = %v; want errBadGame", name, err)
		}
	}
}

// A game survives a restart of the bot that keeps the same store: the new
// bot shows the same board and takes the next move.
func TestGameSurvivesRestart(t *testing.T) {
	st := new(store.Memory)
	rec := new(recorder)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	first := New(rec, StoresOf(st), DefaultConfig(), log)
	first.SetSelf("1000000000000000001")
	first.serveIC(context.Background(), slashPayload(t, "start", []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}, nil))
	first.serveIC(context.Background(), slashPayload(t, "move", []map[string]any{intOpt("row", 1), intOpt("col", 1)}, nil))
	shown := rec.last(t).Data.Content
	first.Close()

	second := New(rec, StoresOf(st), DefaultConfig(), log)
	second.SetSelf("1000000000000000001")
	defer second.Close()
	second.serveIC(context.Background(), slashPayload(t, "board", nil, nil))
	if got := rec.last(t).Data.Content; got != shown {
		t.Fatalf("after a restart /ttt board shows\n%s\nwant\n%s", got, shown)
	}
	// X has 1,1 and O one more cell; X's next move goes through.
	for _, cell := range [][2]int{{3, 3}, {3, 1}, {1, 3}, {2, 2}} {
		second.serveIC(context.Background(), slashPayload(t, "move", []map[string]any{intOpt("row", cell[0]), intOpt("col", cell[1])}, nil))
		if r := rec.last(t); r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
			if strings.Count(r.Data.Content, cellX)+strings.Count(r.Data.Content, lastX) < 2 {
				t.Errorf("board after the move has fewer than 2 X marks:\n%s", r.Data.Content)
			}
			return
		}
	}
	t.Fatal("no move was accepted after the restart")
}

type failingStore struct{ store.Memory }

func (*failingStore) Save(context.Context, *store.Game) error { return errors.New("disk full") }

// When the game cannot be saved, the player is told something went wrong
// and nothing changes.
func TestSaveFailureChangesNothing(t *testing.T) {
	rec := new(recorder)
	b := New(rec, StoresOf(new(failingStore)), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf("1000000000000000001")
	defer b.Close()
	ic := slashPayload(t, "start", nil, nil)
	b.serveIC(context.Background(), ic)
	wantEphemeral(t, rec.last(t), internalErrorText)
	b.serveIC(context.Background(), slashPayload(t, "board", nil, nil))
	wantEphemeral(t, rec.last(t), "No game in this channel")
}

// stuckStore's saves wait until their context ends, as a save queued
// behind other writers does.
type stuckStore struct{ store.Memory }

func (*stuckStore) Save(ctx context.Context, _ *store.Game) error {
	<-ctx.Done()
	return ctx.Err()
}

// A handler that used up its time still gets its answer out: the user is
// told something went wrong instead of seeing "This interaction failed".
func TestAnswerAfterTheHandlersTimeRanOut(t *testing.T) {
	rec := new(recorder)
	b := New(rec, StoresOf(new(stuckStore)), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf("1000000000000000001")
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	b.handle(ctx, slashPayload(t, "start", nil, nil).Interaction, viaDiscord{rec, nil})
	wantEphemeral(t, rec.last(t), internalErrorText)
}

// Two processes on one store play the same channel. Each keeps the game it
// last saved in memory, so each one's copy goes out of date when the other
// plays: a move it would refuse, or a move it would take but cannot save,
// is judged again on the stored game, and that verdict is the answer.
func TestMoveOnAStaleCopy(t *testing.T) {
	st := new(store.Memory)
	channelID := slashPayload(t, "board", nil, nil).ChannelID
	if err := st.Save(context.Background(), runningRecord(t, channelID, time.Now().Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	recA, recB := &recorder{}, &recorder{}
	a, b := newBotOn(t, st, recA), newBotOn(t, st, recB)
	defer a.Close()
	defer b.Close()
	move := func(p *Bot, rec *recorder, user string, row, col int) *discordgo.InteractionResponse {
		t.Helper()
		ic := slashPayload(t, "move", []map[string]any{intOpt("row", row), intOpt("col", col)}, nil)
		ic.Member.User.ID = user
		p.serveIC(context.Background(), ic)
		return rec.last(t)
	}
	stored := func() int {
		t.Helper()
		g, err := st.Current(context.Background(), channelID)
		if err != nil {
			t.Fatal(err)
		}
		return len(g.Moves)
	}
	board := func(what string, r *discordgo.InteractionResponse, moves int) {
		t.Helper()
		if r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
			t.Fatalf("%s answered %q; want the board", what, r.Data.Content)
		}
		if n := stored(); n != moves {
			t.Fatalf("after %s the stored game has %d moves; want %d", what, n, moves)
		}
	}

	board("mason's first move, on A", move(a, recA, mason, 1, 1), 1)
	board("the reply, on B", move(b, recB, "2", 2, 2), 2)
	// A's copy says it is O's turn; the stored game says mason's.
	board("mason's move on A's stale copy", move(a, recA, mason, 1, 2), 3)
	// B's copy says it is mason's turn, and would take this move; the
	// stored game says O's.
	wantEphemeral(t, move(b, recB, mason, 1, 3), "not your turn")
	if n := stored(); n != 3 {
		t.Fatalf("a refused move changed the stored game: %d moves; want 3", n)
	}
	board("O's move on B, which reloaded", move(b, recB, "2", 3, 3), 4)
}

// A SQLite file deleted under the running bot: the store refuses the write
// and the player is told the bot cannot save right now, not that something
// unnamed went wrong.
func TestDeletedDatabaseIsTold(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tttbot.db")
	st, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := new(recorder)
	b := New(rec, StoresOf(st), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf("1000000000000000001")
	defer b.Close()
	b.serveIC(context.Background(), slashPayload(t, "start", nil, nil))
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	b.serveIC(context.Background(), slashPayload(t, "move", []map[string]any{intOpt("row", 1), intOpt("col", 1)}, nil))
	wantEphemeral(t, rec.last(t), english().T("error.store_unavailable", nil))
}

// unsureStore's saves end without knowing whether they were committed, as
// a PostgreSQL COMMIT whose answer was lost does when reading the game back
// fails too.
type unsureStore struct{ store.Memory }

func (*unsureStore) Save(context.Context, *store.Game) error {
	return fmt.Errorf("save: %w", store.ErrOutcomeUnknown)
}

// A save of unknown outcome is never told as a failure.
func TestUnknownOutcomeIsTold(t *testing.T) {
	rec := new(recorder)
	b := New(rec, StoresOf(new(unsureStore)), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf("1000000000000000001")
	defer b.Close()
	b.serveIC(context.Background(), slashPayload(t, "start", nil, nil))
	wantEphemeral(t, rec.last(t), english().T("error.outcome_unknown", nil))
}

// wholeStore is a store that keeps all five parts, as the test helpers
// take it.
type wholeStore interface {
	GameStore
	ChallengeStore
	SettingsStore
	StatsStore
	CommandGuildStore
	InteractionStore
}
