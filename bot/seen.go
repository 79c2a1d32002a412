package bot

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/tttbot/tttbot/store"
)

// seen records in the store each interaction the bot acts on, so that
// one delivered or replayed again is acted on once, by whichever process
// it reaches, for as long as Discord's signature of it is accepted: the
// endpoint accepts a signature dated up to 5 minutes either side of its
// clock (discord.MaxSkew). Every forgetEvery, one of the interactions'
// goroutines has the ids older than seenFor deleted in the background,
// in batches. A nil store (a bot whose Stores has none) records nothing.
// It is safe for concurrent use.
type seen struct {
	store InteractionStore
	now   func() time.Time
	run   *runner
	log   *slog.Logger
	// answer answers an interaction that was acted on before, without
	// acting on it (Bot.answerSeen).
	answer func(ctx context.Context, req *request)

	forgot atomic.Int64 // when the last forgetting began, Unix nanoseconds
}

const (
	// seenFor is how long an id is kept: a signature dated 5 minutes
	// ahead of the endpoint's clock is accepted until 10 minutes after
	// it arrived; the rest is for replicas whose clocks differ.
	seenFor = 15 * time.Minute
	// forgetEvery is how often the old ids are deleted.
	forgetEvery = time.Minute
	// forgetBatch is how many ids one transaction deletes: a backlog is
	// cleared without holding the SQLite writer for long.
	forgetBatch = 1000
	// settledPoll is how often a delivery whose first is still under way
	// (on another process, or this one) reads what became of it.
	settledPoll = 20 * time.Millisecond
	// settleWithin is how long recording what became of an action may
	// take; its answer has been sent by then.
	settleWithin = 2 * time.Second
)

// settle records what became of the action on id, read from the error
// its handler ended with as failureKey reads it: none, done; an outcome
// unknown, unknown; any other (a refusal, a failure that changed
// nothing), not done, and id is forgotten so that a later delivery of it
// is acted on.
func (s *seen) settle(ctx context.Context, id string, err error) {
	state := store.InteractionDone
	switch {
	case err == nil:
	case errors.Is(err, store.ErrOutcomeUnknown):
		state = store.InteractionUnknown
	default:
		state = store.InteractionNew
	}
	failed := func(err error) {
		if err != nil {
			s.log.Warn("could not record what became of an interaction; a second delivery of it will be told its outcome is unknown", "interaction", id, "err", err)
		}
	}
	// Done and unknown are recorded without waiting: the answer went out
	// already, and the record joins the next writes' transaction instead
	// of costing one of its own. Until it commits, a second delivery
	// waits as for an action under way; if the process dies first, it is
	// told the outcome is unknown, as after a crash during the action.
	// Not done is recorded before going on: it lets a later delivery act.
	if l, ok := s.store.(laterSettler); ok && state != store.InteractionNew {
		l.SettleInteractionLater(id, state, failed)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleWithin)
	defer cancel()
	failed(s.store.SettleInteraction(ctx, id, state))
}

// laterSettler is an InteractionStore that can record what became of an
// action without its caller waiting for the write
// (store.SQLite.SettleInteractionLater).
type laterSettler interface {
	SettleInteractionLater(id string, state store.InteractionState, then func(error))
}

// settled waits until the action on id is no longer under way, reading
// its state every settledPoll, and returns what became of it; or
// InteractionActing if ctx ends first.
func (s *seen) settled(ctx context.Context, id string) (store.InteractionState, error) {
	tick := time.NewTicker(settledPoll)
	defer tick.Stop()
	for {
		state, err := s.store.InteractionState(ctx, id)
		if err != nil && ctx.Err() != nil {
			return store.InteractionActing, nil
		}
		if err != nil || state != store.InteractionActing {
			return state, err
		}
		select {
		case <-ctx.Done():
			return store.InteractionActing, nil
		case <-tick.C:
		}
	}
}

// see records id and reports whether it is the first to.
func (s *seen) see(ctx context.Context, id string) (bool, error) {
	if s.store == nil {
		return true, nil
	}
	now := s.now()
	first, err := s.store.SeeInteraction(ctx, id, now)
	if err != nil {
		return false, err
	}
	if last := s.forgot.Load(); now.UnixNano()-last >= int64(forgetEvery) && s.forgot.CompareAndSwap(last, now.UnixNano()) {
		s.run.afterFunc(0, func() { s.forget(now.Add(-seenFor)) })
	}
	return first, nil
}

// forget deletes the ids seen before before, a batch at a time.
func (s *seen) forget(before time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), forgetEvery)
	defer cancel()
	for {
		n, err := s.store.ForgetInteractions(ctx, before, forgetBatch)
		if err != nil {
			s.log.Warn("could not forget the old interactions; trying again later", "err", err)
			return
		}
		if n < forgetBatch {
			return
		}
	}
}
