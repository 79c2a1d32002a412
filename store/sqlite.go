package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// SQLite is a store in one SQLite file, through the pure-Go
// modernc.org/sqlite driver (no cgo). It is safe for concurrent use, and
// several processes may open the same file.
//
// The file is in WAL mode with synchronous=NORMAL: a save that returned is
// durable across a crash of the process, which is what a bot needs (the
// commit has written the WAL to the operating system, which writes it out
// even if the process dies); only a crash of the operating system or a
// power cut can lose the last saves, and the database stays consistent
// even then. FULL would add an fsync to every save. Writes go through one
// connection in IMMEDIATE transactions, so a save never fails with
// SQLITE_BUSY half-way; the writes of concurrent callers share one
// transaction (groupCommit), each undone alone if it fails. Reads use a
// small pool of their own and see one snapshot each.
//
// Each save costs one transaction: an indexed read of the stored row (and
// of its moves when they are not cached), one row update and
// one row per new move; a save that ends a game also updates two player
// rows. Current and Game cost one indexed read when the game's moves are
// cached (the store keeps those of the last 1024 games it used), and one
// more for the moves otherwise. What limits throughput is the one writer:
// transactions are serial, each pays for its statements through
// database/sql and for writing its pages to the WAL; SQLite's checkpoints
// (every walPages pages of WAL) pay the fsyncs. Group commit shares a
// transaction's fixed cost among the saves that wait for it.
//
// The store refuses to write, with ErrUnavailable, once the path no
// longer names the file it opened (deleted, or replaced): saves made then
// would go to a file nobody can open again, and be lost at the next
// start. Each transaction of writes checks it (one stat); so does Ping.
type SQLite struct {
	sqlStore
	writer, reader *stmtCache
	group          *groupCommit
	path           string
	file           os.FileInfo // the database file as opened
	gone           atomic.Bool // the path no longer names file
}

// busyTimeout is how long a connection waits for another process's write
// lock before it gives up with SQLITE_BUSY.
const busyTimeout = 10 * time.Second

// walPages bounds the WAL: 256 pages of 4 kB, 1 MB (SQLite's default is
// 1000 pages). A WAL can only be emptied into the database if the disk
// has room for the database to grow: a large one can fill a small disk
// for good.
const walPages = 256

// cacheKiB bounds each connection's page cache; SQLite's default is 2000
// KiB. Measured (TestSQLiteMemory, 100k games, every guild's boards read):
// with 4 readers, 2000 KiB took the process to 39 MB resident, 512 KiB to
// 25 MB; under a light load the caches stay small either way. Pages
// missing from the cache are read from the operating system's.
const cacheKiB = 512

// readers is the number of connections for reads: enough to read while
// the writer writes, few enough to keep their caches warm.
const readers = 4

// OpenSQLite opens the SQLite database at path, creating the file and its
// parent directory if needed, and brings its schema up to date. It fails
// with an error wrapping ErrTooNew if a newer tttbot migrated the database.
func OpenSQLite(path string, opts ...Option) (*SQLite, error) {
	s, err := openSQLiteWith(path, defaultMemory)
	if err != nil {
		return nil, err
	}
	s.observe = collect(opts).observe
	return s, nil
}

// memoryUse is what a SQLite store may keep in memory beyond the Go heap:
// its connections, each with a page cache of its own.
type memoryUse struct {
	readers  int // connections for reads
	cacheKiB int // the page cache of each connection, at most
}

// defaultMemory: see TestSQLiteMemory for what each costs.
var defaultMemory = memoryUse{readers: readers, cacheKiB: cacheKiB}

