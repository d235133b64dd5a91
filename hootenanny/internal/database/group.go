package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// maxGroup is the most writes one transaction of the committer carries.
const maxGroup = 64

// ErrClosed is the error of a write asked of a closed database.
var ErrClosed = errors.New("database: closed")

// A write is one caller's transaction, waiting for the committer.
type write struct {
	ctx  context.Context
	fn   func(*Tx) error
	err  error
	done chan struct{}
	// panicked holds what fn panicked with, which do panics with again in the caller.
	panicked any
}

// errPanicked is the error of a write whose work panicked, which undoes it as an error would.
var errPanicked = errors.New("database: the write's work panicked")

// call runs w's work in tx, turning a panic into errPanicked (and keeping what it panicked
// with for the caller), so that one caller's panic neither stops the committer nor keeps
// the others waiting.
func (w *write) call(tx *Tx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			w.panicked = r
			err = errPanicked
		}
	}()
	return w.fn(tx)
}

// A committer runs the writes of concurrent callers in shared transactions: it takes what has
// queued up while the last transaction committed and commits it all at once, so that callers
// that come together pay for one commit (one sync of the log) instead of one each. A
// transaction runs its writes one after another without savepoints; when one fails, it is
// undone and run again with each caller's work inside a savepoint of its own, so that the
// failure is undone alone and its caller gets its own error while the others commit. Writes
// run in the order they came, each seeing what those before it wrote, as they would one after
// another.
//
// One goroutine commits, on either engine. SQLite has one writer at a time anyway. On
// PostgreSQL, several transactions of grouped writes at once conflicted with each other under
// SERIALIZABLE (hundreds of retried transactions a second with 16 callers, a p99 of 0.1 to 0.5
// s) and split the callers into smaller groups; one gets the largest groups and no conflicts
// among the process's own writes. Its cost: a transaction the server holds up (a row lock of
// another process's transaction, until that commits or idle_in_transaction ends it) holds up
// every write of the process meanwhile.
type committer struct {
	db *DB
	// sqlite is the connection the committer writes SQLite through, nil until the first
	// write and on PostgreSQL.
	sqlite *sqliteWriter
	queue  chan *write
	closed chan struct{}
	once   sync.Once
	wg     sync.WaitGroup
	// mu orders the queueing of writes before the close: once isClosed is set under it, no
	// write queues, so the run loops find every queued write when they drain the queue.
	mu       sync.RWMutex
	isClosed bool
	// groups and writes count the transactions the committer ran and the writes they carried.
	groups, writes atomic.Int64
}

// pgCommitters is how many transactions of grouped writes run at once on PostgreSQL (see
// committer).
const pgCommitters = 1

func newCommitter(db *DB) *committer {
	c := &committer{db: db, queue: make(chan *write, maxGroup), closed: make(chan struct{})}
	n := 1
	if db.engine == Postgres {
		n = pgCommitters
	}
	for range n {
		c.wg.Add(1)
		go c.run()
	}
	return c
}

// do queues fn and waits until it has been committed or has failed. A caller whose ctx ends
// before its turn gets ctx's error and nothing of fn runs; once fn has begun, do waits for the
// outcome of the transaction, so that its answer is never an error for a write that was kept.
func (c *committer) do(ctx context.Context, fn func(*Tx) error) error {
	w := &write{ctx: ctx, fn: fn, done: make(chan struct{})}
	c.mu.RLock()
	if c.isClosed {
		c.mu.RUnlock()
		return ErrClosed
	}
	select {
	case c.queue <- w:
	case <-ctx.Done():
		c.mu.RUnlock()
		return ctx.Err()
	}
	c.mu.RUnlock()
	<-w.done
	if w.panicked != nil {
		panic(w.panicked)
	}
	return w.err
}

// close stops the committer once the writes queued are done; later writes get ErrClosed.
func (c *committer) close() {
	c.once.Do(func() {
		c.mu.Lock()
		c.isClosed = true
		c.mu.Unlock()
		close(c.closed)
	})
	c.wg.Wait()
}

func (c *committer) run() {
	defer c.wg.Done()
	defer func() {
		if c.sqlite != nil {
			c.sqlite.close()
		}
	}()
	batch := make([]*write, 0, maxGroup)
	var win window
	for {
		select {
		case w := <-c.queue:
			batch = append(batch[:0], w)
		case <-c.closed:
			// Whatever was queued before the close still runs; nothing new can queue.
			for {
				select {
				case w := <-c.queue:
					c.commit([]*write{w})
				default:
					return
				}
			}
		}
		batch = c.gather(batch, &win)
		took := c.commit(batch)
		win.committed(len(batch), len(c.queue), took)
	}
}

