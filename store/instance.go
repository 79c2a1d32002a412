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
	pg    *pgLock       // a PostgreSQL lock's session; nil for SQLite
}

// pgLock is what a PostgreSQL lock is, and the server session that took
// it: TakeAgain knows that session's lock for its own.
type pgLock struct {
	name   string
	shared bool
	every  time.Duration
	pid    uint32    // the session's server process
	start  time.Time // its backend_start: a pid may be reused, this pair not
}

// Close lets the lock go: once it returns nil, another holder can take
// it at once (a PostgreSQL lock is let go on its connection, the server's
// answer awaited, before the connection is closed). An error means that
// the server did not say so: it lets the lock go when it ends the
// session. Close may be called more than once.
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
	return lockPostgres(ctx, url, &pgLock{name: name, shared: shared, every: every}, nil)
}

// TakeAgain takes a lost PostgreSQL lock again on a new connection, as
// LockPostgres would with the same name, kind and check. The server may
// not have let the lost lock go yet: a terminated backend tells its
// client before it releases its locks, and a session whose connection
// went silent is kept until TCP keepalive ends it, which can take hours.
// So when the lock is held, and held by the session that took l and by
// no other, that session is terminated (pg_terminate_backend), its lock
// waited for, and the lock taken. ErrLockHeld means that another session
// (another process) holds it. l is not changed.
func (l *Lock) TakeAgain(ctx context.Context, url string) (*Lock, error) {
	if l == nil || l.pg == nil {
		return nil, errors.New("store: lock: only a PostgreSQL lock can be taken again")
	}
	p := *l.pg
	p.pid, p.start = 0, time.Time{}
	return lockPostgres(ctx, url, &p, l.pg)
}

// lockPostgres takes the lock p on a new connection to url and records
// the connection's session in p. Unless old is nil, a lock held by old's
// session alone is taken from it.
func lockPostgres(ctx context.Context, url string, p *pgLock, old *pgLock) (*Lock, error) {
	name := p.name
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
	if p.shared {
		fn += "_shared"
	}
	for round := 0; ; round++ {
		var got bool
		err := conn.QueryRow(ctx, "SELECT "+fn+"($1), pg_backend_pid(), (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid())",
			lockKey(name)).Scan(&got, &p.pid, &p.start)
		if err != nil {
			conn.Close(context.Background())
			return nil, fmt.Errorf("store: lock %s: %w", name, err)
		}
		if got {
			break
		}
		if old == nil || round >= 3 {
			conn.Close(context.Background())
			return nil, fmt.Errorf("%w: %s", ErrLockHeld, name)
		}
		if err := endOldSession(ctx, conn, p, old); err != nil {
			conn.Close(context.Background())
			return nil, err
		}
	}
	l := &Lock{lost: make(chan struct{}), pg: p}
	wctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		err := watchConn(wctx, conn, p.every)
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
		select {
		case <-l.lost: // the connection is gone, and the lock with it
			return nil
		default:
		}
		return unlockAndClose(conn, p)
	}
	return l, nil
}

// unlockAndClose lets the lock p go on its connection conn, waiting for
// the server's answer, then closes conn. Closing the connection alone
// would not do: the client sends Terminate and is done, while the
// server's process lets its locks go only as it exits, a moment (under
// load, many) later, and a taker meanwhile would find the lock held.
// A server that does not answer within lockPingWithin is an error: the
// lock may then be held until the server ends the session.
func unlockAndClose(conn *pgx.Conn, p *pgLock) error {
	fn := "pg_advisory_unlock"
	if p.shared {
		fn += "_shared"
	}
	ctx, cancel := context.WithTimeout(context.Background(), lockPingWithin)
	defer cancel()
	var unlocked bool
	err := conn.QueryRow(ctx, "SELECT "+fn+"($1)", lockKey(p.name)).Scan(&unlocked)
	cerr := conn.Close(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("store: lock %s: let it go: %w (the server lets it go when it ends the session)", p.name, err)
	case !unlocked:
		return fmt.Errorf("store: lock %s: let it go: the session did not hold it", p.name)
	}
	return cerr
}

// endOldSession is called when conn could not take the lock p: if the
// sessions that hold it in a way that excludes p are the session old
// alone, it terminates old's and waits until its lock is let go (nil:
// try again); if another session holds it, it is ErrLockHeld.
func endOldSession(ctx context.Context, conn *pgx.Conn, p, old *pgLock) error {
	key := uint64(lockKey(p.name))
	// An advisory lock on one bigint is classid (its high half), objid
	// (its low half) and objsubid 1 in pg_locks; a shared one excludes
	// only exclusive holders.
	const holders = `SELECT l.pid, a.backend_start FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND l.classid::int8 = $1 AND l.objid::int8 = $2 AND l.objsubid = 1 AND l.granted
		AND (NOT $3 OR l.mode = 'ExclusiveLock')`
	var others []uint32 // the server processes of other sessions that hold it
	ours := func() (oursOnly, held bool, err error) {
		rows, err := conn.Query(ctx, holders, int64(key>>32), int64(key&0xffffffff), p.shared)
		if err != nil {
			return false, false, err
		}
		defer rows.Close()
		others = others[:0]
		for rows.Next() {
			var pid uint32
			var start *time.Time
			if err := rows.Scan(&pid, &start); err != nil {
				return false, false, err
			}
			held = true
			// A backend on its way out may have left pg_stat_activity
			// before it lets its locks go.
			if pid != old.pid || (start != nil && !start.Equal(old.start)) {
				others = append(others, pid)
			}
		}
		return len(others) == 0, held, rows.Err()
	}
	heldElsewhere := func() error {
		return fmt.Errorf("%w: %s (by the session of server process %v)", ErrLockHeld, p.name, others)
	}
	oursOnly, held, err := ours()
	switch {
	case err != nil:
		return fmt.Errorf("store: lock %s: who holds it: %w", p.name, err)
	case !held: // let go meanwhile
		return nil
	case !oursOnly:
		return heldElsewhere()
	}
	var ended bool
	if err := conn.QueryRow(ctx, "SELECT pg_terminate_backend($1)", int32(old.pid)).Scan(&ended); err != nil {
		return fmt.Errorf("store: lock %s: end this process's old session (server process %d), which still holds it: %w", p.name, old.pid, err)
	}
	for {
		oursOnly, held, err := ours()
		switch {
		case err != nil:
			return fmt.Errorf("store: lock %s: who holds it: %w", p.name, err)
		case !held:
			return nil
		case !oursOnly:
			return heldElsewhere()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("store: lock %s: this process's old session (server process %d) still holds it: %w", p.name, old.pid, ctx.Err())
		case <-time.After(10 * time.Millisecond): // polling the old session's end
		}
	}
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
		// A ping cut off by Close would close the connection without
		// waiting, and the server would let the lock go only a moment
		// later: Close lets it finish (or time out), for lockPingWithin
		// at most.
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), max(every, lockPingWithin))
		closing := context.AfterFunc(ctx, func() { time.AfterFunc(lockPingWithin, cancel) })
		err = conn.Ping(pctx)
		closing()
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
