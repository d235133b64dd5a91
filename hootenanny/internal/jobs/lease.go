package jobs

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
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
	// Answers are the answers a job that waited for them was given; nil for any other job.
	Answers []byte
}

// renewBatch bounds the ids of one renewal statement.
const renewBatch = 500

// renew extends the lease of the jobs ids of owner that have not ended. Only the jobs that the
// owner still holds are renewed: a job whose end could not be written is left to lapse, so that
// a takeover deals with it.
func (s *Store) renew(ctx context.Context, owner string, ids []string, until time.Time) error {
	for len(ids) > 0 {
		n := min(len(ids), renewBatch)
		args := []any{until.UnixNano(), owner, int(StatusPending), int(StatusRunning)}
		for _, id := range ids[:n] {
			args = append(args, id)
		}
		if _, err := s.db.ExecContext(ctx, `UPDATE jobs SET lease_until = ? WHERE owner = ? AND status IN (?, ?) AND id IN (`+
			placeholders(n)+`)`, args...); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// placeholders returns n question marks separated by commas.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

const orphanColumns = `id, tool, owner, request, attempts, cancel_requested, answers`

// orphans returns up to limit jobs that have not ended and whose owner is gone at now: their
// lease lapsed, or their owner ran on host and that process has ended. Jobs whose lease lapsed
// come first, the longest lapsed first.
func (s *Store) orphans(ctx context.Context, host string, now time.Time, limit int) ([]orphan, error) {
	out, err := s.scanOrphans(ctx, `SELECT `+orphanColumns+` FROM jobs WHERE status IN (?, ?) AND lease_until < ?
		ORDER BY lease_until, id LIMIT ?`, int(StatusPending), int(StatusRunning), now.UnixNano(), limit)
	if err != nil || len(out) >= limit {
		return out, err
	}
	// Owners on this host whose process has ended: found at once, without waiting for their
	// leases. Few processes run on one host, so their names are read and checked here.
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT owner FROM jobs WHERE status IN (?, ?) AND lease_until >= ?
		AND substr(owner, 1, ?) = ?`, int(StatusPending), int(StatusRunning), now.UnixNano(), len(host)+1, host+"/")
	if err != nil {
		return nil, err
	}
	var dead []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			rows.Close()
			return nil, err
		}
		if deadOnHost(o, host) {
			dead = append(dead, o)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, o := range dead {
		more, err := s.scanOrphans(ctx, `SELECT `+orphanColumns+` FROM jobs WHERE status IN (?, ?) AND owner = ? ORDER BY id LIMIT ?`,
			int(StatusPending), int(StatusRunning), o, limit-len(out))
		if err != nil {
			return nil, err
		}
		if out = append(out, more...); len(out) >= limit {
			break
		}
	}
	return out, nil
}

func (s *Store) scanOrphans(ctx context.Context, q string, args ...any) ([]orphan, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []orphan
	for rows.Next() {
		var (
			o orphan
			c int
		)
		if err := rows.Scan(&o.ID, &o.Tool, &o.Owner, &o.Request, &o.Attempts, &c, &o.Answers); err != nil {
			return nil, err
		}
		o.Cancelled = c != 0
		out = append(out, o)
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
// takes it up at once: it becomes pending with a lapsed lease. The run it had does not count
// against its attempts: it was handed over, not lost.
func (s *Store) release(ctx context.Context, id, owner, message string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE jobs SET status = ?, lease_until = 0, message = ?, attempts = attempts - 1
		WHERE id = ? AND owner = ? AND status IN (?, ?)`,
		int(StatusPending), message, id, owner, int(StatusPending), int(StatusRunning))
	return err
}

// An owner names the process that runs a job: "host/pid/nonce". The host part is the host name
// and, where Linux tells them, the boot and the pid namespace, so that processes in two
// containers that share a host name are not taken for one another (a pid means nothing outside
// its namespace). The nonce tells apart two processes that had the same pid.
func ownerName() (host, owner string) {
	host = hostIdentity()
	var nonce [4]byte
	_, _ = rand.Read(nonce[:])
	return host, host + "/" + strconv.Itoa(os.Getpid()) + "/" + hex.EncodeToString(nonce[:])
}

// hostIdentity returns the host name, with a short digest of the boot id and the pid
// namespace when they can be read. Neither holds a "/".
func hostIdentity() string {
	name, _ := os.Hostname()
	name = strings.ReplaceAll(name, "/", "_")
	boot, err1 := os.ReadFile("/proc/sys/kernel/random/boot_id")
	ns, err2 := os.Readlink("/proc/self/ns/pid")
	if err1 != nil || err2 != nil {
		return name
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(string(boot)) + "|" + ns))
	return name + "~" + hex.EncodeToString(sum[:6])
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
