package bot

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/store"
	"github.com/tttbot/tttbot/store/storetest"
)

// startBy answers /ttt start with opts by user in channel, and returns the
// answer.
func startBy(t *testing.T, b *Bot, rec *recorder, user, channel string, opts ...map[string]any) *discordgo.InteractionResponse {
	t.Helper()
	ic := slashPayload(t, "start", opts, nil)
	ic.ChannelID, ic.Member.User.ID = channel, user
	b.serveIC(context.Background(), ic)
	return rec.last(t)
}

func public(r *discordgo.InteractionResponse) bool {
	return r.Data.Flags&discordgo.MessageFlagsEphemeral == 0
}

// One user's starts are paced: startBurst at once, then one per
// startEvery; a start that did not happen (the channel was busy) costs
// nothing; and at most maxOpenChallenges of their challenges wait at
// once. Each refusal says why, and when to try again.
func TestStartLimits(t *testing.T) {
	l := english()
	open := map[string]any{"type": 5, "name": "open", "value": true}
	t.Run("pace", func(t *testing.T) {
		b, rec, clk := newClockedBot(t)
		for i := range startBurst {
			if r := startBy(t, b, rec, mason, fmt.Sprint("c", i)); !public(r) {
				t.Fatalf("start %d answered %q; want a board", i+1, r.Data.Content)
			}
		}
		r := startBy(t, b, rec, mason, "c-next")
		wait := l.T("start.cooldown", map[string]any{"At": clk.now().Add(startEvery + time.Second - 1).Unix()})
		wantEphemeral(t, r, wait)
		if g, _ := b.stores.Games.Current(context.Background(), "c-next"); g != nil {
			t.Errorf("a refused start left a game: %+v", g)
		}

		clk.advance(startEvery)
		if r := startBy(t, b, rec, mason, "c-next"); !public(r) {
			t.Fatalf("a start after %v answered %q; want a board", startEvery, r.Data.Content)
		}
		clk.advance(startEvery)
		// Refused as busy: it costs nothing, so the next start goes through.
		wantEphemeral(t, startBy(t, b, rec, mason, "c0"), "already running")
		if r := startBy(t, b, rec, mason, "c-last"); !public(r) {
			t.Errorf("a start after a busy refusal answered %q; want a board", r.Data.Content)
		}
		// Another player is not slowed down.
		if r := startBy(t, b, rec, "77", "c-other"); !public(r) {
			t.Errorf("another player's start answered %q; want a board", r.Data.Content)
		}
	})
	t.Run("open challenges", func(t *testing.T) {
		b, rec, clk := newClockedBot(t)
		for i := range maxOpenChallenges {
			if r := startBy(t, b, rec, mason, fmt.Sprint("d", i), open); !public(r) {
				t.Fatalf("challenge %d answered %q; want it open", i+1, r.Data.Content)
			}
		}
		clk.advance(startBurst * startEvery) // the pace allows a start
		wantEphemeral(t, startBy(t, b, rec, mason, "d-next", open), l.N("start.too_many_challenges", maxOpenChallenges, nil))
		if c, _ := b.stores.Challenges.Challenge(context.Background(), "d-next"); c != nil {
			t.Errorf("a refused challenge was opened: %+v", c)
		}
		// A game against the computer is no challenge.
		if r := startBy(t, b, rec, mason, "d-computer"); !public(r) {
			t.Errorf("a game against the computer answered %q; want a board", r.Data.Content)
		}

		// Withdrawn: one more may be opened.
		resign := slashPayload(t, "resign", nil, nil)
		resign.ChannelID = "d0"
		b.serveIC(context.Background(), resign)
		clk.advance(startBurst * startEvery)
		if r := startBy(t, b, rec, mason, "d-next", open); !public(r) {
			t.Fatalf("a challenge after one was withdrawn answered %q; want it open", r.Data.Content)
		}
		// Expired: as many as the cap again, whether or not this
		// process saw them close.
		clk.advance(b.cfg.Table.ChallengeTimeout)
		for i := range maxOpenChallenges {
			clk.advance(startEvery)
			if r := startBy(t, b, rec, mason, fmt.Sprint("e", i), open); !public(r) {
				t.Fatalf("challenge %d after the others expired answered %q; want it open", i+1, r.Data.Content)
			}
		}
	})
	t.Run("all at once", func(t *testing.T) {
		b, rec, _ := newClockedBot(t)
		const n = 50
		var wg sync.WaitGroup
		for i := range n {
			ic := slashPayload(t, "start", nil, nil)
			ic.ChannelID, ic.Member.User.ID = fmt.Sprint("f", i), mason
			wg.Go(func() { b.serveIC(context.Background(), ic) })
		}
		wg.Wait()
		rec.mu.Lock()
		defer rec.mu.Unlock()
		boards, paced := 0, 0
		for _, r := range rec.responses {
			switch {
			case public(r):
				boards++
			case strings.Contains(r.Data.Content, "faster than they can be played"):
				paced++
			}
		}
		if boards != startBurst || paced != n-startBurst {
			t.Errorf("%d starts at once by one player: %d boards, %d refused for the pace; want %d and %d", n, boards, paced, startBurst, n-startBurst)
		}
	})
	t.Run("challenges all at once", func(t *testing.T) {
		b, _, _ := newClockedBot(t)
		var wg sync.WaitGroup
		for i := range startBurst {
			ic := slashPayload(t, "start", []map[string]any{open}, nil)
			ic.ChannelID, ic.Member.User.ID = fmt.Sprint("g", i), mason
			wg.Go(func() { b.serveIC(context.Background(), ic) })
		}
		wg.Wait()
		cs, err := b.stores.Challenges.ChallengesFrom(context.Background(), mason)
		if err != nil || len(cs) != maxOpenChallenges {
			t.Errorf("%d challenges at once by one player opened %d (%v); want %d", startBurst, len(cs), err, maxOpenChallenges)
		}
	})
}

