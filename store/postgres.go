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
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres is a store in a PostgreSQL database, for several bot processes
// sharing one database. It is safe for concurrent use.
//
// A save is one READ COMMITTED transaction that locks the game's row
// (SELECT … FOR UPDATE), then updates it only if its version is still the
// one read (UPDATE … WHERE id = $1 AND version = $2); a save that ends a
// game locks its players' rows in user id order, so two games ending at
// once neither lose an update nor deadlock. Reads are REPEATABLE READ, READ
// ONLY: a game and its moves come from one snapshot.
type Postgres struct {
	sqlStore
	pool *pgxpool.Pool
	live pgListener // the change feed's listening connection (feed_postgres.go)
}

// OpenPostgres connects to the PostgreSQL database at url (a postgres://
// URL or a key=value connection string, as libpq takes) and brings its
// schema up to date. Parameters such as search_path in the URL are passed
// to the server. It fails with an error wrapping ErrTooNew if a newer
// tttbot migrated the database.
//
// ctx's deadline bounds connecting (a server that never answers fails
// then), not the migrations that follow: on a big database they can take
// longer, or wait for another process's, and giving up half way would only
// make the next start do it again. Cancelling ctx stops them.
func OpenPostgres(ctx context.Context, url string, opts ...Option) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's parse errors can quote the URL, password included.
		return nil, errors.New("store: open postgres: cannot parse the database url")
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	p := newPostgres(pool)
	p.observe = collect(opts).observe
	mctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	unwatch := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			stop()
		}
	})
	defer unwatch()
	if err := migrate(mctx, pgMigrator{pool}); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	return p, nil
}

// newPostgres is the store over a pool of a migrated database.
func newPostgres(pool *pgxpool.Pool) *Postgres {
	p := &Postgres{pool: pool}
	p.sqlStore = sqlStore{
		read: func(ctx context.Context, fn func(tx) error) error {
			return pgTx(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
		},
		direct: func(ctx context.Context, fn func(tx) error) error {
			return fn(pgAdapter{pool})
		},
		write: func(ctx context.Context, fn func(tx) error) error {
			return pgTx(ctx, pool, pgx.TxOptions{}, fn)
		},
		writeOne: func(ctx context.Context, fn func(tx) error) error {
			return pgOne(ctx, pool, fn)
		},
		forUpdate:   " FOR UPDATE",
		lockChannel: channelLock,
		nullsLast:   " NULLS LAST",
		arrays:      true,
		xactID:      "txid_current()::text",
		settled: func(ctx context.Context, err error) error {
			var cu *commitUnknown
			if !errors.As(err, &cu) {
				return err
			}
			return p.settled(ctx, cu)
		},
	}
	return p
}

// pgTx runs fn in a transaction and commits it if fn returns nil.
func pgTx(ctx context.Context, pool *pgxpool.Pool, opts pgx.TxOptions, fn func(tx) error) error {
	t, err := pool.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	if err := fn(pgAdapter{t}); err != nil {
		t.Rollback(context.WithoutCancel(ctx))
		return err
	}
	pid := t.Conn().PgConn().PID()
	err = t.Commit(ctx)
	var pgErr *pgconn.PgError
	if err == nil || errors.As(err, &pgErr) || pgconn.SafeToRetry(err) || opts.AccessMode == pgx.ReadOnly {
		// Committed; or the server answered that it rolled back; or
		// COMMIT was never sent, and the transaction dies with its
		// connection; or it only read, and changed nothing either way.
		return err
	}
	// COMMIT was sent and no answer came back (the context ended, the
	// connection broke): the server may have committed.
	return &commitUnknown{pid: pid, err: err}
}

// pgOne runs fn, which makes one write statement, on a connection of
// pool outside an explicit transaction: the statement commits alone, in
// one round trip. A statement sent whose answer never came may have
// committed: its error wraps ErrOutcomeUnknown.
func pgOne(ctx context.Context, pool *pgxpool.Pool, fn func(tx) error) error {
	err := fn(pgAdapter{pool})
	var pgErr *pgconn.PgError
	if err == nil || errors.As(err, &pgErr) || pgconn.SafeToRetry(err) {
		return err
	}
	return fmt.Errorf("store: statement sent, no answer: %w: %w", ErrOutcomeUnknown, err)
}

// commitUnknown is a COMMIT sent without an answer: it wraps
// ErrOutcomeUnknown and the error that cut the answer off.
type commitUnknown struct {
	pid uint32 // the server process of the transaction
	err error
}

func (e *commitUnknown) Error() string {
	return "store: commit sent, no answer: " + e.err.Error()
}

func (e *commitUnknown) Unwrap() []error { return []error{ErrOutcomeUnknown, e.err} }

// settled waits until the transaction whose COMMIT went unanswered is
// over, one way or the other: its server process has gone (pgx closes a
// connection whose commit it gave up on, and the server then ends the
// session, after a COMMIT it had already received), or waits idle for its
// next command. After settled returns nil, reading the database tells the
// outcome. It does not terminate the process: its id may have been
// reused by another session since.
func (p *Postgres) settled(ctx context.Context, cu *commitUnknown) error {
	for {
		var state string
		err := p.pool.QueryRow(ctx, `SELECT coalesce(state, '') FROM pg_stat_activity WHERE pid = $1`, int32(cu.pid)).Scan(&state)
		switch {
		case errors.Is(err, pgx.ErrNoRows), err == nil && state == "idle":
			return nil
		case err != nil:
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond): // polling the server process's state
		}
	}
}

// pgMigrator serialises migrations with a transaction-scoped advisory
// lock: it is released by the commit or rollback, so a crashed process
// cannot leave it held.
type pgMigrator struct{ pool *pgxpool.Pool }

func (pgMigrator) dialect() string { return "postgres" }

// migrationLock is the advisory lock key: "tttbot" in ASCII.
const migrationLock = 0x747474626f74

func (m pgMigrator) locked(ctx context.Context, fn func(tx) error) error {
	return pgTx(ctx, m.pool, pgx.TxOptions{}, func(t tx) error {
		if _, err := t.exec(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(migrationLock)); err != nil {
			return err
		}
		return fn(t)
	})
}

// pgAdapter is a pgx transaction, or the pool outside one, as a tx.
type pgAdapter struct {
	t interface {
		Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
		Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
		QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	}
}

func (a pgAdapter) exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := a.t.Exec(ctx, rebind(query), args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (a pgAdapter) query(ctx context.Context, query string, args ...any) (rows, error) {
	return a.t.Query(ctx, rebind(query), args...)
}

func (a pgAdapter) queryRow(ctx context.Context, query string, args ...any) row {
	return pgRow{a.t.QueryRow(ctx, rebind(query), args...)}
}

type pgRow struct{ pgx.Row }

func (r pgRow) Scan(dest ...any) error {
	err := r.Row.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return errNoRows
	}
	return err
}

// rebound caches rebind's results: the queries are a small fixed set.
var rebound sync.Map // string → string

// rebind turns the ? placeholders of query into PostgreSQL's $1, $2, … .
// The queries of this package have no ? in literals or comments.
func rebind(query string) string {
	if q, ok := rebound.Load(query); ok {
		return q.(string)
	}
	var b strings.Builder
	n := 0
	for _, part := range strings.Split(query, "?") {
		if n > 0 {
			b.WriteString("$" + strconv.Itoa(n))
		}
		b.WriteString(part)
		n++
	}
	q := b.String()
	rebound.Store(query, q)
	return q
}

// Close closes the connection pool, waiting for connections in use.
func (p *Postgres) Close() error {
	p.stopListening()
	p.pool.Close()
	return nil
}