// gather adds to batch what is queued, and when the callers of the last transactions have not
// all come back yet, waits for them, up to the window's time (see window).
func (c *committer) gather(batch []*write, win *window) []*write {
	for len(batch) < maxGroup {
		select {
		case w := <-c.queue:
			batch = append(batch, w)
			continue
		default:
		}
		break
	}
	want, wait := win.expect()
	if len(batch) >= want || wait <= 0 {
		return batch
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for len(batch) < want {
		select {
		case w := <-c.queue:
			batch = append(batch, w)
		case <-timer.C:
			return batch
		case <-c.closed:
			return batch
		}
	}
	return batch
}

// A window says how long a committer waits for more writes before it begins a transaction.
//
// Callers that write in a loop come back a moment after their commit, while the committer has
// already begun the next transaction with the writes that queued during the commit: without
// waiting, sixteen such callers split into two groups of about eight that take turns, each
// paying a sync of the log. So when fewer writes are queued than the last transaction
// carried and left queued behind it (the callers seen at once), the committer waits for
// the rest, at most half of what the last commits took: a caller that would have waited for a
// whole commit more waits half of one at worst. A lone caller is never held up: the last
// transaction carried its one write and left nothing queued, so it expects no more.
type window struct {
	// callers is how many callers the last transaction showed: the writes it carried and
	// those queued when it ended.
	callers int
	// commit is a moving average of how long the commits took.
	commit time.Duration
}

// maxWindow bounds the wait for more writes, whatever the commits took.
const maxWindow = 10 * time.Millisecond

// expect returns how many writes the next transaction should carry and how long to wait for
// them at most.
func (w *window) expect() (int, time.Duration) {
	return min(w.callers, maxGroup), min(w.commit/2, maxWindow)
}

// committed records a transaction of n writes whose commit took took, with queued writes
// waiting when it ended.
func (w *window) committed(n, queued int, took time.Duration) {
	w.callers = n + queued
	if w.commit == 0 {
		w.commit = took
	} else {
		w.commit += (took - w.commit) / 4
	}
}

// commit runs the writes of batch in one transaction, answers each, and returns how long the
// commit itself took (the sync of the log), 0 when the transaction did not get that far.
func (c *committer) commit(batch []*write) (took time.Duration) {
	c.groups.Add(1)
	c.writes.Add(int64(len(batch)))
	defer func() {
		for _, w := range batch {
			close(w.done)
		}
	}()
	// The transaction belongs to no caller: one that goes away must not cut the others'
	// statements short (on SQLite an interrupted statement rolls the whole transaction back).
	ctx := context.Background()
	if len(batch) == 1 {
		w := batch[0]
		if w.err = w.ctx.Err(); w.err == nil {
			w.err = c.transaction(ctx, &took, func(tx *Tx) error {
				tx.spanCtx = w.ctx
				return w.call(tx)
			})
		}
		return
	}
	// First without savepoints: on PostgreSQL each is a round trip, and on SQLite each copies
	// the pages its write changes first. When a write fails, the transaction is undone and
	// run again with a savepoint for each write, so that the failure is undone alone.
	savepoints := false
	err := c.transaction(ctx, &took, func(tx *Tx) error { return c.group(ctx, tx, batch, savepoints) })
	if errors.Is(err, errFailedAlone) {
		savepoints = true
		err = c.transaction(ctx, &took, func(tx *Tx) error { return c.group(ctx, tx, batch, savepoints) })
	}
	if err != nil {
		// Nothing was kept: the writes that had succeeded share the transaction's error.
		for _, w := range batch {
			if w.err == nil || isSerialization(w.err) {
				w.err = err
			}
		}
	}
	return took
}

// errFailedAlone undoes a transaction of grouped writes run without savepoints in which one
// write failed, for the group to be run again with them.
var errFailedAlone = errors.New("database: a write of the group failed")

// group runs the writes of batch in tx, each in a savepoint of its own when savepoints is
// set; without, the first write that fails ends the transaction with errFailedAlone.
func (c *committer) group(ctx context.Context, tx *Tx, batch []*write, savepoints bool) error {
	for i, w := range batch {
		if w.err = w.ctx.Err(); w.err != nil {
			continue
		}
		tx.spanCtx = w.ctx
		sp := fmt.Sprintf("w%d", i)
		if savepoints {
			if _, err := tx.run.ExecContext(ctx, "SAVEPOINT "+sp); err != nil {
				return c.db.classify(err)
			}
		}
		w.panicked = nil
		w.err = w.call(tx)
		switch {
		case w.err == nil:
		case isSerialization(w.err):
			// The whole transaction is run again, every write in it.
			return w.err
		case !savepoints:
			return errFailedAlone
		default:
			// A savepoint is not released: the commit ends them all, and a release would be
			// a round trip more per write on PostgreSQL.
			if _, err := tx.run.ExecContext(ctx, "ROLLBACK TO SAVEPOINT "+sp); err != nil {
				return c.db.classify(err)
			}
		}
	}
	return nil
}

// transaction runs fn in one write transaction, run again on PostgreSQL when the server
// aborts it for a conflict (see the package doc). When took is not nil, it is set to how long
// the commit took.
func (db *DB) transaction(ctx context.Context, took *time.Duration, fn func(*Tx) error) error {
	if db.engine != Postgres {
		return db.writeOnce(ctx, nil, took, fn)
	}
	return retrySerialization(ctx, func() error {
		return db.writeOnce(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable}, took, fn)
	})
}