func openSQLiteWith(path string, mem memoryUse) (*SQLite, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("store: open sqlite: %w", err)
		}
	}
	dsn := func(extra url.Values) string {
		q := url.Values{
			"_busy_timeout": {fmt.Sprint(busyTimeout.Milliseconds())},
			"_foreign_keys": {"1"},
			"_synchronous":  {"NORMAL"},
			// The WAL is copied into the database once it holds
			// walPages pages, and cut back to that size when it
			// restarts, instead of keeping the largest size it ever had.
			"_pragma": {fmt.Sprintf("wal_autocheckpoint(%d)", walPages), fmt.Sprintf("journal_size_limit(%d)", walPages*4096),
				fmt.Sprintf("cache_size(%d)", -mem.cacheKiB)},
		}
		for k, v := range extra {
			q[k] = v
		}
		return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	}
	wdb, err := openWAL(dsn(url.Values{"_journal_mode": {"WAL"}, "_txlock": {"immediate"}}))
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	// One writer: SQLite allows one write transaction at a time anyway, and
	// queueing in database/sql is cheaper than spinning on the busy lock.
	wdb.SetMaxOpenConns(1)
	writer := &stmtCache{DB: wdb}
	// A WAL left larger than its bound (the disk was full at the last
	// stop, say) is copied into the database and truncated first, when
	// there is room. (Not otherwise: a TRUNCATE checkpoint waits for the
	// readers of other processes.)
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > walPages*4096+64<<10 {
		newGroupCommit(writer).checkpoint(context.Background())
	}
	if err := migrate(context.Background(), sqliteMigrator{writer}); err != nil {
		writer.Close()
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	rdb, err := sql.Open("sqlite", dsn(url.Values{"_query_only": {"1"}}))
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	rdb.SetMaxOpenConns(mem.readers)
	rdb.SetMaxIdleConns(mem.readers)
	reader := &stmtCache{DB: rdb}
	file, err := os.Stat(path)
	if err != nil {
		writer.Close()
		reader.Close()
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	group := newGroupCommit(writer)
	s := &SQLite{writer: writer, reader: reader, group: group, path: path, file: file}
	group.check = s.check
	s.sqlStore = sqlStore{
		read: func(ctx context.Context, fn func(tx) error) error {
			return sqlTx(ctx, reader, &sql.TxOptions{ReadOnly: true}, fn)
		},
		direct: func(ctx context.Context, fn func(tx) error) error {
			return sqlDirect(ctx, reader, fn)
		},
		write:     group.write, // each batch checks the file (s.check)
		later:     group.enqueue,
		localFeed: true,
	}
	return s, nil
}

// Ping checks that the database can be written: the file is the one
// opened, a one-row write commits, and the disk has room for the WAL to
// grow to its bound (a write that fits in the WAL's space already on disk
// succeeds on a full disk while saves fail).
func (s *SQLite) Ping(ctx context.Context) error {
	if err := s.sqlStore.Ping(ctx); err != nil {
		return err
	}
	if free, ok := freeSpace(filepath.Dir(s.path)); ok && free < walPages*4096 {
		return fmt.Errorf("store: ping: the disk of %s is full (%d bytes free)", s.path, free)
	}
	return nil
}

// check returns an error wrapping ErrUnavailable if the path no longer
// names the file the store opened.
func (s *SQLite) check() error {
	if !s.gone.Load() {
		now, err := os.Stat(s.path)
		if err == nil && os.SameFile(now, s.file) {
			return nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("store: sqlite %s: %w", s.path, err) // cannot tell: not for good
		}
		s.gone.Store(true)
	}
	return fmt.Errorf("store: the database file %s was deleted or replaced while open: writes are refused, they would be lost; restore the file and restart: %w", s.path, ErrUnavailable)
}

// openWAL opens the writer and turns on WAL mode. On a brand-new file,
// several processes doing this at once can get SQLITE_BUSY whatever the
// busy timeout: then it tries again, a bounded number of times.
func openWAL(dsn string) (*sql.DB, error) {
	for attempt := 1; ; attempt++ {
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, err
		}
		err = db.Ping()
		if err == nil {
			return db, nil
		}
		db.Close()
		var se *sqlite.Error
		if attempt == 20 || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY {
			return nil, err
		}
		time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
	}
}

// sqlTx runs fn in a transaction of db and commits it if fn returns nil.
func sqlTx(ctx context.Context, db *stmtCache, opts *sql.TxOptions, fn func(tx) error) error {
	t, err := db.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	a := &sqlAdapter{q: t, t: t, c: db}
	err = fn(a)
	if err != nil {
		t.Rollback()
	} else {
		err = t.Commit()
	}
	// Now that the connection is free again, prepare what was missed.
	for _, q := range a.missed {
		db.prepare(ctx, q)
	}
	return err
}

