package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tttbot/tttbot/game"
	"github.com/tttbot/tttbot/rating"
)

// storeUnderTest is what the bot needs of a store; every store passes the
// same contract suite.
type storeUnderTest interface {
	Current(ctx context.Context, channelID string) (*Game, error)
	Game(ctx context.Context, id string) (*Game, error)
	Save(ctx context.Context, g *Game) error
	Running(ctx context.Context) ([]*Game, error)
	Stats(ctx context.Context, guildID, userID string, minRated int) (Stats, error)
	Leaderboard(ctx context.Context, guildID string, minRated, limit int) ([]Stats, error)
	ComputerLeaderboard(ctx context.Context, guildID string, limit int) ([]Stats, error)
	History(ctx context.Context, guildID, userID string, limit int) ([]*Game, error)
	CountRunning(ctx context.Context) (int, error)
	Due(ctx context.Context, before time.Time) ([]string, error)
	DueReminders(ctx context.Context, before time.Time) ([]string, error)
	Ping(ctx context.Context) error
	Challenge(ctx context.Context, channelID string) (*Challenge, error)
	OpenChallenge(ctx context.Context, c *Challenge) error
	OpenChallengeAtMost(ctx context.Context, c *Challenge, most int, now time.Time) error
	CloseChallenge(ctx context.Context, id string) (bool, error)
	Challenges(ctx context.Context) ([]*Challenge, error)
	ChallengesFrom(ctx context.Context, user string) ([]*Challenge, error)
	Settings(ctx context.Context, guildID string) (Settings, error)
	SaveSettings(ctx context.Context, s Settings) error
	CommandGuilds(ctx context.Context) ([]string, error)
	SetCommandGuild(ctx context.Context, guildID string, registered bool) error
	CountGames(ctx context.Context) (int, error)
	Watch(ctx context.Context, channelID string, fn func(Change)) (stop func(), err error)
	WebKey(ctx context.Context) ([]byte, error)
	Close() error
}

var (
	_ storeUnderTest = (*Memory)(nil)
	_ storeUnderTest = (*SQLite)(nil)
	_ storeUnderTest = (*Postgres)(nil)
)

// t0 has nanoseconds and a zone, which the stores drop.
var t0 = time.Date(2026, 1, 2, 15, 4, 5, 123456789, time.FixedZone("CET", 3600))

// newGame is a running game between x and o, with no moves.
func newGame(id, guild, channel, x, o string) *Game {
	return &Game{
		ID: id, GuildID: guild, ChannelID: channel,
		Players: [3]string{game.X: x, game.O: o},
		Size:    3, Win: 3, First: game.X,
		StartedAt: t0,
	}
}

// play appends moves (row, col pairs), the sides alternating from First.
func play(g *Game, cells ...[2]int) *Game {
	p := g.First
	if n := len(g.Moves); n > 0 {
		p = g.Moves[n-1].Player.Other()
	}
	for _, c := range cells {
		at := t0.Add(time.Duration(len(g.Moves)) * time.Second)
		g.Moves = append(g.Moves, Move{Move: game.Move{Row: c[0], Col: c[1], Player: p}, At: at})
		p = p.Other()
	}
	return g
}

// xWins is a 3×3 game that X wins on the top row.
var xWins = [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}}

// end ends g with e at t0 + minutes.
func end(g *Game, e game.Ending, loser game.Player, minutes int) *Game {
	g.End, g.Loser, g.EndedAt = e, loser, t0.Add(time.Duration(minutes)*time.Minute)
	return g
}

func mustSave(t testing.TB, s storeUnderTest, g *Game) {
	t.Helper()
	if err := s.Save(context.Background(), g); err != nil {
		t.Fatalf("Save(%s at version %d) = %v; want nil", g.ID, g.Version, err)
	}
}

func mustGame(t *testing.T, s storeUnderTest, id string) *Game {
	t.Helper()
	g, err := s.Game(context.Background(), id)
	if err != nil || g == nil {
		t.Fatalf("Game(%s) = %v, %v; want a game", id, g, err)
	}
	return g
}

func mustStats(t *testing.T, s storeUnderTest, guild, user string, minRated int) Stats {
	t.Helper()
	st, err := s.Stats(context.Background(), guild, user, minRated)
	if err != nil {
		t.Fatalf("Stats(%q, %s, %d) = %v", guild, user, minRated, err)
	}
	return st
}

// stored is g as a store gives it back at version v.
func stored(g *Game, v int64) *Game {
	n := normalize(g)
	n.Version = v
	return n
}

func sameGame(t *testing.T, what string, got, want *Game) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s =\n%+v\nwant\n%+v", what, got, want)
	}
}

// runContract runs the contract every store passes. open returns a new,
// empty store, closed when the test ends.
func runContract(t *testing.T, open func(t *testing.T) storeUnderTest) {
	tests := []struct {
		name string
		run  func(t *testing.T, s storeUnderTest)
	}{
		{"RoundTrip", testRoundTrip},
		{"Missing", testMissing},
		{"Replace", testReplace},
		{"VersionConflict", testVersionConflict},
		{"ConcurrentSaves", testConcurrentSaves},
		{"BusyChannel", testBusyChannel},
		{"ConcurrentNewGames", testConcurrentNewGames},
		{"EndedIsFinal", testEndedIsFinal},
		{"Invalid", testInvalid},
		{"StatsOnce", testStatsOnce},
		{"ConcurrentEnds", testConcurrentEnds},
		{"PeopleStats", testPeopleStats},
		{"ComputerStats", testComputerStats},
		{"ComputerLeaderboard", testComputerLeaderboard},
		{"Stopped", testStopped},
		{"Streaks", testStreaks},
		{"Rank", testRank},
		{"History", testHistory},
		{"NoGames", testNoGames},
		{"Running", testRunning},
		{"Challenges", testChallenges},
		{"ChallengeLimit", testChallengeLimit},
		{"Settings", testSettings},
		{"CommandGuilds", testCommandGuilds},
		{"Tokens", testTokens},
		{"TokenBacklog", testTokenBacklog},
		{"TokenBacklogOverSweeps", testTokenBacklogOverSweeps},
		{"DueReminders", testDueReminders},
		{"Feed", testFeed},
		{"WebKey", testWebKey},
		{"BoardLive", testBoardLive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, open(t))
		})
	}
}

