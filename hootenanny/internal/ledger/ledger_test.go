package ledger

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/pgtest"
)

// eachEngine runs fn for each engine with a target that names a new, empty database.
func eachEngine(t *testing.T, fn func(t *testing.T, target string)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, filepath.Join(t.TempDir(), database.FileName))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		fn(t, pgtest.Database(t))
	})
}

func open(t *testing.T, target string) *database.DB {
	t.Helper()
	db, err := database.Open(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func key(b byte) []byte     { return bytes.Repeat([]byte{b}, 32) }
func attempt(b byte) []byte { return bytes.Repeat([]byte{b}, 16) }

// TestLedgerContract holds on both engines: a state is used once, a record by the same attempt
// counts as that use, and records go a grace period after their state expires.
func TestLedgerContract(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, target string) {
		ctx := context.Background()
		s := NewStore(open(t, target))
		now := time.Unix(1_800_000_000, 0)
		s.SetClock(func() time.Time { return now })
		exp := now.Add(5 * time.Minute)

		if first, err := s.UseState(ctx, key(1), attempt(1), exp); err != nil || !first {
			t.Fatalf("first use = %v, %v", first, err)
		}
		if first, err := s.UseState(ctx, key(1), attempt(2), exp); err != nil || first {
			t.Fatalf("a replay by another attempt = %v, %v; want refused", first, err)
		}
		if first, err := s.UseState(ctx, key(1), attempt(1), exp); err != nil || !first {
			t.Fatalf("the same attempt again = %v, %v; want its own record", first, err)
		}
		if first, err := s.UseState(ctx, key(2), attempt(2), now.Add(time.Minute)); err != nil || !first {
			t.Fatalf("another state = %v, %v", first, err)
		}

		// Past the first state's expiry, but within the grace, its record stays.
		now = exp.Add(Grace - time.Second)
		if n, err := s.Purge(ctx); err != nil || n != 1 {
			t.Fatalf("purge within the grace = %d, %v; want only the earlier state's record removed", n, err)
		}
		if first, err := s.UseState(ctx, key(1), attempt(3), exp); err != nil || first {
			t.Fatalf("a replay within the grace = %v, %v; want refused", first, err)
		}
		now = exp.Add(Grace + time.Second)
		if n, err := s.Purge(ctx); err != nil || n != 1 {
			t.Fatalf("purge past the grace = %d, %v; want 1", n, err)
		}
		var left int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM used_states`).Scan(&left); err != nil || left != 0 {
			t.Fatalf("%d records left, %v", left, err)
		}
	})
}

// TestLedgerRace uses one state from many goroutines over two handles of one database, as
// workers behind several gateways do: exactly one use is the first.
func TestLedgerRace(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, target string) {
		stores := []*Store{NewStore(open(t, target)), NewStore(open(t, target))}
		var firsts atomic.Int32
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for i := range 16 {
			wg.Go(func() {
				first, err := stores[i%2].UseState(context.Background(), key(9), attempt(byte(i)), time.Now().Add(time.Minute))
				if err != nil {
					errs <- err
					return
				}
				if first {
					firsts.Add(1)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if n := firsts.Load(); n != 1 {
			t.Fatalf("%d uses were the first, want exactly 1", n)
		}
	})
}
