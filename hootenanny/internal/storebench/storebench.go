// Package storebench measures how the worker's storage behaves as it grows, on each backend:
// the artifact and job stores and the query engine on SQLite and on PostgreSQL at 10^4, 10^5
// and 10^6 artifacts, and the gateway's content routes (PUT /cas, GET /cas/{hash}) on a
// directory and on S3 against the disk's and the object store's own speed. It is run by
// `make bench` (through its command, cmd/storebench) and prints numbers and ratios; nothing in
// it asserts a time.
//
// A store is seeded in bulk (see [Grow]) with the rows a [Shape] makes, and grown from one
// size to the next rather than seeded again; the operations are then timed through the same
// stores a worker uses (packages artifacts, jobs and graph), one after another.
package storebench

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/jackc/pgx/v5"
)

// StoreOptions say what the store part measures.
type StoreOptions struct {
	// Sizes are the numbers of artifacts to measure at, smallest first.
	Sizes []int
	// Dir holds the SQLite database.
	Dir string
	// Postgres is a superuser's URL of a PostgreSQL server, on which a database of the run's
	// own is made and dropped at the end; empty measures SQLite alone.
	Postgres string
	// Durable turns PostgreSQL's fsync, synchronous_commit and full_page_writes on for the
	// run (and back as they were afterwards), so that it keeps commits as SQLite does with
	// synchronous=FULL; the test server runs without them.
	Durable bool
	// Budget bounds each operation's measurement.
	Budget Budget
	// Seed makes the shape of the stores.
	Seed uint64
	// Out receives progress and the table.
	Out io.Writer
}

// RunStores seeds and measures the stores at each size and returns the results.
func RunStores(ctx context.Context, o StoreOptions) (*Table, error) {
	startMs := time.Now().Add(-time.Hour).UnixMilli() - int64(o.Sizes[len(o.Sizes)-1])
	var engines []*engine
	defer func() {
		for _, e := range engines {
			if err := e.Close(); err != nil {
				fmt.Fprintf(o.Out, "storebench: closing %s: %v\n", e.name, err)
			}
		}
	}()

	db, err := database.Open(ctx, filepath.Join(o.Dir, database.FileName))
	if err != nil {
		return nil, err
	}
	e, err := newEngine(ctx, "sqlite", db, o.Seed, startMs)
	if err != nil {
		db.Close()
		return nil, err
	}
	e.closer = db.Close
	engines = append(engines, e)

	if o.Postgres != "" {
		e, err := openPostgres(ctx, o, startMs)
		if err != nil {
			return nil, err
		}
		engines = append(engines, e)
	}

	t := &Table{}
	for _, size := range o.Sizes {
		// The engines grow at once, each mostly on a core of its own (SQLite in this process,
		// PostgreSQL in the server's).
		fmt.Fprintf(o.Out, "growing to %s artifacts:", FormatSize(size))
		var wg sync.WaitGroup
		errs := make([]error, len(engines))
		took := make([]time.Duration, len(engines))
		for i, e := range engines {
			wg.Go(func() {
				t0 := time.Now()
				errs[i] = Grow(ctx, e.db, e.shape, size)
				took[i] = time.Since(t0)
			})
		}
		wg.Wait()
		// What the seeding left for the kernel to write would otherwise be written while the
		// first operations are timed.
		syscall.Sync()
		for i, e := range engines {
			if errs[i] != nil {
				fmt.Fprintln(o.Out)
				return nil, fmt.Errorf("seeding %s to %d artifacts: %w", e.name, size, errs[i])
			}
			bytes, _ := e.db.Size(ctx)
			fmt.Fprintf(o.Out, "  %s in %.1fs (%d MB)", e.name, took[i].Seconds(), bytes>>20)
		}
		fmt.Fprintln(o.Out)
		// Each operation runs on the engines in turn, one call each, so that they share the
		// machine's noisy moments.
		b := o.Budget
		b.Duration *= time.Duration(len(engines))
		for _, op := range ops {
			var each []func(context.Context, int) (int64, error)
			for _, e := range engines {
				each = append(each, func(ctx context.Context, _ int) (int64, error) { return 0, op.do(e, ctx) })
			}
			fs, err := MeasureEach(ctx, b, each...)
			if err != nil {
				return nil, fmt.Errorf("%s at %d artifacts: %w", op.name, size, err)
			}
			for i, e := range engines {
				f := fs[i]
				t.Add(Result{Op: op.name, Engine: e.name, Size: size, Figures: f})
				fmt.Fprintf(o.Out, "  %-8s %-26s %6s  %7.0f ops/s  p50 %8s  p99 %8s\n", e.name, op.name, FormatSize(size),
					f.OpsPerSec(), FormatLatency(f.P50), FormatLatency(f.P99))
			}
		}
		// Callers at once, which the stores' writes are grouped for; the engines one after
		// the other, since each run fills the machine.
		// The writes per transaction say how well the database grouped them.
		for _, e := range engines {
			before := e.db.GroupStats()
			f, err := e.createConcurrently(ctx, o.Budget)
			if err != nil {
				return nil, fmt.Errorf("%s at %d artifacts on %s: %w", ConcurrentCreate, size, e.name, err)
			}
			groups := e.db.GroupStats().Sub(before)
			t.Add(Result{Op: ConcurrentCreate, Engine: e.name, Size: size, Figures: f})
			fmt.Fprintf(o.Out, "  %-8s %-26s %6s  %7.0f ops/s  p50 %8s  p99 %8s  (%.1f writes per transaction)\n", e.name, ConcurrentCreate, FormatSize(size),
				f.OpsPerSec(), FormatLatency(f.P50), FormatLatency(f.P99), groups.PerGroup())
		}
	}
	return t, nil
}

