package store

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/rating"
)

// What every store does the same way: the checks a save must pass, the
// stats a game's end changes, and the order of a leaderboard. Memory,
// SQLite and PostgreSQL differ only in where the rows live.

// normalize returns a copy of g as the store keeps it: every time in UTC and
// truncated to the microsecond (what PostgreSQL keeps, and what fits an
// int64 for 292,000 years), with no memory shared with g.
func normalize(g *Game) *Game {
	n := g.Clone()
	if len(n.Moves) == 0 {
		n.Moves = nil // as a database gives them back
	}
	n.StartedAt = storeTime(n.StartedAt)
	n.EndedAt = storeTime(n.EndedAt)
	n.Deadline = storeTime(n.Deadline)
	n.RemindAt = storeTime(n.RemindAt)
	n.Board.At = storeTime(n.Board.At)
	for i := range n.Moves {
		n.Moves[i].At = storeTime(n.Moves[i].At)
	}
	return n
}

// storeTime is t as a store keeps it: UTC, to the microsecond, without a
// monotonic clock reading; the zero time stays zero.
func storeTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Microsecond)
}

// micros encodes a time for a database column: microseconds since the Unix
// epoch, or NULL for the zero time.
func micros(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

// fromMicros decodes what micros encoded.
func fromMicros(us *int64) time.Time {
	if us == nil {
		return time.Time{}
	}
	return time.UnixMicro(*us).UTC()
}

// check reports what makes g unfit to save, other than conflicts: a store
// refuses a game it could not read back or count.
func check(g *Game) error {
	switch {
	case g == nil:
		return fmt.Errorf("store: save: nil game")
	case g.ID == "":
		return fmt.Errorf("store: save: game has no id")
	case g.ChannelID == "":
		return fmt.Errorf("store: save game %s: no channel", g.ID)
	case g.Version < 0:
		return fmt.Errorf("store: save game %s: negative version %d", g.ID, g.Version)
	case !g.End.Valid():
		return fmt.Errorf("store: save game %s: unknown ending %d", g.ID, g.End)
	}
	if g.End != game.EndNone && g.End != game.EndStopped && !g.End.Drawn() {
		if w := g.Winner(); w != game.X && w != game.O {
			return fmt.Errorf("store: save game %s: ending %s names no winner", g.ID, g.End)
		}
	}
	return nil
}

// checkFinal reports ErrConflict when g would change how the stored game,
// already ended, ended: its ending, loser and moves are final.
func checkFinal(stored, g *Game) error {
	if stored.End == game.EndNone {
		return nil
	}
	if g.End != stored.End || g.Loser != stored.Loser || !slices.Equal(g.Moves, stored.Moves) {
		return fmt.Errorf("store: save game %s: it ended (%s) and its ending is final: %w", g.ID, stored.End, ErrConflict)
	}
	return nil
}

// counts reports whether saving g over a game that was running (or new)
// ends it and so changes stats.
func counts(wasRunning bool, g *Game) bool {
	return wasRunning && g.End != game.EndNone && g.End != game.EndStopped
}

// statsUsers returns the players whose stats change when g ends, sorted:
// the order in which stores lock their rows, so that two games ending at
// once cannot deadlock.
func statsUsers(g *Game) []string {
	var users []string
	for _, u := range []string{g.Players[game.X], g.Players[game.O]} {
		if u != "" && !slices.Contains(users, u) {
			users = append(users, u)
		}
	}
	slices.Sort(users)
	return users
}

// settle applies the end of g to its players' stats, given as they were
// before (keyed by user id, one entry per statsUsers(g), a new player at
// newStats). It changes the entries in place.
//
// Games against the computer count in Computer, both sides (the computer's
// side is the bot's own user id), and are not rated. Games between two
// people count in People, move streaks, and rate both players, each
// against the other's rating before the game: one game is one rating
// period.
func settle(g *Game, before map[string]*Stats) {
	winner := g.Winner()
	score := func(side game.Player) float64 {
		switch {
		case winner == side:
			return 1
		case winner == side.Other():
			return 0
		}
		return 0.5
	}
	record := func(r *Record, side game.Player) {
		r.Games++
		switch score(side) {
		case 1:
			r.Wins++
		case 0:
			r.Losses++
		default:
			r.Draws++
		}
	}
	if !g.Rated() { // against the computer: stopped games never get here
		for _, side := range []game.Player{game.X, game.O} {
			if s := before[g.Players[side]]; s != nil {
				record(&s.Computer, side)
			}
		}
		return
	}
	var pre [3]rating.Rating
	for _, side := range []game.Player{game.X, game.O} {
		if s := before[g.Players[side]]; s != nil {
			pre[side] = s.Rating
		}
	}
	for _, side := range []game.Player{game.X, game.O} {
		s := before[g.Players[side]]
		if s == nil {
			continue
		}
		record(&s.People, side)
		if score(side) == 1 {
			s.Streak++
			s.BestStreak = max(s.BestStreak, s.Streak)
		} else {
			s.Streak = 0
		}
		s.Rated++
		s.Rating = rating.Update(pre[side], []rating.Result{{Opponent: pre[side.Other()], Score: score(side)}})
	}
}

// newStats is a player with no games.
func newStats(guildID, userID string) Stats {
	return Stats{GuildID: guildID, UserID: userID, Rating: rating.Default}
}

// compareRank orders players best first: higher rating, then more rated
// games, then the smaller user id (byte order), so that ranks are total and
// every store agrees.
func compareRank(a, b *Stats) int {
	if c := cmp.Compare(b.Rating.R, a.Rating.R); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Rated, a.Rated); c != 0 {
		return c
	}
	return cmp.Compare(a.UserID, b.UserID)
}
