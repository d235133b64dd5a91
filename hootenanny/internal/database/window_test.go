package database

import (
	"errors"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestWindow: the committer expects as many writes as the last transaction showed callers
// (those it carried and those queued behind it) and waits at most half of what commits take,
// so that a lone caller, whose transaction carried one write and left none queued, expects no
// more and is never held up.
func TestWindow(t *testing.T) {
	t.Parallel()
	var w window
	if n, wait := w.expect(); n > 1 || wait != 0 {
		t.Errorf("before any commit: expects %d writes for %v, want at most 1 and no wait", n, wait)
	}
	w.committed(1, 0, 4*time.Millisecond)
	if n, _ := w.expect(); n != 1 {
		t.Errorf("after a lone write: expects %d writes, want 1", n)
	}
	w.committed(8, 8, 4*time.Millisecond)
	if n, wait := w.expect(); n != 16 || wait != 2*time.Millisecond {
		t.Errorf("after 8 writes with 8 queued behind them, commits of 4ms: expects %d writes for %v, want 16 for 2ms", n, wait)
	}
	// The average follows the commits; a slow disk's wait is bounded all the same.
	for range 50 {
		w.committed(maxGroup, maxGroup, time.Second)
	}
	if n, wait := w.expect(); n != maxGroup || wait != maxWindow {
		t.Errorf("after full groups with commits of 1s: expects %d writes for %v, want %d for %v", n, wait, maxGroup, maxWindow)
	}
}

// TestCallersInALoopShareCommits: callers that each write again as soon as their write is
// committed share transactions, all of them together rather than in two halves that take
// turns (the writes of half the callers queue while the other half's commit, and without the
// committer's window those would go alone).
func TestCallersInALoopShareCommits(t *testing.T) {
	eachEngine(t, func(t *testing.T, target string) {
		ctx := t.Context()
		db := openGrouped(t, target, `CREATE TABLE grouped (k INTEGER PRIMARY KEY)`)
		const callers, each = 16, 30
		before := db.GroupStats()
		var wg sync.WaitGroup
		for i := range callers {
			wg.Go(func() {
				for j := range each {
					if err := db.Write(ctx, func(tx *Tx) error {
						_, err := tx.ExecContext(ctx, `INSERT INTO grouped (k) VALUES (?)`, i*each+j)
						return err
					}); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		got := db.GroupStats().Sub(before)
		if got.Writes != callers*each {
			t.Fatalf("%d writes counted, want %d", got.Writes, callers*each)
		}
		// On PostgreSQL the callers are shared among pgCommitters transactions at once.
		want := float64(callers) * 0.65
		if db.Engine() == Postgres {
			want = float64(callers) / pgCommitters * 0.65
		}
		if got.PerGroup() < want {
			t.Errorf("%d writes in %d transactions, %.1f each; want at least %.1f", got.Writes, got.Groups, got.PerGroup(), want)
		}
	})
}

// TestLogStartsAgainWhileWritesGoOn: while writes come one after another without a pause,
// the write-ahead log is started again from its beginning once the background checkpoint has
// copied it, rather than growing for as long as the writes go on: the checkpoints find the
// log shorter than the one before again and again.
func TestLogStartsAgainWhileWritesGoOn(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openGrouped(t, filepath.Join(t.TempDir(), FileName), `CREATE TABLE filler (b BLOB NOT NULL)`)
	db.ckpt.restartFrames.Store(64)
	var mu sync.Mutex
	var last, longest int64
	restarts := 0
	report := func(log, done int64, err error) {
		mu.Lock()
		defer mu.Unlock()
		if log < last {
			restarts++
		}
		last, longest = log, max(longest, log)
	}
	db.ckpt.ran.Store(&report)
	seen := func() int {
		mu.Lock()
		defer mu.Unlock()
		return restarts
	}
	// Each write adds a few pages to the log (a leaf and overflow pages); without the restart
	// the log would hold all of them.
	const want, most = 3, 5000
	blob := make([]byte, 7<<10)
	n := 0
	for ; n < most && seen() < want; n++ {
		if err := db.Write(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO filler (b) VALUES (?)`, blob)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	db.ckpt.ran.Store(nil)
	mu.Lock()
	defer mu.Unlock()
	if restarts < want {
		t.Errorf("after %d writes the log started again %d times and grew to %d pages; want it started again %d times", n, restarts, longest, want)
	}
}

// TestGroupRunAgainAfterAFailure: a transaction of grouped writes runs them without
// savepoints, and when one fails it is undone and run again with a savepoint for each: the
// failing write runs twice and keeps its error, each other write runs once or twice and is
// kept once.
func TestGroupRunAgainAfterAFailure(t *testing.T) {
	eachEngine(t, func(t *testing.T, target string) {
		ctx := t.Context()
		db := openGrouped(t, target, `CREATE TABLE grouped (k INTEGER PRIMARY KEY)`)
		// A write holds the committer while the group queues behind it.
		held, release := make(chan struct{}), make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			_ = db.Write(ctx, func(tx *Tx) error {
				close(held)
				<-release
				return nil
			})
		})
		<-held
		const group, failing = 5, 2
		errOwn := errors.New("the failing write's own error")
		var mu sync.Mutex
		runs := make([]int, group)
		errs := make([]error, group)
		for i := range group {
			wg.Go(func() {
				errs[i] = db.Write(ctx, func(tx *Tx) error {
					mu.Lock()
					runs[i]++
					mu.Unlock()
					if _, err := tx.ExecContext(ctx, `INSERT INTO grouped (k) VALUES (?)`, i); err != nil {
						return err
					}
					if i == failing {
						return errOwn
					}
					return nil
				})
			})
		}
		for n := 0; len(db.writes.queue) < group; n++ {
			if n > 1e7 {
				t.Fatalf("%d writes queued, want %d", len(db.writes.queue), group)
			}
			runtime.Gosched()
		}
		before := db.GroupStats()
		close(release)
		wg.Wait()
		if got := db.GroupStats().Sub(before); got.Groups != 1 || got.Writes != group {
			t.Errorf("the queued writes went in %d transactions with %d writes; want 1 with %d", got.Groups, got.Writes, group)
		}
		for i := range group {
			switch {
			case i == failing && (!errors.Is(errs[i], errOwn) || runs[i] != 2):
				t.Errorf("the failing write: %v after %d runs; want its own error after 2", errs[i], runs[i])
			case i != failing && (errs[i] != nil || runs[i] < 1 || runs[i] > 2):
				t.Errorf("write %d: %v after %d runs; want nil after 1 or 2", i, errs[i], runs[i])
			}
		}
		var count, failed int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(CASE WHEN k = ? THEN 1 END) FROM grouped`, failing).Scan(&count, &failed); err != nil {
			t.Fatal(err)
		}
		if count != group-1 || failed != 0 {
			t.Errorf("%d rows, %d of the failing write; want %d and none", count, failed, group-1)
		}
	})
}
