package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tttbot/tttbot/store"
)

// Deadlines: the turn timer of each channel follows its stored game, and a
// sweep finds games whose time ran out while no process here was timing them.

// syncTurn ends a match whose deadline has passed, and keeps the turn timer
// on the deadline of the match.
func (t *tables) syncTurn(ctx context.Context, ch *channel) {
	if m := ch.match; m != nil && m.Due(t.now()) && !t.timeOut(ctx, ch) {
		return // a retry is armed
	}
	m := ch.match
	if m == nil || m.Over() || m.Deadline.IsZero() {
		ch.stopTurnTimer()
		return
	}
	t.armTurn(ch, m.Deadline)
}

// armTurn sets ch's turn timer to fire at at, unless it already does.
func (t *tables) armTurn(ch *channel, at time.Time) {
	if ch.turnTimer != nil && ch.turnAt.Equal(at) {
		return
	}
	ch.stopTurnTimer()
	ch.turnAt = at
	id := ch.id
	ch.turnTimer = t.run.afterFunc(at.Sub(t.now()), func() { t.turnTimedOut(id) })
}

// timeOut ends ch's match: the player to move loses. The board message is
// updated in the background; the player loses even if it cannot be. If the
// result cannot be saved the game goes on, and a timer tries again later;
// then timeOut returns false.
func (t *tables) timeOut(ctx context.Context, ch *channel) bool {
	next := ch.match.Clone()
	if err := next.TimeOut(t.now()); err != nil {
		return true
	}
	served := servedPing(ch.match, next)
	if served != "" {
		next.ping = ""
	}
	err := t.put(ctx, next)
	if errors.Is(err, store.ErrConflict) {
		// Another process changed the game first: what it saved stands.
		if g, lerr := t.store.Current(ctx, ch.id); lerr == nil && g != nil {
			if m, ferr := fromStored(g); ferr == nil && !m.Due(t.now()) {
				ch.match = m
				return true
			}
		}
	}
	if err != nil {
		ch.saveFailures++
		wait := min(time.Second<<min(ch.saveFailures, 6), time.Minute)
		t.log.Error("could not save a timeout", "channel", ch.id, "retry_in", wait, "err", err)
		t.armTurn(ch, t.now().Add(wait))
		return false
	}
	ch.saveFailures = 0
	countChange(t.meter, ch.match, next)
	if served != "" {
		t.upkeep.deletePing(ch.match.Board.ChannelID, served)
	}
	ch.match = next
	t.upkeep.timedOut(next)
	return true
}

// restore ends the games whose time ran out while the bot was away and
// restarts the turn timers of the others. Then, every sweepEvery, it ends
// the games whose time ran out without a timer here: games another process
// was timing when it stopped. Whichever process saves the timeout first
// wins; the others find the game over.
func (t *tables) restore(ctx context.Context) error {
	if err := t.sweep(ctx); err != nil {
		return err
	}
	if err := t.sweepChallenges(ctx, false); err != nil {
		return err
	}
	t.sweepLater()
	return nil
}

// sweepChallenges loads the channels of the open challenges (all, or
// only those whose time is up): loading arms a timer for each, or closes
// it.
func (t *tables) sweepChallenges(ctx context.Context, onlyDue bool) error {
	cs, err := t.store.Challenges(ctx)
	if err != nil {
		return fmt.Errorf("list open challenges: %w", err)
	}
	for _, c := range cs {
		if onlyDue && t.now().Before(c.Expires) {
			continue
		}
		if err := t.catchUp(ctx, c.ChannelID); err != nil {
			return err
		}
	}
	return nil
}

// catchUp loads a channel and lets it go: loading ends a game, or closes a
// challenge, whose time is up, and arms the timers of the others.
func (t *tables) catchUp(ctx context.Context, channelID string) error {
	ch, err := t.lock(ctx, channelID, false)
	if err != nil {
		return err
	}
	t.unlock(ch)
	return nil
}

