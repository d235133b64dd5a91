package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// An orphan is a job that has not ended and whose owner is gone: its lease has lapsed, or its
// owner was a process on this host that no longer runs.
type orphan struct {
	ID        string
	Tool      string
	Owner     string
	Request   []byte
	Attempts  int
	Cancelled bool // a cancel was asked for
}

// renew extends the lease of every job of owner that has not ended.
func (s *Store) renew(ctx context.Context, owner string, until time.Time) error {
	_, err := s.db.ExecContext(ctx, `UPDATE jobs SET lease_until = ? WHERE owner = ? AND status IN (?, ?)`,
		until.UnixNano(), owner, int(StatusPending), int(StatusRunning))
	return err
}

// orphans returns up to limit jobs that have not ended, are not self's, and whose owner is gone
// at now: their lease lapsed, or their owner ran on host and that process has ended.
func (s *Store) orphans(ctx context.Context, self, host string, now time.Time, limit int) ([]orphan, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, tool, owner, request, attempts, cancel_requested, lease_until FROM jobs
		WHERE status IN (?, ?) AND owner <> ? AND (lease_until < ? OR substr(owner, 1, ?) = ?) ORDER BY id LIMIT ?`,
		int(StatusPending), int(StatusRunning), self, now.UnixNano(), len(host)+1, host+"/", 4*limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []orphan
	for rows.Next() && len(out) < limit {
		var (
			o     orphan
			c     int
			lease int64
		)
		if err := rows.Scan(&o.ID, &o.Tool, &o.Owner, &o.Request, &o.Attempts, &c, &lease); err != nil {
			return nil, err
		}
		o.Cancelled = c != 0
		if lease < now.UnixNano() || deadOnHost(o.Owner, host) {
			out = append(out, o)
		}
	}
	return out, rows.Err()
}

// claim makes self the owner of the orphan o for another run, pending, if o is still as it was
// read (no other worker claimed it meanwhile); it reports whether it did.
func (s *Store) claim(ctx context.Context, o orphan, self string, until time.Time, message string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE jobs SET owner = ?, lease_until = ?, attempts = attempts + 1, status = ?,
		started_at = NULL, progress = 0, total = 0, message = ?
		WHERE id = ? AND owner = ? AND attempts = ? AND status IN (?, ?) AND cancel_requested = 0`,
		self, until.UnixNano(), int(StatusPending), message, o.ID, o.Owner, o.Attempts, int(StatusPending), int(StatusRunning))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// endOrphan ends the orphan o with status and message, if no other worker claimed it meanwhile.
func (s *Store) endOrphan(ctx context.Context, o orphan, status Status, message string, now time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE jobs SET status = ?, message = ?, finished_at = ?
		WHERE id = ? AND owner = ? AND attempts = ? AND status IN (?, ?)`,
		int(status), message, now.UnixNano(), o.ID, o.Owner, o.Attempts, int(StatusPending), int(StatusRunning))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// release gives up owner's claim on the job id, which has not ended, so that another worker
// takes it up at once: it becomes pending with a lapsed lease.
func (s *Store) release(ctx context.Context, id, owner, message string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE jobs SET status = ?, lease_until = 0, message = ?
		WHERE id = ? AND owner = ? AND status IN (?, ?)`,
		int(StatusPending), message, id, owner, int(StatusPending), int(StatusRunning))
	return err
}

// An owner names the process that runs a job: "host/pid/nonce". The nonce tells apart two
// processes that had the same pid; older records hold "host/pid".
func ownerName() (host, owner string) {
	host, _ = os.Hostname()
	var nonce [4]byte
	_, _ = rand.Read(nonce[:])
	return host, host + "/" + strconv.Itoa(os.Getpid()) + "/" + hex.EncodeToString(nonce[:])
}

// deadOnHost reports whether owner names a process on host that no longer runs.
func deadOnHost(owner, host string) bool {
	h, rest, ok := strings.Cut(owner, "/")
	if !ok || h != host {
		return false
	}
	pidText, _, _ := strings.Cut(rest, "/")
	pid, err := strconv.Atoi(pidText)
	return err == nil && !alive(pid)
}

// alive reports whether a process with this pid exists on this host.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
