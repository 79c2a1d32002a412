package store

import (
	"context"
	"fmt"
	"time"
)

// SeeInteraction records that the interaction id is acted on, seen at at,
// and reports whether it is the first to: false means that this process
// or another recorded it before (a delivery twice, a replay), and it must
// not be acted on again. The record is one insert that conflicts on the
// id, so that of two processes recording the same id at once exactly one
// is first.
func (s *sqlStore) SeeInteraction(ctx context.Context, id string, at time.Time) (first bool, err error) {
	defer s.observe.done("see_interaction", time.Now(), &err)
	var n int64
	err = s.write(ctx, func(t tx) error {
		var err error
		n, err = t.exec(ctx, `INSERT INTO interactions (id, seen_at) VALUES (?, ?) ON CONFLICT DO NOTHING`, id, at.UnixMicro())
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: see interaction %s: %w", id, err)
	}
	return n == 1, nil
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
		m.interactions = make(map[string]time.Time)
	}
	m.interactions[id] = at
	return true, nil
}

// ForgetInteractions deletes up to limit of the interactions seen before
// before and returns how many it deleted.
func (m *Memory) ForgetInteractions(ctx context.Context, before time.Time, limit int) (n int, err error) {
	defer m.observe.done("forget_interactions", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, at := range m.interactions {
		if n == limit {
			break
		}
		if at.Before(before) {
			delete(m.interactions, id)
			n++
		}
	}
	return n, nil
}
