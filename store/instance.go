package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrLockHeld is the error of LockSQLite and LockPostgres when another
// holder (another process, or another lock in this one) has the lock.
var ErrLockHeld = errors.New("store: the lock is held by another process")

// Lock is one of a few named locks that processes sharing a database take
// to say what they do, e.g. "this bot's gateway connection": a second
// process that wants the same lock learns at once that the first runs.
// Exclusive locks exclude every other holder of the name; shared ones
// only exclusive holders. A lock lasts until Close or the end of the
// process (or, on PostgreSQL, of its connection: see Lost). Close is for
// one goroutine; Lost and Cause are safe for concurrent use.
type Lock struct {
	close func() error
	lost  chan struct{} // closed when the lock is lost; nil if it cannot be
	cause error         // why, written before lost is closed
}

// Close lets the lock go. It may be called more than once.
func (l *Lock) Close() error {
	if l == nil || l.close == nil {
		return nil
	}
	c := l.close
	l.close = nil
	return c()
}

// Lost returns a channel that is closed when the lock was lost without
// Close. A PostgreSQL lock is lost with its connection: the server
// restarted or failed over, the backend was terminated
// (pg_terminate_backend, an idle-connection killer), or the server stopped
// answering its pings. The server has then let the lock go, or will when
// it notices, and another holder may take it. A SQLite lock is never lost:
// its channel is nil.
func (l *Lock) Lost() <-chan struct{} {
	if l == nil {
		return nil
	}
	return l.lost
}

// Cause says why the lock was lost, once Lost is closed; nil before.
func (l *Lock) Cause() error {
	if l == nil || l.lost == nil {
		return nil
	}
	select {
	case <-l.lost:
		return l.cause
	default:
		return nil
	}
}

// DefaultLockCheck is how often LockPostgres checks by default that the
// server still answers on the lock's connection, when nothing arrives on
// it. A connection that the server ends is noticed at once, one that goes
// silent within this and lockPingWithin.
const DefaultLockCheck = 2 * time.Second

// lockPingWithin is how long a lock's ping may take at least before the
// connection is taken for silent: a loaded server or machine is not lost.
const lockPingWithin = 5 * time.Second

// LockPostgres takes the lock name in the PostgreSQL database at url: a
// session-level advisory lock (pg_try_advisory_lock, or _shared) keyed
// by a 64-bit hash of name, on a connection of its own that the lock
// holds open, named "tttbot lock " + name in pg_stat_activity's
// application_name. It does not wait: a held lock is ErrLockHeld.
//
// The lock watches its connection: it waits for whatever the server sends
// (the error that ends a terminated backend, or the end of the
// connection), and when nothing came for every (0: DefaultLockCheck) it
// pings. A connection that ends, or a ping unanswered within every (at
// least 5 s), loses the lock (see Lost). Taking it again is the caller's
// choice.
func LockPostgres(ctx context.Context, url, name string, shared bool, every time.Duration) (*Lock, error) {
	if every <= 0 {
		every = DefaultLockCheck
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, errors.New("store: lock: cannot parse the database url") // pgx's error may quote the password
	}
	app := "tttbot lock " + name
	if len(app) > 63 { // PostgreSQL's limit (NAMEDATALEN - 1)
		app = app[:63]
	}
	cfg.RuntimeParams["application_name"] = app
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: lock %s: %w", name, err)
	}
	fn := "pg_try_advisory_lock"
	if shared {
		fn += "_shared"
	}
	var got bool
	if err := conn.QueryRow(ctx, "SELECT "+fn+"($1)", lockKey(name)).Scan(&got); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("store: lock %s: %w", name, err)
	}
	if !got {
		conn.Close(context.Background())
		return nil, fmt.Errorf("%w: %s", ErrLockHeld, name)
	}
	l := &Lock{lost: make(chan struct{})}
	wctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		err := watchConn(wctx, conn, every)
		if err == nil { // stopped by Close
			return
		}
		l.cause = fmt.Errorf("store: lock %s: its connection to PostgreSQL was lost: %w", name, err)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn.Close(ctx) // a silent connection: do not keep it
		cancel()
		close(l.lost)
	})
	l.close = func() error {
		stop()
		wg.Wait()
		return conn.Close(context.Background())
	}
	return l, nil
}

// watchConn waits on conn until it ends, or a ping sent after every of
// silence is not answered within max(every, lockPingWithin), and says
// why; nil once ctx ends.
func watchConn(ctx context.Context, conn *pgx.Conn, every time.Duration) error {
	for {
		wctx, cancel := context.WithTimeout(ctx, every)
		err := conn.PgConn().WaitForNotification(wctx) // returns at once if the server ends the connection
		timedOut := wctx.Err() != nil
		cancel()
		switch {
		case ctx.Err() != nil:
			return nil
		case err == nil: // a notification: none is asked for, but it is a sign of life
			continue
		case !timedOut:
			return err
		}
		pctx, cancel := context.WithTimeout(ctx, max(every, lockPingWithin))
		err = conn.Ping(pctx)
		cancel()
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// lockKey is the advisory lock key of name: FNV-1a, 64 bits.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("tttbot lock " + name))
	return int64(h.Sum64())
}
