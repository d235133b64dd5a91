// Package database opens the worker's SQLite database, one file under its data directory that
// holds artifacts and jobs, and brings its schema up to date.
//
// # Migrations
//
// The schema is the numbered SQL files in migrations/, embedded in the binary and applied in
// order: 0001_artifacts.sql, 0002_jobs.sql and so on. Open applies those the database has not
// seen, all in one transaction, and records each in schema_migrations; a crash in the middle
// leaves the database as it was. A database that has seen a migration this binary does not know
// was written by a newer hootenanny, and Open refuses it rather than guess.
//
// # Settings
//
// The database runs in WAL mode, so readers never wait for the writer, with synchronous=FULL,
// so a committed transaction survives a crash of the process or the machine; foreign keys are
// enforced; a writer that finds the database locked (by another process sharing the data
// directory) waits up to five seconds; and write transactions take the lock when they begin
// (BEGIN IMMEDIATE), so two of them never deadlock on an upgrade from read to write.
package database

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite" // also registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// FileName is the database's file name in the data directory.
const FileName = "hoot.db"

// A Migration is one numbered step of the schema.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations returns the embedded migrations in order.
func Migrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []Migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("database: migration %q is not named NNNN_name.sql", name)
		}
		b, err := migrationFiles.ReadFile("migrations/" + name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: name, SQL: string(b)})
	}
	slices.SortFunc(ms, func(a, b Migration) int { return a.Version - b.Version })
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("database: migration %s should be number %d: the numbers run from 1 without gaps", m.Name, i+1)
		}
	}
	return ms, nil
}

// Open opens (creating if needed) the database in the file at path and migrates its schema.
func Open(ctx context.Context, path string) (*sql.DB, error) {
	if path == "" {
		return nil, errors.New("database: no path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	q := url.Values{}
	for _, p := range []string{fmt.Sprintf("busy_timeout(%d)", busyWait.Milliseconds()), "journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(1)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+abs+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("database: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	db.SetConnMaxIdleTime(time.Minute)
	if err := Migrate(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Migrate applies the migrations that db has not seen, in one transaction.
func Migrate(ctx context.Context, db *sql.DB) error {
	ms, err := Migrations()
	if err != nil {
		return err
	}
	tx, err := beginMigration(ctx, db)
	if err != nil {
		return fmt.Errorf("database: begin migration: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at INTEGER NOT NULL
	) STRICT`); err != nil {
		return fmt.Errorf("database: create schema_migrations: %w", err)
	}
	var current int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("database: read the schema version: %w", err)
	}
	if current > len(ms) {
		return fmt.Errorf("database: the schema is at version %d, newer than this hootenanny knows (%d): run a newer hootenanny, or another data directory", current, len(ms))
	}
	for _, m := range ms[current:] {
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fmt.Errorf("database: migration %s: %w", m.Name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			m.Version, m.Name, time.Now().UnixNano()); err != nil {
			return fmt.Errorf("database: record migration %s: %w", m.Name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("database: commit migrations: %w", err)
	}
	return nil
}

// busyWait is how long a writer waits for another's lock: the busy timeout, and how long the
// migration's transaction is tried again when SQLite refuses it at once.
const busyWait = 5 * time.Second

// beginMigration begins the migration's transaction. While another connection switches a new
// database file to WAL, SQLite can answer SQLITE_BUSY at once, without waiting for the busy
// timeout (seen when several connections open a new database file at once); such a refusal is tried
// again every few milliseconds for up to busyWait.
func beginMigration(ctx context.Context, db *sql.DB) (*sql.Tx, error) {
	deadline := time.Now().Add(busyWait)
	for {
		tx, err := db.BeginTx(ctx, nil)
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return tx, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Version returns the schema version of db: the number of the last migration applied.
func Version(ctx context.Context, db *sql.DB) (int, error) {
	var v int
	err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}
