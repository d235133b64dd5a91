package database

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestGroupedWritesKeepTheirOwnErrors has many callers write at once, some of them failing (a
// duplicate key, an error of their own after writing): each caller gets its own outcome, the
// rows of those that succeeded are all there and nothing of those that failed is.
func TestGroupedWritesKeepTheirOwnErrors(t *testing.T) {
	eachEngine(t, func(t *testing.T, target string) {
		ctx := t.Context()
		db := openGrouped(t, target, `CREATE TABLE grouped (k INTEGER PRIMARY KEY, v TEXT NOT NULL)`)
		if _, err := db.ExecContext(ctx, `INSERT INTO grouped (k, v) VALUES (?, ?)`, 1000, "there first"); err != nil {
			t.Fatal(err)
		}
		errOwn := errors.New("this caller's own failure")
		const callers = 48
		errs := make([]error, callers)
		// All callers start at once, so that the committer finds several queued.
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range callers {
			wg.Go(func() {
				<-start
				errs[i] = db.Write(ctx, func(tx *Tx) error {
					k := i
					if i%7 == 3 {
						k = 1000 // a duplicate key
					}
					if _, err := tx.ExecContext(ctx, `INSERT INTO grouped (k, v) VALUES (?, ?)`, k, fmt.Sprint("caller ", i)); err != nil {
						return err
					}
					if i%5 == 4 {
						return fmt.Errorf("caller %d: %w", i, errOwn)
					}
					return nil
				})
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			switch {
			case i%7 == 3:
				if !errors.Is(err, ErrDuplicate) {
					t.Errorf("caller %d, a duplicate key: %v, want ErrDuplicate", i, err)
				}
			case i%5 == 4:
				if !errors.Is(err, errOwn) || err.Error() != fmt.Sprintf("caller %d: %v", i, errOwn) {
					t.Errorf("caller %d, failing on its own: %v, want its own error", i, err)
				}
			case err != nil:
				t.Errorf("caller %d: %v, want nil", i, err)
			}
		}
		rows, err := db.QueryContext(ctx, `SELECT k, v FROM grouped ORDER BY k`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		got := map[int]string{}
		for rows.Next() {
			var k int
			var v string
			if err := rows.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			got[k] = v
		}
		for i := range callers {
			v, ok := got[i]
			switch {
			case i%7 == 3:
			case i%5 == 4 && ok:
				t.Errorf("the row of caller %d, which failed, was kept", i)
			case i%5 != 4 && (!ok || v != fmt.Sprint("caller ", i)):
				t.Errorf("the row of caller %d = %q, %v; want it kept", i, v, ok)
			}
		}
		if got[1000] != "there first" {
			t.Errorf("the row there first = %q", got[1000])
		}
	})
}

// TestGroupedWriteCancelledBeforeItsTurn: a caller whose context ends while it waits gets the
// context's error, nothing of its work runs, and the writes queued with it are kept.
func TestGroupedWriteCancelledBeforeItsTurn(t *testing.T) {
	eachEngine(t, func(t *testing.T, target string) {
		ctx := t.Context()
		db := openGrouped(t, target, `CREATE TABLE grouped (k INTEGER PRIMARY KEY)`)
		// A write holds every committer, so that the next ones queue.
		n := 1
		if db.Engine() == Postgres {
			n = pgCommitters
		}
		held, release := make(chan struct{}, n), make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_ = db.Write(ctx, func(tx *Tx) error {
					held <- struct{}{}
					<-release
					_, err := tx.ExecContext(ctx, `INSERT INTO grouped (k) VALUES (?)`, 100+i)
					return err
				})
			})
		}
		for range n {
			<-held
		}
		cctx, cancel := context.WithCancel(ctx)
		ran := false
		cancelled := make(chan error, 1)
		go func() {
			cancelled <- db.Write(cctx, func(tx *Tx) error {
				ran = true
				_, err := tx.ExecContext(ctx, `INSERT INTO grouped (k) VALUES (1)`)
				return err
			})
		}()
		// The cancelled write is queued (or not yet) when its context ends; either way it
		// must not run.
		cancel()
		close(release)
		if err := <-cancelled; !errors.Is(err, context.Canceled) {
			t.Errorf("a write cancelled before its turn: %v, want context.Canceled", err)
		}
		wg.Wait()
		if ran {
			t.Error("the work of a write cancelled before its turn ran")
		}
		var count int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM grouped`).Scan(&count); err != nil || count != n {
			t.Errorf("%d rows (%v), want the %d of the writes that held the committers", count, err, n)
		}
	})
}

// TestCheckpointOffTheCommitPath: SQLite's connections do not checkpoint in a commit
// (wal_autocheckpoint 0), and the database's checkpointer copies the log into the database
// file by itself after commits.
func TestCheckpointOffTheCommitPath(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	ctx := t.Context()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var auto int
	if err := db.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&auto); err != nil || auto != 0 {
		t.Fatalf("wal_autocheckpoint = %d (%v), want 0", auto, err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE filler (b BLOB NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Each checkpoint of the goroutine reports here; the test waits for one that copied the
	// whole log after the writes below.
	type result struct {
		log, done int64
		err       error
	}
	ran := make(chan result, 100)
	report := func(log, done int64, err error) {
		select {
		case ran <- result{log, done, err}:
		default:
		}
	}
	db.ckpt.ran.Store(&report)
	const rows = 200
	blob := make([]byte, 16<<10)
	for range rows {
		if err := db.Write(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO filler (b) VALUES (?)`, blob)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	want := before.Size() + rows*int64(len(blob))
	timeout := time.After(30 * time.Second)
	for {
		select {
		case r := <-ran:
			if r.err != nil {
				t.Fatalf("a checkpoint failed: %v", r.err)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if r.log > 0 && r.done == r.log && info.Size() >= want {
				return
			}
		case <-timeout:
			t.Fatal("no checkpoint copied the log into the database file within 30 s")
		}
	}
}

// TestWriteAfterClose: a write asked of a closed database gets ErrClosed at once, without
// running, rather than waiting for a committer that is gone.
func TestWriteAfterClose(t *testing.T) {
	eachEngine(t, func(t *testing.T, target string) {
		ctx := t.Context()
		db, err := Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `CREATE TABLE grouped (k INTEGER PRIMARY KEY)`); err != nil {
			t.Fatal(err)
		}
		const writers = 20
		errs := make([]error, writers)
		var wg sync.WaitGroup
		for i := range writers {
			wg.Go(func() {
				errs[i] = db.Write(ctx, func(tx *Tx) error {
					_, err := tx.ExecContext(ctx, `INSERT INTO grouped (k) VALUES (?)`, i)
					return err
				})
			})
		}
		wg.Wait()
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		for i, err := range errs {
			if err != nil {
				t.Errorf("write %d before the close: %v", i, err)
			}
		}
		err = db.Write(ctx, func(*Tx) error { t.Error("a write ran after the close"); return nil })
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Write after Close = %v, want ErrClosed", err)
		}
	})
}

// TestGroupedWritePanics: work that panics is undone, its caller panics with the same value,
// and the writes grouped with it commit.
func TestGroupedWritePanics(t *testing.T) {
	eachEngine(t, func(t *testing.T, target string) {
		ctx := t.Context()
		db := openGrouped(t, target, `CREATE TABLE grouped (k INTEGER PRIMARY KEY)`)
		const callers = 16
		recovered := make([]any, callers)
		errs := make([]error, callers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range callers {
			wg.Go(func() {
				defer func() { recovered[i] = recover() }()
				<-start
				errs[i] = db.Write(ctx, func(tx *Tx) error {
					if _, err := tx.ExecContext(ctx, `INSERT INTO grouped (k) VALUES (?)`, i); err != nil {
						return err
					}
					if i == 5 {
						panic("caller 5 panics")
					}
					return nil
				})
			})
		}
		close(start)
		wg.Wait()
		for i := range callers {
			switch {
			case i == 5 && recovered[i] != "caller 5 panics":
				t.Errorf("caller 5 recovered %v, want its own panic", recovered[i])
			case i != 5 && (recovered[i] != nil || errs[i] != nil):
				t.Errorf("caller %d: panic %v, error %v; want neither", i, recovered[i], errs[i])
			}
		}
		var count, five int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(CASE WHEN k = 5 THEN 1 END) FROM grouped`).Scan(&count, &five); err != nil {
			t.Fatal(err)
		}
		if count != callers-1 || five != 0 {
			t.Errorf("%d rows, %d of the panicking caller; want %d and none", count, five, callers-1)
		}
	})
}

// openGrouped opens the database at target for the test, closed when it ends, with the table
// that create makes.
func openGrouped(t *testing.T, target, create string) *DB {
	t.Helper()
	db, err := Open(t.Context(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.ExecContext(t.Context(), create); err != nil {
		t.Fatal(err)
	}
	return db
}
