package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"

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
// process (or, on PostgreSQL, of its connection). Safe for use by one
// goroutine.
type Lock struct {
	close func() error
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

// LockPostgres takes the lock name in the PostgreSQL database at url: a
// session-level advisory lock (pg_try_advisory_lock, or _shared) keyed
// by a 64-bit hash of name, on a connection of its own that the lock
// holds open. It does not wait: a held lock is ErrLockHeld.
func LockPostgres(ctx context.Context, url, name string, shared bool) (*Lock, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, errors.New("store: lock: cannot parse the database url") // pgx's error may quote the password
	}
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
	return &Lock{close: func() error { return conn.Close(context.Background()) }}, nil
}

// lockKey is the advisory lock key of name: FNV-1a, 64 bits.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("tttbot lock " + name))
	return int64(h.Sum64())
}
