package bot

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tttbot/tttbot/store"
)

// Limits on what one user starts: a person starts a game, plays it, and
// maybe starts another; nobody opens a thousand games in a thousand
// channels in a second, which a script can. So one user's starts (/ttt
// start, and Rematch, which starts a game too) are let through
// startBurst times at once, and then once per startEvery (a game played
// in a second is rare); and one user holds at most maxOpenChallenges
// challenges waiting for an answer.
const (
	startBurst        = 10
	startEvery        = time.Second
	maxOpenChallenges = 3
)

// startLimits keeps the limits on starts. The pace is kept for this
// process: with several processes sharing a database, each paces the
// starts it answers. Open challenges are counted from the store (stored),
// where every process sharing the database opens and closes them (an
// accept on another replica, say): a challenge that another process
// answered no longer counts, and one that another process opened does.
// Beside them it counts the challenges whose start is under way here,
// which the store may not show yet, so that starts at once by one user
// here cannot open more than the limit between them. Starts at once on
// two processes each count only their own under way: the store counts
// again as it stores the challenge (OpenChallengeAtMost), which refuses
// the one too many. Safe for concurrent use;
// it holds an entry per user who started something within the last
// startBurst seconds or has a challenge open here, each at most until
// that challenge expires.
//
// The pace of starts is a generic cell rate algorithm (paced), kept by
// starts.
type startLimits struct {
	// stored lists the open challenges a user made, from the store
	// (ChallengeStore.ChallengesFrom); nil counts only those opened here.
	stored func(ctx context.Context, user string) ([]*store.Challenge, error)

	mu     sync.Mutex
	starts pace                             // each user's starts; set up by paceLocked
	open   map[string]map[string]*openEntry // user → id of an open challenge → what is known of it
	seq    uint64                           // counts the challenges marked stored (openEntry.stored)
}

// openEntry is a challenge counted as open.
type openEntry struct {
	expires time.Time
	// stored is 0 while the start that opens it is under way (it may not
	// be in the store yet), else the value of seq once it was (perhaps)
	// stored: a list read from the store since then shows it if it is
	// still open.
	stored uint64
}

// begin lets a start by user at now through, or refuses it in words. For
// a challenge, challengeID and expires name it: it counts as open until
// expires or until closed, or the store, says otherwise; begin reads the
// store for it, with ctx. The start's
// caller must call end once it knows whether the start happened: a start
// that did not (the channel was busy, Discord refused the answer) costs
// the user nothing.
func (s *startLimits) begin(ctx context.Context, user string, now time.Time, challengeID string, expires time.Time) (end func(started bool), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.paceLocked(user, now); err != nil {
		return nil, err // before the store is asked anything
	}
	if challengeID != "" {
		n := 0
		if s.stored != nil {
			// Another process may have opened or closed some: the
			// store knows.
			if n, err = s.resyncLocked(ctx, user, now); err != nil {
				return nil, err
			}
		} else {
			n = s.countLocked(user, now)
		}
		if n >= maxOpenChallenges {
			return nil, refuseN("start.too_many_challenges", maxOpenChallenges, nil)
		}
	}
	next, err := s.paceLocked(user, now) // again: other starts went on while the store was read
	if err != nil {
		return nil, err
	}
	if challengeID != "" {
		if s.open == nil {
			s.open = make(map[string]map[string]*openEntry)
		}
		if s.open[user] == nil {
			s.open[user] = make(map[string]*openEntry, 1)
		}
		s.open[user][challengeID] = &openEntry{expires: expires}
	}
	s.starts.take(user, next, now)
	return func(started bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !started {
			// One period back: as if this start had not been asked,
			// whatever other starts did meanwhile.
			s.starts.undo(user)
			if challengeID != "" {
				s.closeLocked(user, challengeID)
			}
			return
		}
		if e := s.open[user][challengeID]; e != nil {
			s.seq++
			e.stored = s.seq
		}
	}, nil
}

// paceLocked says when user's starts are paid off after one more at
// now, or refuses that start in words.
func (s *startLimits) paceLocked(user string, now time.Time) (time.Time, error) {
	if s.starts.every == 0 {
		s.starts = pace{burst: startBurst, every: startEvery} // the zero startLimits is ready
	}
	next, retry, ok := s.starts.check(user, now)
	if !ok {
		return time.Time{}, refuse("start.cooldown", map[string]any{"At": retry.Unix()})
	}
	return next, nil
}

// countLocked counts user's challenges open here at now, forgetting those
// expired (closed by their timer, here or elsewhere).
func (s *startLimits) countLocked(user string, now time.Time) int {
	open := s.open[user]
	for id, e := range open {
		if !now.Before(e.expires) {
			delete(open, id)
		}
	}
	return len(open)
}

// resyncLocked replaces the challenges of user counted here by those the
// store lists, and says how many are open at now. It lets s.mu go while
// it reads the store. A challenge whose start is under way, or that was
// stored after the read began, is kept: the list may not show it yet.
func (s *startLimits) resyncLocked(ctx context.Context, user string, now time.Time) (int, error) {
	s.seq++ // 0 is "under way": the store's challenges are marked since
	since := s.seq
	s.mu.Unlock()
	list, err := s.stored(ctx, user)
	s.mu.Lock()
	if err != nil {
		return 0, fmt.Errorf("count the open challenges: %w", err)
	}
	open := make(map[string]*openEntry, len(list))
	for id, e := range s.open[user] {
		if e.stored == 0 || e.stored > since {
			open[id] = e
		}
	}
	for _, c := range list {
		if now.Before(c.Expires) && open[c.ID] == nil {
			open[c.ID] = &openEntry{expires: c.Expires, stored: since}
		}
	}
	if len(open) == 0 {
		delete(s.open, user)
		return 0, nil
	}
	if s.open == nil {
		s.open = make(map[string]map[string]*openEntry)
	}
	s.open[user] = open
	return s.countLocked(user, now), nil
}

// close forgets user's challenge id, no longer open.
func (s *startLimits) close(user, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeLocked(user, id)
}

func (s *startLimits) closeLocked(user, id string) {
	if open := s.open[user]; open != nil {
		delete(open, id)
		if len(open) == 0 {
			delete(s.open, user)
		}
	}
}
