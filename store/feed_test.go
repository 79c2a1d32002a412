package store

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tttbot/tttbot/game"
)

// changes collects what a watch hears.
type changes chan Change

func (c changes) hear(ch Change) {
	select {
	case c <- ch:
	default:
		panic("store test: a watcher's buffer is full")
	}
}

// next waits for the next change, within a generous bound that only a
// broken feed reaches.
func (c changes) next(t *testing.T, what string) Change {
	t.Helper()
	select {
	case ch := <-c:
		return ch
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: no change heard", what)
		return Change{}
	}
}

// none says that nothing was heard; it is checked once a later change has
// reached a watcher told in the same fan-out.
func (c changes) none(t *testing.T, what string) {
	t.Helper()
	select {
	case ch := <-c:
		t.Errorf("%s: heard %+v; want nothing", what, ch)
	default:
	}
}

func watchChannel(t *testing.T, s storeUnderTest, channel string) (changes, func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := make(changes, 64)
	stop, err := s.Watch(ctx, channel, c.hear)
	if err != nil {
		t.Fatalf("Watch(%s) = %v", channel, err)
	}
	t.Cleanup(stop)
	return c, stop
}

// The feed tells the watchers of a channel of each save of its game, with
// the version saved, and nothing of the channels nobody watches; a
// watcher that stopped hears nothing more.
func testFeed(t *testing.T, s storeUnderTest) {
	a, stopA := watchChannel(t, s, "watched")
	b, _ := watchChannel(t, s, "watched")

	other := newGame("o1", "guild", "unwatched", "carol", "dave")
	mustSave(t, s, other)
	g := newGame("w1", "guild", "watched", "alice", "bob")
	mustSave(t, s, g)
	// The first change heard is the watched channel's: the unwatched
	// one's save, made before, told nobody.
	for _, c := range []changes{a, b} {
		if got, want := c.next(t, "first save"), (Change{ChannelID: "watched", GameID: "w1", Version: 1}); got != want {
			t.Fatalf("heard %+v; want %+v", got, want)
		}
	}
	mustSave(t, s, play(g, xWins[0]))
	for _, c := range []changes{a, b} {
		if got, want := c.next(t, "a move"), (Change{ChannelID: "watched", GameID: "w1", Version: 2}); got != want {
			t.Fatalf("heard %+v; want %+v", got, want)
		}
	}
	stopA()
	stopA() // twice is harmless
	mustSave(t, s, play(g, xWins[1]))
	mustSave(t, s, play(other, xWins[0]))
	if got, want := b.next(t, "after a stopped"), (Change{ChannelID: "watched", GameID: "w1", Version: 3}); got != want {
		t.Fatalf("heard %+v; want %+v", got, want)
	}
	a.none(t, "a stopped watcher")

	// A new game in the channel is told too.
	mustSave(t, s, end(play(g, xWins[2:]...), game.EndWon, game.None, 1))
	if got := b.next(t, "the end"); got.Version != 4 {
		t.Fatalf("heard %+v; want version 4", got)
	}
	h := newGame("w2", "guild", "watched", "alice", "bob")
	mustSave(t, s, h)
	if got, want := b.next(t, "a new game"), (Change{ChannelID: "watched", GameID: "w2", Version: 1}); got != want {
		t.Fatalf("heard %+v; want %+v", got, want)
	}
	b.none(t, "the unwatched channel's saves")

	if _, err := s.Watch(context.Background(), "", func(Change) {}); err == nil {
		t.Error("Watch of no channel = nil error; want an error")
	}
}

// The key that signs the page's sessions is made once and kept.
func testWebKey(t *testing.T, s storeUnderTest) {
	ctx := context.Background()
	k1, err := s.WebKey(ctx)
	if err != nil || len(k1) != 32 {
		t.Fatalf("WebKey = %x, %v; want 32 bytes", k1, err)
	}
	k2, err := s.WebKey(ctx)
	if err != nil || !bytes.Equal(k1, k2) {
		t.Fatalf("WebKey again = %x, %v; want %x", k2, err, k1)
	}
	if bytes.Equal(k1, make([]byte, 32)) {
		t.Error("WebKey is all zeros")
	}
}

// testWebKeyShared: two processes on one database sign with one key.
func testWebKeyShared(t *testing.T, a, b storeUnderTest) {
	ctx := context.Background()
	kb, err := b.WebKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ka, err := a.WebKey(ctx)
	if err != nil || !bytes.Equal(ka, kb) {
		t.Fatalf("the processes' keys: %x, %v and %x; want one key", ka, err, kb)
	}
}

// A board's standing with the live board, and whether the bot reached
// its channel, are kept, through a move's save
// (which writes the board's columns alone) and a full one.
func testBoardLive(t *testing.T, s storeUnderTest) {
	g := newGame("b1", "guild", "chan", "alice", "bob")
	g.Board = Board{AppID: "app", Token: "tok", At: t0, Outside: true}
	mustSave(t, s, g)
	sameGame(t, "Outside", mustCurrent(t, s, "chan"), stored(g, 1))
	g.Board.Stale, g.Board.Reached = true, true
	mustSave(t, s, play(g, xWins[0]))
	sameGame(t, "Outside, Stale and Reached", mustCurrent(t, s, "chan"), stored(g, 2))
	g.Board = Board{AppID: "app", Token: "tok2", At: t0}
	mustSave(t, s, end(play(g, xWins[1:]...), game.EndWon, game.None, 1))
	sameGame(t, "neither", mustCurrent(t, s, "chan"), stored(g, 3))
}
