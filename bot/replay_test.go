package bot

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/store/storetest"
)

// signed is a responder whose interaction came signed over HTTP, as the
// endpoint's does: it could be replayed.
type signed struct{ Responder }

func (signed) Replayable() bool { return true }

// serveSigned answers ic as the HTTP endpoint would.
func (b *Bot) serveSigned(ctx context.Context, ic *discordgo.InteractionCreate) {
	dc := b.dc.(interface {
		InteractionRespond(*discordgo.Interaction, *discordgo.InteractionResponse, ...discordgo.RequestOption) error
	})
	b.handle(ctx, ic.Interaction, signed{viaDiscord{dc, ic.Interaction}})
}

// countedStore is a store that counts its games.
type countedStore interface {
	wholeStore
	CountGames(ctx context.Context) (int, error)
	Close() error
}

// replayStores opens SQLite, and PostgreSQL when it is there.
func replayStores(t *testing.T) map[string]func(t *testing.T) countedStore {
	return map[string]func(t *testing.T) countedStore{
		"sqlite": func(t *testing.T) countedStore {
			st, err := store.OpenSQLite(filepath.Join(t.TempDir(), "replay.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
		"postgres": func(t *testing.T) countedStore {
			st, err := store.OpenPostgres(context.Background(), storetest.PostgresURL(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
	}
}

// startThenResign starts a game against the computer with start and
// resigns it, so that a replay of start would start another.
func startThenResign(t *testing.T, b *Bot, start *discordgo.InteractionCreate) {
	t.Helper()
	ctx := context.Background()
	b.serveSigned(ctx, start)
	resign := slashPayload(t, "resign", nil, nil)
	resign.ID = "1200000000000000001"
	b.serveSigned(ctx, resign)
	if r := b.dc.(*recorder).last(t); r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		t.Fatalf("/ttt resign was refused: %q", r.Data.Content)
	}
}

func wantReplayRefused(t *testing.T, b *Bot, st countedStore, start *discordgo.InteractionCreate) {
	t.Helper()
	b.serveSigned(context.Background(), start)
	wantEphemeral(t, b.dc.(*recorder).last(t), english().T("error.duplicate", nil))
	if n, err := st.CountGames(context.Background()); err != nil || n != 1 {
		t.Errorf("games after the replay = %d, %v; want 1 (the replay started none)", n, err)
	}
}

// A /ttt start replayed after more interactions than the bot keeps in
// memory (recentSize; 4 here) is still not acted on: the store knows it.
func TestReplayAfterManyInteractions(t *testing.T) {
	for name, open := range replayStores(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			b := newBotOnStore(t, st, new(recorder), DefaultConfig())
			b.recent.size = 4
			start := slashPayload(t, "start", []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}, nil)
			startThenResign(t, b, start)
			for k := range 10 {
				help := slashPayload(t, "help", nil, nil)
				help.ID = fmt.Sprint(1300000000000000000 + k)
				b.serveSigned(context.Background(), help)
			}
			wantReplayRefused(t, b, st, start)
		})
	}
}

// A /ttt start acted on by one process and replayed to another on the
// same database is not acted on there. Over the gateway, where only
// Discord delivers, nothing is recorded.
func TestReplayToAnotherProcess(t *testing.T) {
	for name, open := range replayStores(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			first := newBotOnStore(t, st, new(recorder), DefaultConfig())
			start := slashPayload(t, "start", []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}, nil)
			startThenResign(t, first, start)
			second := newBotOnStore(t, st, new(recorder), DefaultConfig())
			wantReplayRefused(t, second, st, start)

			gw := slashPayload(t, "help", nil, nil)
			gw.ID = "1400000000000000001"
			second.serveIC(context.Background(), gw)
			if first, err := st.SeeInteraction(context.Background(), gw.ID, time.Now()); err != nil || !first {
				t.Errorf("an interaction over the gateway was recorded (first %v, %v); want it not", first, err)
			}
		})
	}
}

