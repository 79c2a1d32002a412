// Package store keeps tttbot's games between moves and across restarts.
//
// A game is kept as a Record: plain values, from which the bot rebuilds the
// judge with game.Replay. Memory keeps records in memory; the SQLite and
// PostgreSQL stores will offer the same methods. The bot declares the
// interface it needs (bot.Store); this package does not import bot.
package store

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/tttbot/tttbot/game"
)

// Ending says how a game ended. The zero value, Running, means it has not.
// The values are stored as they are: never renumber them.
type Ending uint8

const (
	Running  Ending = iota // moves are still being made
	Won                    // a player completed a line
	Draw                   // the board is full
	Decided                // no line can be completed any more, so the game stopped early
	Resigned               // the loser gave up
	Timeout                // the loser did not move within the turn timeout
	Stopped                // a moderator stopped the game; nobody wins
)

// Record is one channel's latest game. A store gives back exactly what it
// was given.
type Record struct {
	ChannelID string
	GuildID   string
	ID        string      // the game's id, carried by its buttons
	Players   [3]string   // user ids, indexed by game.X and game.O
	Computer  game.Player // the computer's side, or game.None
	Level     game.Level  // the computer's level
	Size      int
	Win       int
	First     game.Player
	Moves     []game.Move
	End       Ending
	Loser     game.Player // for Resigned and Timeout
	StoppedBy string      // for Stopped: the moderator's user id
	Serial    int         // numbers the board messages of the game
	Deadline  time.Time   // when the player to move loses; zero if nobody is timed
	// BoardAppID and BoardToken name the interaction whose @original is the
	// board message, and BoardAt when Discord created it: Discord accepts
	// the token for 15 minutes from then. Treat the token as a secret.
	BoardAppID string
	BoardToken string
	BoardAt    time.Time
	Shown      string // the board message's content
}

// Clone returns a copy of r that shares no memory with it.
func (r *Record) Clone() *Record {
	c := *r
	c.Moves = slices.Clone(r.Moves)
	return &c
}

// Memory is a store in memory: games survive a restart of the bot but not of
// the process. The zero value is ready to use; it is safe for concurrent
// use. Each call costs O(moves) for the copy it makes.
type Memory struct {
	mu    sync.Mutex
	games map[string]*Record
}

// Load returns the channel's game, or nil and no error if it has none.
func (s *Memory) Load(_ context.Context, channelID string) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.games[channelID]
	if !ok {
		return nil, nil
	}
	return r.Clone(), nil
}

// Save replaces the channel's game with r.
func (s *Memory) Save(_ context.Context, r *Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.games == nil {
		s.games = make(map[string]*Record)
	}
	s.games[r.ChannelID] = r.Clone()
	return nil
}

// Delete forgets the channel's game.
func (s *Memory) Delete(_ context.Context, channelID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.games, channelID)
	return nil
}

// Running returns every game still being played, for the bot to restart
// their turn timers.
func (s *Memory) Running(_ context.Context) ([]*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rs []*Record
	for _, r := range s.games {
		if r.End == Running {
			rs = append(rs, r.Clone())
		}
	}
	slices.SortFunc(rs, func(a, b *Record) int {
		switch {
		case a.ChannelID < b.ChannelID:
			return -1
		case a.ChannelID > b.ChannelID:
			return 1
		}
		return 0
	})
	return rs, nil
}
