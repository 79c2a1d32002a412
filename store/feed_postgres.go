package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgreSQL's change feed (see feed.go): a row in live_watches per
// channel watched by any process, renewed while watched; a trigger that
// NOTIFYs ttt_live in the transaction of each save of such a channel; and
// in each process that watches anything, one connection that LISTENs and
// hands what it hears of its schema to the process's watchers.

// liveNotify is the channel of NOTIFY the trigger of migration 0014 sends
// on.
const liveNotify = "ttt_live"

// A channel's watch lasts liveTTL in live_watches unless renewed; every
// process renews those it watches every liveRenew. A listening
// connection that fails is opened again after liveRetry, doubled up to
// liveRetryMax while it keeps failing.
const (
	liveTTL      = 90 * time.Second
	liveRenew    = 30 * time.Second
	liveRetry    = 100 * time.Millisecond
	liveRetryMax = 10 * time.Second
)

// channelLockClass is the first key of the transaction locks on a
// channel whose new game is saved, or that is marked watched
// (markWatched), on PostgreSQL: "tttl" in ASCII.
const channelLockClass = 0x7474746c

// channelLock is the SQL that takes a transaction lock on the channel
// given as its parameter, on PostgreSQL.
var channelLock = `SELECT pg_advisory_xact_lock(` + strconv.Itoa(channelLockClass) + `, hashtext(?))`

// pgListener is a Postgres store's listening connection, started by the
// first Watch.
type pgListener struct {
	start  sync.Once
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	up      chan struct{} // closed while the connection listens
	everUp  bool
	pid     uint32 // the listening connection's server process, for tests
	stopped bool
	closed  chan struct{}        // closed by Close: a Watch waiting for up ends
	marks   map[string]time.Time // when this process last marked each channel watched
}

// closing returns the channel that Close closes; l.mu is held.
func (l *pgListener) closing() chan struct{} {
	if l.closed == nil {
		l.closed = make(chan struct{})
	}
	return l.closed
}

// Watch makes fn hear every saved change of channelID's game, by any
// process sharing the database, from now on, until stop is called; and a
// Change of Version 0 whenever changes may have been missed (the
// listening connection failed and is listening again). fn is called on
// the listening goroutine, and must not block nor call the store.
//
// When Watch returns, the channel is marked watched (renewed while
// watched here) and any save of its game under way has committed: a
// save that commits later is heard. ctx bounds the setting up of the
// watch, which waits for the listening connection (or fails once the
// store is closed).
func (p *Postgres) Watch(ctx context.Context, channelID string, fn func(Change)) (stop func(), err error) {
	if channelID == "" || fn == nil {
		return nil, errors.New("store: watch: no channel or no function")
	}
	l := &p.live
	l.start.Do(func() { p.startListening() })
	l.mu.Lock()
	up, stopped, closed := l.up, l.stopped, l.closing()
	l.mu.Unlock()
	if stopped {
		return nil, errors.New("store: watch: the store is closed")
	}
	select {
	case <-up:
	case <-closed:
		return nil, errors.New("store: watch: the store is closed")
	case <-ctx.Done():
		return nil, fmt.Errorf("store: watch channel %s: not listening yet: %w", channelID, ctx.Err())
	}
	remove, _ := p.feed.add(channelID, fn)
	if !l.markedLately(channelID) {
		if err := p.markWatched(ctx, channelID); err != nil {
			remove()
			return nil, fmt.Errorf("store: watch channel %s: %w", channelID, err)
		}
		l.marked(channelID)
	}
	return func() { remove() }, nil // the row expires unless another watcher renews it
}

// markedLately says whether this process marked channelID watched within
// liveRenew: its mark stands, every save since reads it, and a page more
// of the channel adds no write.
func (l *pgListener) markedLately(channelID string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	at, ok := l.marks[channelID]
	return ok && time.Since(at) < liveRenew
}

// marked records that channelID was marked watched now.
func (l *pgListener) marked(channelID string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.marks == nil {
		l.marks = make(map[string]time.Time)
	}
	l.marks[channelID] = time.Now()
}

// markWatched marks channelID watched until liveTTL from now (the
// database's clock), then waits for any save of its games under way: the
// row lock of FOR SHARE on its current game is granted once a save of it
// committed, and a save that comes after reads the mark (its trigger runs
// after it locked the row); the channel's lock (channelLock), which the
// save of a new game takes before inserting it (its trigger runs then,
// before it locks the channel's row), is granted once such a save
// committed, and one that comes after reads the mark.
func (p *Postgres) markWatched(ctx context.Context, channelID string) error {
	return p.write(ctx, func(t tx) error {
		if _, err := t.exec(ctx, `INSERT INTO live_watches (channel_id, until) VALUES (?, now() + ?::bigint * interval '1 second')
			ON CONFLICT (channel_id) DO UPDATE SET until = GREATEST(live_watches.until, EXCLUDED.until)`,
			channelID, int64(liveTTL/time.Second)); err != nil {
			return err
		}
		if _, err := t.exec(ctx, channelLock, channelID); err != nil {
			return err
		}
		rs, err := t.query(ctx, `SELECT 1 FROM channels c JOIN games g ON g.id = c.game_id WHERE c.channel_id = ? FOR SHARE`, channelID)
		if err != nil {
			return err
		}
		for rs.Next() {
		}
		rs.Close()
		return rs.Err()
	})
}

