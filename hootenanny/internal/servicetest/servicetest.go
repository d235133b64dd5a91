// Package servicetest holds what the tests of the worker's services and stores share: a fresh
// database and the check that an error teaches (code, field, message and a hint).
package servicetest

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hooteproto"
)

// Database opens a new database in a temporary directory, closed when the test ends, and
// returns it with its path.
func Database(t testing.TB) (*sql.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), database.FileName)
	db, err := database.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
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
