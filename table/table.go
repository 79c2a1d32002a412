// Package table runs one channel's game: a challenge that is accepted,
// declined or expires; the match that follows, move by move, until it is
// won, drawn, resigned, timed out or stopped; and the rematch. It decides
// who may do what and when deadlines fall. It is pure: who acts, what they
// do and when ("now") are passed in, so tests drive time without sleeping,
// and it knows nothing of Discord or of storage.
//
// Every method that changes a Match or a Challenge either succeeds or
// returns an error and leaves it exactly as it was; callers that must keep
// the old state until the new one is saved work on a Clone.
package table

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/tttbot/tttbot/game"
)

// Config holds the rules that are not the judge's. The zero value times
// nobody out; DefaultConfig is what the bot uses unless told otherwise.
type Config struct {
	// TurnTimeout is how long a player has for a move before losing; 0
	// means no limit.
	TurnTimeout time.Duration
	// ChallengeTimeout is how long a challenge waits for an answer.
	ChallengeTimeout time.Duration
	// Seed seeds the computer player: its choice depends only on Seed, the
	// game's id and the position, so a game replays exactly.
	Seed uint64
}

// DefaultConfig returns the defaults: challenges wait 60 s, turns 5 min.
func DefaultConfig() Config {
	return Config{ChallengeTimeout: time.Minute, TurnTimeout: 5 * time.Minute}
}

// Errors, tested with errors.Is. The bot turns each into a sentence.
var (
	ErrOver         = errors.New("table: the game is over")
	ErrNotOver      = errors.New("table: the game is not over")
	ErrNotPlayer    = errors.New("table: not a player of this game")
	ErrNotYourTurn  = errors.New("table: not this player's turn")
	ErrOutside      = errors.New("table: no such cell on this board")
	ErrOccupied     = errors.New("table: cell taken")
	ErrNotChallenge = errors.New("table: the challenge is for someone else")
	ErrOwnChallenge = errors.New("table: a player cannot accept their own challenge")
	ErrExpired      = errors.New("table: the challenge has expired")
	ErrComputer     = errors.New("table: the computer does not agree to draws")
	ErrNoOffer      = errors.New("table: no draw is offered to this player")
	ErrOffered      = errors.New("table: this player's draw offer is already waiting")
)

// Match is one game in one channel. Its zero value is not a game: create
// one with Start, Challenge.Accept or Rematch.
type Match struct {
	ID        string
	GuildID   string
	ChannelID string
	Players   [3]string   // user ids, indexed by game.X and game.O
	Computer  game.Player // the side the computer plays, or game.None
	Level     game.Level
	Judge     *game.Judge
	Times     []time.Time // when each move of Judge's history was made
	End       game.Ending
	Loser     game.Player // for game.EndResigned and game.EndTimeout
	StoppedBy string      // for game.EndStopped
	StartedAt time.Time
	EndedAt   time.Time
	Deadline  time.Time // when the player to move loses; zero if nobody is timed
	// DrawOffer is the side whose offer of a draw waits for the other's
	// answer, or game.None. The next move withdraws it.
	DrawOffer game.Player

	// Serial numbers the board messages of this match; cell buttons carry
	// it, so a click on a board that a newer message replaced is refused.
	// On a board played with the bot's picker every move counts as a new
	// board, so that a picker drawn before a move is refused too.
	Serial int
}

// Setup says what game to start.
type Setup struct {
	GuildID, ChannelID string
	Players            [3]string // indexed by game.X and game.O
	Computer           game.Player
	Level              game.Level
	Size, Win          int
	First              game.Player
}

// Start begins a match with id. If the computer moves first, it has moved
// when Start returns.
func Start(cfg Config, id string, s Setup, now time.Time) (*Match, error) {
	judge, err := game.New(s.Size, game.WinLength(s.Win), game.FirstPlayer(s.First))
	if err != nil {
		return nil, fmt.Errorf("new game %d×%d, %d in a row: %w", s.Size, s.Size, s.Win, err)
	}
	m := &Match{
		ID: id, GuildID: s.GuildID, ChannelID: s.ChannelID,
		Players: s.Players, Computer: s.Computer, Level: s.Level,
		Judge: judge, StartedAt: now,
	}
	if err := m.computerTurn(cfg, now); err != nil {
		return nil, err
	}
	m.setDeadline(cfg, now)
	return m, nil
}

// Clone returns a copy of m that shares nothing mutable with it. O(moves).
func (m *Match) Clone() *Match {
	c := *m
	c.Judge = m.Judge.Clone()
	c.Times = append([]time.Time(nil), m.Times...)
	return &c
}

