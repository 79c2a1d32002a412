package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Challenge is an open challenge: From asked To for a game in a channel,
// on the message named by Message, until Expires. It is stored so that
// every process sharing the database can accept, decline or expire it.
// Times are kept in UTC, to the microsecond.
type Challenge struct {
	ID, GuildID, ChannelID string
	From, To               string // user ids
	Size, Win              int
	Expires                time.Time
	Message                Board  // the challenge message, to edit it later
	Locale                 string // the Discord locale its message speaks; empty: English
}

const challengeColumns = `id, guild_id, channel_id, from_user, to_user, size, win, expires_at, msg_app, msg_token, msg_at, locale,
	msg_channel, msg_id`

func scanChallenge(r row) (*Challenge, error) {
	var c Challenge
	var expires, at int64
	if err := r.Scan(&c.ID, &c.GuildID, &c.ChannelID, &c.From, &c.To, &c.Size, &c.Win, &expires, &c.Message.AppID, &c.Message.Token, &at, &c.Locale,
		&c.Message.ChannelID, &c.Message.MessageID); err != nil {
		return nil, err
	}
	c.Expires, c.Message.At = time.UnixMicro(expires).UTC(), time.UnixMicro(at).UTC()
	return &c, nil
}

// Challenge returns the channel's open challenge, or nil if it has none.
func (s *sqlStore) Challenge(ctx context.Context, channelID string) (c *Challenge, err error) {
	defer s.observe.done("challenge", time.Now(), &err)
	err = s.direct(ctx, func(t tx) error {
		c, err = scanChallenge(t.queryRow(ctx, `SELECT `+challengeColumns+` FROM challenges WHERE channel_id = ?`, channelID))
		if errors.Is(err, errNoRows) {
			c, err = nil, nil
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: challenge of channel %s: %w", channelID, err)
	}
	return c, nil
}

// ErrTooMany: OpenChallengeAtMost found that the challenge's maker has as
// many open challenges as allowed already. Nothing was changed.
var ErrTooMany = errors.New("store: too many open challenges")

// OpenChallenge stores c as its channel's open challenge. It fails with
// ErrConflict if the channel already has one. A commit whose answer was
// lost is resolved by looking for c: nil if it is stored, a plain error if
// not.
func (s *sqlStore) OpenChallenge(ctx context.Context, c *Challenge) error {
	return s.openChallenge(ctx, c, 0, time.Time{})
}

// OpenChallengeAtMost stores c as OpenChallenge does, unless its maker
// (c.From) has most open challenges that expire after now already: then
// it fails with ErrTooMany. The count and the insert are one write, and
// the writes of one maker's challenges take turns across every process
// sharing the database (SQLite's writes take its write lock at BEGIN; on
// PostgreSQL each takes a transaction lock on the maker, userLock), so
// that challenges opened at once on two replicas never exceed most.
func (s *sqlStore) OpenChallengeAtMost(ctx context.Context, c *Challenge, most int, now time.Time) error {
	if most <= 0 {
		return fmt.Errorf("store: open challenge %s: at most %d: %w", c.ID, most, ErrTooMany)
	}
	return s.openChallenge(ctx, c, most, now)
}

// userLockClass is the first key of the transaction locks on a maker of
// challenges (pg_advisory_xact_lock(int, int)): "tttc" in ASCII. Locks of
// two keys never meet the one-key locks of migrations and instances.
const userLockClass = 0x74747463

// userLock is the SQL that takes a transaction lock on the maker of
// challenges given as its parameter, on PostgreSQL.
var userLock = `SELECT pg_advisory_xact_lock(` + strconv.Itoa(userLockClass) + `, hashtext(?))`

// openChallenge stores c, counting its maker's challenges open at now
// first unless most is 0.
func (s *sqlStore) openChallenge(ctx context.Context, c *Challenge, most int, now time.Time) (err error) {
	defer s.observe.done("open_challenge", time.Now(), &err)
	var n int64
	tooMany := false
	err = s.write(ctx, func(t tx) (err error) {
		n, tooMany = 0, false // a write may be run again (groupCommit)
		if most > 0 {
			if s.xactID != "" { // PostgreSQL
				if _, err := t.exec(ctx, userLock, c.From); err != nil {
					return err
				}
			}
			var open int
			if err := t.queryRow(ctx, `SELECT count(*) FROM challenges WHERE from_user = ? AND expires_at > ?`, c.From, now.UnixMicro()).Scan(&open); err != nil {
				return err
			}
			if tooMany = open >= most; tooMany {
				return nil // nothing to write
			}
		}
		n, err = t.exec(ctx, `INSERT INTO challenges (`+challengeColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			c.ID, c.GuildID, c.ChannelID, c.From, c.To, c.Size, c.Win, c.Expires.UnixMicro(), c.Message.AppID, c.Message.Token, c.Message.At.UnixMicro(), c.Locale,
			c.Message.ChannelID, c.Message.MessageID)
		return err
	})
	switch {
	case tooMany:
		// It only read, whatever became of the transaction.
		return fmt.Errorf("store: open challenge %s: %s has %d open: %w", c.ID, c.From, most, ErrTooMany)
	case errors.Is(err, ErrOutcomeUnknown) && n == 0:
		err = nil // it inserted nothing, whatever became of the commit
	case errors.Is(err, ErrOutcomeUnknown):
		err = s.resolve(ctx, err, func(ctx context.Context) (bool, error) {
			var found int
			err := s.direct(ctx, func(t tx) error {
				return t.queryRow(ctx, `SELECT count(*) FROM challenges WHERE id = ?`, c.ID).Scan(&found)
			})
			return found == 1, err
		})
	}
	if err != nil {
		return fmt.Errorf("store: open challenge %s: %w", c.ID, err)
	}
	if n == 0 {
		return fmt.Errorf("store: open challenge %s: channel %s has one: %w", c.ID, c.ChannelID, ErrConflict)
	}
	return nil
}

// CloseChallenge removes the open challenge with that id and reports
// whether it was there: of several processes closing one challenge (an
// accept, a decline, a timer), exactly one gets true. A commit whose
// answer was lost is resolved by asking the database whether the
// transaction committed (a challenge that is gone does not say who
// removed it).
func (s *sqlStore) CloseChallenge(ctx context.Context, id string) (_ bool, err error) {
	defer s.observe.done("close_challenge", time.Now(), &err)
	var n int64
	var xact string // the transaction's id, where a commit can go unanswered
	err = s.write(ctx, func(t tx) (err error) {
		if s.xactID == "" {
			n, err = t.exec(ctx, `DELETE FROM challenges WHERE id = ?`, id)
			return err
		}
		n = 1
		err = t.queryRow(ctx, `DELETE FROM challenges WHERE id = ? RETURNING `+s.xactID, id).Scan(&xact)
		if errors.Is(err, errNoRows) {
			n, err = 0, nil
		}
		return err
	})
	switch {
	case errors.Is(err, ErrOutcomeUnknown) && n == 0:
		err = nil // it removed nothing, whatever became of the commit
	case errors.Is(err, ErrOutcomeUnknown):
		err = s.resolve(ctx, err, func(ctx context.Context) (bool, error) {
			var status string
			err := s.direct(ctx, func(t tx) error {
				return t.queryRow(ctx, `SELECT coalesce(txid_status(?::bigint), '')`, xact).Scan(&status)
			})
			if err == nil && status != "committed" && status != "aborted" {
				err = fmt.Errorf("transaction %s is %q", xact, status)
			}
			return status == "committed", err
		})
	}
	if err != nil {
		return false, fmt.Errorf("store: close challenge %s: %w", id, err)
	}
	return n == 1, nil
}

// Challenges returns every open challenge, by channel id.
func (s *sqlStore) Challenges(ctx context.Context) (out []*Challenge, err error) {
	defer s.observe.done("challenges", time.Now(), &err)
	out, err = listChallenges(ctx, s.read, `ORDER BY channel_id`)
	if err != nil {
		return nil, fmt.Errorf("store: open challenges: %w", err)
	}
	return out, nil
}

// ChallengesFrom returns the open challenges that user made, by channel
// id, expired or not (whoever asks decides what has expired, by its
// clock): the limit on a user's open challenges counts them here, where
// every process sharing the database closes them.
func (s *sqlStore) ChallengesFrom(ctx context.Context, user string) (out []*Challenge, err error) {
	defer s.observe.done("challenges_from", time.Now(), &err)
	out, err = listChallenges(ctx, s.direct, `WHERE from_user = ? ORDER BY channel_id`, user)
	if err != nil {
		return nil, fmt.Errorf("store: open challenges from %s: %w", user, err)
	}
	return out, nil
}

// listChallenges returns the challenges that SELECT challengeColumns FROM
// challenges, followed by rest, finds, read with run (s.read, s.direct).
func listChallenges(ctx context.Context, run func(context.Context, func(tx) error) error, rest string, args ...any) (out []*Challenge, err error) {
	err = run(ctx, func(t tx) error {
		out = nil
		rs, err := t.query(ctx, `SELECT `+challengeColumns+` FROM challenges `+rest, args...)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			c, err := scanChallenge(rs)
			if err != nil {
				return err
			}
			out = append(out, c)
		}
		return rs.Err()
	})
	return out, err
}

// Challenge returns the channel's open challenge, or nil if it has none.
func (m *Memory) Challenge(ctx context.Context, channelID string) (_ *Challenge, err error) {
	defer m.observe.done("challenge", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.challenges[channelID]; c != nil {
		cc := *c
		return &cc, nil
	}
	return nil, nil
}

// OpenChallenge stores c as its channel's open challenge, or fails with
// ErrConflict if the channel has one.
func (m *Memory) OpenChallenge(ctx context.Context, c *Challenge) error {
	return m.openChallenge(c, 0, time.Time{})
}

// OpenChallengeAtMost stores c as OpenChallenge does, unless its maker has
// most open challenges that expire after now already: ErrTooMany.
func (m *Memory) OpenChallengeAtMost(ctx context.Context, c *Challenge, most int, now time.Time) error {
	if most <= 0 {
		return fmt.Errorf("store: open challenge %s: at most %d: %w", c.ID, most, ErrTooMany)
	}
	return m.openChallenge(c, most, now)
}

func (m *Memory) openChallenge(c *Challenge, most int, now time.Time) (err error) {
	defer m.observe.done("open_challenge", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	if most > 0 {
		open := 0
		for _, o := range m.challenges {
			if o.From == c.From && o.Expires.After(now) {
				open++
			}
		}
		if open >= most {
			return fmt.Errorf("store: open challenge %s: %s has %d open: %w", c.ID, c.From, most, ErrTooMany)
		}
	}
	if m.challenges[c.ChannelID] != nil {
		return fmt.Errorf("store: open challenge %s: channel %s has one: %w", c.ID, c.ChannelID, ErrConflict)
	}
	if m.challenges == nil {
		m.challenges = map[string]*Challenge{}
	}
	cc := *c
	cc.Expires, cc.Message.At = storeTime(cc.Expires), storeTime(cc.Message.At)
	m.challenges[c.ChannelID] = &cc
	return nil
}

// CloseChallenge removes the challenge with that id and reports whether
// it was there.
func (m *Memory) CloseChallenge(ctx context.Context, id string) (_ bool, err error) {
	defer m.observe.done("close_challenge", time.Now(), &err)
	m.mu.Lock()
	defer m.mu.Unlock()
	for ch, c := range m.challenges {
		if c.ID == id {
			delete(m.challenges, ch)
			return true, nil
		}
	}
	return false, nil
}

// Challenges returns every open challenge, by channel id.
func (m *Memory) Challenges(ctx context.Context) (_ []*Challenge, err error) {
	defer m.observe.done("challenges", time.Now(), &err)
	return m.challengesWhere(func(*Challenge) bool { return true }), nil
}

// ChallengesFrom returns the open challenges that user made, by channel
// id, as the SQL stores' ChallengesFrom does.
func (m *Memory) ChallengesFrom(ctx context.Context, user string) (_ []*Challenge, err error) {
	defer m.observe.done("challenges_from", time.Now(), &err)
	return m.challengesWhere(func(c *Challenge) bool { return c.From == user }), nil
}

// challengesWhere returns copies of the open challenges that keep says to,
// by channel id.
func (m *Memory) challengesWhere(keep func(*Challenge) bool) []*Challenge {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Challenge
	for _, c := range m.challenges {
		if keep(c) {
			cc := *c
			out = append(out, &cc)
		}
	}
	slices.SortFunc(out, func(a, b *Challenge) int { return strings.Compare(a.ChannelID, b.ChannelID) })
	return out
}
