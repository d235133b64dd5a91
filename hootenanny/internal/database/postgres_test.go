package database

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/pgtest"
)

// wantBack calls fn until it succeeds, for a bounded while; every failure meanwhile must be an
// unavailable database.
func wantBack(t *testing.T, what string, fn func() error) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil {
			return
		}
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("%s while the server comes back: %v; want nil or ErrUnavailable", what, err)
		}
		if attempt == 50 {
			t.Fatalf("%s still fails after the server is back: %v", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestPostgresGoesAway(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Database(t)
	p, proxied := pgtest.NewProxy(t, dsn)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := Open(ctx, proxied+"&connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func() error {
		var n int
		return db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&n)
	}
	write := func() error {
		return db.Write(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE schema_migrations SET applied_at = applied_at WHERE version = ?`, 1)
			return err
		})
	}
	// Several connections in the pool, all in use at once.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := db.ExecContext(ctx, `SELECT pg_sleep(0.05)`); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()

	p.Cut()
	for _, c := range []struct {
		what string
		fn   func() error
	}{{"a query", count}, {"a write", write}, {"another query", count}} {
		err := c.fn()
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "database unavailable") {
			t.Errorf("%s while the server is gone: %v; want ErrUnavailable", c.what, err)
		}
	}

	p.Restore(t)
	wantBack(t, "a query", count)
	if err := write(); err != nil {
		t.Errorf("a write after the server is back: %v", err)
	}
}

func TestPostgresTerminatedConnection(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Database(t)
	ctx, db := openFor(t, dsn)
	// The transaction's own connection is ended by an administrator halfway through.
	err := db.Write(ctx, func(tx *Tx) error {
		var pid int
		if err := tx.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			return err
		}
		pgtest.Exec(t, dsn, fmt.Sprintf(`SELECT pg_terminate_backend(%d)`, pid))
		_, err := tx.ExecContext(ctx, `UPDATE schema_migrations SET applied_at = applied_at WHERE version = ?`, 1)
		return err
	})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a write whose connection was terminated: %v; want ErrUnavailable", err)
	}
	wantBack(t, "a query", func() error {
		var n int
		return db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&n)
	})
}

func TestPostgresRefused(t *testing.T) {
	t.Parallel()
	// A port that nothing listens on: take one, then let it go.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = Open(context.Background(), "postgres://hoot@"+addr+"/hoot?sslmode=disable")
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("Open of a server that is not there: %v; want ErrUnavailable", err)
	}
}

// TestPostgresFrozenTransaction holds a transaction open, idle, with a row locked, as a worker
// frozen by SIGSTOP would: the server ends it once idleInTransaction has passed (here shortened
// by the URL), so another connection's write to the row goes through instead of waiting on the
// frozen one for ever, and the frozen writer, let go on, is told its database went away.
func TestPostgresFrozenTransaction(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Database(t)
	ctx, db := openFor(t, dsn)
	var got string
	if err := db.QueryRowContext(ctx, `SHOW idle_in_transaction_session_timeout`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != idleInTransaction {
		t.Errorf("idle_in_transaction_session_timeout = %q, want %q when the URL does not say", got, idleInTransaction)
	}

	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	_, frozenDB := openFor(t, dsn+sep+"idle_in_transaction_session_timeout=300ms")
	locked, thaw := make(chan struct{}), make(chan struct{})
	frozen := make(chan error, 1)
	go func() {
		frozen <- frozenDB.Write(ctx, func(tx *Tx) error {
			if _, err := tx.ExecContext(ctx, `UPDATE schema_migrations SET applied_at = applied_at WHERE version = ?`, 1); err != nil {
				return err
			}
			close(locked)
			<-thaw
			_, err := tx.ExecContext(ctx, `UPDATE schema_migrations SET applied_at = applied_at WHERE version = ?`, 1)
			return err
		})
	}()
	<-locked
	// The other writer is bounded well below the test's own deadline: it must get the row once
	// the frozen session is ended, not when the frozen writer comes back.
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	start := time.Now()
	if _, err := db.ExecContext(wctx, `UPDATE schema_migrations SET applied_at = applied_at WHERE version = ?`, 1); err != nil {
		t.Fatalf("a write to the row the frozen transaction held: %v; want it through once the server ends that transaction", err)
	}
	t.Logf("the row was free %v after the frozen transaction locked it", time.Since(start).Round(time.Millisecond))
	close(thaw)
	if err := <-frozen; !errors.Is(err, ErrUnavailable) {
		t.Errorf("the frozen writer, let go on: %v; want ErrUnavailable", err)
	}
}

// openFor opens the database dsn names for the test, with a context of a minute; both end
// with the test.
func openFor(t *testing.T, dsn string) (context.Context, *DB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	db, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return ctx, db
}
