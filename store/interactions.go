package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// InteractionState is what became of the action on an interaction, as
// the store knows it.
type InteractionState int

const (
	// InteractionNew: no record; nobody acts on it, or the action was
	// known not done (SettleInteraction), or the record was forgotten.
	InteractionNew InteractionState = iota
	// InteractionActing: recorded; a process acts on it now (or died
	// doing so).
	InteractionActing
	// InteractionDone: the action is done.
	InteractionDone
	// InteractionUnknown: the action ended, its outcome unknown.
	InteractionUnknown
)

// SeeInteraction records that the interaction id is acted on, seen at at
// (InteractionActing), and reports whether it is the first to: false
// means that this process or another recorded it before (a delivery
// twice, a replay), and it must not be acted on again unless the record
// goes (SettleInteraction with InteractionNew). The record is one insert
// that conflicts on the id, so that of two processes recording the same
// id at once exactly one is first.
func (s *sqlStore) SeeInteraction(ctx context.Context, id string, at time.Time) (first bool, err error) {
	defer s.observe.done("see_interaction", time.Now(), &err)
	var n int64
	err = s.one(ctx, func(t tx) error {
		var err error
		n, err = t.exec(ctx, `INSERT INTO interactions (id, seen_at, state) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, id, at.UnixMicro(), int(InteractionActing))
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: see interaction %s: %w", id, err)
	}
	return n == 1, nil
}

// SettleInteraction records what became of the action on id, which
// SeeInteraction recorded: InteractionDone or InteractionUnknown; or
// InteractionNew, the action known not done, which deletes the record so
// that a later delivery of id is acted on.
func (s *sqlStore) SettleInteraction(ctx context.Context, id string, state InteractionState) (err error) {
	defer s.observe.done("settle_interaction", time.Now(), &err)
	err = s.one(ctx, settleWrite(ctx, id, state))
	if err != nil {
		return fmt.Errorf("store: settle interaction %s: %w", id, err)
	}
	return nil
}

// settleWrite is the write of SettleInteraction.
func settleWrite(ctx context.Context, id string, state InteractionState) func(tx) error {
	return func(t tx) error {
		var err error
		if state == InteractionNew {
			_, err = t.exec(ctx, `DELETE FROM interactions WHERE id = ? AND state = ?`, id, int(InteractionActing))
		} else {
			_, err = t.exec(ctx, `UPDATE interactions SET state = ? WHERE id = ?`, int(state), id)
		}
		return err
	}
}

// SettleInteractionLater records what became of the action on id, as
// SettleInteraction does, but its caller does not wait for the write:
// then, if not nil, is told how it went, maybe on another goroutine
// (it must be quick). On SQLite the write joins the transaction of the
// next writes (a move's save, another interaction's record) instead of
// costing one of its own, and Close waits for it; elsewhere it is made
// before SettleInteractionLater returns, within settleLaterWithin.
//
// Until the write commits, the interaction reads as InteractionActing:
// a second delivery waits for the record as it waits for an action
// under way; if the process dies first, it stays so, and a second
// delivery is told its outcome is unknown (as after a crash during the
// action). What a caller must know recorded before it goes on (the
// record of an action known not done, which lets a later delivery act)
// goes through SettleInteraction.
func (s *sqlStore) SettleInteractionLater(id string, state InteractionState, then func(error)) {
	start := time.Now()
	tell := func(err error) {
		if err != nil {
			err = fmt.Errorf("store: settle interaction %s: %w", id, err)
		}
		s.observe.done("settle_interaction", start, &err)
		if then != nil {
			then(err)
		}
	}
	if s.later == nil {
		ctx, cancel := context.WithTimeout(context.Background(), settleLaterWithin)
		defer cancel()
		tell(s.one(ctx, settleWrite(ctx, id, state)))
		return
	}
	s.later(settleWrite(context.Background(), id, state), tell) // the batch's context runs it
}

// settleLaterWithin bounds a SettleInteractionLater made at once.
const settleLaterWithin = 2 * time.Second

// InteractionState reads what became of the action on id.
func (s *sqlStore) InteractionState(ctx context.Context, id string) (state InteractionState, err error) {
	defer s.observe.done("interaction_state", time.Now(), &err)
	err = s.direct(ctx, func(t tx) error {
		var n int
		err := t.queryRow(ctx, `SELECT state FROM interactions WHERE id = ?`, id).Scan(&n)
		if errors.Is(err, errNoRows) {
			state = InteractionNew
			return nil
		}
		state = InteractionState(n)
		return err
	})
	if err != nil {
		return InteractionNew, fmt.Errorf("store: state of interaction %s: %w", id, err)
	}
	return state, nil
}

// ForgetInteractions deletes up to limit of the interactions seen before
// before, in one short transaction, and returns how many it deleted: a
// caller calls it again until fewer than limit go, so that a backlog is
// cleared without holding the SQLite writer for long.
func (s *sqlStore) ForgetInteractions(ctx context.Context, before time.Time, limit int) (n int, err error) {
	defer s.observe.done("forget_interactions", time.Now(), &err)
	var deleted int64
	err = s.write(ctx, func(t tx) error {
		var err error
		deleted, err = t.exec(ctx, `DELETE FROM interactions WHERE id IN
			(SELECT id FROM interactions WHERE seen_at < ? LIMIT ?)`, before.UnixMicro(), limit)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: forget interactions: %w", err)
	}
	return int(deleted), nil
}

// SeeInteraction records that the interaction id is acted on, seen at at,
// and reports whether it is the first to.
func (m *Memory) SeeInteraction(ctx context.Context, id string, at time.Time) (first bool, err error) {
	defer m.observe.done("see_interaction", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.interactions[id]; ok {
		return false, nil
	}
	if m.interactions == nil {
		m.interactions = make(map[string]seenInteraction)
	}
	m.interactions[id] = seenInteraction{at, InteractionActing}
	return true, nil
}

// seenInteraction is Memory's record of an interaction.
type seenInteraction struct {
	at    time.Time
	state InteractionState
}

// SettleInteraction records what became of the action on id.
func (m *Memory) SettleInteraction(ctx context.Context, id string, state InteractionState) (err error) {
	defer m.observe.done("settle_interaction", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.interactions[id]
	switch {
	case !ok:
	case state == InteractionNew && r.state == InteractionActing:
		delete(m.interactions, id)
	case state != InteractionNew:
		r.state = state
		m.interactions[id] = r
	}
	return nil
}

// SettleInteractionLater records what became of the action on id, at
// once, and tells then.
func (m *Memory) SettleInteractionLater(id string, state InteractionState, then func(error)) {
	err := m.SettleInteraction(context.Background(), id, state)
	if then != nil {
		then(err)
	}
}

// InteractionState reads what became of the action on id.
func (m *Memory) InteractionState(ctx context.Context, id string) (state InteractionState, err error) {
	defer m.observe.done("interaction_state", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.interactions[id].state, nil
}

// ForgetInteractions deletes up to limit of the interactions seen before
// before and returns how many it deleted.
func (m *Memory) ForgetInteractions(ctx context.Context, before time.Time, limit int) (n int, err error) {
	defer m.observe.done("forget_interactions", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, r := range m.interactions {
		if n == limit {
			break
		}
		if r.at.Before(before) {
			delete(m.interactions, id)
			n++
		}
	}
	return n, nil
}