// The ids seen more than seenFor ago are forgotten in the background, a
// batch at a time, by the bot's own clock, once a signed interaction
// comes (and not again within forgetEvery); newer ones are kept.
func TestSeenIdsAreForgotten(t *testing.T) {
	forgets := make(chan struct{}, 10)
	st := store.NewMemory(store.Observe(func(op string, _ time.Duration, _ error) {
		if op == "forget_interactions" {
			forgets <- struct{}{}
		}
	}))
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	cfg := DefaultConfig()
	cfg.Now = func() time.Time { return now }
	b := newBotOnStore(t, st, new(recorder), cfg)
	ctx := context.Background()
	for k := range 2*forgetBatch + 1 {
		if _, err := st.SeeInteraction(ctx, fmt.Sprint(k), now.Add(-seenFor-time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.SeeInteraction(ctx, "kept", now.Add(-seenFor+time.Second)); err != nil {
		t.Fatal(err)
	}
	for k := range 2 {
		help := slashPayload(t, "help", nil, nil)
		help.ID = fmt.Sprint(1500000000000000000 + k)
		b.serveSigned(ctx, help)
	}
	for range 3 { // 1,000, 1,000 and 1 ids
		<-forgets
	}
	b.Close() // waits for the background work
	if len(forgets) != 0 {
		t.Errorf("%d more batches forgotten; want 3 in all, the second interaction within forgetEvery asking for none", len(forgets))
	}
	for id, want := range map[string]bool{"0": true, fmt.Sprint(2 * forgetBatch): true, "kept": false} {
		if first, err := st.SeeInteraction(ctx, id, now); err != nil || first != want {
			t.Errorf("SeeInteraction(%s) after forgetting = %v, %v; want %v", id, first, err, want)
		}
	}
}

// A click that Discord delivered signed to two replicas, one after the
// other, is acted on by the first; the second finds it recorded, and
// answers with the board the first drew (the interaction's own change),
// not that it came twice.
func TestSignedClickOnTwoReplicas(t *testing.T) {
	ctx := context.Background()
	st := new(store.Memory)
	a, b, ra, rb := replicas(t, st)
	serveSlash(t, a, "start")
	ic := clickIn(t, fixtureChannel, firstCell(t, ra.last(t)))
	a.serveSigned(ctx, ic)
	before := moves(t, a, ic)
	b.serveSigned(ctx, ic)
	wantBoardAnswer(t, rb.last(t), discordgo.InteractionResponseUpdateMessage)
	if after := moves(t, b, ic); after != before {
		t.Errorf("%d moves after the second delivery; want %d", after, before)
	}
}

// heldStore is a store shared by replicas that can hold the next save
// until release is closed (held is closed once it is held), fail the
// next record of an interaction or the next save with
// store.ErrUnavailable, and tells polled of reads of an interaction's
// state.
type heldStore struct {
	countedStore
	hold     atomic.Bool
	held     chan struct{}
	release  chan struct{}
	failSee  atomic.Bool
	failSave atomic.Bool
	polled   chan struct{}
}

func newHeldStore(st countedStore) *heldStore {
	return &heldStore{countedStore: st, held: make(chan struct{}), release: make(chan struct{}), polled: make(chan struct{}, 1)}
}

func (s *heldStore) Save(ctx context.Context, g *store.Game) error {
	if s.hold.CompareAndSwap(true, false) {
		close(s.held)
		<-s.release
	}
	if s.failSave.CompareAndSwap(true, false) {
		return fmt.Errorf("save held: %w", store.ErrUnavailable)
	}
	return s.countedStore.Save(ctx, g)
}

func (s *heldStore) SeeInteraction(ctx context.Context, id string, at time.Time) (bool, error) {
	if s.failSee.CompareAndSwap(true, false) {
		return false, fmt.Errorf("see held: %w", store.ErrUnavailable)
	}
	return s.countedStore.SeeInteraction(ctx, id, at)
}

func (s *heldStore) InteractionState(ctx context.Context, id string) (store.InteractionState, error) {
	st, err := s.countedStore.InteractionState(ctx, id)
	select {
	case s.polled <- struct{}{}:
	default:
	}
	return st, err
}

// await waits for done, or fails the test after a minute (a hang).
func await(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not end", what)
	}
}

// A click that Discord delivered signed to two replicas on one database,
// the second while the first's save is still under way, is answered on
// the second with the board that the first's move made, once that move
// is saved: not "sent twice" about a move not made yet.
func TestSignedClickOnTwoReplicasAtOnce(t *testing.T) {
	for name, open := range replayStores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := newHeldStore(open(t))
			a, b, ra, rb := replicas(t, st)
			serveSlash(t, a, "start")
			ic := clickIn(t, fixtureChannel, firstCell(t, ra.last(t)))
			st.hold.Store(true)
			doneA, doneB := make(chan struct{}), make(chan struct{})
			go func() { defer close(doneA); a.serveSigned(ctx, ic) }()
			await(t, st.held, "the first delivery's save")
			go func() { defer close(doneB); b.serveSigned(ctx, ic) }()
			select {
			case <-st.polled: // the second waits for the first
			case <-doneB:
			}
			close(st.release)
			await(t, doneA, "the first delivery")
			await(t, doneB, "the second delivery")
			wantBoardAnswer(t, rb.last(t), discordgo.InteractionResponseUpdateMessage)
			if got, want := moves(t, b, ic), moves(t, a, ic); got != want {
				t.Errorf("%d moves seen by the second process; want %d", got, want)
			}
		})
	}
}