// renewWatches renews the marks of the channels watched here, and drops
// the marks long expired (of any process).
func (p *Postgres) renewWatches(ctx context.Context) error {
	ids := p.feed.list()
	watched := make(map[string]bool, len(ids))
	for _, id := range ids {
		watched[id] = true
	}
	p.live.mu.Lock()
	for id := range p.live.marks {
		if !watched[id] {
			delete(p.live.marks, id) // watched here no more
		}
	}
	p.live.mu.Unlock()
	return p.write(ctx, func(t tx) error {
		if len(ids) > 0 {
			if _, err := t.exec(ctx, `INSERT INTO live_watches (channel_id, until)
				SELECT id, now() + ?::bigint * interval '1 second' FROM unnest(?::text[]) AS id
				ON CONFLICT (channel_id) DO UPDATE SET until = GREATEST(live_watches.until, EXCLUDED.until)`,
				int64(liveTTL/time.Second), ids); err != nil {
				return err
			}
		}
		_, err := t.exec(ctx, `DELETE FROM live_watches WHERE until < now() - interval '1 minute'`)
		return err
	})
}

// startListening starts the listening connection and the renewal of the
// marks, until Close.
func (p *Postgres) startListening() {
	l := &p.live
	ctx, cancel := context.WithCancel(context.Background())
	l.mu.Lock()
	l.cancel = cancel
	l.up = make(chan struct{})
	l.mu.Unlock()
	l.wg.Add(2)
	go func() {
		defer l.wg.Done()
		wait := liveRetry
		for ctx.Err() == nil {
			if p.listen(ctx) {
				wait = liveRetry // it listened: a new failure starts the back-off again
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			wait = min(wait*2, liveRetryMax)
		}
	}()
	go func() {
		defer l.wg.Done()
		tick := time.NewTicker(liveRenew)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				rctx, stop := context.WithTimeout(ctx, liveRenew)
				_ = p.renewWatches(rctx) // tried again at the next tick, well within liveTTL
				stop()
			}
		}
	}()
}

// listen opens the listening connection and hands what it hears to the
// watchers here until it fails or ctx ends; it says whether it listened.
// Once listening again after a failure, it renews the marks (they may
// have expired meanwhile) and tells every watcher to read everything
// again.
func (p *Postgres) listen(ctx context.Context) bool {
	l := &p.live
	conn, err := pgx.ConnectConfig(ctx, p.pool.Config().ConnConfig)
	if err != nil {
		return false
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var schema string
	if err := conn.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return false
	}
	if _, err := conn.Exec(ctx, "LISTEN "+liveNotify); err != nil {
		return false
	}
	l.mu.Lock()
	again := l.everUp
	l.everUp = true
	l.pid = conn.PgConn().PID()
	close(l.up)
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.up = make(chan struct{})
		l.mu.Unlock()
	}()
	if again {
		rctx, stop := context.WithTimeout(ctx, liveRenew)
		_ = p.renewWatches(rctx)
		stop()
		p.feed.resetAll()
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true
		}
		if c, ok := parseLive(n.Payload, schema); ok {
			p.feed.publish(c)
		}
	}
}

// parseLive reads the trigger's payload, "schema channel game version",
// of a save in schema; ok is false for another schema's.
func parseLive(payload, schema string) (c Change, ok bool) {
	f := strings.Fields(payload)
	if len(f) != 4 || f[0] != schema {
		return Change{}, false
	}
	v, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		return Change{}, false
	}
	return Change{ChannelID: f[1], GameID: f[2], Version: v}, true
}

// stopListening stops the listening connection and the renewals, and
// waits for them.
func (p *Postgres) stopListening() {
	l := &p.live
	l.start.Do(func() {}) // none starts after this
	l.mu.Lock()
	if !l.stopped {
		close(l.closing()) // a Watch waiting for the connection ends
	}
	l.stopped = true
	cancel := l.cancel
	l.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	l.wg.Wait()
}

// listenerPID is the server process of the listening connection, 0 if
// none listened yet: for tests that cut it.
func (p *Postgres) listenerPID() uint32 {
	p.live.mu.Lock()
	defer p.live.mu.Unlock()
	return p.live.pid
}
