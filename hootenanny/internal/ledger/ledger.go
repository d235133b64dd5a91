// Package ledger keeps, in the worker's database, the requestStates that the gateways of a
// fleet accepted: a person's confirmation of a call in MCP 2026-07-28 is a signed state that
// the client sends back, and a gateway records it here, through a worker, before the call runs.
// A state recorded once is refused by every gateway that shares the database's workers, and by
// the same gateway after a restart.
//
// A record is keyed by a digest of the state's id (unique on both engines) and names the
// gateway's attempt to record it, so that a request sent again to another worker after its
// first one was lost finds its own record instead of a replay. Records are removed a while
// after their state expires.
package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
)

// Grace is how long a record is kept after its state expires: a gateway whose clock runs
// behind this worker's still counts the state as live for that long, and must still find it.
const Grace = 10 * time.Minute

// purgeEvery is how often, at most, a store removes expired records, on the next use.
const purgeEvery = time.Minute

// A Store keeps the ledger in a database of either engine.
type Store struct {
	db  *database.DB
	now func() time.Time

	mu        sync.Mutex
	lastPurge time.Time
}

// NewStore returns a Store over db, a database opened with package database.
func NewStore(db *database.DB) *Store { return &Store{db: db, now: time.Now} }

// UseState records that the state named by key, which expires at expires, was accepted by the
// attempt attempt, and reports whether this is its first use. A record of key by another
// attempt makes it a replay (false); a record by the same attempt is this use, recorded before
// (true).
func (s *Store) UseState(ctx context.Context, key, attempt []byte, expires time.Time) (first bool, err error) {
	s.purgeDue(ctx)
	_, err = s.db.ExecContext(ctx, `INSERT INTO used_states (state_key, attempt, expires_at) VALUES (?, ?, ?)`,
		key, attempt, expires.UnixNano())
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, database.ErrDuplicate) {
		return false, fmt.Errorf("ledger: recording a state: %w", err)
	}
	var by []byte
	err = s.db.QueryRowContext(ctx, `SELECT attempt FROM used_states WHERE state_key = ?`, key).Scan(&by)
	if errors.Is(err, sql.ErrNoRows) {
		// Removed between the two statements: only a record long past its state's expiry is,
		// and such a state is refused as expired anyway.
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("ledger: reading a state's record: %w", err)
	}
	return bytes.Equal(by, attempt), nil
}

// Purge removes the records whose state expired more than Grace ago and returns how many.
func (s *Store) Purge(ctx context.Context) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM used_states WHERE expires_at < ?`, s.now().Add(-Grace).UnixNano())
	if err != nil {
		return 0, fmt.Errorf("ledger: removing expired records: %w", err)
	}
	return res.RowsAffected()
}

// purgeDue purges when the last purge is purgeEvery ago. A failed purge is left for the next
// use: the record of this use matters, the removal of old ones can wait.
func (s *Store) purgeDue(ctx context.Context) {
	s.mu.Lock()
	now := s.now()
	due := now.Sub(s.lastPurge) >= purgeEvery
	if due {
		s.lastPurge = now
	}
	s.mu.Unlock()
	if due {
		_, _ = s.Purge(ctx)
	}
}

// SetClock makes the store read the time from now: for tests of expiry.
func (s *Store) SetClock(now func() time.Time) { s.now = now }
