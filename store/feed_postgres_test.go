package store

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Two processes on one database: a save by either is heard by the
// watchers of both, and both sign with one key.
func TestPostgresFeedTwoProcesses(t *testing.T) {
	url := postgresSchema(t)
	a, b := openPostgres(t, url), openPostgres(t, url)
	testWebKeyShared(t, a, b)
	ca, _ := watchChannel(t, a, "chan")
	cb, _ := watchChannel(t, b, "chan")
	g := newGame("g1", "guild", "chan", "alice", "bob")
	mustSave(t, a, g)
	gb := mustCurrent(t, b, "chan")
	mustSave(t, b, play(gb, xWins[0]))
	for name, c := range map[string]changes{"a": ca, "b": cb} {
		for v := int64(1); v <= 2; v++ {
			if got, want := c.next(t, name), (Change{ChannelID: "chan", GameID: "g1", Version: v}); got != want {
				t.Fatalf("%s heard %+v; want %+v", name, got, want)
			}
		}
	}
}

// A save in a channel nobody watches sends no NOTIFY: a connection that
// listens itself hears the watched channel's save, made after, first.
func TestPostgresFeedUnwatchedSendsNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url := postgresSchema(t)
	s := openPostgres(t, url)
	watchChannel(t, s, "watched")
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	var schema string
	if err := conn.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	// Others' tests may share the server, in schemas of their own.
	wait := func() string {
		t.Helper()
		for {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if p, ok := strings.CutPrefix(n.Payload, schema+" "); ok {
				return p
			}
		}
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+liveNotify); err != nil {
		t.Fatal(err)
	}
	u := newGame("u1", "guild", "unwatched", "alice", "bob")
	mustSave(t, s, u)
	mustSave(t, s, play(u, xWins[0]))
	mustSave(t, s, newGame("w1", "guild", "watched", "carol", "dave"))
	if p := wait(); p != "watched w1 1" {
		t.Errorf("first NOTIFY %q; want %q (none for the unwatched channel)", p, "watched w1 1")
	}
	// A watch expires unless renewed: once expired, its channel is
	// unwatched again.
	if _, err := s.pool.Exec(ctx, `UPDATE live_watches SET until = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	mustSave(t, s, play(mustCurrent(t, s, "watched"), xWins[0]))
	watchChannel(t, s, "other")
	mustSave(t, s, newGame("x1", "guild", "other", "carol", "dave"))
	if p := wait(); p != "other x1 1" {
		t.Errorf("NOTIFY after the watch expired: %q; want %q", p, "other x1 1")
	}
	// Renewing marks the channels watched here again.
	if err := s.renewWatches(ctx); err != nil {
		t.Fatal(err)
	}
	mustSave(t, s, play(mustCurrent(t, s, "watched"), xWins[1]))
	if p := wait(); p != "watched w1 3" {
		t.Errorf("NOTIFY after renewing: %q; want %q", p, "watched w1 3")
	}
}

// When the listening connection drops, it listens again, and every
// watcher hears a change of Version 0 (read everything again); changes
// saved after are heard as before.
func TestPostgresFeedReconnects(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url := postgresSchema(t)
	s := openPostgres(t, url)
	c, _ := watchChannel(t, s, "chan")
	g := newGame("g1", "guild", "chan", "alice", "bob")
	mustSave(t, s, g)
	if got := c.next(t, "before"); got.Version != 1 {
		t.Fatalf("heard %+v; want version 1", got)
	}
	pid := s.listenerPID()
	if _, err := s.pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, int32(pid)); err != nil {
		t.Fatal(err)
	}
	if got, want := c.next(t, "after the drop"), (Change{ChannelID: "chan"}); got != want {
		t.Fatalf("heard %+v after the listening connection dropped; want %+v", got, want)
	}
	if s.listenerPID() == pid {
		t.Fatal("still the old listening connection")
	}
	mustSave(t, s, play(g, xWins[0]))
	if got, want := c.next(t, "after"), (Change{ChannelID: "chan", GameID: "g1", Version: 2}); got != want {
		t.Fatalf("heard %+v; want %+v", got, want)
	}
	s.Close()
	if _, err := s.Watch(ctx, "chan", func(Change) {}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Watch after Close = %v; want an error", err)
	}
}

// doneCalled is a context that says when Watch is waiting on it: its
// Done is first asked for once Watch waits for the listening connection.
type doneCalled struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

func (c *doneCalled) Done() <-chan struct{} {
	c.once.Do(func() { close(c.waiting) })
	return c.Context.Done()
}

// A Watch waiting for the listening connection (not up yet, or coming
// back after a failure) when the store closes returns, refused, rather
// than wait for its context, which may never end.
func TestPostgresWatchEndsAtClose(t *testing.T) {
	p := openPostgres(t, postgresSchema(t))
	// The listener as it is between its start, or a failure, and
	// listening: no connection up.
	p.live.start.Do(func() {
		p.live.mu.Lock()
		p.live.up = make(chan struct{})
		p.live.mu.Unlock()
	})
	ctx := &doneCalled{Context: context.Background(), waiting: make(chan struct{})}
	got := make(chan error, 1)
	go func() {
		stop, err := p.Watch(ctx, "chan", func(Change) {})
		if stop != nil {
			stop()
		}
		got <- err
	}()
	<-ctx.waiting
	p.Close()
	select {
	case err := <-got:
		if err == nil {
			t.Error("Watch on a closed store = nil error")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Watch still waits after Close")
	}
}

// A save of a channel's new game under way when a page starts watching
// the channel (its trigger ran before the mark) has committed when Watch
// returns: what the page reads then shows it, for the feed will never
// tell of it. The save is held, after its trigger ran, by a lock on the
// row of game_count it updates last.
func TestPostgresWatchWaitsForNewGame(t *testing.T) {
	url := postgresSchema(t)
	p := openPostgres(t, url)
	ctx := context.Background()
	watchChannel(t, p, "other") // listening: the watch below only marks
	g := newGame("g1", "guild", "chan", "alice", "bob")

	hold, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close(ctx)
	held, err := hold.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Rollback(ctx)
	if _, err := held.Exec(ctx, `UPDATE game_count SET n = n WHERE shard = $1`, countShard(g.ID)); err != nil {
		t.Fatal(err)
	}
	saved := make(chan error, 1)
	go func() { saved <- p.Save(ctx, g) }()
	// Polled outside a transaction: within one, pg_stat_activity keeps
	// the snapshot it first read.
	look, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer look.Close(ctx)
	waiting := func(query string) bool {
		var n int
		if err := look.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND query LIKE $1`, query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	for !waiting("UPDATE game_count%") {
		time.Sleep(time.Millisecond) // polling the condition
	}

	watched := make(chan error, 1)
	go func() {
		stop, err := p.Watch(ctx, "chan", func(Change) {})
		if stop != nil {
			defer stop()
		}
		watched <- err
	}()
	for {
		select {
		case err := <-watched:
			if err != nil {
				t.Fatalf("Watch = %v", err)
			}
			if cur, err := p.Current(ctx, "chan"); err != nil || cur == nil {
				t.Fatalf("Watch returned while the save of the channel's new game, never to be heard, was under way: Current = %v, %v", cur, err)
			}
		default:
			if !waiting("%pg_advisory_xact_lock(" + strconv.Itoa(channelLockClass) + "%") {
				time.Sleep(time.Millisecond) // polling the condition
				continue
			}
			// Watch waits for the save.
			if err := held.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-saved; err != nil {
				t.Fatalf("Save = %v", err)
			}
			if err := <-watched; err != nil {
				t.Fatalf("Watch = %v", err)
			}
		}
		break
	}
}
