package bot

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/table"
)

// The user in the slash-command fixture.
const mason = "53908232506183680"

// runningRecord is a stored 3×3 game of Mason against bob, Mason to move.
func runningRecord(t *testing.T, channelID string, deadline time.Time) *store.Game {
	t.Helper()
	return &store.Game{
		ChannelID: channelID, ID: "abc123", Players: [3]string{game.X: mason, game.O: "2"},
		Level: game.Hard, Size: 3, Win: 3, First: game.X, Serial: 1, Deadline: deadline,
		StartedAt: time.Now().Add(-time.Hour),
		Board:     store.Board{AppID: "app", Token: "tok", At: time.Now()},
	}
}

func newBotOn(t *testing.T, st wholeStore, rec *recorder) *Bot {
	t.Helper()
	b := New(rec, StoresOf(st), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf("1000000000000000001")
	return b
}

// A channel held by a slow step answers "busy" in time instead of leaving
// the user with "This interaction failed".
func TestBusyChannelAnswersInTime(t *testing.T) {
	b, rec, _ := newTestBot(t)
	ic := slashPayload(t, "board", nil, nil)
	held := mustLock(t, &b.tables.channels, ic.ChannelID)
	defer b.tables.channels.unlock(held)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	b.serveIC(ctx, ic)
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
	b.serveIC(context.Background(), ic)
	wantEphemeral(t, rec.last(t), "over")
	b.Close() // waits for the board edit
	r, _ := st.Current(context.Background(), ic.ChannelID)
	if r.End != game.EndTimeout || r.Loser != game.X || len(r.Moves) != 0 {
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
	r, _ := st.Current(context.Background(), "c1")
	if r.End != game.EndTimeout {
		t.Errorf("stored game ended %d; want a timeout", r.End)
	}
}

// A stored game the bot cannot play is set aside: the channel works.
func TestBadRecordDoesNotLockTheChannel(t *testing.T) {
	st := new(store.Memory)
	ic := slashPayload(t, "start", nil, nil)
	bad := runningRecord(t, ic.ChannelID, time.Time{})
	bad.Size = MaxSize + 1
	if err := st.Save(context.Background(), bad); err != nil {
		t.Fatal(err)
	}
	rec := new(recorder)
	b := newBotOn(t, st, rec)
	defer b.Close()
	b.serveIC(context.Background(), ic)
	if r := rec.last(t); r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		t.Fatalf("/ttt start answered %q; want a new game", r.Data.Content)
	}
}

// Moves ping the player to move; showing the board again pings nobody.
func TestPings(t *testing.T) {
	b, rec, _ := newTestBot(t)
	b.serveIC(context.Background(), slashPayload(t, "start", nil, nil))
	if u := rec.last(t).Data.AllowedMentions.Users; len(u) != 1 || u[0] != mason {
		t.Errorf("start pings %v; want [%s]", u, mason)
	}
	b.serveIC(context.Background(), slashPayload(t, "board", nil, nil))
	if u := rec.last(t).Data.AllowedMentions.Users; len(u) != 0 {
		t.Errorf("/ttt board pings %v; want nobody", u)
	}
}

// Interactions that arrive while the bot shuts down are answered.
func TestAnswerDuringShutdown(t *testing.T) {
	b, rec, _ := newTestBot(t)
	b.Close()
	b.serveIC(context.Background(), slashPayload(t, "help", nil, nil))
	wantEphemeral(t, rec.last(t), "restarting")
}

// ctxDiscord is a recorder that, like sessionDiscord, sends nothing once
// the request's context has ended.
type ctxDiscord struct{ *recorder }

func (d ctxDiscord) InteractionRespond(i *discordgo.Interaction, r *discordgo.InteractionResponse, opts ...discordgo.RequestOption) error {
	req, err := http.NewRequest(http.MethodPost, "http://discord.invalid", nil)
	if err != nil {
		return err
	}
	cfg := &discordgo.RequestConfig{Request: req}
	for _, o := range opts {
		o(cfg)
	}
	if err := cfg.Request.Context().Err(); err != nil {
		return err
	}
	return d.recorder.InteractionRespond(i, r, opts...)
}

// lateStore, once late is set, makes its next save commit only when the
// caller's deadline has passed, like a write that lands just too late.
type lateStore struct {
	store.Memory
	late atomic.Bool
}

func (s *lateStore) Save(ctx context.Context, r *store.Game) error {
	if s.late.Swap(false) {
		<-ctx.Done()
	}
	return s.Memory.Save(ctx, r)
}

// When the time to answer ran out before the answer could be sent, the move
// certainly was not shown, so it is not kept; the user learns that
// something went wrong.
func TestMoveNotKeptWhenAnswerNeverSent(t *testing.T) {
	rec := new(recorder)
	st := new(lateStore)
	b := New(ctxDiscord{rec}, StoresOf(st), DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.SetSelf("1000000000000000001")
	defer b.Close()
	b.serveIC(context.Background(), slashPayload(t, "start", []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}, nil))
	ic := slashPayload(t, "move", []map[string]any{intOpt("row", 2), intOpt("col", 2)}, nil)
	before := moves(t, b, ic)
	answers := len(rec.responses)
	st.late.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	b.serveIC(ctx, ic)
	// No board went out; the user is told something went wrong, in the
	// time kept in reserve for that (answerReserve).
	if len(rec.responses) != answers+1 {
		t.Errorf("%d answers after the deadline; want 1, the error", len(rec.responses)-answers)
	} else {
		wantEphemeral(t, rec.last(t), internalErrorText)
	}
	if st.late.Load() {
		t.Fatal("the move never reached the store")
	}
	if after := moves(t, b, ic); after != before {
		t.Errorf("moves went from %d to %d although the answer was never sent", before, after)
	}
	r, _ := st.Current(context.Background(), ic.ChannelID)
	if len(r.Moves) != before {
		t.Errorf("stored game has %d moves; want %d (put back)", len(r.Moves), before)
	}
}

// An Accept whose answer may have been shown starts the game and closes the
// challenge: they must never both be open, or the challenge's expiry would
// overwrite the board (the same message).
func TestAcceptMaybeDeliveredClosesChallenge(t *testing.T) {
	rec := new(recorder)
	b := newBotOn(t, new(store.Memory), rec)
	defer b.Close()
	c := openTestChallenge(t, b)

	rec.mu.Lock()
	rec.failNext = errors.New("read: connection reset by peer")
	rec.mu.Unlock()
	b.serveIC(context.Background(), buttonPayload(t, "accept/"+c.ID))

	tb, err := b.tables.lock(context.Background(), buttonChannel, false)
	if err != nil {
		t.Fatal(err)
	}
	defer b.tables.unlock(tb)
	if tb.match == nil || tb.match.Over() || tb.challenge != nil {
		t.Errorf("after a maybe-delivered accept: game running = %v, challenge open = %v; want a game and no challenge",
			tb.match != nil && !tb.match.Over(), tb.challenge != nil)
	}
}

// With TURN_TIMEOUT at its largest, the board's token is still good when the
// timer fires, so the timeout shows.
func TestLongestTurnTimeoutIsShown(t *testing.T) {
	st := new(store.Memory)
	r := runningRecord(t, "c1", time.Now().Add(-2*time.Millisecond)) // the timer fired 2 ms late
	r.Board.At = r.Deadline.Add(-MaxTimeout)
	if err := st.Save(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	rec := new(recorder)
	b := newBotOn(t, st, rec)
	b.tables.expireTurn("c1")
	b.Close()
	if len(rec.edits) != 1 {
		t.Errorf("board edits = %d; want the timeout shown", len(rec.edits))
	}
}

type failingSaves struct {
	store.Memory
	saves atomic.Int32
}

func (s *failingSaves) Save(context.Context, *store.Game) error {
	s.saves.Add(1)
	return errors.New("disk full")
}

// A timer firing tries the timeout once, and a failed save backs off.
func TestTimeoutSaveFailureBacksOff(t *testing.T) {
	st := new(failingSaves)
	if err := st.Memory.Save(context.Background(), runningRecord(t, "c1", time.Now().Add(-time.Second))); err != nil {
		t.Fatal(err)
	}
	b := newBotOn(t, st, new(recorder))
	defer b.Close()
	b.tables.expireTurn("c1")
	tb := mustLock(t, &b.tables.channels, "c1")
	failures, retry := tb.saveFailures, tb.turnTimer != nil
	b.tables.channels.unlock(tb)
	g, err := st.Memory.Current(context.Background(), "c1")
	if err != nil {
		t.Fatal(err)
	}
	if n := st.saves.Load(); n != 1 || failures != 1 || !retry || !g.Running() {
		t.Errorf("one timer firing: %d saves, %d failures, retry armed = %v, running = %v; want 1, 1, true, true (the game goes on)", n, failures, retry, g.Running())
	}
}

// A game that another process was timing when it stopped is ended by the
// sweep of a process that never saw it.
func TestSweepEndsOrphanedTimeouts(t *testing.T) {
	st := new(store.Memory)
	if err := st.Save(context.Background(), runningRecord(t, "c1", time.Now().Add(-time.Second))); err != nil {
		t.Fatal(err)
	}
	other := runningRecord(t, "c2", time.Now().Add(time.Hour))
	other.ID = "def456"
	if err := st.Save(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	b := newBotOn(t, st, new(recorder))
	defer b.Close()
	if err := b.tables.sweepDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	for ch, want := range map[string]game.Ending{"c1": game.EndTimeout, "c2": game.EndNone} {
		g, err := st.Current(context.Background(), ch)
		if err != nil || g.End != want {
			t.Errorf("%s after the sweep: %v, %v; want %s", ch, g.End, err, want)
		}
	}
	b.Close() // the timeout's board edit reads the game under its lock too
	if n := b.tables.channels.len(); n != 0 {
		t.Errorf("the sweep left %d channels in memory; want 0 (it only locked the game that was out of time)", n)
	}
}

// An Accept that loses the race with a game another process started in the
// channel is told so, and the challenge is called off rather than left open.
func TestAcceptAfterAnotherProcessStarted(t *testing.T) {
	st := new(store.Memory)
	rec := &recorder{edited: make(chan struct{}, 1)}
	b := newBotOn(t, st, rec)
	defer b.Close()
	c := openTestChallenge(t, b)
	// Meanwhile another process starts a game here.
	if err := st.Save(context.Background(), runningRecord(t, buttonChannel, time.Now().Add(time.Hour))); err != nil {
		t.Fatal(err)
	}

	b.serveIC(context.Background(), buttonPayload(t, "accept/"+c.ID))
	wantEphemeral(t, rec.last(t), "The board changed")
	<-rec.edited
	if got := *rec.edits[0].Content; !strings.Contains(got, "called off") {
		t.Errorf("challenge message edited to %q; want it called off", got)
	}
	tb := mustLock(t, &b.tables.channels, buttonChannel)
	open := tb.challenge != nil
	b.tables.channels.unlock(tb)
	if open {
		t.Error("the challenge is still open")
	}
}

// buttonChannel is the channel of the button fixture.
const buttonChannel = "345626669114982999"

// openTestChallenge opens a challenge from user 2 to mason in
// buttonChannel, as /ttt start would have.
func openTestChallenge(t *testing.T, b *Bot) *openChallenge {
	t.Helper()
	c := &table.Challenge{ID: newID(), From: "2", To: mason, Size: 3, Win: 3, Expires: time.Now().Add(time.Minute)}
	if err := b.stores.Challenges.OpenChallenge(context.Background(), storedChallenge(c, "", buttonChannel, store.Board{AppID: "app", Token: "challenge-token", At: time.Now()}, "")); err != nil {
		t.Fatal(err)
	}
	tb, err := b.tables.lock(context.Background(), buttonChannel, false) // loads it
	if err != nil {
		t.Fatal(err)
	}
	defer b.tables.unlock(tb)
	if tb.challenge == nil || tb.challenge.ID != c.ID {
		t.Fatalf("after loading, the channel's challenge is %+v; want %s", tb.challenge, c.ID)
	}
	return tb.challenge
}

// An Accept whose answer Discord refuses started nothing anyone saw: the
// game is called off and the challenge is open again, in the store too.
func TestAcceptRefusedReopensChallenge(t *testing.T) {
	st := new(store.Memory)
	rec := new(recorder)
	b := newBotOn(t, st, rec)
	defer b.Close()
	c := openTestChallenge(t, b)
	rec.mu.Lock()
	rec.failNext = &discordgo.RESTError{Response: &http.Response{StatusCode: http.StatusBadRequest}}
	rec.mu.Unlock()
	b.serveIC(context.Background(), buttonPayload(t, "accept/"+c.ID))
	sc, err := st.Challenge(context.Background(), buttonChannel)
	if err != nil || sc == nil || sc.ID != c.ID {
		t.Fatalf("stored challenge after a refused Accept = %+v, %v; want %s open again", sc, err, c.ID)
	}
	if g, _ := st.Current(context.Background(), buttonChannel); g != nil && g.Running() {
		t.Errorf("a game nobody saw is running: %+v", g)
	}
	tb := mustLock(t, &b.tables.channels, buttonChannel)
	defer b.tables.channels.unlock(tb)
	if err := b.tables.load(context.Background(), tb); err != nil || tb.challenge == nil || tb.challenge.ID != c.ID {
		t.Errorf("after loading, the channel's challenge is %+v (%v); want %s", tb.challenge, err, c.ID)
	}
}