// An interaction whose record failed is not acted on, and is answered
// so; sent again to the same process, it is acted on. One whose action
// failed, known not done, is acted on when sent again, to another
// process too.
func TestSignedResendAfterFailure(t *testing.T) {
	for name, open := range replayStores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := newHeldStore(open(t))
			a, b, ra, rb := replicas(t, st)
			start := slashPayload(t, "start", []map[string]any{{"type": 3, "name": "difficulty", "value": "easy"}}, nil)
			st.failSee.Store(true)
			a.serveSigned(ctx, start)
			wantEphemeral(t, ra.last(t), english().T("error.store_unavailable", nil))
			a.serveSigned(ctx, start)
			if r := ra.last(t); r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
				t.Fatalf("the resend after a failed record was answered %q; want the game started", r.Data.Content)
			}
			if n, err := st.CountGames(ctx); err != nil || n != 1 {
				t.Errorf("games = %d, %v; want 1", n, err)
			}

			ic := clickIn(t, fixtureChannel, firstCell(t, ra.last(t)))
			before := moves(t, a, ic)
			st.failSave.Store(true)
			a.serveSigned(ctx, ic)
			wantEphemeral(t, ra.last(t), english().T("error.store_unavailable", nil))
			b.serveSigned(ctx, ic)
			wantBoardAnswer(t, rb.last(t), discordgo.InteractionResponseUpdateMessage)
			if after := moves(t, b, ic); after <= before {
				t.Errorf("%d moves after the resend; want more than %d", after, before)
			}
		})
	}
}

// A second delivery whose first is still under way when its own time
// runs out is told that the change could not be confirmed, not that it
// was acted on; the first goes on and is answered.
func TestSignedSecondDeliveryOutOfTime(t *testing.T) {
	st := newHeldStore(replayStores(t)["sqlite"](t))
	a, b, ra, rb := replicas(t, st)
	serveSlash(t, a, "start")
	ic := clickIn(t, fixtureChannel, firstCell(t, ra.last(t)))
	st.hold.Store(true)
	doneA, doneB := make(chan struct{}), make(chan struct{})
	go func() { defer close(doneA); a.serveSigned(context.Background(), ic) }()
	await(t, st.held, "the first delivery's save")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { defer close(doneB); b.serveSigned(ctx, ic) }()
	select {
	case <-st.polled:
	case <-doneB:
	}
	cancel() // the second delivery's time is up
	await(t, doneB, "the second delivery")
	wantEphemeral(t, rb.last(t), english().T("error.outcome_unknown", nil))
	close(st.release)
	await(t, doneA, "the first delivery")
	wantBoardAnswer(t, ra.last(t), discordgo.InteractionResponseUpdateMessage)
}
