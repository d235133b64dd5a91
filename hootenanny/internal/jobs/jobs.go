// Package jobs runs work in the background and keeps a record of it in the worker's database:
// each job has an id, a status, progress, and once done an outcome, kept for a retention period.
// The package does not know what the work is: a job's request and result are opaque bytes.
//
// # Restarts
//
// A job belongs to the process that runs it (its owner, "host/pid"). A job that was pending or
// running when its owner died can never finish, so a [Runner] that starts, and every minute
// after, marks such jobs of dead owners on its host failed, with a message that says so. Work is
// not resumed: the caller is told to run the tool again.
//
// # Several processes
//
// Workers that share a data directory share the database. Any of them can read, await and
// cancel any job: a cancel of a job another process runs is recorded in the database, and the
// owner stops the job when it next writes its progress (within [FlushInterval]).
package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
)

// A Status is where a job stands. The numbers are those of hoot.v1.JobStatus.
type Status int

// The statuses of a job.
const (
	StatusPending   Status = 1
	StatusRunning   Status = 2
	StatusSucceeded Status = 3
	StatusFailed    Status = 4
	StatusCancelled Status = 5
)

// Done reports whether a job with this status has ended.
func (s Status) Done() bool { return s >= StatusSucceeded }

// String returns the status in lowercase, such as "running".
func (s Status) String() string {
	switch s {
	case StatusPending:
		return "pending"
	case StatusRunning:
		return "running"
	case StatusSucceeded:
		return "succeeded"
	case StatusFailed:
		return "failed"
	case StatusCancelled:
		return "cancelled"
	}
	return "status_" + strconv.Itoa(int(s))
}

// maxTime is the last time that Unix nanoseconds, as rows record times, can hold.
var maxTime = time.Unix(0, 1<<63-1)

// ErrNotFound reports a job that does not exist (or is past its retention).
var ErrNotFound = errors.New("jobs: no such job")

// A Job is one job's record.
type Job struct {
	ID       string
	Tool     string
	Status   Status
	Progress float64
	Total    float64
	// Message says what the job is doing now, or why it ended as it did.
	Message    string
	CreatedAt  time.Time
	StartedAt  time.Time // zero while pending
	FinishedAt time.Time // zero until done
	// Result is the outcome the work returned, once done; nil for a job that never returned one
	// (its owner died, or it was cancelled while pending).
	Result []byte
}

// A Filter selects jobs for [Store.List]. Zero fields do not filter.
type Filter struct {
	Status Status
	Tool   string
	Since  time.Time
	// After is the cursor: list the jobs that sort after this id (older ones).
	After string
	// Limit is the most to return; zero or less means 50, more than 500 means 500.
	Limit int
}

// A Store reads and writes job records.
type Store struct {
	db *database.DB
}

// NewStore returns a Store over db, a database opened with package database, of either engine.
func NewStore(db *database.DB) *Store { return &Store{db: db} }

const jobColumns = `id, tool, status, progress, total, message, created_at, started_at, finished_at`

