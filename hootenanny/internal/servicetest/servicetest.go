// Package servicetest holds what the tests of the worker's services and stores share: a fresh
// database of either engine and the check that an error teaches (code, field, message and a
// hint).
package servicetest

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/pgtest"
	"github.com/hootenanny/hoot/hooteproto"
)

// Database opens a new SQLite database in a temporary directory, closed when the test ends, and
// returns it with its path.
func Database(t testing.TB) (*database.DB, string) {
	t.Helper()
	return OpenDatabase(t, database.SQLite)
}

// OpenDatabase opens a new, migrated database of the engine, closed when the test ends, and
// returns it with the target that opens it again: a file in a temporary directory for SQLite, a
// database of its own on the test server for PostgreSQL (see package pgtest: without a server
// the test is skipped, or fails when the fleet tests are required).
func OpenDatabase(t testing.TB, engine database.Engine) (*database.DB, string) {
	t.Helper()
	var target string
	switch engine {
	case database.SQLite:
		target = filepath.Join(t.TempDir(), database.FileName)
	case database.Postgres:
		target = pgtest.Database(t)
	default:
		t.Fatalf("no test database for engine %v", engine)
	}
	db, err := database.Open(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, target
}

// Engines are the engines that [EachEngine] runs a suite against.
var Engines = []database.Engine{database.SQLite, database.Postgres}

// EachEngine runs fn as a parallel subtest named for each engine, so that one suite checks
// that every engine keeps the same contract. The PostgreSQL subtest is skipped as a whole when
// there is no test server (or fails, when the fleet tests are required).
func EachEngine(t *testing.T, fn func(t *testing.T, engine database.Engine)) {
	t.Helper()
	for _, e := range Engines {
		t.Run(e.String(), func(t *testing.T) {
			t.Parallel()
			if e == database.Postgres {
				pgtest.URL(t)
			}
			fn(t, e)
		})
	}
}

// CuttableDatabase opens a new PostgreSQL database through a [pgtest.Proxy], closed when the
// test ends, so that the test can make the server go away (Cut) and come back (Restore).
func CuttableDatabase(t testing.TB) (*database.DB, *pgtest.Proxy) {
	t.Helper()
	p, target := pgtest.NewProxy(t, pgtest.Database(t))
	db, err := database.Open(context.Background(), target+"&connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, p
}

// WantUnavailable fails the test unless err is a retryable *hooteproto.Error of code
// unavailable with a hint.
func WantUnavailable(t testing.TB, err error) {
	t.Helper()
	var e *hooteproto.Error
	if !errors.As(err, &e) || e.Code() != hooteproto.CodeUnavailable || !e.Retryable() || e.Hint() == "" {
		t.Errorf("error = %v, want a retryable unavailable error with a hint", err)
	}
}

// Eventually calls fn until it returns nil, a bounded number of times, and fails the test with
// its last error if it never does.
func Eventually(t testing.TB, fn func() error) {
	t.Helper()
	var err error
	for range 50 {
		if err = fn(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("still failing: %v", err)
}

// WantError fails the test unless err is a *hooteproto.Error with the code and field, a
// message that contains inMessage, and a hint; it returns the error.
func WantError(t testing.TB, err error, code hooteproto.Code, field, inMessage string) *hooteproto.Error {
	t.Helper()
	var e *hooteproto.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want a *hooteproto.Error", err, err)
	}
	if e.Code() != code || e.Field() != field || !strings.Contains(e.Message(), inMessage) || e.Hint() == "" {
		t.Errorf("error = %v (field %q, hint %q); want %v on %q mentioning %q, with a hint", e, e.Field(), e.Hint(), code, field, inMessage)
	}
	return e
}
