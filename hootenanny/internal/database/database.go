// Package database opens the worker's database, which holds artifacts and jobs, and brings its
// schema up to date. It speaks to one of two engines, chosen by the target given to [Open]: a
// SQLite file (the default, one file under the data directory) or a PostgreSQL server (for a
// fleet of workers on several machines).
//
// The stores (packages artifacts and jobs) write their SQL once, with ? placeholders, in the
// part of SQL both engines share; a [DB] rewrites the placeholders for PostgreSQL, runs write
// transactions as each engine needs, and turns each engine's errors into [ErrUnavailable] and
// [ErrDuplicate], so that no store needs to know which engine it talks to.
//
// # Migrations
//
// The schema is the numbered SQL files in migrations/sqlite and migrations/postgres, embedded
// in the binary and applied in order: 0001_artifacts.sql, 0002_jobs.sql and so on; both engines
// have the same steps under the same names. Open applies those the database has not seen, all
// in one transaction, and records each in schema_migrations; a crash in the middle leaves the
// database as it was. A database that has seen a migration this binary does not know was
// written by a newer hootenanny, and Open refuses it rather than guess. On PostgreSQL the
// transaction first takes an advisory lock, so of several workers starting at once one
// migrates and the others then find nothing left to do.
//
// # SQLite
//
// The database runs in WAL mode, so readers never wait for the writer, with synchronous=FULL,
// so a committed transaction survives a crash of the process or the machine; foreign keys are
// enforced; a writer that finds the database locked (by another process sharing the data
// directory) waits up to five seconds; and write transactions take the lock when they begin
// (BEGIN IMMEDIATE), so two of them never deadlock on an upgrade from read to write.
//
// # PostgreSQL
//
// Write transactions run SERIALIZABLE, so they keep the meaning they have on SQLite, where
// writers take turns; one that PostgreSQL aborts for a conflict with another is run again, a few
// times at most. Times are Unix nanoseconds in BIGINT columns and blobs are BYTEA, as the
// stores read them on SQLite. A server that cannot be reached, or that ends the connection,
// gives errors that match [ErrUnavailable]; the connection pool opens new connections when it
// is back.
package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// FileName is the database's file name in the data directory.
const FileName = "hoot.db"

// An Engine is a kind of database server.
type Engine int

// The engines.
const (
	SQLite Engine = iota + 1
	Postgres
)

// String returns the engine's name in lowercase: "sqlite" or "postgres".
func (e Engine) String() string {
	switch e {
	case SQLite:
		return "sqlite"
	case Postgres:
		return "postgres"
	}
	return fmt.Sprintf("engine_%d", int(e))
}

// Forms says in words which targets [Open] takes.
const Forms = "a SQLite file path (such as /var/lib/hootenanny/hoot.db) or a PostgreSQL URL " +
	"(postgres://USER:PASSWORD@HOST:PORT/DBNAME?sslmode=disable; postgresql:// also works)"

// EngineOf returns the engine that target names: PostgreSQL for a postgres:// or postgresql://
// URL, SQLite for a file path. Any other URL, and an empty target, is an error that says which
// forms are accepted.
func EngineOf(target string) (Engine, error) {
	if target == "" {
		return 0, fmt.Errorf("database: no database given; give %s", Forms)
	}
	scheme, _, hasScheme := strings.Cut(target, "://")
	switch {
	case !hasScheme:
		if strings.HasPrefix(target, "postgres:") || strings.HasPrefix(target, "postgresql:") {
			return 0, fmt.Errorf("database: a PostgreSQL URL starts with postgres:// (or postgresql://); give %s", Forms)
		}
		return SQLite, nil
	case strings.EqualFold(scheme, "postgres") || strings.EqualFold(scheme, "postgresql"):
		return Postgres, nil
	}
	return 0, fmt.Errorf("database: %s:// is not a database this hootenanny speaks; give %s", scheme, Forms)
}

// A DB is an open database of either engine. It is safe for concurrent use.
type DB struct {
	db     *sql.DB
	engine Engine
	path   string // the SQLite file
	hook   QueryHook
	// writes groups the transactions of concurrent callers of Write (see committer).
	writes *committer
	// ckpt checkpoints SQLite's write-ahead log off the commit path (see checkpointer); nil
	// on PostgreSQL.
	ckpt *checkpointer
}

