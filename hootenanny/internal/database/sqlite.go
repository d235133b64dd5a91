package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	"modernc.org/sqlite" // also registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// openSQLite opens (creating if needed) the SQLite database in the file at path.
func openSQLite(path string) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	q := url.Values{}
	// The log is checkpointed by the DB's checkpointer, not in a commit (see checkpointer).
	// Temporary storage is memory: the savepoints of grouped writes (see committer) keep
	// the pages they change in a journal of their own, written to a temporary file
	// otherwise, a write(2) per page.
	for _, p := range []string{fmt.Sprintf("busy_timeout(%d)", busyWait.Milliseconds()), "journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(1)",
		"wal_autocheckpoint(0)", fmt.Sprintf("journal_size_limit(%d)", walSizeLimit), "temp_store(MEMORY)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+abs+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("database: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	db.SetConnMaxIdleTime(time.Minute)
	return &DB{db: db, engine: SQLite, path: abs}, nil
}

// busyWait is how long a writer waits for another's lock: the busy timeout, and how long the
// migration's transaction is tried again when SQLite refuses it at once.
const busyWait = 5 * time.Second

// beginSQLiteMigration begins the migration's transaction. While another connection switches a
// new database file to WAL, SQLite can answer SQLITE_BUSY at once, without waiting for the busy
// timeout (seen when several connections open a new database file at once); such a refusal is
// tried again every few milliseconds for up to busyWait.
func beginSQLiteMigration(ctx context.Context, db *sql.DB) (*sql.Tx, error) {
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

// sqliteKind returns ErrDuplicate for a unique key's refusal, and nil for other errors.
func sqliteKind(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return ErrDuplicate
		}
	}
	return nil
}
