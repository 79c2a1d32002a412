package bot

import (
	"sync"
	"time"
)

// Limits on what one user starts: a person starts a game, plays it, and
// maybe starts another; nobody opens a thousand games in a thousand
// channels in a second, which a script can. So one user's /ttt start is
// let through startBurst times at once, and then once per startEvery (a
// game played in a second is rare); and one user holds at most
// maxOpenChallenges challenges waiting for an answer.
const (
	startBurst        = 10
	startEvery        = time.Second
	maxOpenChallenges = 3
)

// startLimits keeps the limits on starts, for this process: with several
// processes sharing a database, each counts the starts it answers. The
// zero value is ready to use and safe for concurrent use; it holds an
// entry per user who started something within the last startBurst
// seconds or has a challenge open here, each at most until that challenge
// expires.
//
// The pace of starts is a generic cell rate algorithm: due[user] is when
// the user's starts would be paid off at one per startEvery; a start is
// let through while that is at most startBurst-1 periods ahead of now.
type startLimits struct {
	mu   sync.Mutex
	due  map[string]time.Time            // user → when their starts so far are paid off
	open map[string]map[string]time.Time // user → id of an open challenge → when it expires
}

// pruneAbove is how many users the pace map holds before begin drops
// those whose starts are paid off.
const pruneAbove = 1024

// begin lets a start by user at now through, or refuses it in words. For
// a challenge, challengeID and expires name it: it counts as open until
// expires or until closed says otherwise. undo takes the start back, for
// a start that did not happen after all (the channel was busy, Discord
// refused the answer), so that it costs the user nothing.
func (s *startLimits) begin(user string, now time.Time, challengeID string, expires time.Time) (undo func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, had := s.due[user]
	due := prev
	if !had || due.Before(now) {
		due = now
	}
	if ahead := due.Sub(now); ahead > (startBurst-1)*startEvery {
		// At is rounded up to the second, the most that <t:…:R> shows.
		at := now.Add(ahead - (startBurst-1)*startEvery + time.Second - 1)
		return nil, refuse("start.cooldown", map[string]any{"At": at.Unix()})
	}
	if challengeID != "" {
		open := s.open[user]
		for id, exp := range open {
			if !now.Before(exp) {
				delete(open, id) // closed by its timer, here or elsewhere
			}
		}
		if len(open) >= maxOpenChallenges {
			return nil, refuseN("start.too_many_challenges", maxOpenChallenges, nil)
		}
		if open == nil {
			if s.open == nil {
				s.open = make(map[string]map[string]time.Time)
			}
			open = make(map[string]time.Time, 1)
			s.open[user] = open
		}
		open[challengeID] = expires
	}
	if s.due == nil {
		s.due = make(map[string]time.Time)
	}
	if len(s.due) > pruneAbove {
		for u, t := range s.due {
			if !t.After(now) {
				delete(s.due, u) // paid off: as good as no entry
			}
		}
	}
	s.due[user] = due.Add(startEvery)
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if had {
			s.due[user] = prev
		} else {
			delete(s.due, user)
		}
		if challengeID != "" {
			s.closeLocked(user, challengeID)
		}
	}, nil
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