// openPostgres makes a database of the run's own on the server, opens it, and drops it when
// closed.
func openPostgres(ctx context.Context, o StoreOptions, startMs int64) (*engine, error) {
	admin, err := pgx.Connect(ctx, o.Postgres)
	if err != nil {
		return nil, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	name := fmt.Sprintf("storebench_%d_%d", os.Getpid(), time.Now().Unix())
	if _, err := admin.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()); err != nil {
		admin.Close(ctx)
		return nil, err
	}
	var restore []string
	cleanup := func() error {
		c := context.Background()
		_, err := admin.Exec(c, `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`)
		for _, stmt := range restore {
			if _, rerr := admin.Exec(c, stmt); rerr != nil && err == nil {
				err = rerr
			}
		}
		admin.Close(c)
		return err
	}
	if o.Durable {
		settings := []string{"fsync", "synchronous_commit", "full_page_writes"}
		for _, s := range settings {
			if _, err := admin.Exec(ctx, `ALTER SYSTEM SET `+s+` = on`); err != nil {
				cleanup()
				return nil, fmt.Errorf("turning %s on: %w", s, err)
			}
			restore = append(restore, `ALTER SYSTEM RESET `+s)
		}
		restore = append(restore, `SELECT pg_reload_conf()`)
		if _, err := admin.Exec(ctx, `SELECT pg_reload_conf()`); err != nil {
			cleanup()
			return nil, err
		}
		// The server rereads its settings a moment after being asked.
		for range 50 {
			var on bool
			if err := admin.QueryRow(ctx, `SELECT current_setting('fsync') = 'on'`).Scan(&on); err != nil || on {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	u, err := url.Parse(o.Postgres)
	if err != nil {
		cleanup()
		return nil, err
	}
	u.Path = "/" + name
	db, err := database.Open(ctx, u.String())
	if err != nil {
		cleanup()
		return nil, err
	}
	e, err := newEngine(ctx, "postgres", db, o.Seed, startMs)
	if err != nil {
		db.Close()
		cleanup()
		return nil, err
	}
	e.closer = func() error {
		db.Close()
		return cleanup()
	}
	var version, fsync, syncCommit string
	if err := db.QueryRowContext(ctx, `SELECT current_setting('server_version'), current_setting('fsync'), current_setting('synchronous_commit')`).
		Scan(&version, &fsync, &syncCommit); err == nil {
		fmt.Fprintf(o.Out, "PostgreSQL %s: fsync %s, synchronous_commit %s; SQLite: WAL, synchronous=FULL (as the worker opens it)\n", version, fsync, syncCommit)
	}
	return e, nil
}