// Get returns the job id; withResult says whether to read its result too.
func (s *Store) Get(ctx context.Context, id string, withResult bool) (Job, error) {
	cols := jobColumns
	if withResult {
		cols += ", result"
	}
	js, err := s.scan(ctx, withResult, `SELECT `+cols+` FROM jobs WHERE id = ?`, id)
	if err != nil {
		return Job{}, err
	}
	if len(js) == 0 {
		return Job{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return js[0], nil
}

// List returns the jobs that match f, newest first, without results, and the cursor of the
// next page ("" on the last).
func (s *Store) List(ctx context.Context, f Filter) ([]Job, string, error) {
	var where []string
	var args []any
	if f.Status != 0 {
		where = append(where, "status = ?")
		args = append(args, int(f.Status))
	}
	if f.Tool != "" {
		where = append(where, "tool = ?")
		args = append(args, f.Tool)
	}
	if f.Since.After(maxTime) {
		// Nothing was made after the last time a database row can record.
		return nil, "", nil
	}
	if !f.Since.IsZero() {
		where = append(where, "created_at >= ?")
		args = append(args, f.Since.UnixNano())
	}
	if f.After != "" {
		where = append(where, "id < ?")
		args = append(args, f.After)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, 500)
	q := `SELECT ` + jobColumns + ` FROM jobs`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	js, err := s.scan(ctx, false, q+` ORDER BY id DESC LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(js) > limit {
		js = js[:limit]
		next = js[limit-1].ID
	}
	return js, next, nil
}

// Count returns how many jobs are kept.
func (s *Store) Count(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM jobs`).Scan(&n)
	return n, err
}

func (s *Store) scan(ctx context.Context, withResult bool, q string, args ...any) ([]Job, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		var j Job
		var created int64
		var started, finished sql.NullInt64
		dest := []any{&j.ID, &j.Tool, &j.Status, &j.Progress, &j.Total, &j.Message, &created, &started, &finished}
		if withResult {
			dest = append(dest, &j.Result)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		j.CreatedAt = time.Unix(0, created).UTC()
		if started.Valid {
			j.StartedAt = time.Unix(0, started.Int64).UTC()
		}
		if finished.Valid {
			j.FinishedAt = time.Unix(0, finished.Int64).UTC()
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// insert records a new pending job.
func (s *Store) insert(ctx context.Context, j Job, request []byte, owner string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO jobs (id, tool, status, request, owner, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		j.ID, j.Tool, int(j.Status), request, owner, j.CreatedAt.UnixNano())
	return err
}

// start marks a job running, unless a cancel was asked for meanwhile; it reports whether it did.
func (s *Store) start(ctx context.Context, id string, at time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE jobs SET status = ?, started_at = ? WHERE id = ? AND status = ? AND cancel_requested = 0`,
		int(StatusRunning), at.UnixNano(), id, int(StatusPending))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// progress records a running job's progress and reports whether a cancel was asked for.
func (s *Store) progress(ctx context.Context, id string, done, total float64, msg string) (cancel bool, err error) {
	err = s.db.Write(ctx, func(tx *database.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET progress = ?, total = ?, message = ? WHERE id = ? AND status = ?`,
			done, total, msg, id, int(StatusRunning)); err != nil {
			return err
		}
		var c int
		if err := tx.QueryRowContext(ctx, `SELECT cancel_requested FROM jobs WHERE id = ?`, id).Scan(&c); err != nil {
			return err
		}
		cancel = c != 0
		return nil
	})
	return cancel, err
}

// finish records a job's end; a job that has ended already keeps its first end.
func (s *Store) finish(ctx context.Context, j Job) error {
	_, err := s.db.ExecContext(ctx, `UPDATE jobs SET status = ?, progress = ?, total = ?, message = ?, result = ?, finished_at = ?
		WHERE id = ? AND status IN (?, ?)`,
		int(j.Status), j.Progress, j.Total, j.Message, j.Result, j.FinishedAt.UnixNano(), j.ID, int(StatusPending), int(StatusRunning))
	return err
}

// requestCancel asks the owner of a job that has not ended to stop it, and reports whether the
// job had not ended.
func (s *Store) requestCancel(ctx context.Context, id string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE jobs SET cancel_requested = 1 WHERE id = ? AND status IN (?, ?)`,
		id, int(StatusPending), int(StatusRunning))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// failOrphans marks failed the jobs that have not ended and whose owner, on host, is dead (or is
// this very process, which means an earlier process had our pid). It returns how many.
func (s *Store) failOrphans(ctx context.Context, host string, self int, now time.Time) (int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT owner FROM jobs WHERE status IN (?, ?)`, int(StatusPending), int(StatusRunning))
	if err != nil {
		return 0, err
	}
	var owners []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			rows.Close()
			return 0, err
		}
		owners = append(owners, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	total := 0
	for _, o := range owners {
		h, pidText, ok := strings.Cut(o, "/")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || h != host || (pid != self && alive(pid)) {
			continue
		}
		res, err := s.db.ExecContext(ctx, `UPDATE jobs SET status = ?, message = ?, finished_at = ? WHERE owner = ? AND status IN (?, ?)`,
			int(StatusFailed), "the worker that ran this job stopped before it finished; run the tool again",
			now.UnixNano(), o, int(StatusPending), int(StatusRunning))
		if err != nil {
			return total, err
		}
		n, _ := res.RowsAffected()
		total += int(n)
	}
	return total, nil
}

// purge removes the jobs that ended before cutoff and returns how many.
func (s *Store) purge(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?`, cutoff.UnixNano())
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// alive reports whether a process with this pid exists on this host.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ownerName names this process as a job owner.
func ownerName() (host string, pid int, owner string) {
	host, _ = os.Hostname()
	pid = os.Getpid()
	return host, pid, host + "/" + strconv.Itoa(pid)
}