// isSerialization reports whether err is PostgreSQL's refusal of a transaction that conflicts
// with another (a serialization failure or a deadlock), which running it again may cure.
func isSerialization(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// transaction runs fn in one write transaction and sets took to how long its commit took: on SQLite through the committer's own
// connection, whose prepared statements it keeps (see sqliteWriter); on PostgreSQL as
// DB.transaction does, where the driver keeps each connection's prepared statements itself.
func (c *committer) transaction(ctx context.Context, took *time.Duration, fn func(*Tx) error) error {
	if c.db.engine != SQLite {
		return c.db.transaction(ctx, took, fn)
	}
	if c.sqlite == nil {
		conn, err := c.db.db.Conn(ctx)
		if err != nil {
			return c.db.classify(err)
		}
		// The writer's page cache holds the indexes' pages that creates touch all over a
		// large file, which the default (2 MiB) would read again and again.
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = %d", -writerCacheKiB)); err != nil {
			conn.Close()
			return c.db.classify(err)
		}
		c.sqlite = &sqliteWriter{conn: conn, stmts: map[string]*sql.Stmt{}}
	}
	w := c.sqlite
	c.db.ckpt.restartLog(ctx, w.conn)
	if _, err := w.conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return c.db.classify(err)
	}
	if err := fn(&Tx{run: w, db: c.db, spanCtx: ctx, stmtCtx: ctx}); err != nil {
		w.rollback()
		return err
	}
	t0 := time.Now()
	if _, err := w.conn.ExecContext(ctx, "COMMIT"); err != nil {
		w.rollback()
		return c.db.classify(err)
	}
	*took = time.Since(t0)
	c.db.ckpt.committed()
	return nil
}

// writerCacheKiB is the page cache of the committer's SQLite connection, in KiB.
const writerCacheKiB = 64 << 10

// maxPrepared bounds the statements a sqliteWriter keeps prepared; others are prepared each
// time, as statements outside it are.
const maxPrepared = 256

// A sqliteWriter is the one connection through which the committer writes a SQLite database,
// with the statements it has prepared on it. Preparing (parsing and planning) was about a
// quarter of the CPU time of an artifact_create; the stores' statements are a few fixed texts,
// so each is prepared once. The transactions are begun and ended with statements of their
// own rather than as a *sql.Tx, whose statements database/sql would prepare again for each
// transaction.
type sqliteWriter struct {
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
}

// stmt returns query prepared on the connection, or nil when the cache is full.
func (w *sqliteWriter) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := w.stmts[query]; ok {
		return s, nil
	}
	if len(w.stmts) >= maxPrepared {
		return nil, nil
	}
	s, err := w.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	w.stmts[query] = s
	return s, nil
}

func (w *sqliteWriter) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := w.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return w.conn.ExecContext(ctx, query, args...)
	}
	return s.ExecContext(ctx, args...)
}

func (w *sqliteWriter) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := w.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return w.conn.QueryContext(ctx, query, args...)
	}
	return s.QueryContext(ctx, args...)
}

func (w *sqliteWriter) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	s, err := w.stmt(ctx, query)
	if err != nil || s == nil {
		// Unprepared, the query gives its own error again, in the *sql.Row.
		return w.conn.QueryRowContext(ctx, query, args...)
	}
	return s.QueryRowContext(ctx, args...)
}

// rollback ends the transaction under way, if any, undoing it.
func (w *sqliteWriter) rollback() {
	_, _ = w.conn.ExecContext(context.Background(), "ROLLBACK")
}

func (w *sqliteWriter) close() {
	for _, s := range w.stmts {
		s.Close()
	}
	w.conn.Close()
}

// GroupStats are counts of the transactions that [DB.Write] ran for its callers.
type GroupStats struct {
	// Groups is how many transactions ran; Writes how many callers' writes they carried.
	Groups, Writes int64
}

// PerGroup returns the mean number of writes a transaction carried, or 0 before any.
func (s GroupStats) PerGroup() float64 {
	if s.Groups == 0 {
		return 0
	}
	return float64(s.Writes) / float64(s.Groups)
}

// Sub returns the counts of s since the earlier counts e.
func (s GroupStats) Sub(e GroupStats) GroupStats {
	return GroupStats{Groups: s.Groups - e.Groups, Writes: s.Writes - e.Writes}
}

// GroupStats returns how many transactions Write has run since db was opened and how many
// writes they carried: what grouping concurrent callers saves, seen from outside.
func (db *DB) GroupStats() GroupStats {
	if db.writes == nil {
		return GroupStats{}
	}
	return GroupStats{Groups: db.writes.groups.Load(), Writes: db.writes.writes.Load()}
}
