package database

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// checkpointEvery is the least time between two checkpoints: the log's pages written
	// meanwhile are copied into the database together, a page written many times once.
	checkpointEvery = 100 * time.Millisecond
	// walLimitFrames bounds the write-ahead log (in pages, 4 KiB each): when a checkpoint
	// leaves more than this in the log, because readers still need the older pages, the next
	// one waits for them and starts the log again (RESTART), holding writers back meanwhile.
	walLimitFrames = 16384
	// walSizeLimit is what the log file is cut back to once it starts again (the
	// journal_size_limit pragma).
	walSizeLimit = 64 << 20
	// walRestartFrames is how long the log grows (in pages) before the committer has it
	// start again from its beginning (see checkpointer.restart).
	walRestartFrames = 4096
)

// A checkpointer copies the pages of SQLite's write-ahead log into the database file in the
// background. SQLite's own checkpoint (wal_autocheckpoint) runs inside the commit that takes
// the log past a thousand pages: that commit writes every page the log holds into the
// database, which in a large database means pages all over the file, and syncs it, so one
// commit in some tens took hundreds of milliseconds. The connections are opened with the
// automatic checkpoint off, and this goroutine runs a PASSIVE checkpoint, which neither waits
// for nor holds back readers and writers, at most every checkpointEvery after commits. A
// commit stays durable as before: with synchronous=FULL it syncs the log, and a checkpoint
// only moves pages that are in the synced log already.
type checkpointer struct {
	db   *DB
	kick chan struct{}
	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup
	// ran, when set, is told what each checkpoint of the goroutine did; tests wait on it.
	ran atomic.Pointer[func(log, done int64, err error)]
	// restart is set when a checkpoint copied the whole of a log longer than
	// walRestartFrames, for the committer to finish the job (see restartLog).
	restart atomic.Bool
	// restartFrames is walRestartFrames, smaller in tests.
	restartFrames atomic.Int64
}

func newCheckpointer(db *DB) *checkpointer {
	c := &checkpointer{db: db, kick: make(chan struct{}, 1), stop: make(chan struct{})}
	c.restartFrames.Store(walRestartFrames)
	c.wg.Add(1)
	go c.run()
	return c
}

// committed tells the checkpointer that a transaction committed.
func (c *checkpointer) committed() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checkpointer) close() {
	c.once.Do(func() { close(c.stop) })
	c.wg.Wait()
}

func (c *checkpointer) run() {
	defer c.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-c.stop
		cancel()
	}()
	for {
		select {
		case <-c.kick:
		case <-c.stop:
			return
		}
		log, done, err := c.checkpoint(ctx, "PASSIVE")
		if err == nil && log-done > walLimitFrames {
			log, done, err = c.checkpoint(ctx, "RESTART")
		}
		if err == nil && log >= c.restartFrames.Load() && done == log {
			// Once more first, to copy what was committed during the first: the fewer
			// pages are left, the shorter the committer's own checkpoint.
			if log, done, err = c.checkpoint(ctx, "PASSIVE"); err == nil && done == log {
				c.restart.Store(true)
			}
		}
		if ran := c.ran.Load(); ran != nil {
			(*ran)(log, done, err)
		}
		select {
		case <-time.After(checkpointEvery):
		case <-c.stop:
			return
		}
	}
}

// checkpoint runs a checkpoint of the given mode and returns how many pages the log holds and
// how many of them are in the database now. An error (a connection that could not be had, a
// database that is closing) waits for the next commit's turn.
func (c *checkpointer) checkpoint(ctx context.Context, mode string) (log, done int64, err error) {
	var busy int64
	err = c.db.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &log, &done)
	return log, done, err
}

// SQLite writes the log from its beginning again only when a write transaction begins with the
// whole log copied into the database. While writes keep coming, the background checkpoint
// never sees that: by the time it has copied the log, the committer has appended more. So the
// log grew for as long as writing went on (tens of megabytes in seconds), each commit
// extending the file, whose sync then writes the file's size and blocks too, and the log's
// index, which every page read consults, grew with it. When the background checkpoint has
// copied the whole of a long log, it sets restart; the committer, before its next
// transaction, checkpoints the few pages committed since on its own connection, where no
// commit can slip in between, so that the transaction it begins starts the log again.

// restartLog runs a checkpoint on conn when the background checkpoint asked for it.
func (c *checkpointer) restartLog(ctx context.Context, conn *sql.Conn) {
	if !c.restart.CompareAndSwap(true, false) {
		return
	}
	var busy, log, done int64
	// An error leaves the log as it is, to be started again another time.
	_ = conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &log, &done)
}
