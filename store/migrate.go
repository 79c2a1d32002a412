package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"
)

// The schema lives in numbered files, one directory per database:
// migrations/sqlite/0001_init.sql, migrations/postgres/0001_init.sql, … .
// A file, once released, never changes; a change of schema is a new file.
//
//go:embed migrations
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the dialect's migrations in order of version.
func migrations(dialect string) ([]migration, error) {
	dir := path.Join("migrations", dialect)
	entries, err := fs.ReadDir(migrationFiles, dir)
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries { // ReadDir sorts by name
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(e.Name(), ".sql") || v != len(out)+1 {
			return nil, fmt.Errorf("migration %s/%s: want %04d_name.sql", dir, e.Name(), len(out)+1)
		}
		text, err := fs.ReadFile(migrationFiles, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(text)})
	}
	return out, nil
}

// migrator is what the runner needs of a database: a transaction that no
// other migrator can run at the same time.
type migrator interface {
	dialect() string
	// locked runs fn in one transaction that excludes every other
	// migrator of the same database until it commits.
	locked(ctx context.Context, fn func(tx) error) error
}

// migrate brings the database's schema up to date: in one transaction,
// under a lock, it applies the migrations newer than the version recorded
// in schema_migrations and records them. Several processes may start at
// once: one applies, the others then find nothing to do. A database whose
// recorded version is newer than this program knows fails with ErrTooNew,
// untouched.
func migrate(ctx context.Context, m migrator) error {
	all, err := migrations(m.dialect())
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	err = m.locked(ctx, func(t tx) error {
		if _, err := t.exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY,
			name TEXT NOT NULL,
			applied_at BIGINT NOT NULL -- microseconds since the Unix epoch
		)`); err != nil {
			return err
		}
		var current int
		if err := t.queryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
			return err
		}
		if current > len(all) {
			return fmt.Errorf("database schema version %d is newer than this tttbot (knows up to %d): upgrade tttbot: %w", current, len(all), ErrTooNew)
		}
		for _, mg := range all[current:] {
			if _, err := t.exec(ctx, mg.sql); err != nil {
				return fmt.Errorf("%s: %w", mg.name, err)
			}
			if _, err := t.exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				mg.version, mg.name, time.Now().UnixMicro()); err != nil {
				return fmt.Errorf("%s: %w", mg.name, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// sqliteMigrator locks with BEGIN IMMEDIATE: the writer's transactions
// take SQLite's write lock when they begin.
type sqliteMigrator struct{ db *stmtCache }

func (sqliteMigrator) dialect() string { return "sqlite" }

func (m sqliteMigrator) locked(ctx context.Context, fn func(tx) error) error {
	return sqlTx(ctx, m.db, nil, fn)
}