// sharedStores opens two handles on one database, as two replicas have:
// a SQLite file, or a PostgreSQL schema (skipped without
// TTT_TEST_POSTGRES_URL).
func sharedStores(t *testing.T, kind string) (a, b wholeStore) {
	t.Helper()
	var open func() (wholeStore, error)
	switch kind {
	case "sqlite":
		path := filepath.Join(t.TempDir(), "shared.db")
		open = func() (wholeStore, error) { return store.OpenSQLite(path) }
	case "postgres":
		url := storetest.PostgresURL(t)
		open = func() (wholeStore, error) { return store.OpenPostgres(context.Background(), url) }
	}
	var sts [2]wholeStore
	for i := range sts {
		st, err := open()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.(interface{ Close() error }).Close() })
		sts[i] = st
	}
	return sts[0], sts[1]
}

// Open challenges are counted where replicas share them, in the store:
// Mason challenges in four channels on replica A, and bob accepts each on
// replica B; none of them waits any more, so the fourth is let through.
// Challenges that do wait are counted whichever replica opened them.
func TestOpenChallengesAcrossReplicas(t *testing.T) {
	l := english()
	ctx := context.Background()
	open := map[string]any{"type": 5, "name": "open", "value": true}
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			stA, stB := sharedStores(t, kind)
			clk := &clock{t: time.Now()}
			a, ra := clockedBotOn(t, stA, clk)
			b, rb := clockedBotOn(t, stB, clk)
			for i := range maxOpenChallenges + 1 {
				channel := fmt.Sprint("c", i)
				if r := startBy(t, a, ra, mason, channel, open); !public(r) {
					t.Fatalf("challenge %d, with the others accepted on the other replica, answered %q; want it open", i+1, r.Data.Content)
				}
				c, err := stB.Challenge(ctx, channel)
				if err != nil || c == nil {
					t.Fatalf("stored challenge in %s = %v, %v", channel, c, err)
				}
				b.serveIC(ctx, as(clickIn(t, channel, route{action: actAccept, id: c.ID}.String()), bob))
				if r := rb.last(t); r.Type != discordgo.InteractionResponseUpdateMessage {
					t.Fatalf("bob's accept on the other replica answered %d %q; want the board", r.Type, r.Data.Content)
				}
			}
			// Three that wait, two here and one there: a fourth is
			// refused on either replica.
			for i, bt := range []struct {
				b   *Bot
				rec *recorder
			}{{a, ra}, {a, ra}, {b, rb}} {
				if r := startBy(t, bt.b, bt.rec, mason, fmt.Sprint("d", i), open); !public(r) {
					t.Fatalf("waiting challenge %d answered %q; want it open", i+1, r.Data.Content)
				}
			}
			want := l.N("start.too_many_challenges", maxOpenChallenges, nil)
			wantEphemeral(t, startBy(t, a, ra, mason, "d-a", open), want)
			wantEphemeral(t, startBy(t, b, rb, mason, "d-b", open), want)
			for _, ch := range []string{"d-a", "d-b"} {
				if c, _ := stA.Challenge(ctx, ch); c != nil {
					t.Errorf("a refused challenge was opened in %s: %+v", ch, c)
				}
			}
		})
	}
}

// gatedStore holds each ChallengesFrom, once it has read the store, at
// gate (when set) until both replicas' reads are done.
type gatedStore struct {
	wholeStore
	gate atomic.Pointer[meeting]
}

func (g *gatedStore) ChallengesFrom(ctx context.Context, user string) ([]*store.Challenge, error) {
	cs, err := g.wholeStore.ChallengesFrom(ctx, user)
	if m := g.gate.Load(); m != nil {
		m.arrive()
	}
	return cs, err
}

// meeting lets its callers go once two have arrived.
type meeting struct {
	mu  sync.Mutex
	n   int
	all chan struct{}
}