// sweepEvery is how often restore's sweep looks for games whose time ran
// out without a timer in this process.
const sweepEvery = 30 * time.Second

func (t *tables) sweepLater() {
	t.run.afterFunc(sweepEvery, func() {
		ctx, cancel := context.WithTimeout(context.Background(), sweepEvery)
		defer cancel()
		if err := t.sweepDue(ctx); err != nil {
			t.log.Warn("looking for games out of time", "err", err)
		}
		if err := t.sweepChallenges(ctx, true); err != nil {
			t.log.Warn("looking for challenges out of time", "err", err)
		}
		t.sweepLater()
	})
}

// sweepDue ends the games whose time ran out without a timer here: it
// asks the store for their channels only (not every running game with its
// moves), and loading each ends its game.
func (t *tables) sweepDue(ctx context.Context) error {
	channels, err := t.store.Due(ctx, t.now())
	if err != nil {
		return fmt.Errorf("list games out of time: %w", err)
	}
	for _, id := range channels {
		if err := t.catchUp(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// sweep ends every running game whose time ran out, and arms the turn
// timer of the others; a correspondence game whose new board message the
// bot had not yet read when it stopped has it read now, if its token is
// still good (lookupLater).
func (t *tables) sweep(ctx context.Context) error {
	gs, err := t.store.Running(ctx)
	if err != nil {
		return fmt.Errorf("list running games: %w", err)
	}
	for _, g := range gs {
		switch {
		case g.Deadline.IsZero():
		case t.now().Before(g.Deadline):
			// Not due yet: a timer is all it needs; the timer loads the
			// game when it fires, so the store is not read again now.
			ch, err := t.channels.lock(ctx, g.ChannelID)
			if err != nil {
				return err
			}
			if ch.turnTimer == nil {
				t.armTurn(ch, g.Deadline)
			}
			t.channels.unlock(ch)
			t.upkeep.lookupLater(g.ChannelID, g.ID, boardOf(g.Board), g.Deadline)
		default:
			if err := t.catchUp(ctx, g.ChannelID); err != nil { // loading ends it
				return err
			}
		}
	}
	return nil
}

// onTimer runs f on the locked channel for a timer; what names the timer
// in the log if the channel cannot be had.
func (t *tables) onTimer(channelID, what string, f func(ch *channel)) {
	ctx, cancel := context.WithTimeout(context.Background(), editWithin)
	defer cancel()
	ch, err := t.channels.lock(ctx, channelID)
	if err != nil {
		t.log.Error(what, "channel", channelID, "err", err)
		return
	}
	defer t.unlock(ch)
	f(ch)
}

// expireChallenge runs when a challenge's time is up: loading the channel
// closes a challenge whose time is up (unless it was answered in time).
func (t *tables) expireChallenge(channelID, id string) {
	t.onTimer(channelID, "challenge timeout", func(ch *channel) {
		ctx, cancel := context.WithTimeout(context.Background(), editWithin)
		defer cancel()
		if c := ch.challenge; c != nil && c.ID == id {
			ch.clearChallenge() // this timer has fired; load closes it
		}
		if err := t.load(ctx, ch); err != nil {
			t.log.Error("challenge timeout", "channel", channelID, "err", err)
		}
	})
}

// turnTimedOut runs when a player's time may be up, and again to retry a
// timeout that could not be saved. Loading the channel ends a game whose
// deadline has passed; a timer that lost a race with a move finds a later
// deadline and re-arms.
func (t *tables) turnTimedOut(channelID string) {
	t.onTimer(channelID, "turn timeout", func(ch *channel) {
		ctx, cancel := context.WithTimeout(context.Background(), editWithin)
		defer cancel()
		ch.turnTimer, ch.turnAt = nil, time.Time{} // this one has fired
		t.log.Debug("turn timer fired", "channel", channelID)
		if err := t.load(ctx, ch); err != nil {
			t.log.Error("turn timeout", "channel", channelID, "err", err)
			t.armTurn(ch, t.now().Add(time.Second))
		}
	})
}
