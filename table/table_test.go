package table

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/tttbot/tttbot/game"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func cfg() Config {
	return Config{TurnTimeout: 5 * time.Minute, ChallengeTimeout: time.Minute, Seed: 1}
}

func twoPlayers(t *testing.T) *Match {
	t.Helper()
	m, err := Start(cfg(), "g1", Setup{ChannelID: "c", Players: [3]string{game.X: "alice", game.O: "bob"}, Size: 3, Win: 3, First: game.X}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A challenge is accepted by the challenged player only, then the game
// runs to a win with deadlines that follow the clock given.
func TestChallengeToWin(t *testing.T) {
	c := NewChallenge(cfg(), "ch", "alice", "bob", 3, 3, t0)
	if _, err := c.Accept(cfg(), "g1", "alice", "", "c", t0); !errors.Is(err, ErrOwnChallenge) {
		t.Errorf("Accept by the challenger = %v; want ErrOwnChallenge", err)
	}
	if _, err := c.Accept(cfg(), "g1", "carol", "", "c", t0); !errors.Is(err, ErrNotChallenge) {
		t.Errorf("Accept by a stranger = %v; want ErrNotChallenge", err)
	}
	if _, err := c.Accept(cfg(), "g1", "bob", "", "c", t0.Add(time.Minute)); !errors.Is(err, ErrExpired) {
		t.Errorf("Accept at the expiry = %v; want ErrExpired", err)
	}
	m, err := c.Accept(cfg(), "g1", "bob", "", "c", t0.Add(59*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Minute)
	for i, mv := range []struct {
		who      string
		row, col int
	}{{"alice", 1, 1}, {"bob", 2, 1}, {"alice", 1, 2}, {"bob", 2, 2}, {"alice", 1, 3}} {
		now = now.Add(time.Duration(i+1) * time.Second)
		if err := m.Play(cfg(), mv.who, mv.row, mv.col, now); err != nil {
			t.Fatalf("move %d: Play(%s, %d, %d) = %v; want nil", i, mv.who, mv.row, mv.col, err)
		}
		if want := now.Add(5 * time.Minute); !m.Over() && !m.Deadline.Equal(want) {
			t.Errorf("move %d: deadline %v; want %v", i, m.Deadline, want)
		}
	}
	if m.End != game.EndWon || m.Winner() != game.X || !m.EndedAt.Equal(now) || !m.Deadline.IsZero() {
		t.Errorf("after the top row: End %s, winner %v, ended %v, deadline %v; want won by X at %v, no deadline", m.End, m.Winner(), m.EndedAt, m.Deadline, now)
	}
	if len(m.Times) != 5 || !m.Times[4].Equal(now) {
		t.Errorf("move times %v; want 5 ending at %v", m.Times, now)
	}
}

// Every refusal leaves the match exactly as it was.
func TestRefusalsChangeNothing(t *testing.T) {
	m := twoPlayers(t)
	if err := m.Play(cfg(), "alice", 2, 2, t0); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		who      string
		row, col int
		want     error
	}{
		{"stranger", "carol", 1, 1, ErrNotPlayer},
		{"out of turn", "alice", 1, 1, ErrNotYourTurn},
		{"outside", "bob", 4, 1, ErrOutside},
		{"row zero", "bob", 0, 1, ErrOutside},
		{"taken", "bob", 2, 2, ErrOccupied},
	} {
		before := m.Clone()
		err := m.Play(cfg(), tt.who, tt.row, tt.col, t0.Add(time.Second))
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: Play = %v; want %v", tt.name, err, tt.want)
		}
		if !reflect.DeepEqual(m, before) {
			t.Errorf("%s: the refused move changed the match", tt.name)
		}
	}
	if err := m.Resign("carol", t0); !errors.Is(err, ErrNotPlayer) || m.Over() {
		t.Errorf("Resign by a stranger = %v, over %v; want ErrNotPlayer, still running", err, m.Over())
	}
	if err := m.TimeOut(t0); !errors.Is(err, ErrNotOver) || m.Over() {
		t.Errorf("TimeOut before the deadline = %v, over %v; want ErrNotOver, still running", err, m.Over())
	}
}

// The player to move loses exactly at the deadline, not a nanosecond
// before.
func TestTimeout(t *testing.T) {
	m := twoPlayers(t)
	if err := m.Play(cfg(), "alice", 1, 1, t0); err != nil {
		t.Fatal(err)
	}
	deadline := t0.Add(5 * time.Minute)
	if m.Due(deadline.Add(-time.Nanosecond)) {
		t.Error("due before the deadline")
	}
	if !m.Due(deadline) {
		t.Fatal("not due at the deadline")
	}
	if err := m.TimeOut(deadline); err != nil {
		t.Fatal(err)
	}
	if m.End != game.EndTimeout || m.Loser != game.O || m.Winner() != game.X {
		t.Errorf("after the timeout: End %s, loser %v, winner %v; want timeout lost by O", m.End, m.Loser, m.Winner())
	}
	if err := m.Play(cfg(), "bob", 2, 2, deadline); !errors.Is(err, ErrOver) {
		t.Errorf("Play after the timeout = %v; want ErrOver", err)
	}
}

func TestResignStopRematch(t *testing.T) {
	m := twoPlayers(t)
	if _, err := m.Rematch(cfg(), "g2", "alice", t0); !errors.Is(err, ErrNotOver) {
		t.Errorf("Rematch of a running game = %v; want ErrNotOver", err)
	}
	if err := m.Resign("bob", t0); err != nil {
		t.Fatal(err)
	}
	if m.Winner() != game.X || m.End != game.EndResigned {
		t.Errorf("bob resigned: winner %v, End %s; want X, resigned", m.Winner(), m.End)
	}
	if err := m.Stop("mod", t0); !errors.Is(err, ErrOver) {
		t.Errorf("Stop after the end = %v; want ErrOver", err)
	}
	if _, err := m.Rematch(cfg(), "g2", "carol", t0); !errors.Is(err, ErrNotPlayer) {
		t.Errorf("Rematch by a stranger = %v; want ErrNotPlayer", err)
	}
	r, err := m.Rematch(cfg(), "g2", "bob", t0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Turn() != game.O || r.Players != m.Players || r.ID != "g2" || r.Over() {
		t.Errorf("rematch: turn %v, players %v; want O (the other side) first, same players", r.Turn(), r.Players)
	}
	s := twoPlayers(t)
	if err := s.Stop("mod", t0); err != nil || s.End != game.EndStopped || s.Winner() != game.None {
		t.Errorf("Stop = %v, End %s, winner %v; want stopped, nobody wins", err, s.End, s.Winner())
	}
}

// Against the computer, the computer answers at once and only the person
// is timed; the same seed and id give the same game.
func TestComputer(t *testing.T) {
	setup := Setup{ChannelID: "c", Players: [3]string{game.X: "bot", game.O: "alice"}, Computer: game.X, Level: game.Hard, Size: 3, Win: 3, First: game.X}
	m, err := Start(cfg(), "g1", setup, t0)
	if err != nil {
		t.Fatal(err)
	}
	if m.Judge.Len() != 1 || m.Turn() != game.O {
		t.Fatalf("the computer moves first: %d moves, turn %v", m.Judge.Len(), m.Turn())
	}
	if m.Side("bot") != game.None || m.Side("alice") != game.O {
		t.Error("the bot's id moves for the computer, or alice does not play O")
	}
	if !m.Deadline.Equal(t0.Add(5 * time.Minute)) {
		t.Errorf("deadline %v; want alice timed from %v", m.Deadline, t0)
	}
	m2, _ := Start(cfg(), "g1", setup, t0)
	if !reflect.DeepEqual(m.Judge.History(), m2.Judge.History()) {
		t.Error("same seed and id, different computer moves")
	}
}

// Anyone but its challenger takes an open challenge, and plays O; nobody
// declines it for the others.
func TestOpenChallenge(t *testing.T) {
	c := NewChallenge(cfg(), "ch", "alice", "", 3, 3, t0)
	if !c.Open() {
		t.Fatal("a challenge to nobody is not open")
	}
	if _, err := c.Accept(cfg(), "g1", "alice", "", "c", t0); !errors.Is(err, ErrOwnChallenge) {
		t.Errorf("Accept by the challenger = %v; want ErrOwnChallenge", err)
	}
	if _, err := c.Decline("carol"); !errors.Is(err, ErrNotChallenge) {
		t.Errorf("Decline by a passer-by = %v; want ErrNotChallenge", err)
	}
	if withdrawn, err := c.Decline("alice"); !withdrawn || err != nil {
		t.Errorf("Decline by the challenger = %v, %v; want withdrawn", withdrawn, err)
	}
	m, err := c.Accept(cfg(), "g1", "carol", "", "c", t0)
	if err != nil {
		t.Fatalf("Accept by carol = %v", err)
	}
	if m.Players[game.X] != "alice" || m.Players[game.O] != "carol" || m.Computer != game.None {
		t.Errorf("players %v, computer %v; want alice X, carol O, no computer", m.Players, m.Computer)
	}
	if NewChallenge(cfg(), "ch2", "alice", "bob", 3, 3, t0).Open() {
		t.Error("a challenge to bob is open")
	}
}

// A draw offer waits for the opponent: accepted, the game ends as a draw;
// declined or answered by a move, the game goes on. Refusals change
// nothing.
func TestDrawOffer(t *testing.T) {
	m := twoPlayers(t)
	before := m.Clone()
	for _, tt := range []struct {
		name string
		err  error
		do   func(*Match) error
	}{
		{"accept with no offer", ErrNoOffer, func(m *Match) error { return m.AcceptDraw("bob", t0) }},
		{"decline with no offer", ErrNoOffer, func(m *Match) error { return m.DeclineDraw("bob") }},
		{"offer by a stranger", ErrNotPlayer, func(m *Match) error { return m.OfferDraw("carol") }},
	} {
		if err := tt.do(m); !errors.Is(err, tt.err) {
			t.Errorf("%s = %v; want %v", tt.name, err, tt.err)
		}
	}
	if !reflect.DeepEqual(m, before) {
		t.Fatal("a refused draw call changed the match")
	}
	if err := m.OfferDraw("alice"); err != nil || m.DrawOffer != game.X {
		t.Fatalf("OfferDraw(alice) = %v, offer %v; want nil, X", err, m.DrawOffer)
	}
	if err := m.OfferDraw("alice"); !errors.Is(err, ErrOffered) {
		t.Errorf("a second offer by alice = %v; want ErrOffered", err)
	}
	if err := m.AcceptDraw("alice", t0); !errors.Is(err, ErrNoOffer) {
		t.Errorf("alice accepting her own offer = %v; want ErrNoOffer", err)
	}
	if err := m.DeclineDraw("bob"); err != nil || m.DrawOffer != game.None || m.Over() {
		t.Fatalf("DeclineDraw(bob) = %v, offer %v, over %v; want the game on, no offer", err, m.DrawOffer, m.Over())
	}
	// A move answers an offer too.
	_ = m.OfferDraw("bob")
	if err := m.Play(cfg(), "alice", 1, 1, t0); err != nil || m.DrawOffer != game.None {
		t.Fatalf("a move after bob's offer: %v, offer %v; want the offer gone", err, m.DrawOffer)
	}
	_ = m.OfferDraw("bob")
	at := t0.Add(time.Minute)
	if err := m.AcceptDraw("alice", at); err != nil {
		t.Fatalf("AcceptDraw(alice) = %v", err)
	}
	if m.End != game.EndAgreed || !m.End.Drawn() || m.Winner() != game.None || !m.EndedAt.Equal(at) || !m.Deadline.IsZero() || m.DrawOffer != game.None {
		t.Errorf("after the accepted draw: end %s, winner %v, ended %v, deadline %v, offer %v; want agreed, no winner, no deadline", m.End, m.Winner(), m.EndedAt, m.Deadline, m.DrawOffer)
	}
	if err := m.OfferDraw("bob"); !errors.Is(err, ErrOver) {
		t.Errorf("an offer after the end = %v; want ErrOver", err)
	}

	vsComputer, err := Start(cfg(), "g2", Setup{ChannelID: "c", Players: [3]string{game.X: "alice", game.O: "bot"}, Computer: game.O, Level: game.Easy, Size: 3, Win: 3, First: game.X}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := vsComputer.OfferDraw("alice"); !errors.Is(err, ErrComputer) {
		t.Errorf("a draw offered to the computer = %v; want ErrComputer", err)
	}
}
