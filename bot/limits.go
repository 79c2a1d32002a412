package bot

import "time"

// Board sizes and win lengths a player may ask for.
//
// MaxSize is 15: 15×15 five in a row is gomoku, the classic big board.
// MaxEmojiSize is the largest board drawn as an emoji grid: a board line is
// one label and n cells, and eleven emoji is what a phone shows on one line
// without wrapping; it is also the last size whose labels are single
// keycaps (1️⃣ … 🔟). A bigger board is always a picture (see pictured).
// MaxButtonSize is 5 because a message holds at most 5 action rows of 5
// buttons.
const (
	MinSize       = 3
	MaxSize       = 15
	MaxEmojiSize  = 10
	DefaultSize   = 3
	MinWin        = 3
	MaxButtonSize = 5
)

// Limits on the timeouts. A timer edits a message through the token of
// the interaction that drew it while Discord accepts that token, for 15
// minutes (tokenLife). MaxTimeout keeps within it whatever is timed on a
// message that only a token can reach: challenges, the bot's own defaults
// (which apply in DMs too), and turns in a channel the bot cannot reach
// with its own token (an app installed by a user, not by the server).
// MaxTurnTimeout is the longest turn a server may set with /ttt config:
// correspondence games, whose boards the bot reaches through the channel
// once their token has expired (see doc.go).
const (
	MinTimeout     = time.Second
	MaxTimeout     = 14 * time.Minute
	MaxTurnTimeout = 24 * time.Hour
)

// MinRated is how many rated games a player needs to be on the leaderboard.
const MinRated = 5

// Limits of the options of /ttt config besides MinTimeout, MaxTurnTimeout
// (turn_timeout), MaxTimeout (challenge_timeout: a challenge message is
// edited through its token), MinSize, MinWin and MaxSize. A challenge
// waits at least MinChallengeTimeout, long enough to be seen. maxChannels
// keeps the summary, which names the channels before and after a change,
// well within Discord's 2000 characters.
const (
	MinChallengeTimeout = 10 * time.Second
	maxChannels         = 10
)

// Limits on the computer's thinking, which costs: a move of Hard on a big
// board takes up to about 100 ms of a core (game.ComputerMove). Players
// who move as fast as the answers come could take every core and slow
// everyone, so the computer thinks for at most thinkSlots moves at once,
// a move waits for its turn at most thinkWait, and each player's moves
// against the computer are paced: moveBurst at once (a quick game's
// worth), then one per moveEvery (faster than anyone who reads the board
// plays).
const (
	moveBurst = 20
	moveEvery = 500 * time.Millisecond
	thinkWait = time.Second
	// thinkReserve is what an answer needs once the computer may think:
	// the search, the save, the answer. A move that cannot start
	// thinking this long before its deadline is refused instead.
	thinkReserve = 800 * time.Millisecond
)

// paced is a generic cell rate algorithm: due is when the events let
// through so far are paid off at one per every (zero: none), and an event
// at now is let through while that is at most burst-1 periods ahead of
// now. It returns the new due, or, for an event refused, when the next is
// let through, rounded up to the second (the most that <t:…:R> shows).
func paced(due, now time.Time, burst int, every time.Duration) (next, retry time.Time, ok bool) {
	if due.Before(now) {
		due = now
	}
	if ahead := due.Sub(now); ahead > time.Duration(burst-1)*every {
		return time.Time{}, now.Add(ahead - time.Duration(burst-1)*every + time.Second - 1), false
	}
	return due.Add(every), time.Time{}, true
}

// pruneAbove is how many users a pace holds before it drops those whose
// events are paid off.
const pruneAbove = 1024

// pace paces each user's events (paced): burst at once, then one per
// every. Its owner guards it (startLimits, thinking each with its mutex);
// the zero value with burst and every set is ready.
type pace struct {
	burst int
	every time.Duration
	due   map[string]time.Time // user → when their events so far are paid off
}

// check says when user's events are paid off after one more at now, or,
// for one refused, when the next is let through (paced). It changes
// nothing: take does.
func (p *pace) check(user string, now time.Time) (next, retry time.Time, ok bool) {
	return paced(p.due[user], now, p.burst, p.every)
}

// take records user's event at now, paid off at next (from check). Past
// pruneAbove users it first drops those paid off at now: as good as no
// entry.
func (p *pace) take(user string, next, now time.Time) {
	if p.due == nil {
		p.due = make(map[string]time.Time)
	}
	if len(p.due) > pruneAbove {
		for u, d := range p.due {
			if !d.After(now) {
				delete(p.due, u)
			}
		}
	}
	p.due[user] = next
}

// undo takes back one of user's events, one period: as if it had not
// been asked, whatever other events did meanwhile.
func (p *pace) undo(user string) {
	if d, ok := p.due[user]; ok {
		p.due[user] = d.Add(-p.every)
	}
}
