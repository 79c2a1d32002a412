package bot

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
)

// The user in the slash-command fixture.
const mason = "53908232506183680"

// runningRecord is a stored 3×3 game of Mason against bob, Mason to move.
func runningRecord(t *testing.T, channelID string, deadline time.Time) *store.Record {
	t.Helper()
	return &store.Record{
		ChannelID: channelID, ID: "abc123", Players: [3]string{game.X: mason, game.O: "2"},
		Level: game.Hard, Size: 3, Win: 3, First: game.X, Serial: 1, Deadline: deadline,
		BoardAppID: "app", BoardToken: "tok", BoardAt: time.Now(), Shown: "old board",
	}
}

func newBotOn(t *testing.T, st Store, rec *recorder) *Bot {
	t.Helper()
	b := New(rec, st, DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf("1000000000000000001")
	return b
}

// A channel held by a slow step answers "busy" in time instead of leaving
// the user with "This interaction failed".
func TestBusyChannelAnswersInTime(t *testing.T) {
	b, rec, _ := newTestBot(t)
	ic := slashPayload(t, "board", nil, nil)
	held := mustLock(t, &b.games, ic.ChannelID)
	defer held.unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	b.serve(ctx, ic)
	wantEphemeral(t, rec.last(t), "busy")
	if ctx.Err() != nil {
		t.Errorf("answered only after the deadline")
	}
}

// A game whose player ran out of time while the bot was down has been lost
// by the time anyone touches the channel again.
func TestDeadlinePassedWhileDown(t *testing.T) {
	st := new(store.Memory)
	ic := slashPayload(t, "move", []map[string]any{intOpt("row", 1), intOpt("col", 1)}, nil)
	if err := st.Save(context.Background(), runningRecord(t, ic.ChannelID, time.Now().Add(-time.Hour))); err != nil {
		t.Fatal(err)
	}
	rec := new(recorder)
	b := newBotOn(t, st, rec)
	b.serve(context.Background(), ic)
	wantEphemeral(t, rec.last(t), "over")
	b.Close() // waits for the board edit
	r, _ := st.Load(context.Background(), ic.ChannelID)
	if r.End != store.Timeout || r.Loser != game.X || len(r.Moves) != 0 {
		t.Errorf("stored game: end %d, loser %v, %d moves; want a timeout lost by X, no move", r.End, r.Loser, len(r.Moves))
	}
	if len(rec.edits) != 1 || !strings.Contains(*rec.edits[0].Content, "did not move in time") {
		t.Errorf("board edits = %d; want one saying the time ran out", len(rec.edits))
	}
}

// Restore restarts the turn timers of stored games.
func TestRestoreArmsTimers(t *testing.T) {
	st := new(store.Memory)
	if err := st.Save(context.Background(), runningRecord(t, "c1", time.Now().Add(50*time.Millisecond))); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{edited: make(chan struct{}, 1)}
	b := newBotOn(t, st, rec)
	defer b.Close()
	if err := b.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-rec.edited // the timer fired and the board was edited
	r, _ := st.Load(context.Background(), "c1")
	if r.End != store.Timeout {
		t.Errorf("stored game ended %d; want a timeout", r.End)
	}
}

// A stored game the bot cannot play is set aside: the channel works.
func TestBadRecordDoesNotLockTheChannel(t *testing.T) {
	st := new(store.Memory)
	ic := slashPayload(t, "start", nil, nil)
	bad := runningRecord(t, ic.ChannelID, time.Time{})
	bad.Size = 11
	if err := st.Save(context.Background(), bad); err != nil {
		t.Fatal(err)
	}
	rec := new(recorder)
	b := newBotOn(t, st, rec)
	defer b.Close()
	b.serve(context.Background(), ic)
	if r := rec.last(t); r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		t.Fatalf("/ttt start answered %q; want a new game", r.Data.Content)
	}
}

// Moves ping the player to move; showing the board again pings nobody.
func TestPings(t *testing.T) {
	b, rec, _ := newTestBot(t)
	b.serve(context.Background(), slashPayload(t, "start", nil, nil))
	if u := rec.last(t).Data.AllowedMentions.Users; len(u) != 1 || u[0] != mason {
		t.Errorf("start pings %v; want [%s]", u, mason)
	}
	b.serve(context.Background(), slashPayload(t, "board", nil, nil))
	if u := rec.last(t).Data.AllowedMentions.Users; len(u) != 0 {
		t.Errorf("/ttt board pings %v; want nobody", u)
	}
}

// Interactions that arrive while the bot shuts down are answered.
func TestAnswerDuringShutdown(t *testing.T) {
	b, rec, _ := newTestBot(t)
	b.Close()
	b.Handle(nil, slashPayload(t, "help", nil, nil))
	wantEphemeral(t, rec.last(t), "restarting")
}