func testRoundTrip(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	g := play(newGame("g1", "guild", "chan", "alice", "bob"), [2]int{1, 1}, [2]int{0, 2})
	g.Computer, g.Level = game.O, game.Hard
	g.Size, g.Win, g.First = 4, 3, game.O
	g.Moves[0].Player, g.Moves[1].Player = game.O, game.X
	g.Deadline = t0.Add(time.Hour)
	g.Serial = 7
	g.Board = Board{AppID: "app", Token: "secret-token", At: t0.Add(time.Minute), ChannelID: "chan", MessageID: "m1"}
	g.Ping = "p1"
	g.Reminded = 2
	g.RemindAt = t0.Add(30 * time.Minute)
	g.Locale = "pt-BR"
	g.DrawOffer = game.X
	in := g.Clone()
	mustSave(t, s, g)
	if g.Version != 1 {
		t.Errorf("after Save(new) Version = %d; want 1", g.Version)
	}
	in.Version = 1
	if !reflect.DeepEqual(g, in) {
		t.Errorf("Save changed the caller's game beyond Version:\n%+v\nwant\n%+v", g, in)
	}
	want := stored(in, 1)
	if want.StartedAt.Nanosecond() != 123456000 || want.StartedAt.Location() != time.UTC {
		t.Fatalf("normalize: StartedAt = %v; want UTC to the microsecond", want.StartedAt)
	}
	got := mustGame(t, s, "g1")
	sameGame(t, "Game(g1)", got, want)
	cur, err := s.Current(ctx, "chan")
	if err != nil {
		t.Fatal(err)
	}
	sameGame(t, "Current(chan)", cur, want)

	// What a store returns is the caller's to change.
	got.Moves[0].Row = 3
	got.Players[game.X] = "mallory"
	sameGame(t, "Game(g1) after the caller changed an earlier copy", mustGame(t, s, "g1"), want)
	g.Moves[1].Col = 3
	sameGame(t, "Game(g1) after the caller changed the saved game", mustGame(t, s, "g1"), want)

	// A change of the board message alone (as when the bot learns its id)
	// and a deadline a day away, as in a correspondence game.
	next := mustGame(t, s, "g1")
	next.Board.MessageID, next.Board.ChannelID = "m2", "thread"
	next.Deadline = t0.Add(24 * time.Hour)
	next.RemindAt = t0.Add(12 * time.Hour)
	mustSave(t, s, next)
	sameGame(t, "Game(g1) after a new board message", mustGame(t, s, "g1"), stored(next, 2))

	// A ping kept, then one deleted, alone: the row's other columns stay.
	for i, ping := range []string{"p2", ""} {
		next = mustGame(t, s, "g1")
		next.Ping = ping
		mustSave(t, s, next)
		sameGame(t, "Game(g1) after ping "+strconv.Quote(ping), mustGame(t, s, "g1"), stored(next, int64(3+i)))
	}
	// A reminder claimed with its ping, as one save, alone.
	next = mustGame(t, s, "g1")
	if due, err := s.DueReminders(ctx, t0.Add(12*time.Hour)); err != nil || !reflect.DeepEqual(due, []string{"chan"}) {
		t.Errorf("DueReminders(at the reminder) = %v, %v; want [chan]", due, err)
	}
	next.Reminded, next.Ping, next.RemindAt = 3, "r1", time.Time{}
	mustSave(t, s, next)
	sameGame(t, "Game(g1) after a reminder", mustGame(t, s, "g1"), stored(next, 5))
	if due, err := s.DueReminders(ctx, t0.Add(24*time.Hour)); err != nil || len(due) != 0 {
		t.Errorf("DueReminders(after the reminder was claimed) = %v, %v; want none", due, err)
	}
	if due, err := s.Due(ctx, t0.Add(24*time.Hour-time.Microsecond)); err != nil || len(due) != 0 {
		t.Errorf("Due(just before a deadline a day away) = %v, %v; want none", due, err)
	}
	if due, err := s.Due(ctx, t0.Add(24*time.Hour)); err != nil || !reflect.DeepEqual(due, []string{"chan"}) {
		t.Errorf("Due(at a deadline a day away) = %v, %v; want [chan]", due, err)
	}
}

func testMissing(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	if g, err := s.Game(ctx, "none"); g != nil || err != nil {
		t.Errorf("Game(none) = %v, %v; want nil, nil", g, err)
	}
	if g, err := s.Current(ctx, "none"); g != nil || err != nil {
		t.Errorf("Current(none) = %v, %v; want nil, nil", g, err)
	}
	if gs, err := s.Running(ctx); len(gs) != 0 || err != nil {
		t.Errorf("Running() on an empty store = %v, %v; want none", gs, err)
	}
	if gs, err := s.History(ctx, "guild", "alice", 10); len(gs) != 0 || err != nil {
		t.Errorf("History on an empty store = %v, %v; want none", gs, err)
	}
	if ls, err := s.Leaderboard(ctx, "guild", 0, 10); len(ls) != 0 || err != nil {
		t.Errorf("Leaderboard on an empty store = %v, %v; want none", ls, err)
	}
}

func testReplace(t *testing.T, s storeUnderTest) {
	g := newGame("g1", "guild", "chan", "alice", "bob")
	mustSave(t, s, g)
	for i, c := range xWins[:4] {
		play(g, c)
		g.Serial = i
		g.Deadline = t0.Add(time.Duration(i) * time.Minute)
		mustSave(t, s, g)
		if want := int64(i + 2); g.Version != want {
			t.Fatalf("after %d moves Version = %d; want %d", i+1, g.Version, want)
		}
		sameGame(t, fmt.Sprintf("after %d moves, Game(g1)", i+1), mustGame(t, s, "g1"), stored(g, g.Version))
	}
	// A shorter list: the moves after it go.
	g.Moves = g.Moves[:2]
	mustSave(t, s, g)
	sameGame(t, "after taking back two moves, Game(g1)", mustGame(t, s, "g1"), stored(g, g.Version))
	// A different move in the middle, and more after it.
	g.Moves = slicesClone(g.Moves[:1])
	play(g, [2]int{2, 2}, [2]int{1, 2})
	mustSave(t, s, g)
	sameGame(t, "after changing a move, Game(g1)", mustGame(t, s, "g1"), stored(g, g.Version))
	// No moves at all.
	g.Moves = nil
	mustSave(t, s, g)
	sameGame(t, "after taking back every move, Game(g1)", mustGame(t, s, "g1"), stored(g, g.Version))
}

func slicesClone(m []Move) []Move { return append([]Move(nil), m...) }

func testVersionConflict(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	mustSave(t, s, newGame("g1", "guild", "chan", "alice", "bob"))
	a, b := mustGame(t, s, "g1"), mustGame(t, s, "g1")
	mustSave(t, s, play(a, [2]int{0, 0}))
	play(b, [2]int{2, 2})
	if err := s.Save(ctx, b); !errors.Is(err, ErrConflict) {
		t.Fatalf("second Save from version 1 = %v; want ErrConflict", err)
	}
	if b.Version != 1 {
		t.Errorf("after ErrConflict Version = %d; want 1, unchanged", b.Version)
	}
	sameGame(t, "Game(g1) after the conflict", mustGame(t, s, "g1"), stored(a, 2))

	for _, v := range []int64{1, 3, 99} {
		c := mustGame(t, s, "g1")
		c.Version = v
		c.Serial = 42
		if err := s.Save(ctx, c); !errors.Is(err, ErrConflict) {
			t.Errorf("Save at version %d (stored: 2) = %v; want ErrConflict", v, err)
		}
	}
	ghost := newGame("ghost", "guild", "elsewhere", "alice", "bob")
	ghost.Version = 1
	if err := s.Save(ctx, ghost); !errors.Is(err, ErrConflict) {
		t.Errorf("Save(a game never stored, at version 1) = %v; want ErrConflict", err)
	}
	if g, err := s.Game(ctx, "ghost"); g != nil || err != nil {
		t.Errorf("Game(ghost) after the failed save = %v, %v; want nil, nil", g, err)
	}
	sameGame(t, "Game(g1) after the failed saves", mustGame(t, s, "g1"), stored(a, 2))
}