// Over reports whether the match has ended.
func (m *Match) Over() bool { return m.End != game.EndNone }

// Turn is the side to move.
func (m *Match) Turn() game.Player { return m.Judge.Turn() }

// Winner is the side that won, or game.None.
func (m *Match) Winner() game.Player {
	last, _ := m.Judge.LastMove()
	return m.End.Winner(last.Player, m.Loser)
}

// Side is the side userID plays, or game.None. The computer's side belongs
// to no user, so the bot's own id never moves through this.
func (m *Match) Side(userID string) game.Player {
	for _, p := range []game.Player{game.X, game.O} {
		if m.Players[p] == userID && m.Computer != p {
			return p
		}
	}
	return game.None
}

// player returns userID's side in a match still being played: ErrOver
// once it is over, ErrNotPlayer for anyone else.
func (m *Match) player(userID string) (game.Player, error) {
	if m.Over() {
		return game.None, ErrOver
	}
	side := m.Side(userID)
	if side == game.None {
		return game.None, ErrNotPlayer
	}
	return side, nil
}

// Play puts userID's mark at the 1-based row and col, then lets the
// computer answer if it plays.
func (m *Match) Play(cfg Config, userID string, row, col int, now time.Time) error {
	side, err := m.player(userID)
	if err != nil {
		return err
	}
	if m.Turn() != side {
		return ErrNotYourTurn
	}
	n := m.Judge.Size()
	if row < 1 || row > n || col < 1 || col > n {
		return fmt.Errorf("row %d, column %d on %d×%d: %w", row, col, n, n, ErrOutside)
	}
	if m.Judge.At(row-1, col-1) != game.None {
		return fmt.Errorf("row %d, column %d: %w", row, col, ErrOccupied)
	}
	// Checked above, so the judge accepts it, and the state only changes
	// once nothing can fail any more but the computer (which cannot fail
	// on a game that is not over).
	saved := m.Clone()
	if err := m.play(row-1, col-1, side, now); err != nil {
		*m = *saved
		return err
	}
	if err := m.computerTurn(cfg, now); err != nil {
		*m = *saved
		return err
	}
	m.setDeadline(cfg, now)
	return nil
}

func (m *Match) play(row, col int, p game.Player, now time.Time) error {
	if _, err := m.Judge.Play(row, col, p); err != nil {
		return fmt.Errorf("judge refused move %d,%d: %w", row, col, err)
	}
	m.Times = append(m.Times, now)
	m.DrawOffer = game.None // playing on answers (or withdraws) an offer
	switch m.Judge.Status() {
	case game.Won:
		m.end(game.EndWon, now)
	case game.Draw:
		m.end(game.EndDraw, now)
	case game.DecidedDraw:
		m.end(game.EndDecided, now)
	}
	return nil
}

func (m *Match) end(e game.Ending, now time.Time) {
	m.End, m.EndedAt, m.Deadline, m.DrawOffer = e, now, time.Time{}, game.None
}

// computerTurn lets the computer move if it is its turn.
func (m *Match) computerTurn(cfg Config, now time.Time) error {
	if m.Over() || m.Computer == game.None || m.Turn() != m.Computer {
		return nil
	}
	h := fnv.New64a()
	h.Write([]byte(m.ID))
	r := rand.New(rand.NewPCG(cfg.Seed, h.Sum64()+uint64(m.Judge.Len())))
	c, err := game.ComputerMove(m.Judge, m.Level, r)
	if err != nil {
		return fmt.Errorf("computer move: %w", err)
	}
	return m.play(c.Row, c.Col, m.Computer, now)
}

func (m *Match) setDeadline(cfg Config, now time.Time) {
	m.Deadline = time.Time{}
	if !m.Over() && m.Turn() != m.Computer && cfg.TurnTimeout > 0 {
		m.Deadline = now.Add(cfg.TurnTimeout)
	}
}

// Resign ends the match: userID's side loses.
func (m *Match) Resign(userID string, now time.Time) error {
	side, err := m.player(userID)
	if err != nil {
		return err
	}
	m.Loser = side
	m.end(game.EndResigned, now)
	return nil
}

// OfferDraw is userID offering the opponent a draw. It waits for the
// opponent's AcceptDraw or DeclineDraw, or the next move. The computer
// plays every game out.
func (m *Match) OfferDraw(userID string) error {
	side, err := m.player(userID)
	switch {
	case err != nil:
		return err
	case m.Computer != game.None:
		return ErrComputer
	case m.DrawOffer == side:
		return ErrOffered
	}
	m.DrawOffer = side
	return nil
}

