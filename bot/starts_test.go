package bot

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
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
}