// Open opens the database that target names, a SQLite file path (created if needed) or a
// PostgreSQL URL (whose database must exist), and migrates its schema.
func Open(ctx context.Context, target string) (*DB, error) {
	engine, err := EngineOf(target)
	if err != nil {
		return nil, err
	}
	var db *DB
	switch engine {
	case SQLite:
		db, err = openSQLite(target)
	case Postgres:
		db, err = openPostgres(target)
	}
	if err != nil {
		return nil, err
	}
	if err := Migrate(ctx, db); err != nil {
		db.db.Close()
		return nil, err
	}
	if engine == SQLite {
		db.ckpt = newCheckpointer(db)
	}
	db.writes = newCommitter(db)
	return db, nil
}

// Engine returns the engine db talks to.
func (db *DB) Engine() Engine { return db.engine }

// SQL returns the database/sql handle, for statements written for db's engine alone.
func (db *DB) SQL() *sql.DB { return db.db }

// Close closes the database, once the writes under way are done.
func (db *DB) Close() error {
	if db.writes != nil {
		db.writes.close()
	}
	if db.ckpt != nil {
		db.ckpt.close()
	}
	return db.db.Close()
}

// Size returns how many bytes the database takes: the file and its write-ahead log on SQLite,
// the database on the server on PostgreSQL.
func (db *DB) Size(ctx context.Context) (int64, error) {
	if db.engine == Postgres {
		var n int64
		err := db.QueryRowContext(ctx, `SELECT pg_database_size(current_database())`).Scan(&n)
		return n, err
	}
	var n int64
	for _, suffix := range []string{"", "-wal"} {
		if info, err := os.Stat(db.path + suffix); err == nil {
			n += info.Size()
		}
	}
	return n, nil
}

// QueryContext runs a query written with ? placeholders.
func (db *DB) QueryContext(ctx context.Context, query string, args ...any) (*Rows, error) {
	ctx, end := db.observe(ctx, "query", query)
	rows, err := db.db.QueryContext(ctx, db.rebind(query), args...)
	end(db.classify(err))
	if err != nil {
		return nil, db.classify(err)
	}
	return &Rows{Rows: rows, db: db}, nil
}

// QueryRowContext runs a query written with ? placeholders that returns at most one row.
func (db *DB) QueryRowContext(ctx context.Context, query string, args ...any) *Row {
	ctx, end := db.observe(ctx, "query", query)
	row := db.db.QueryRowContext(ctx, db.rebind(query), args...)
	end(db.classify(row.Err()))
	return &Row{row: row, db: db}
}

// ExecContext runs a statement written with ? placeholders.
func (db *DB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx, end := db.observe(ctx, "exec", query)
	res, err := db.db.ExecContext(ctx, db.rebind(query), args...)
	end(db.classify(err))
	return res, db.classify(err)
}

// Write runs fn in a write transaction and commits it when fn returns nil; anything fn wrote is
// undone when it returns an error, which Write returns. Write returns once the commit is
// durable.
//
// The writes of concurrent callers share transactions (see committer): fn runs in a
// transaction that may carry other callers' writes before and after it, and sees what those
// before it wrote, as if they had run one after another; when it fails, only what it wrote is
// undone. Its statements run in the transaction's context, not ctx: ctx only decides whether
// fn runs at all. fn may run more than once: a transaction in which another caller's work
// failed is run again, and on PostgreSQL one that conflicts with another transaction (see the
// package doc), so fn must not keep what it did in one run for the next. fn must not call
// Write itself.
func (db *DB) Write(ctx context.Context, fn func(*Tx) error) (err error) {
	ctx, end := db.observe(ctx, "transaction", "")
	defer func() { end(err) }()
	if db.writes == nil {
		// A DB still migrating: no committer yet.
		return db.transaction(ctx, nil, fn)
	}
	return db.writes.do(ctx, fn)
}

