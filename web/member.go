package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// How long a page may go on. A session is good for Limits.SessionTTL (6 h):
// an open socket ends at its session's expiry (session_expired, which the
// page shows while it signs in again: a new code, a new session, Discord
// asked again). And whether its user is still in the activity instance is
// asked of Discord again (with the bot token) every Limits.MemberCheck (10
// min): when a socket says hello with a session whose check is older
// (a page reconnecting, or coming back after a restart), before it joins;
// and while a socket is open, every MemberCheck after its last check. A
// user who is no longer among the instance's users (or whose instance has
// ended) is refused, or their socket ended, with left_instance: so a user
// who left the activity can watch or play for at most MemberCheck more,
// never until the session's expiry.
//
// One answer of Discord serves every socket of its instance on this
// server for MemberCheck (members): a thousand pages of one activity cost
// one call per MemberCheck, not a thousand. When Discord cannot be asked
// (unreachable, or refusing the bot's own token), the socket goes on (the
// session is signed and good) and Discord is asked again a minute later:
// Discord's trouble ends nobody's game.

// memberRetry is how long after a check that failed it is tried again.
const memberRetry = time.Minute

// errLeft says that the user is not among the instance's users, or that
// the instance has ended.
var errLeft = errors.New("web: the user is no longer in the activity instance")

// members are the users of activity instances as Discord last said, by
// instance id: at most maxSources of them.
type members struct {
	mu sync.Mutex
	m  map[string]*memberEntry
}

type memberEntry struct {
	ready chan struct{} // closed once asked
	at    time.Time     // when Discord was asked
	users []string
	ended bool  // Discord does not know the instance (any more)
	err   error // Discord could not be asked
}

// checkMember says whether user is in instance as Discord says at most
// MemberCheck before now: the time of that answer, or errLeft, or another
// error when Discord could not be asked.
func (s *Server) checkMember(ctx context.Context, instance, user string) (time.Time, error) {
	now := s.now()
	ms := s.members
	ms.mu.Lock()
	e := ms.m[instance]
	if e != nil {
		select {
		case <-e.ready:
			// An answer holds for MemberCheck, a failure for the
			// retry's pause: a thousand pages of an instance cost one
			// call, also while Discord cannot be asked.
			if now.Sub(e.at) >= s.memberValidFor(e) {
				e = nil // ask again
			}
		default: // being asked: wait for that answer
		}
	}
	if e == nil {
		e = &memberEntry{ready: make(chan struct{}), at: now}
		if len(ms.m) >= maxSources {
			for k, old := range ms.m {
				select {
				case <-old.ready:
					if now.Sub(old.at) >= s.memberValidFor(old) {
						delete(ms.m, k)
					}
				default:
				}
			}
		}
		if len(ms.m) < maxSources {
			ms.m[instance] = e
		}
		ms.mu.Unlock()
		s.askMembers(ctx, instance, e)
	} else {
		ms.mu.Unlock()
	}
	select {
	case <-e.ready:
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
	switch {
	case e.err != nil:
		return time.Time{}, e.err
	case e.ended || !slices.Contains(e.users, user):
		return time.Time{}, errLeft
	}
	return e.at, nil
}

// memberValidFor is how long e, answered, is believed: MemberCheck, or
// for a failure the pause before asking again.
func (s *Server) memberValidFor(e *memberEntry) time.Duration {
	if e.err != nil {
		return min(memberRetry, s.limits.MemberCheck)
	}
	return s.limits.MemberCheck
}

// askMembers asks Discord for instance's users into e, and logs once why
// it could not.
func (s *Server) askMembers(ctx context.Context, instance string, e *memberEntry) {
	defer close(e.ready)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sessionWithin)
	defer cancel()
	in, err := s.instance(ctx, instance)
	var refused *errDiscordRefused
	switch {
	case errors.As(err, &refused) && refused.status == http.StatusNotFound:
		e.ended = true
	case err != nil:
		e.err = err
		var misconfigured *errOurCredentials
		if errors.As(err, &misconfigured) {
			s.log.Error("live board: Discord refuses the application's credentials", "err", err)
		} else {
			s.log.Warn("live board: asking Discord whether a user is still in the activity", "instance", instance, "err", err)
		}
	case in.InstanceID != instance:
		e.ended = true
	default:
		e.users = in.Users
	}
}

// memberCheckDue says whether k's user must be checked again at now.
func (k *socket) memberCheckDue(now time.Time) bool {
	return now.Sub(k.checked) >= k.s.limits.MemberCheck
}

// recheck asks whether k's user is still in k's instance: false when
// they are not (k refused with left_instance), true otherwise (also
// when Discord could not be asked: then k.checked is left as it was).
func (k *socket) recheck(ctx context.Context) bool {
	at, err := k.s.checkMember(ctx, k.claims.Instance, k.claims.User)
	switch {
	case errors.Is(err, errLeft):
		k.s.log.Debug("live board: a user left the activity", "user", k.claims.User, "instance", k.claims.Instance)
		k.refuse("left_instance", websocket.StatusPolicyViolation)
		return false
	case err != nil: // logged once for the instance (askMembers)
		k.retryCheck = true
		return true
	}
	k.checked, k.retryCheck = at, false
	return true
}

// watch ends k at its session's expiry, and checks again every
// Limits.MemberCheck that its user is in the activity, until k ends.
func (k *socket) watch() {
	k.watchMu.Lock()
	defer k.watchMu.Unlock()
	if k.watchEnded || k.ctx.Err() != nil {
		return
	}
	now := k.s.now()
	expiry := time.Unix(k.claims.Expiry, 0)
	next := k.checked.Add(k.s.limits.MemberCheck)
	if k.retryCheck {
		next = now.Add(min(memberRetry, k.s.limits.MemberCheck))
	}
	if expiry.Before(next) {
		next = expiry
	}
	k.stopWatch = k.s.afterFunc(max(next.Sub(now), 0), k.tick)
}

// tick is k's watch at its time: the session's end, or the next check.
func (k *socket) tick() {
	if k.ctx.Err() != nil {
		return
	}
	now := k.s.now()
	switch {
	case now.Unix() >= k.claims.Expiry:
		// The page shows why, and signs in again.
		k.refuse("session_expired", websocket.StatusPolicyViolation)
		return
	case k.retryCheck || k.memberCheckDue(now):
		if !k.recheck(k.ctx) {
			return
		}
	}
	k.watch()
}

// endWatch stops k's watch.
func (k *socket) endWatch() {
	k.watchMu.Lock()
	defer k.watchMu.Unlock()
	k.watchEnded = true // a tick running now arms no other
	if k.stopWatch != nil {
		k.stopWatch()
	}
}
