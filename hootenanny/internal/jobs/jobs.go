// Package jobs runs work in the background and keeps a record of it in the worker's database:
// each job has an id, a status, progress, and once done an outcome, kept for a retention period.
// The package does not know what the work is: a job's request and result are opaque bytes.
//
// # Jobs outlive their worker
//
// A job belongs to the process that runs it (its owner, "host/pid/nonce"), which holds a lease
// on it and renews it while the job is pending or running. A job whose lease has lapsed (or
// whose owner was a process on this host that has ended) is an orphan. Once [Runner.TakeUp] has
// been called, a runner looks for orphans three times per lease: a job whose tool its
// [Resumer] says is resumable is claimed (one claim wins, by a conditional update) and run again
// from its stored request, up to [MaxAttempts] runs; other orphans end failed, with a message
// that tells the caller to run the tool again. A worker that stops in good order hands its
// resumable jobs over at once instead of failing them.
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
	"strconv"
	"strings"
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
	// StatusInputRequired: the job's work stopped at questions it has no answers for, and
	// waits for them (see [Runner.Answer]); it has not ended.
	StatusInputRequired Status = 6
)

// Done reports whether a job with this status has ended.
func (s Status) Done() bool {
	return s == StatusSucceeded || s == StatusFailed || s == StatusCancelled
}

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
	case StatusInputRequired:
		return "input_required"
	}
	return "status_" + strconv.Itoa(int(s))
}

// maxTime is the last time that Unix nanoseconds, as rows record times, can hold.
var maxTime = time.Unix(0, 1<<63-1)

// ErrNotFound reports a job that does not exist (or is past its retention).
var ErrNotFound = errors.New("jobs: no such job")

// A Job is one job's record.
type Job struct {
	ID   string
	Tool string
	// Caller names who started the job, as the gateway's access control named them; empty for
	// a job started through a gateway that checks no tokens.
	Caller   string
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
	// Questions are what a job of StatusInputRequired waits on, as its work returned them in
	// [Outcome.Questions]; read with the result.
	Questions []byte
	// answers are the answers given so far, which a run taken up after them is given.
	answers []byte
}

// A Filter selects jobs for [Store.List]. Zero fields do not filter.
type Filter struct {
	Status Status
	Tool   string
	// Caller, when not empty, lists only the jobs this caller started.
	Caller string
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

const jobColumns = `id, tool, caller, status, progress, total, message, created_at, started_at, finished_at`

// Get returns the job id; withResult says whether to read its result too.
func (s *Store) Get(ctx context.Context, id string, withResult bool) (Job, error) {
	cols := jobColumns
	if withResult {
		cols += ", result, questions"
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
	if f.Caller != "" {
		where = append(where, "caller = ?")
		args = append(args, f.Caller)
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

// CountByStatus counts the jobs of every status, over every worker that shares the database.
func (s *Store) CountByStatus(ctx context.Context) (map[Status]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT status, COUNT(*) FROM jobs GROUP BY status`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[Status]int64{}
	for rows.Next() {
		var st int
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[Status(st)] = n
	}
	return out, rows.Err()
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
		dest := []any{&j.ID, &j.Tool, &j.Caller, &j.Status, &j.Progress, &j.Total, &j.Message, &created, &started, &finished}
		if withResult {
			dest = append(dest, &j.Result, &j.Questions)
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

// insert records a new pending job, owned by owner until leaseUntil.
func (s *Store) insert(ctx context.Context, j Job, request []byte, owner string, leaseUntil time.Time) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO jobs (id, tool, caller, status, request, owner, created_at, lease_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		j.ID, j.Tool, j.Caller, int(j.Status), request, owner, j.CreatedAt.UnixNano(), leaseUntil.UnixNano())
	return err
}

// start marks a job of owner running, unless a cancel was asked for meanwhile; it reports
// whether it did.
func (s *Store) start(ctx context.Context, id, owner string, at time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE jobs SET status = ?, started_at = ? WHERE id = ? AND owner = ? AND status = ? AND cancel_requested = 0`,
		int(StatusRunning), at.UnixNano(), id, owner, int(StatusPending))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// progress records the progress of a running job of owner's, and reports whether a cancel was
// asked for and whether the job is still owner's (another worker may have taken it up).
func (s *Store) progress(ctx context.Context, id, owner string, done, total float64, msg string) (cancel, ours bool, err error) {
	// One statement, not a transaction: the row is locked only while the server runs it, so a
	// worker frozen between two reports holds nothing that the one taking its job up needs.
	var c int
	err = s.db.QueryRowContext(ctx, `UPDATE jobs SET progress = ?, total = ?, message = ? WHERE id = ? AND owner = ? AND status = ?
		RETURNING cancel_requested`, done, total, msg, id, owner, int(StatusRunning)).Scan(&c)
	if err == nil {
		return c != 0, true, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return false, false, err
	}
	// Not updated: the job has changed hands or is no longer running. Say which.
	var by string
	if err := s.db.QueryRowContext(ctx, `SELECT cancel_requested, owner FROM jobs WHERE id = ?`, id).Scan(&c, &by); err != nil {
		return false, false, err
	}
	return c != 0, by == owner, nil
}

// finish records the end of a job of owner's; a job that has ended already keeps its first end,
// and one that another worker has taken up is left to it.
func (s *Store) finish(ctx context.Context, j Job, owner string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE jobs SET status = ?, progress = ?, total = ?, message = ?, result = ?, finished_at = ?
		WHERE id = ? AND owner = ? AND status IN (?, ?)`,
		int(j.Status), j.Progress, j.Total, j.Message, j.Result, j.FinishedAt.UnixNano(), j.ID, owner, int(StatusPending), int(StatusRunning))
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

// purge removes the jobs that ended before cutoff and returns how many.
func (s *Store) purge(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?`, cutoff.UnixNano())
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