func (m *meeting) arrive() {
	m.mu.Lock()
	if m.n++; m.n == 2 {
		close(m.all)
	}
	m.mu.Unlock()
	<-m.all
}

// Starts at once on two replicas: each counts mason's two waiting
// challenges before either opens a third. Only one of the two is
// opened; the other is refused for the limit, whichever it was.
func TestOpenChallengesAtOnceOnTwoReplicas(t *testing.T) {
	l := english()
	ctx := context.Background()
	open := map[string]any{"type": 5, "name": "open", "value": true}
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			rawA, rawB := sharedStores(t, kind)
			stA, stB := &gatedStore{wholeStore: rawA}, &gatedStore{wholeStore: rawB}
			clk := &clock{t: time.Now()}
			a, ra := clockedBotOn(t, stA, clk)
			b, rb := clockedBotOn(t, stB, clk)
			for i := range maxOpenChallenges - 1 {
				if r := startBy(t, a, ra, mason, fmt.Sprint("w", i), open); !public(r) {
					t.Fatalf("waiting challenge %d answered %q; want it open", i+1, r.Data.Content)
				}
			}
			m := &meeting{all: make(chan struct{})}
			stA.gate.Store(m)
			stB.gate.Store(m)
			var wg sync.WaitGroup
			answers := make([]*discordgo.InteractionResponse, 2)
			for i, bt := range []struct {
				b   *Bot
				rec *recorder
			}{{a, ra}, {b, rb}} {
				wg.Go(func() { answers[i] = startBy(t, bt.b, bt.rec, mason, fmt.Sprint("x", i), open) })
			}
			wg.Wait()
			opened := 0
			for i, r := range answers {
				if public(r) {
					opened++
					continue
				}
				wantEphemeral(t, r, l.N("start.too_many_challenges", maxOpenChallenges, nil))
				if c, _ := rawA.Challenge(ctx, fmt.Sprint("x", i)); c != nil {
					t.Errorf("a refused challenge was opened in x%d: %+v", i, c)
				}
			}
			cs, err := rawB.ChallengesFrom(ctx, mason)
			if err != nil || len(cs) != maxOpenChallenges || opened != 1 {
				t.Errorf("two starts at once on two replicas with %d waiting: %d opened, %d waiting (%v); want 1 and %d",
					maxOpenChallenges-1, opened, len(cs), err, maxOpenChallenges)
			}
		})
	}
}

// A rematch is a start: paced with /ttt start, refused in the same words.
// Resigning and rematching in a loop starts startBurst games at once,
// then one per startEvery; and a player whom /ttt start refuses gets no
// rematch either. A rematch that starts nothing costs nothing.
func TestRematchIsAStart(t *testing.T) {
	ctx := context.Background()
	l := english()
	b, rec, clk := newClockedBot(t)
	if r := startBy(t, b, rec, mason, fixtureChannel); !public(r) {
		t.Fatalf("start answered %q; want a board", r.Data.Content)
	}
	rematch := func() *discordgo.InteractionResponse {
		t.Helper()
		b.serveIC(ctx, slashPayload(t, "resign", nil, nil))
		g, err := b.stores.Games.Current(ctx, fixtureChannel)
		if err != nil || g == nil || g.End == 0 {
			t.Fatalf("game after resigning = %+v, %v; want one over", g, err)
		}
		b.serveIC(ctx, as(clickIn(t, fixtureChannel, route{action: actRematch, id: g.ID}.String()), mason))
		return rec.last(t)
	}
	for i := 1; i < startBurst; i++ {
		if r := rematch(); !public(r) {
			t.Fatalf("rematch %d answered %q; want a board", i, r.Data.Content)
		}
	}
	before, _ := b.stores.Games.Current(ctx, fixtureChannel)
	wait := l.T("start.cooldown", map[string]any{"At": clk.now().Add(startEvery + time.Second - 1).Unix()})
	wantEphemeral(t, rematch(), wait)
	if g, _ := b.stores.Games.Current(ctx, fixtureChannel); g.ID != before.ID {
		t.Errorf("a refused rematch started game %s", g.ID)
	}
	wantEphemeral(t, startBy(t, b, rec, mason, "elsewhere"), wait)

	clk.advance(startEvery)
	// Refused for another reason (not a player): it costs nothing.
	g, _ := b.stores.Games.Current(ctx, fixtureChannel)
	b.serveIC(ctx, as(clickIn(t, fixtureChannel, route{action: actRematch, id: g.ID}.String()), "77"))
	if r := rec.last(t); public(r) {
		t.Fatalf("a rematch by a stranger answered %q; want a refusal", r.Data.Content)
	}
	b.serveIC(ctx, as(clickIn(t, fixtureChannel, route{action: actRematch, id: g.ID}.String()), mason))
	if r := rec.last(t); !public(r) {
		t.Fatalf("a rematch %v later answered %q; want a board", startEvery, r.Data.Content)
	}
}
