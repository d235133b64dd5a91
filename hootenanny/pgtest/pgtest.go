// Package pgtest gives tests a PostgreSQL database of their own on the test server that
// HOOT_TEST_POSTGRES names (make test and tools/testservers.sh start one and set it).
//
// When HOOT_FLEET_TESTS is "required", a test that finds no server fails; otherwise it is
// skipped, with a message that says how to run it.
package pgtest

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/fleettest"
	"github.com/jackc/pgx/v5"
)

// URL returns the superuser URL of the test server, or skips (fails, when the fleet tests are
// required) the test when there is none.
func URL(t testing.TB) string {
	t.Helper()
	return fleettest.PostgresURL(t)
}

// Database creates a new, empty database on the test server, dropped when the test ends (after
// the cleanups the test registers later, such as closing its connections), and returns its URL.
func Database(t testing.TB) string {
	t.Helper()
	admin := URL(t)
	name := "hoot_test_" + strings.ToLower(rand.Text()[:16])
	if err := exec(admin, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("create a database on the test server: %v", err)
	}
	t.Cleanup(func() {
		if err := exec(admin, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("drop the test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("HOOT_TEST_POSTGRES is not a URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// Exec runs one statement on the database that dsn names, on a connection of its own.
func Exec(t testing.TB, dsn, statement string) {
	t.Helper()
	if err := exec(dsn, statement); err != nil {
		t.Fatalf("%s: %v", statement, err)
	}
}

func exec(dsn, statement string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, statement)
	return err
}