// sqlDirect runs fn on db outside a transaction.
func sqlDirect(ctx context.Context, db *stmtCache, fn func(tx) error) error {
	a := &sqlAdapter{q: db, c: db}
	err := fn(a)
	for _, q := range a.missed {
		db.prepare(ctx, q)
	}
	return err
}

// stmtCache is a database with its prepared statements. Parsing SQL costs
// modernc.org/sqlite about as much as running it, so each query is
// prepared once per connection and reused; a query missing from the cache
// runs unprepared and is prepared after its transaction (not during: the
// writer's one connection is busy then).
type stmtCache struct {
	*sql.DB
	stmts sync.Map // query → *sql.Stmt
	n     atomic.Int32
}

// maxStmts bounds the cache: the package's queries are a few dozen, but
// inserts of many moves at once vary with their number.
const maxStmts = 100

func (c *stmtCache) stmt(query string) *sql.Stmt {
	if s, ok := c.stmts.Load(query); ok {
		return s.(*sql.Stmt)
	}
	return nil
}

func (c *stmtCache) prepare(ctx context.Context, query string) {
	if _, ok := c.stmts.Load(query); ok || c.n.Load() >= maxStmts {
		return
	}
	s, err := c.PrepareContext(ctx, query)
	if err != nil {
		return // it runs unprepared
	}
	if _, loaded := c.stmts.LoadOrStore(query, s); loaded {
		s.Close()
		return
	}
	c.n.Add(1)
}

// Close closes the statements and the database.
func (c *stmtCache) Close() error {
	c.stmts.Range(func(_, s any) bool {
		s.(*sql.Stmt).Close()
		return true
	})
	return c.DB.Close()
}

// sqlAdapter is a database/sql transaction, or a database outside one,
// as a tx.
type sqlAdapter struct {
	q interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	}
	t      *sql.Tx // nil outside a transaction
	c      *stmtCache
	missed []string
	// ctx, when set, runs every statement instead of the context it is
	// given: a transaction shared by several callers must not be rolled
	// back because one of them gave up (see groupCommit).
	ctx context.Context
}

func (a *sqlAdapter) context(ctx context.Context) context.Context {
	if a.ctx != nil {
		return a.ctx
	}
	return ctx
}

func (a *sqlAdapter) stmt(ctx context.Context, query string) *sql.Stmt {
	if s := a.c.stmt(query); s != nil {
		if a.t == nil {
			return s
		}
		return a.t.StmtContext(ctx, s)
	}
	a.missed = append(a.missed, query)
	return nil
}

func (a *sqlAdapter) exec(ctx context.Context, query string, args ...any) (int64, error) {
	ctx = a.context(ctx)
	var r sql.Result
	var err error
	if s := a.stmt(ctx, query); s != nil {
		r, err = s.ExecContext(ctx, args...)
	} else {
		r, err = a.q.ExecContext(ctx, query, args...)
	}
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

func (a *sqlAdapter) query(ctx context.Context, query string, args ...any) (rows, error) {
	ctx = a.context(ctx)
	var r *sql.Rows
	var err error
	if s := a.stmt(ctx, query); s != nil {
		r, err = s.QueryContext(ctx, args...)
	} else {
		r, err = a.q.QueryContext(ctx, query, args...)
	}
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

func (a *sqlAdapter) queryRow(ctx context.Context, query string, args ...any) row {
	ctx = a.context(ctx)
	if s := a.stmt(ctx, query); s != nil {
		return sqlRow{s.QueryRowContext(ctx, args...)}
	}
	return sqlRow{a.q.QueryRowContext(ctx, query, args...)}
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

type sqlRow struct{ *sql.Row }

func (r sqlRow) Scan(dest ...any) error {
	err := r.Row.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return errNoRows
	}
	return err
}

// Close writes what was queued to be written later
// (SettleInteractionLater), then closes the database.
func (s *SQLite) Close() error {
	s.group.idle()
	return errors.Join(s.reader.Close(), s.writer.Close())
}