// Many goroutines save from the same version: exactly one wins each round.
func testConcurrentSaves(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	const writers, rounds = 8, 5
	g := newGame("g1", "guild", "chan", "alice", "bob")
	g.Size = writers
	mustSave(t, s, g)
	for round := range rounds {
		base := mustGame(t, s, "g1")
		var (
			wg     sync.WaitGroup
			start  = make(chan struct{})
			errs   = make([]error, writers)
			copies = make([]*Game, writers)
		)
		for w := range writers {
			copies[w] = play(base.Clone(), [2]int{round, w})
			wg.Go(func() {
				<-start
				errs[w] = s.Save(ctx, copies[w])
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for w, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("round %d: saves %d and %d from version %d both succeeded", round, winner, w, base.Version)
			case err == nil:
				winner = w
			case !errors.Is(err, ErrConflict):
				t.Fatalf("round %d: save %d = %v; want nil or ErrConflict", round, w, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no save from version %d succeeded", round, base.Version)
		}
		sameGame(t, fmt.Sprintf("round %d: Game(g1)", round), mustGame(t, s, "g1"), stored(copies[winner], base.Version+1))
	}
}

func testBusyChannel(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	a := newGame("a", "guild", "chan", "alice", "bob")
	mustSave(t, s, a)
	b := newGame("b", "guild", "chan", "carol", "dave")
	if err := s.Save(ctx, b); !errors.Is(err, ErrConflict) {
		t.Fatalf("Save(new game in a channel with a running game) = %v; want ErrConflict", err)
	}
	if b.Version != 0 {
		t.Errorf("after ErrConflict Version = %d; want 0", b.Version)
	}
	if g, err := s.Game(ctx, "b"); g != nil || err != nil {
		t.Errorf("Game(b) after the conflict = %v, %v; want nil, nil", g, err)
	}
	dup := newGame("a", "guild", "other", "carol", "dave")
	if err := s.Save(ctx, dup); !errors.Is(err, ErrConflict) {
		t.Fatalf("Save(new game with a taken id) = %v; want ErrConflict", err)
	}
	if cur, _ := s.Current(ctx, "other"); cur != nil {
		t.Errorf("Current(other) after the conflict = %+v; want nil", cur)
	}
	sameGame(t, "Current(chan)", mustCurrent(t, s, "chan"), stored(a, 1))

	// Once a has ended, the channel takes a new game.
	mustSave(t, s, end(play(a, xWins...), game.EndWon, game.None, 1))
	mustSave(t, s, b)
	sameGame(t, "Current(chan) after the rematch", mustCurrent(t, s, "chan"), stored(b, 1))
	sameGame(t, "Game(a) after the rematch", mustGame(t, s, "a"), stored(a, 2))
	// A game saved already ended is the channel's current game too.
	c := end(newGame("c", "guild", "chan2", "carol", "dave"), game.EndStopped, game.None, 1)
	mustSave(t, s, c)
	sameGame(t, "Current(chan2)", mustCurrent(t, s, "chan2"), stored(c, 1))
}

// Many new games for one free channel at once: exactly one takes it.
func testConcurrentNewGames(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	const tries = 8
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		errs  = make([]error, tries)
	)
	for i := range tries {
		g := newGame(fmt.Sprintf("g%d", i), "guild", "chan", "alice", "bob")
		wg.Go(func() {
			<-start
			errs[i] = s.Save(ctx, g)
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("new games %d and %d both took the channel", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, ErrConflict):
			t.Fatalf("Save(new game %d) = %v; want nil or ErrConflict", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no new game took the free channel")
	}
	if cur := mustCurrent(t, s, "chan"); cur.ID != fmt.Sprintf("g%d", winner) {
		t.Errorf("Current(chan) = %s; want g%d, the one saved", cur.ID, winner)
	}
	if gs, _ := s.Running(ctx); len(gs) != 1 {
		t.Errorf("Running() = %d games; want 1", len(gs))
	}
}

func mustCurrent(t *testing.T, s storeUnderTest, channel string) *Game {
	t.Helper()
	g, err := s.Current(context.Background(), channel)
	if err != nil || g == nil {
		t.Fatalf("Current(%s) = %v, %v; want a game", channel, g, err)
	}
	return g
}

func testEndedIsFinal(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	g := newGame("g1", "guild", "chan", "alice", "bob")
	mustSave(t, s, g)
	mustSave(t, s, end(play(g, xWins[:2]...), game.EndResigned, game.O, 1))

	// What the table may still change after the end: the board message.
	g.Serial, g.Deadline, g.Board = 9, time.Time{}, Board{AppID: "app", Token: "t2", At: t0}
	mustSave(t, s, g)
	// Saving the same ending again changes nothing, and counts nothing.
	mustSave(t, s, g)
	want := stored(g, g.Version)

	for name, change := range map[string]func(*Game){
		"ending": func(g *Game) { g.End = game.EndTimeout },
		"loser":  func(g *Game) { g.Loser = game.X },
		"moves":  func(g *Game) { play(g, [2]int{2, 2}) },
		"fewer":  func(g *Game) { g.Moves = g.Moves[:1] },
		"rerun":  func(g *Game) { g.End, g.Loser = game.EndNone, game.None },
	} {
		c := mustGame(t, s, "g1")
		change(c)
		if err := s.Save(ctx, c); !errors.Is(err, ErrConflict) {
			t.Errorf("Save(ended game with another %s) = %v; want ErrConflict", name, err)
		}
	}
	sameGame(t, "Game(g1) after the refused saves", mustGame(t, s, "g1"), want)
	if st := mustStats(t, s, "guild", "alice", 0); st.People != (Record{Games: 1, Wins: 1}) {
		t.Errorf("alice's People = %+v; want one win", st.People)
	}
}

func testInvalid(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	for name, g := range map[string]*Game{
		"nil":        nil,
		"no id":      newGame("", "guild", "chan", "alice", "bob"),
		"no channel": newGame("g", "guild", "", "alice", "bob"),
		"bad ending": end(newGame("g", "guild", "chan", "alice", "bob"), game.EndAgreed+1, game.None, 1),
		"no loser":   end(newGame("g", "guild", "chan", "alice", "bob"), game.EndResigned, game.None, 1),
		"no winner":  end(newGame("g", "guild", "chan", "alice", "bob"), game.EndWon, game.None, 1),
	} {
		if err := s.Save(ctx, g); err == nil || errors.Is(err, ErrConflict) {
			t.Errorf("Save(%s) = %v; want an error other than ErrConflict", name, err)
		}
	}
	if gs, _ := s.Running(ctx); len(gs) != 0 {
		t.Errorf("Running() after invalid saves = %d games; want none", len(gs))
	}
}

// Two processes try to save the same ending: one wins, the game counts
// once.
func testStatsOnce(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	g := newGame("g1", "guild", "chan", "alice", "bob")
	mustSave(t, s, g)
	mustSave(t, s, play(g, xWins[:4]...))
	final := end(play(g.Clone(), xWins[4]), game.EndWon, game.None, 1)
	const tries = 4
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		errs  = make([]error, tries)
	)
	for i := range tries {
		c := final.Clone()
		wg.Go(func() {
			<-start
			errs[i] = s.Save(ctx, c)
		})
	}
	close(start)
	wg.Wait()
	ok := 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, ErrConflict):
			t.Errorf("ending save %d = %v; want nil or ErrConflict", i, err)
		}
	}
	if ok != 1 {
		t.Errorf("%d ending saves succeeded; want exactly 1", ok)
	}
	// A later save of the ended game counts nothing either.
	later := mustGame(t, s, "g1")
	later.Serial++
	mustSave(t, s, later)

	alice, bob := mustStats(t, s, "guild", "alice", 0), mustStats(t, s, "guild", "bob", 0)
	if alice.People != (Record{Games: 1, Wins: 1}) || alice.Rated != 1 {
		t.Errorf("alice: People %+v, Rated %d; want one win, 1 rated", alice.People, alice.Rated)
	}
	if bob.People != (Record{Games: 1, Losses: 1}) || bob.Rated != 1 {
		t.Errorf("bob: People %+v, Rated %d; want one loss, 1 rated", bob.People, bob.Rated)
	}
}

// Games of one player that end at once all count: no update is lost.
func testConcurrentEnds(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	const games = 8
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		errs  = make([]error, games)
	)
	for i := range games {
		// alice plays X in even games, O in odd ones; she wins them all.
		x, o, loser := "alice", fmt.Sprintf("opp%d", i), game.O
		if i%2 == 1 {
			x, o, loser = o, x, game.X
		}
		g := newGame(fmt.Sprintf("g%d", i), "guild", fmt.Sprintf("chan%d", i), x, o)
		mustSave(t, s, g)
		end(g, game.EndResigned, loser, i)
		wg.Go(func() {
			<-start
			errs[i] = s.Save(ctx, g)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("ending game %d = %v; want nil", i, err)
		}
	}
	alice := mustStats(t, s, "guild", "alice", 1)
	if alice.People != (Record{Games: games, Wins: games}) || alice.Rated != games || alice.Streak != games {
		t.Errorf("alice after %d wins at once: People %+v, Rated %d, Streak %d; want all %d counted", games, alice.People, alice.Rated, alice.Streak, games)
	}
}

func testPeopleStats(t *testing.T, s storeUnderTest) {
	g := newGame("g1", "guild", "chan", "alice", "bob")
	mustSave(t, s, g)
	mustSave(t, s, end(play(g, xWins...), game.EndWon, game.None, 1))
	wantA := rating.Update(rating.Default, []rating.Result{{Opponent: rating.Default, Score: 1}})
	wantB := rating.Update(rating.Default, []rating.Result{{Opponent: rating.Default, Score: 0}})
	alice, bob := mustStats(t, s, "guild", "alice", 0), mustStats(t, s, "guild", "bob", 0)
	want := Stats{GuildID: "guild", UserID: "alice", People: Record{Games: 1, Wins: 1}, Streak: 1, BestStreak: 1, Rating: wantA, Rated: 1, Rank: 1}
	if alice != want {
		t.Errorf("Stats(alice) = %+v; want %+v", alice, want)
	}
	want = Stats{GuildID: "guild", UserID: "bob", People: Record{Games: 1, Losses: 1}, Rating: wantB, Rated: 1, Rank: 2}
	if bob != want {
		t.Errorf("Stats(bob) = %+v; want %+v", bob, want)
	}
	// Stats are per guild.
	if other := mustStats(t, s, "other", "alice", 0); other != newStats("other", "alice") {
		t.Errorf("Stats(other guild, alice) = %+v; want a newcomer", other)
	}

	// The next game rates each against the other's rating before it: a
	// resignation by X makes O the winner.
	g2 := newGame("g2", "guild", "chan", "alice", "bob")
	mustSave(t, s, g2)
	mustSave(t, s, end(play(g2, xWins[:2]...), game.EndResigned, game.X, 2))
	alice2, bob2 := mustStats(t, s, "guild", "alice", 0), mustStats(t, s, "guild", "bob", 0)
	if want := rating.Update(wantA, []rating.Result{{Opponent: wantB, Score: 0}}); alice2.Rating != want {
		t.Errorf("alice's rating after losing = %+v; want %+v", alice2.Rating, want)
	}
	if want := rating.Update(wantB, []rating.Result{{Opponent: wantA, Score: 1}}); bob2.Rating != want {
		t.Errorf("bob's rating after winning = %+v; want %+v", bob2.Rating, want)
	}
	// A draw, by a full board, a decided one or an agreed one, and a
	// timeout.
	for i, e := range []game.Ending{game.EndDraw, game.EndDecided, game.EndAgreed, game.EndTimeout} {
		g := newGame(fmt.Sprintf("g%d", i+3), "guild", "chan", "alice", "bob")
		mustSave(t, s, g)
		mustSave(t, s, end(play(g, [2]int{1, 1}), e, game.O, 3+i))
	}
	alice3 := mustStats(t, s, "guild", "alice", 0)
	if want := (Record{Games: 6, Wins: 2, Losses: 1, Draws: 3}); alice3.People != want || alice3.Rated != 6 {
		t.Errorf("alice after 6 games: People %+v, Rated %d; want %+v, 6", alice3.People, alice3.Rated, want)
	}
}

func testComputerStats(t *testing.T, s storeUnderTest) {
	// alice has a streak of one win against people first.
	g := newGame("g0", "guild", "chan", "alice", "bob")
	mustSave(t, s, g)
	mustSave(t, s, end(play(g, xWins...), game.EndWon, game.None, 1))
	before := mustStats(t, s, "guild", "alice", 0)

	for i, tc := range []struct {
		end   game.Ending
		loser game.Player
	}{{game.EndWon, 0}, {game.EndResigned, game.X}, {game.EndDraw, 0}} {
		g := newGame(fmt.Sprintf("c%d", i), "guild", "chan", "alice", "bot")
		g.Computer, g.Level = game.O, game.Easy
		mustSave(t, s, g)
		mustSave(t, s, end(play(g, xWins...), tc.end, tc.loser, 2+i))
	}
	alice := mustStats(t, s, "guild", "alice", 0)
	want := before
	want.Computer = Record{Games: 3, Wins: 1, Losses: 1, Draws: 1}
	if alice != want {
		t.Errorf("Stats(alice) after games against the computer = %+v; want %+v", alice, want)
	}
	bot := mustStats(t, s, "guild", "bot", 1)
	wantBot := newStats("guild", "bot")
	wantBot.Computer = Record{Games: 3, Wins: 1, Losses: 1, Draws: 1}
	if bot != wantBot {
		t.Errorf("Stats(bot) = %+v; want %+v (counted, not rated, not ranked)", bot, wantBot)
	}
	ls, err := s.Leaderboard(context.Background(), "guild", 1, 0)
	if err != nil || len(ls) != 2 {
		t.Errorf("Leaderboard(min 1) = %+v, %v; want alice and bob only", ls, err)
	}
}

func testStopped(t *testing.T, s storeUnderTest) {
	g := newGame("g1", "guild", "chan", "alice", "bob")
	mustSave(t, s, g)
	g.StoppedBy = "mod"
	mustSave(t, s, end(play(g, xWins...), game.EndStopped, game.None, 1))
	for _, u := range []string{"alice", "bob", "mod"} {
		if st := mustStats(t, s, "guild", u, 0); st != newStats("guild", u) {
			t.Errorf("Stats(%s) after a stopped game = %+v; want a newcomer's", u, st)
		}
	}
	if ls, _ := s.Leaderboard(context.Background(), "guild", 0, 0); len(ls) != 0 {
		t.Errorf("Leaderboard after a stopped game = %+v; want empty", ls)
	}
	sameGame(t, "Game(g1)", mustGame(t, s, "g1"), stored(g, 2))
}

func testStreaks(t *testing.T, s storeUnderTest) {
	// From alice's side: win, win, win, draw, win, loss, win.
	type result struct {
		end   game.Ending
		loser game.Player
	}
	win, loss, draw := result{game.EndResigned, game.O}, result{game.EndResigned, game.X}, result{game.EndDraw, 0}
	want := [][2]int{{1, 1}, {2, 2}, {3, 3}, {0, 3}, {1, 3}, {0, 3}, {1, 3}}
	for i, r := range []result{win, win, win, draw, win, loss, win} {
		g := newGame(fmt.Sprintf("g%d", i), "guild", "chan", "alice", "bob")
		mustSave(t, s, g)
		mustSave(t, s, end(g, r.end, r.loser, i))
		st := mustStats(t, s, "guild", "alice", 0)
		if got := [2]int{st.Streak, st.BestStreak}; got != want[i] {
			t.Errorf("after game %d: alice's Streak, BestStreak = %v; want %v", i+1, got, want[i])
		}
	}
	if bob := mustStats(t, s, "guild", "bob", 0); bob.Streak != 0 || bob.BestStreak != 1 {
		t.Errorf("bob's Streak, BestStreak = %d, %d; want 0, 1 (won game 6, lost game 7)", bob.Streak, bob.BestStreak)
	}
}

func testRank(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	n := 0
	people := func(x, o string, e game.Ending, loser game.Player) {
		t.Helper()
		n++
		g := newGame(fmt.Sprintf("g%d", n), "guild", fmt.Sprintf("chan%d", n), x, o)
		mustSave(t, s, g)
		mustSave(t, s, end(g, e, loser, n))
	}
	// alice beats bob; carol and dave draw (1500 exactly, 1 rated game,
	// tied: carol first by user id); erin plays only the computer (1500,
	// 0 rated games); "10" beats "9" and "9" beats "10" (ids sort as
	// bytes: "10" < "9").
	people("alice", "bob", game.EndResigned, game.O)
	people("dave", "carol", game.EndDraw, game.None)
	c := newGame("c", "guild", "chanc", "erin", "bot")
	c.Computer = game.O
	mustSave(t, s, c)
	mustSave(t, s, end(c, game.EndResigned, game.X, 9))
	// In another guild: does not count here.
	o := newGame("o", "other", "chano", "zed", "alice")
	mustSave(t, s, o)
	mustSave(t, s, end(o, game.EndResigned, game.O, 9))

	check := func(minRated, limit int, want []string) {
		t.Helper()
		ls, err := s.Leaderboard(ctx, "guild", minRated, limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, st := range ls {
			got = append(got, st.UserID)
			if st.Rank != i+1 {
				t.Errorf("Leaderboard(min %d)[%d].Rank = %d; want %d", minRated, i, st.Rank, i+1)
			}
			if one := mustStats(t, s, "guild", st.UserID, minRated); one != st {
				t.Errorf("Stats(%s, min %d) = %+v; want the leaderboard's %+v", st.UserID, minRated, one, st)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Leaderboard(min %d, limit %d) = %v; want %v", minRated, limit, got, want)
		}
	}
	check(1, 0, []string{"alice", "carol", "dave", "bob"})
	check(0, 0, []string{"alice", "carol", "dave", "bot", "erin", "bob"})
	check(0, 3, []string{"alice", "carol", "dave"})
	check(2, 0, nil)
	if st := mustStats(t, s, "guild", "erin", 1); st.Rank != 0 {
		t.Errorf("Stats(erin, min 1).Rank = %d; want 0 (no rated game)", st.Rank)
	}
	if st := mustStats(t, s, "guild", "bob", 1); st.Rank != 4 {
		t.Errorf("Stats(bob, min 1).Rank = %d; want 4", st.Rank)
	}
	if st := mustStats(t, s, "other", "zed", 1); st.Rank != 1 {
		t.Errorf("Stats(other guild, zed).Rank = %d; want 1", st.Rank)
	}
	// Ids compare as bytes: "10" before "9" when all else is equal.
	people("9", "10", game.EndDraw, game.None)
	check(1, 0, []string{"alice", "10", "9", "carol", "dave", "bob"})
}

func testHistory(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	// alice's games in guild, ended at minutes: g1 3, g2 5, g3 5, g4 1;
	// g5 runs; g6 is in another guild; g7 is bob's and carol's.
	add := func(id, guild, x, o string, minutes int, ended bool) *Game {
		g := newGame(id, guild, "chan-"+id, x, o)
		mustSave(t, s, g)
		if ended {
			mustSave(t, s, end(play(g, xWins...), game.EndWon, game.None, minutes))
		}
		return g
	}
	games := map[string]*Game{
		"g1": add("g1", "guild", "alice", "bob", 3, true),
		"g2": add("g2", "guild", "bob", "alice", 5, true),
		"g3": add("g3", "guild", "alice", "carol", 5, true),
		"g4": add("g4", "guild", "carol", "alice", 1, true),
	}
	add("g5", "guild", "alice", "bob", 0, false)
	add("g6", "other", "alice", "bob", 9, true)
	add("g7", "guild", "bob", "carol", 9, true)

	for _, tc := range []struct {
		limit int
		want  []string
	}{{0, []string{"g3", "g2", "g1", "g4"}}, {10, []string{"g3", "g2", "g1", "g4"}}, {2, []string{"g3", "g2"}}, {1, []string{"g3"}}} {
		got, err := s.History(ctx, "guild", "alice", tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, g := range got {
			ids = append(ids, g.ID)
			sameGame(t, "History entry "+g.ID, g, stored(games[g.ID], 2))
		}
		if !reflect.DeepEqual(ids, tc.want) {
			t.Errorf("History(guild, alice, %d) = %v; want %v", tc.limit, ids, tc.want)
		}
	}
	if got, _ := s.History(ctx, "other", "alice", 0); len(got) != 1 || got[0].ID != "g6" {
		t.Errorf("History(other, alice) = %d games; want g6 only", len(got))
	}
	if got, _ := s.History(ctx, "guild", "nobody", 0); len(got) != 0 {
		t.Errorf("History(guild, nobody) = %d games; want none", len(got))
	}
}

func testNoGames(t *testing.T, s storeUnderTest) {
	for _, min := range []int{0, 1} {
		got := mustStats(t, s, "guild", "newcomer", min)
		want := Stats{GuildID: "guild", UserID: "newcomer", Rating: rating.Default}
		if got != want {
			t.Errorf("Stats(newcomer, min %d) = %+v; want %+v", min, got, want)
		}
	}
}

func testRunning(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	var want []*Game
	for _, tc := range []struct {
		id, channel string
		ended       bool
	}{{"z", "c1", false}, {"b", "c3", false}, {"a", "c2", true}, {"y", "c2", false}, {"x", "c0", true}} {
		g := play(newGame(tc.id, "guild", tc.channel, "alice", "bob"), [2]int{0, 0})
		mustSave(t, s, g)
		if tc.ended {
			mustSave(t, s, end(g, game.EndResigned, game.X, 1))
			continue
		}
		play(g, [2]int{1, 1})
		mustSave(t, s, g)
		want = append(want, stored(g, 2))
	}
	// Sorted by channel: c1/z, c2/y, c3/b.
	want[1], want[2] = want[2], want[1]
	got, err := s.Running(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		var ids []string
		for _, g := range got {
			ids = append(ids, g.ChannelID+"/"+g.ID)
		}
		t.Errorf("Running() = %v; want c1/z, c2/y, c3/b with their moves", ids)
	}
	if err := s.Save(ctx, func() *Game { g := got[0].Clone(); g.Deadline = t0.Add(time.Minute); return g }()); err != nil {
		t.Fatal(err)
	}
	if due, err := s.Due(ctx, t0.Add(time.Minute)); err != nil || !reflect.DeepEqual(due, []string{"c1"}) {
		t.Errorf("Due(t0+1m) = %v, %v; want [c1] (the running game with a deadline by then)", due, err)
	}
	if due, err := s.Due(ctx, t0.Add(time.Minute-time.Microsecond)); err != nil || len(due) != 0 {
		t.Errorf("Due(just before its deadline) = %v, %v; want none", due, err)
	}
	if n, err := s.CountRunning(ctx); n != len(want) || err != nil {
		t.Errorf("CountRunning() = %d, %v; want %d, nil", n, err, len(want))
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping() = %v; want nil", err)
	}
}

// testTwoProcesses runs two stores on one database, as two bot processes
// would: each sees what the other saved, whatever it had read before.
func testTwoProcesses(t *testing.T, a, b storeUnderTest) {
	ctx := context.Background()
	g := newGame("g1", "guild", "chan", "alice", "bob")
	mustSave(t, a, g)
	gb := mustCurrent(t, b, "chan") // b has read version 1
	mustSave(t, a, play(g, xWins[:3]...))
	sameGame(t, "b: Current(chan) after a saved", mustCurrent(t, b, "chan"), stored(g, 2))
	if err := b.Save(ctx, play(gb, [2]int{2, 2})); !errors.Is(err, ErrConflict) {
		t.Fatalf("b: Save from version 1 after a saved version 2 = %v; want ErrConflict", err)
	}
	// b takes back a move; a sees it.
	gb = mustGame(t, b, "g1")
	gb.Moves = gb.Moves[:2]
	mustSave(t, b, gb)
	sameGame(t, "a: Game(g1) after b took back a move", mustGame(t, a, "g1"), stored(gb, 3))
	// a ends the game from what it read; b counts nothing again.
	ga := mustGame(t, a, "g1")
	mustSave(t, a, end(play(ga, xWins[2:]...), game.EndWon, game.None, 1))
	gb = mustGame(t, b, "g1")
	sameGame(t, "b: Game(g1) after a ended it", gb, stored(ga, 4))
	gb.Serial++
	mustSave(t, b, gb)
	for _, s := range []storeUnderTest{a, b} {
		if st := mustStats(t, s, "guild", "alice", 1); st.People != (Record{Games: 1, Wins: 1}) {
			t.Errorf("Stats(alice).People = %+v; want one win", st.People)
		}
	}

	// A bot saves a game move after move without reading it back (a move
	// from memory). When the other process saved in between, the next
	// such save is a conflict, and the other's save stands.
	h := newGame("g2", "guild", "chan2", "carol", "dave")
	mustSave(t, a, h)
	mustSave(t, a, play(h, xWins[0]))
	mustSave(t, a, play(h, xWins[1]))
	hb := mustCurrent(t, b, "chan2")
	sameGame(t, "b: Current(chan2) after a's saves", hb, stored(h, 3))
	mustSave(t, b, play(hb, xWins[2]))
	if err := a.Save(ctx, play(h, [2]int{2, 2})); !errors.Is(err, ErrConflict) {
		t.Fatalf("a: Save from its own version 3 after b saved version 4 = %v; want ErrConflict", err)
	}
	sameGame(t, "a: Current(chan2) after its save lost", mustCurrent(t, a, "chan2"), stored(hb, 4))
	// Ended by b: a's stale save cannot end it again, nor count twice.
	ha := mustCurrent(t, a, "chan2")
	mustSave(t, b, end(play(hb, xWins[3:]...), game.EndWon, game.None, 2))
	if err := a.Save(ctx, end(play(ha, xWins[3:]...), game.EndWon, game.None, 2)); !errors.Is(err, ErrConflict) {
		t.Fatalf("a: Save ending g2 after b ended it = %v; want ErrConflict", err)
	}
	if st := mustStats(t, a, "guild", "carol", 1); st.People != (Record{Games: 1, Wins: 1}) {
		t.Errorf("Stats(carol).People = %+v; want one win", st.People)
	}
}

// An open challenge is one per channel, read back as it was stored, and
// closed exactly once however many close it at once.
func testChallenges(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	if c, err := s.Challenge(ctx, "c1"); c != nil || err != nil {
		t.Fatalf("Challenge(c1) on an empty store = %+v, %v; want nil, nil", c, err)
	}
	c := &Challenge{ID: "ch1", GuildID: "guild", ChannelID: "c1", From: "alice", To: "bob", Size: 5, Win: 4,
		Expires: t0.Add(time.Minute), Message: Board{AppID: "app", Token: "secret", At: t0, ChannelID: "c1", MessageID: "m1"}, Locale: "ja"}
	if err := s.OpenChallenge(ctx, c); err != nil {
		t.Fatalf("OpenChallenge = %v", err)
	}
	other := *c
	other.ID = "ch2"
	if err := s.OpenChallenge(ctx, &other); !errors.Is(err, ErrConflict) {
		t.Errorf("a second challenge in the channel: OpenChallenge = %v; want ErrConflict", err)
	}
	other.ChannelID = "c0"
	if err := s.OpenChallenge(ctx, &other); err != nil {
		t.Fatalf("OpenChallenge in another channel = %v", err)
	}
	got, err := s.Challenge(ctx, "c1")
	want := *c
	want.Expires, want.Message.At = c.Expires.UTC().Truncate(time.Microsecond), c.Message.At.UTC().Truncate(time.Microsecond)
	if err != nil || !reflect.DeepEqual(got, &want) {
		t.Errorf("Challenge(c1) = %+v, %v; want %+v", got, err, &want)
	}
	all, err := s.Challenges(ctx)
	if err != nil || len(all) != 2 || all[0].ID != "ch2" || all[1].ID != "ch1" {
		t.Errorf("Challenges() = %v, %v; want ch2 (c0), ch1 (c1)", all, err)
	}
	if mine, err := s.ChallengesFrom(ctx, "alice"); err != nil || len(mine) != 2 || mine[0].ID != "ch2" || !reflect.DeepEqual(mine[1], &want) {
		t.Errorf("ChallengesFrom(alice) = %v, %v; want ch2 (c0), ch1 (c1)", mine, err)
	}
	if theirs, err := s.ChallengesFrom(ctx, "bob"); err != nil || len(theirs) != 0 {
		t.Errorf("ChallengesFrom(bob), who made none = %v, %v; want none", theirs, err)
	}
	var wg sync.WaitGroup
	var closed atomic.Int32
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s.CloseChallenge(ctx, "ch1")
			if err != nil {
				t.Error(err)
			}
			if ok {
				closed.Add(1)
			}
		}()
	}
	wg.Wait()
	if closed.Load() != 1 {
		t.Errorf("8 racing CloseChallenge: %d reported closing it; want 1", closed.Load())
	}
	if c, err := s.Challenge(ctx, "c1"); c != nil || err != nil {
		t.Errorf("Challenge(c1) after closing = %+v, %v; want nil", c, err)
	}
	if err := s.OpenChallenge(ctx, &Challenge{ID: "ch3", ChannelID: "c1", From: "bob", To: "alice", Size: 3, Win: 3, Expires: t0}); err != nil {
		t.Errorf("a new challenge once the old one closed: %v", err)
	}
	if mine, err := s.ChallengesFrom(ctx, "alice"); err != nil || len(mine) != 1 || mine[0].ID != "ch2" {
		t.Errorf("ChallengesFrom(alice) once ch1 closed = %v, %v; want ch2", mine, err)
	}
}

// OpenChallengeAtMost counts the maker's challenges open at the time
// given, not those expired nor anyone else's, and stores nothing when
// they are as many as allowed.
func testChallengeLimit(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	ch := func(id, channel, from string, expires time.Time) *Challenge {
		return &Challenge{ID: id, GuildID: "guild", ChannelID: channel, From: from, Size: 3, Win: 3, Expires: expires}
	}
	for _, c := range []*Challenge{
		ch("a1", "c1", "alice", t0.Add(time.Minute)),
		ch("a-old", "c2", "alice", t0), // expired at t0
		ch("b1", "c3", "bob", t0.Add(time.Minute)),
		ch("b2", "c4", "bob", t0.Add(time.Minute)),
	} {
		if err := s.OpenChallenge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.OpenChallengeAtMost(ctx, ch("a2", "c5", "alice", t0.Add(time.Minute)), 2, t0); err != nil {
		t.Errorf("alice's second open challenge (one expired, bob's not hers), at most 2: %v; want it stored", err)
	}
	if err := s.OpenChallengeAtMost(ctx, ch("a3", "c6", "alice", t0.Add(time.Minute)), 2, t0); !errors.Is(err, ErrTooMany) {
		t.Errorf("alice's third open challenge, at most 2: %v; want ErrTooMany", err)
	}
	if c, err := s.Challenge(ctx, "c6"); c != nil || err != nil {
		t.Errorf("Challenge(c6) after ErrTooMany = %+v, %v; want none", c, err)
	}
	if err := s.OpenChallengeAtMost(ctx, ch("a3", "c6", "alice", t0.Add(2*time.Minute)), 2, t0.Add(time.Minute)); err != nil {
		t.Errorf("alice's challenge once the others expired: %v; want it stored", err)
	}
	if err := s.OpenChallengeAtMost(ctx, ch("b3", "c1", "bob", t0.Add(time.Minute)), 3, t0); !errors.Is(err, ErrConflict) {
		t.Errorf("bob's challenge in a channel with one, below his limit: %v; want ErrConflict", err)
	}
}

// testChallengeLimitShared opens challenges by one maker at once through
// two handles on one database, as two replicas do: never more than the
// limit between them.
func testChallengeLimitShared(t *testing.T, a, b storeUnderTest) {
	ctx := context.Background()
	const most, n = 3, 16
	if err := a.OpenChallenge(ctx, &Challenge{ID: "first", ChannelID: "c-first", From: "alice", Size: 3, Win: 3, Expires: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var opened, refused atomic.Int32
	for i := range n {
		s := a
		if i%2 == 1 {
			s = b
		}
		c := &Challenge{ID: fmt.Sprint("r", i), ChannelID: fmt.Sprint("c", i), From: "alice", Size: 3, Win: 3, Expires: t0.Add(time.Minute)}
		wg.Go(func() {
			switch err := s.OpenChallengeAtMost(ctx, c, most, t0); {
			case err == nil:
				opened.Add(1)
			case errors.Is(err, ErrTooMany):
				refused.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if opened.Load() != most-1 || refused.Load() != n-most+1 {
		t.Errorf("%d challenges at once through two handles, with one open, at most %d: %d opened, %d refused; want %d and %d",
			n, most, opened.Load(), refused.Load(), most-1, n-most+1)
	}
	if mine, err := b.ChallengesFrom(ctx, "alice"); err != nil || len(mine) != most {
		t.Errorf("ChallengesFrom(alice) = %d challenges, %v; want %d", len(mine), err, most)
	}
}

// A server's settings read back as they were saved; a server that saved
// none has the defaults; saving again replaces them.
func testSettings(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	st, err := s.Settings(ctx, "guild")
	if err != nil || !reflect.DeepEqual(st, Settings{GuildID: "guild"}) {
		t.Fatalf("Settings(guild) with none saved = %+v, %v; want the zero Settings of guild", st, err)
	}
	if !st.AllowsChannel("any") {
		t.Error("the default settings do not allow every channel")
	}
	in := Settings{GuildID: "guild", TurnTimeout: 24 * time.Hour, ChallengeTimeout: 90*time.Second + time.Millisecond,
		Size: 7, Win: 4, Channels: []string{"c2", "c1", "c2"}, StopRole: "r1", ComputerRanked: true, Pictures: true, NoReminders: true, UpdatedBy: "alice", UpdatedAt: t0}
	if err := s.SaveSettings(ctx, in); err != nil {
		t.Fatalf("SaveSettings = %v", err)
	}
	want := Settings{GuildID: "guild", TurnTimeout: 24 * time.Hour, ChallengeTimeout: 90 * time.Second,
		Size: 7, Win: 4, Channels: []string{"c1", "c2"}, StopRole: "r1", ComputerRanked: true, Pictures: true, NoReminders: true, UpdatedBy: "alice", UpdatedAt: storeTime(t0)}
	got, err := s.Settings(ctx, "guild")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Settings(guild) = %+v, %v; want %+v", got, err, want)
	}
	if got.AllowsChannel("c3") || !got.AllowsChannel("c2") {
		t.Errorf("AllowsChannel: c3 %v, c2 %v; want false, true", got.AllowsChannel("c3"), got.AllowsChannel("c2"))
	}
	got.Channels[0] = "changed" // shares nothing with the store
	again := Settings{GuildID: "guild", Size: 3, UpdatedBy: "bob", UpdatedAt: t0.Add(time.Hour)}
	if err := s.SaveSettings(ctx, again); err != nil {
		t.Fatalf("SaveSettings again = %v", err)
	}
	again.UpdatedAt = storeTime(again.UpdatedAt)
	if got, err := s.Settings(ctx, "guild"); err != nil || !reflect.DeepEqual(got, again) {
		t.Errorf("Settings(guild) after a second save = %+v, %v; want %+v", got, err, again)
	}
	if other, err := s.Settings(ctx, "other"); err != nil || !reflect.DeepEqual(other, Settings{GuildID: "other"}) {
		t.Errorf("Settings(other) = %+v, %v; want the defaults", other, err)
	}
	for _, bad := range []Settings{{}, {GuildID: "g", TurnTimeout: -time.Second}, {GuildID: "g", Channels: []string{"a b"}}} {
		if err := s.SaveSettings(ctx, bad); err == nil {
			t.Errorf("SaveSettings(%+v) = nil; want an error", bad)
		}
	}
}

// The guilds with their own copy of the commands are recorded and
// forgotten; games are counted whether they ended or not.
func testCommandGuilds(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	if gs, err := s.CommandGuilds(ctx); len(gs) != 0 || err != nil {
		t.Fatalf("CommandGuilds on an empty store = %v, %v; want none", gs, err)
	}
	for _, g := range []string{"g2", "g1", "g2"} {
		if err := s.SetCommandGuild(ctx, g, true); err != nil {
			t.Fatalf("SetCommandGuild(%s, true) = %v", g, err)
		}
	}
	if gs, err := s.CommandGuilds(ctx); !slices.Equal(gs, []string{"g1", "g2"}) || err != nil {
		t.Errorf("CommandGuilds = %v, %v; want [g1 g2]", gs, err)
	}
	if err := s.SetCommandGuild(ctx, "g1", false); err != nil {
		t.Fatal(err)
	}
	if gs, err := s.CommandGuilds(ctx); !slices.Equal(gs, []string{"g2"}) || err != nil {
		t.Errorf("CommandGuilds after forgetting g1 = %v, %v; want [g2]", gs, err)
	}

	g := newGame("g1", "guild", "chan", "alice", "bob")
	mustSave(t, s, g)
	mustSave(t, s, end(play(g, xWins...), game.EndWon, game.None, 1))
	mustSave(t, s, newGame("g2", "guild", "chan", "alice", "bob"))
	if n, err := s.CountGames(ctx); n != 2 || err != nil {
		t.Errorf("CountGames = %d, %v; want 2 (one ended, one running)", n, err)
	}
	// A new game refused (its channel's game runs) is not counted.
	if err := s.Save(ctx, newGame("g3", "guild", "chan", "carol", "dave")); !errors.Is(err, ErrConflict) {
		t.Fatalf("Save(g3 in a busy channel) = %v; want ErrConflict", err)
	}
	if n, err := s.CountGames(ctx); n != 2 || err != nil {
		t.Errorf("CountGames after a refused new game = %d, %v; want 2", n, err)
	}
}

// Interaction tokens are secrets that Discord accepts for 15 minutes: the
// sweep (Due) forgets a board's token once they are over, of running and
// ended games alike, and changes nothing else.
func testTokens(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	ended := play(newGame("g1", "guild", "c1", "alice", "bob"), xWins...)
	ended.Board = Board{AppID: "app", Token: "old-secret", At: t0, ChannelID: "c1", MessageID: "m1"}
	mustSave(t, s, end(ended, game.EndWon, game.None, 1))
	running := play(newGame("g2", "guild", "c2", "alice", "bob"), [2]int{1, 1})
	running.Board = Board{AppID: "app", Token: "old-secret-2", At: t0.Add(time.Minute)}
	mustSave(t, s, running)
	fresh := newGame("g3", "guild", "c3", "carol", "dave")
	fresh.Board = Board{AppID: "app", Token: "fresh-secret", At: t0.Add(10 * time.Minute)}
	mustSave(t, s, fresh)

	if _, err := s.Due(ctx, t0.Add(TokenLife)); err != nil {
		t.Fatal(err)
	}
	sameGame(t, "Game(g1) before its token's 15 minutes are over", mustGame(t, s, "g1"), stored(ended, ended.Version))
	if _, err := s.Due(ctx, t0.Add(TokenLife+2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, g := range []*Game{ended, running} {
		want := stored(g, g.Version)
		want.Board.Token = ""
		sameGame(t, "Game("+g.ID+") once its token's 15 minutes are over", mustGame(t, s, g.ID), want)
	}
	sameGame(t, "Game(g3), whose token is 7 minutes old", mustGame(t, s, "g3"), stored(fresh, fresh.Version))
	// The game goes on: the next move brings a new token, and saves.
	mustSave(t, s, play(mustGame(t, s, "g2"), [2]int{0, 0}))
}

// A backlog of expired tokens (a database where games ended faster than
// one batch a sweep, or a bot that was down) is forgotten by one sweep,
// however many there are: 5,000 boards drawn before the token's life.
func testTokenBacklog(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	const n = 5000
	ended := play(newGame("g0", "guild", "c0", "alice", "bob"), xWins...)
	ended.Board = Board{AppID: "app", Token: "old-secret", At: t0, ChannelID: "c0", MessageID: "m0"}
	mustSave(t, s, end(ended, game.EndWon, game.None, 1))
	copyGame(t, s, "g0", n-1)
	fresh := newGame("g-fresh", "guild", "c-fresh", "carol", "dave")
	fresh.Board = Board{AppID: "app", Token: "fresh-secret", At: t0.Add(10 * time.Minute)}
	mustSave(t, s, fresh)
	if got := tokensKept(t, s); got != n+1 {
		t.Fatalf("tokens kept before the sweep = %d; want %d", got, n+1)
	}
	// However slow the machine, the sweep's time is not up: its clock
	// stands still.
	setSweepClock(s, func() time.Time { return t0 })
	if _, err := s.Due(ctx, t0.Add(TokenLife+2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got := tokensKept(t, s); got != 1 {
		t.Errorf("tokens kept after one sweep of %d expired ones = %d; want 1 (the fresh board's)", n, got)
	}
	sameGame(t, "Game(g-fresh), whose token is 7 minutes old", mustGame(t, s, "g-fresh"), stored(fresh, fresh.Version))
}

// A backlog bigger than one sweep's time allows is forgotten over the
// next sweeps: each sweep forgets a batch at least, and stops once its
// time (forgetWithin, by its clock) is up, here after every batch.
func testTokenBacklogOverSweeps(t *testing.T, s storeUnderTest) {
	if _, ok := s.(*Memory); ok {
		t.Skip("Memory forgets every token in one sweep: it has no writer to hold")
	}
	ctx := context.Background()
	const n = 2*forgetBatch + 10
	ended := play(newGame("g0", "guild", "c0", "alice", "bob"), xWins...)
	ended.Board = Board{AppID: "app", Token: "old-secret", At: t0, ChannelID: "c0", MessageID: "m0"}
	mustSave(t, s, end(ended, game.EndWon, game.None, 1))
	copyGame(t, s, "g0", n-1)
	var mu sync.Mutex
	clock := t0
	setSweepClock(s, func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now := clock
		clock = clock.Add(forgetWithin) // each look at the clock finds the time up
		return now
	})
	for i, want := range []int{n - forgetBatch, n - 2*forgetBatch, 0, 0} {
		if _, err := s.Due(ctx, t0.Add(TokenLife+2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if got := tokensKept(t, s); got != want {
			t.Errorf("tokens kept after sweep %d of %d expired ones, each with time for one batch = %d; want %d", i+1, n, got, want)
		}
	}
}

// setSweepClock sets the clock that bounds a SQL store's sweep of tokens
// (sqlStore.sweepClock); Memory has none.
func setSweepClock(s storeUnderTest, now func() time.Time) {
	switch s := s.(type) {
	case *SQLite:
		s.sweepClock = now
	case *Postgres:
		s.sweepClock = now
	}
}

// copyGame stores n copies of the ended game id (ids and channels id-1 …
// id-n), fast: one statement on the SQL stores.
func copyGame(t *testing.T, s storeUnderTest, id string, n int) {
	t.Helper()
	ctx := context.Background()
	switch s := s.(type) {
	case *Memory:
		g := mustGame(t, s, id)
		for i := 1; i <= n; i++ {
			c := *g
			c.ID, c.ChannelID, c.Version = id+"-"+strconv.Itoa(i), id+"-"+strconv.Itoa(i), 0
			mustSave(t, s, &c)
		}
	case *SQLite, *Postgres:
		var sq *sqlStore
		if l, ok := s.(*SQLite); ok {
			sq = &l.sqlStore
		} else {
			sq = &s.(*Postgres).sqlStore
		}
		cols := strings.TrimPrefix(updateColumns, "guild_id, channel_id, ")
		err := sq.write(ctx, func(tx tx) error {
			_, err := tx.exec(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
				INSERT INTO games (id, guild_id, channel_id, `+cols+`)
				SELECT id || '-' || n.i, guild_id, id || '-' || n.i, `+cols+` FROM games, n WHERE id = ?`, n, id)
			return err
		})
		if err != nil {
			t.Fatalf("copy %s %d times: %v", id, n, err)
		}
	default:
		t.Fatalf("copyGame: no way to copy games into a %T", s)
	}
}

// tokensKept counts the games that keep a board token.
func tokensKept(t *testing.T, s storeUnderTest) int {
	t.Helper()
	ctx := context.Background()
	switch s := s.(type) {
	case *Memory:
		s.mu.Lock()
		defer s.mu.Unlock()
		n := 0
		for _, g := range s.games {
			if g.Board.Token != "" {
				n++
			}
		}
		return n
	case *SQLite, *Postgres:
		var sq *sqlStore
		if l, ok := s.(*SQLite); ok {
			sq = &l.sqlStore
		} else {
			sq = &s.(*Postgres).sqlStore
		}
		ids, err := sq.column(ctx, `SELECT id FROM games WHERE board_token <> ''`)
		if err != nil {
			t.Fatal(err)
		}
		return len(ids)
	}
	t.Fatalf("tokensKept: no way to count tokens in a %T", s)
	return 0
}

// The reminders due are those of running games whose RemindAt is at or
// before the time asked: not a game without one, not an ended game's, not
// one to come; a move that sets the next turn's is seen at once.
func testDueReminders(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	due := func(before time.Time) []string {
		t.Helper()
		got, err := s.DueReminders(ctx, before)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := due(t0.Add(time.Hour)); len(got) != 0 {
		t.Errorf("DueReminders on an empty store = %v; want none", got)
	}
	games := map[string]*Game{}
	for _, tc := range []struct {
		channel string
		at      time.Duration // 0: none
		ended   bool
	}{{"c3", 2 * time.Minute, false}, {"c1", time.Minute, false}, {"c2", 0, false}, {"c4", time.Minute, true}, {"c5", 3 * time.Minute, false}} {
		g := play(newGame("g-"+tc.channel, "guild", tc.channel, "alice", "bob"), [2]int{0, 0})
		g.Deadline = t0.Add(time.Hour)
		if tc.at != 0 {
			g.RemindAt = t0.Add(tc.at)
		}
		mustSave(t, s, g)
		if tc.ended {
			mustSave(t, s, end(g, game.EndResigned, game.X, 1))
		}
		games[tc.channel] = g
	}
	for _, tc := range []struct {
		before time.Time
		want   []string
	}{
		{t0.Add(time.Minute - time.Microsecond), nil},
		{t0.Add(time.Minute), []string{"c1"}},
		{t0.Add(2 * time.Minute), []string{"c1", "c3"}},
		{t0.Add(time.Hour), []string{"c1", "c3", "c5"}},
	} {
		if got := due(tc.before); !slices.Equal(got, tc.want) {
			t.Errorf("DueReminders(t0+%v) = %v; want %v", tc.before.Sub(t0), got, tc.want)
		}
	}
	// A move: c1's turn is over, the next one's reminder is later; c2's
	// next turn has one now.
	g := games["c1"]
	play(g, [2]int{1, 1})
	g.Deadline, g.RemindAt = t0.Add(2*time.Hour), t0.Add(90*time.Minute)
	mustSave(t, s, g)
	g = games["c2"]
	play(g, [2]int{1, 1})
	g.RemindAt = t0.Add(time.Minute)
	mustSave(t, s, g)
	if got, want := due(t0.Add(2*time.Minute)), []string{"c2", "c3"}; !slices.Equal(got, want) {
		t.Errorf("DueReminders(t0+2m) after the moves = %v; want %v", got, want)
	}
	if got, want := due(t0.Add(90*time.Minute)), []string{"c1", "c2", "c3", "c5"}; !slices.Equal(got, want) {
		t.Errorf("DueReminders(t0+90m) after the moves = %v; want %v", got, want)
	}
}
