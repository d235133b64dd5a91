package database

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFiles embed.FS

// A Migration is one numbered step of the schema.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations returns the embedded migrations of engine in order.
func Migrations(engine Engine) ([]Migration, error) {
	dir := "migrations/" + engine.String()
	entries, err := fs.ReadDir(migrationFiles, dir)
	if err != nil {
		return nil, fmt.Errorf("database: no migrations for %v: %w", engine, err)
	}
	var ms []Migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("database: migration %s/%s is not named NNNN_name.sql", dir, name)
		}
		b, err := migrationFiles.ReadFile(dir + "/" + name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: name, SQL: string(b)})
	}
	slices.SortFunc(ms, func(a, b Migration) int { return a.Version - b.Version })
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("database: migration %s/%s should be number %d: the numbers run from 1 without gaps", dir, m.Name, i+1)
		}
	}
	return ms, nil
}

// schemaMigrations creates the table that records the migrations applied, on each engine.
var schemaMigrations = map[Engine]string{
	SQLite: `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at INTEGER NOT NULL
	) STRICT`,
	Postgres: `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at BIGINT NOT NULL
	)`,
}

// Migrate applies the migrations that db has not seen, in one transaction.
func Migrate(ctx context.Context, db *DB) error {
	ms, err := Migrations(db.engine)
	if err != nil {
		return err
	}
	var tx *sql.Tx
	if db.engine == SQLite {
		tx, err = beginSQLiteMigration(ctx, db.db)
	} else {
		tx, err = db.db.BeginTx(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("database: begin migration: %w", db.classify(err))
	}
	defer tx.Rollback()
	if db.engine == Postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
			return fmt.Errorf("database: lock for migration: %w", db.classify(err))
		}
	}
	if _, err := tx.ExecContext(ctx, schemaMigrations[db.engine]); err != nil {
		return fmt.Errorf("database: create schema_migrations: %w", db.classify(err))
	}
	var current int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("database: read the schema version: %w", db.classify(err))
	}
	if current > len(ms) {
		return fmt.Errorf("database: the schema is at version %d, newer than this hootenanny knows (%d): run a newer hootenanny, or another database", current, len(ms))
	}
	for _, m := range ms[current:] {
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fmt.Errorf("database: migration %s: %w", m.Name, db.classify(err))
		}
		if _, err := tx.ExecContext(ctx, db.rebind(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
			m.Version, m.Name, time.Now().UnixNano()); err != nil {
			return fmt.Errorf("database: record migration %s: %w", m.Name, db.classify(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("database: commit migrations: %w", db.classify(err))
	}
	return nil
}

// Version returns the schema version of db: the number of the last migration applied.
func Version(ctx context.Context, db *DB) (int, error) {
	var v int
	err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}