// AcceptDraw is userID accepting the draw the opponent offered: the match
// ends as a draw.
func (m *Match) AcceptDraw(userID string, now time.Time) error {
	if err := m.offeredTo(userID); err != nil {
		return err
	}
	m.DrawOffer = game.None
	m.end(game.EndAgreed, now)
	return nil
}

// DeclineDraw is userID turning down the draw the opponent offered; the
// match goes on.
func (m *Match) DeclineDraw(userID string) error {
	if err := m.offeredTo(userID); err != nil {
		return err
	}
	m.DrawOffer = game.None
	return nil
}

// offeredTo checks that a draw is offered to userID.
func (m *Match) offeredTo(userID string) error {
	side, err := m.player(userID)
	switch {
	case err != nil:
		return err
	case m.DrawOffer != side.Other():
		return ErrNoOffer
	}
	return nil
}

// Stop ends the match for nobody; by is the moderator. Whether by may stop
// games is the caller's to check.
func (m *Match) Stop(by string, now time.Time) error {
	if m.Over() {
		return ErrOver
	}
	m.StoppedBy = by
	m.end(game.EndStopped, now)
	return nil
}

// Due reports whether the player to move has run out of time at now.
func (m *Match) Due(now time.Time) bool {
	return !m.Over() && !m.Deadline.IsZero() && !now.Before(m.Deadline)
}

// TimeOut ends a match that is Due: the player to move loses.
func (m *Match) TimeOut(now time.Time) error {
	if !m.Due(now) {
		if m.Over() {
			return ErrOver
		}
		return fmt.Errorf("time out at %s before the deadline %s: %w", now, m.Deadline, ErrNotOver)
	}
	m.Loser = m.Turn()
	m.end(game.EndTimeout, now)
	return nil
}

// Rematch starts a new match with id between the same players, on the same
// board, with the other side moving first. Only a player may ask, once the
// match is over.
func (m *Match) Rematch(cfg Config, id, userID string, now time.Time) (*Match, error) {
	if !m.Over() {
		return nil, ErrNotOver
	}
	if m.Side(userID) == game.None {
		return nil, ErrNotPlayer
	}
	return Start(cfg, id, Setup{
		GuildID: m.GuildID, ChannelID: m.ChannelID,
		Players: m.Players, Computer: m.Computer, Level: m.Level,
		Size: m.Judge.Size(), Win: m.Judge.WinLength(), First: m.Judge.First().Other(),
	}, now)
}

// Challenge is an invitation from one user to another to play, or to
// anyone in the channel (an open challenge), waiting for an answer until
// Expires.
type Challenge struct {
	ID        string
	From, To  string // user ids; To is empty for an open challenge
	Size, Win int
	Expires   time.Time
}

// Open reports whether anyone but the challenger may accept.
func (c *Challenge) Open() bool { return c.To == "" }

// NewChallenge opens a challenge with id from one user to another.
func NewChallenge(cfg Config, id, from, to string, size, win int, now time.Time) *Challenge {
	return &Challenge{ID: id, From: from, To: to, Size: size, Win: win, Expires: now.Add(cfg.ChallengeTimeout)}
}

// Expired reports whether the challenge can no longer be accepted at now.
func (c *Challenge) Expired(now time.Time) bool { return !now.Before(c.Expires) }

// Accept starts the match with id when the challenged user (anyone, for an
// open challenge) accepts; the challenger plays X and moves first.
func (c *Challenge) Accept(cfg Config, id, userID, guildID, channelID string, now time.Time) (*Match, error) {
	switch {
	case c.Expired(now):
		return nil, ErrExpired
	case userID == c.From:
		return nil, ErrOwnChallenge
	case userID != c.To && !c.Open():
		return nil, ErrNotChallenge
	}
	return Start(cfg, id, Setup{
		GuildID: guildID, ChannelID: channelID,
		Players: [3]string{game.X: c.From, game.O: userID}, Computer: game.None, Level: game.Hard,
		Size: c.Size, Win: c.Win, First: game.X,
	}, now)
}

// Decline is the challenged user turning the challenge down, or the
// challenger withdrawing it (withdrawn is then true). Nobody declines an
// open challenge for the others: only its challenger withdraws it.
func (c *Challenge) Decline(userID string) (withdrawn bool, err error) {
	switch {
	case userID == c.From:
		return true, nil
	case userID == c.To && !c.Open():
		return false, nil
	}
	return false, ErrNotChallenge
}