func (db *DB) writeOnce(ctx context.Context, opts *sql.TxOptions, took *time.Duration, fn func(*Tx) error) error {
	tx, err := db.db.BeginTx(ctx, opts)
	if err != nil {
		return db.classify(err)
	}
	defer tx.Rollback()
	if err := fn(&Tx{run: tx, db: db, spanCtx: ctx, stmtCtx: ctx}); err != nil {
		return err
	}
	t0 := time.Now()
	if err := tx.Commit(); err != nil {
		return db.classify(err)
	}
	if took != nil {
		*took = time.Since(t0)
	}
	if db.ckpt != nil {
		db.ckpt.committed()
	}
	return nil
}

// A Tx is a transaction that [DB.Write] runs.
type Tx struct {
	// run runs the statements: a *sql.Tx, or on SQLite the committer's connection, inside the
	// transaction it began (see sqliteWriter).
	run statements
	db  *DB
	// spanCtx is the context Write ran the transaction in: its statements are told to the
	// QueryHook in it, as the children of the transaction's span, whatever context the
	// store runs them in.
	spanCtx context.Context
	// stmtCtx is the context the statements run in, whatever context the store passes: the
	// transaction's, which no single caller of a shared transaction may cut short.
	stmtCtx context.Context
}

// QueryContext runs a query written with ? placeholders in the transaction, in the
// transaction's context (see [DB.Write]); ctx is not used.
func (tx *Tx) QueryContext(ctx context.Context, query string, args ...any) (*Rows, error) {
	_, end := tx.db.observe(tx.spanCtx, "query", query)
	rows, err := tx.run.QueryContext(tx.stmtCtx, tx.db.rebind(query), args...)
	end(tx.db.classify(err))
	if err != nil {
		return nil, tx.db.classify(err)
	}
	return &Rows{Rows: rows, db: tx.db}, nil
}

// QueryRowContext runs a query written with ? placeholders that returns at most one row, in
// the transaction, in its context; ctx is not used.
func (tx *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *Row {
	_, end := tx.db.observe(tx.spanCtx, "query", query)
	row := tx.run.QueryRowContext(tx.stmtCtx, tx.db.rebind(query), args...)
	end(tx.db.classify(row.Err()))
	return &Row{row: row, db: tx.db}
}

// ExecContext runs a statement written with ? placeholders in the transaction, in its
// context; ctx is not used.
func (tx *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	_, end := tx.db.observe(tx.spanCtx, "exec", query)
	res, err := tx.run.ExecContext(tx.stmtCtx, tx.db.rebind(query), args...)
	end(tx.db.classify(err))
	return res, tx.db.classify(err)
}

// statements runs statements in a transaction.
type statements interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Rows are the rows of a query; their errors match [ErrUnavailable] and [ErrDuplicate] as the
// DB's do.
type Rows struct {
	*sql.Rows
	db *DB
}

// Scan copies the current row's columns into dest.
func (r *Rows) Scan(dest ...any) error { return r.db.classify(r.Rows.Scan(dest...)) }

// Err returns the error that ended the rows, if any.
func (r *Rows) Err() error { return r.db.classify(r.Rows.Err()) }

// A Row is the result of [DB.QueryRowContext].
type Row struct {
	row *sql.Row
	db  *DB
}

// Scan copies the row's columns into dest; with no row it returns [sql.ErrNoRows].
func (r *Row) Scan(dest ...any) error { return r.db.classify(r.row.Scan(dest...)) }

// rebind returns query with its ? placeholders written as db's engine wants them: as they are
// for SQLite, $1, $2... for PostgreSQL. A ? inside a quoted string or identifier is left alone.
func (db *DB) rebind(query string) string {
	if db.engine != Postgres || !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	var quote byte
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// classify returns err marked with [ErrUnavailable] or [ErrDuplicate] when it is one of those
// for db's engine, and err itself otherwise.
func (db *DB) classify(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) || errors.Is(err, ErrDuplicate) {
		return err
	}
	var kind error
	switch db.engine {
	case SQLite:
		kind = sqliteKind(err)
	case Postgres:
		kind = postgresKind(err)
	}
	if kind == nil {
		return err
	}
	return &classified{kind: kind, err: err}
}
