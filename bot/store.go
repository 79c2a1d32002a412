package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/tttbot/game"
)

// Store keeps each channel's latest game so that it can outlive the process.
// The bot loads a channel's game the first time it sees the channel, and
// saves it after every change, under the channel's lock and before it
// answers the player: what a player was shown is what is stored. Open
// challenges are not stored; they last a minute.
//
// MemoryStore is the implementation in this package; package store adds
// SQLite and PostgreSQL behind the same three methods.
type Store interface {
	// Load returns the channel's game, or nil and no error if it has none.
	Load(ctx context.Context, channelID string) (*Record, error)
	// Save replaces the channel's game with r.
	Save(ctx context.Context, r *Record) error
	// Delete forgets the channel's game.
	Delete(ctx context.Context, channelID string) error
}

// Record is a game as a store keeps it: plain values, from which the bot
// rebuilds the judge with game.Replay. A store must give back exactly what it
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
	Loser     game.Player // for EndResigned and EndTimeout
	StoppedBy string      // for EndStopped
	Serial    int         // the board message's serial
	Deadline  time.Time   // when the player to move loses; zero if nobody is timed
	// BoardAppID and BoardToken name the interaction whose @original is the
	// board message; Discord accepts the token for 15 minutes. Treat the
	// token as a secret.
	BoardAppID string
	BoardToken string
	Shown      string // the board message's content
}

func toRecord(m *match) *Record {
	g := m.judge
	r := &Record{
		ChannelID: m.channelID, GuildID: m.guildID, ID: m.id,
		Players: m.players, Computer: m.computer, Level: m.level,
		Size: g.Size(), Win: g.WinLength(), First: g.First(), Moves: g.History(),
		End: m.end, Loser: m.loser, StoppedBy: m.stoppedBy,
		Serial: m.serial, Deadline: m.deadline, Shown: m.shown,
	}
	if m.board != nil {
		r.BoardAppID, r.BoardToken = m.board.AppID, m.board.Token
	}
	return r
}

var errBadRecord = errors.New("bot: stored game is inconsistent")

// fromRecord rebuilds a match; a record that could not have been saved by the
// bot is an error, never a panic.
func fromRecord(r *Record) (*match, error) {
	if !validID(r.ID) || r.Players[game.X] == "" || r.Players[game.O] == "" || r.End > EndStopped {
		return nil, fmt.Errorf("%w: game %q", errBadRecord, r.ID)
	}
	g, err := game.Replay(r.Size, r.Moves, game.WinLength(r.Win), game.FirstPlayer(r.First))
	if err != nil {
		return nil, fmt.Errorf("%w: game %q: %w", errBadRecord, r.ID, err)
	}
	m := &match{
		id: r.ID, guildID: r.GuildID, channelID: r.ChannelID,
		players: r.Players, computer: r.Computer, level: r.Level, judge: g,
		end: r.End, loser: r.Loser, stoppedBy: r.StoppedBy,
		serial: r.Serial, deadline: r.Deadline, shown: r.Shown,
	}
	if r.BoardToken != "" {
		m.board = &discordgo.Interaction{AppID: r.BoardAppID, Token: r.BoardToken}
	}
	return m, nil
}

// MemoryStore is a Store in memory: games survive a restart of the Bot but
// not of the process. The zero value is ready to use; it is safe for
// concurrent use.
type MemoryStore struct {
	mu    sync.Mutex
	games map[string]Record
}

// Load implements Store.
func (s *MemoryStore) Load(_ context.Context, channelID string) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.games[channelID]
	if !ok {
		return nil, nil
	}
	r.Moves = slices.Clone(r.Moves)
	return &r, nil
}

// Save implements Store.
func (s *MemoryStore) Save(_ context.Context, r *Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.games == nil {
		s.games = make(map[string]Record)
	}
	c := *r
	c.Moves = slices.Clone(r.Moves)
	s.games[r.ChannelID] = c
	return nil
}

// Delete implements Store.
func (s *MemoryStore) Delete(_ context.Context, channelID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.games, channelID)
	return nil
}
