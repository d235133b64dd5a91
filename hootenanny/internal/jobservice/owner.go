package jobservice

import (
	"context"
	"fmt"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/jobs"
	"github.com/hootenanny/hoot/hooteproto"
)

// Jobs belong to their caller. The gateway names who asked for each call (hoot.v1.Request's
// caller, when it checks tokens); a job records the caller that started it, and a caller below
// the admin tier reads, awaits, answers, cancels and lists only its own jobs. Another caller's
// job is answered exactly as a job that does not exist: a caller learns neither that the id is
// taken nor whose it is. Without a caller (a gateway that checks no tokens) every job is
// everyone's, as it always was.

// scope returns whose jobs the caller of ctx may see: restricted is false for every job's (no
// caller, or an admin), and otherwise principal names the caller.
func scope(ctx context.Context) (principal string, restricted bool) {
	c := hooteproto.CallerFrom(ctx)
	if c == nil || c.GetTier() >= hootv1.Tier_TIER_ADMIN {
		return "", false
	}
	return c.GetPrincipal(), true
}

// startedBy returns the caller that a job started with ctx records: the caller's principal,
// or "" without one.
func startedBy(ctx context.Context) string {
	return hooteproto.CallerFrom(ctx).GetPrincipal()
}

// A Reader reads jobs as the caller of each call may see them: the query service's graph reads
// jobs through one, as the job tools do.
type Reader struct{ runner *jobs.Runner }

// NewReader returns a Reader over runner.
func NewReader(runner *jobs.Runner) Reader { return Reader{runner: runner} }

// Get returns the job id if the caller of ctx may see it; another caller's job is
// jobs.ErrNotFound, as one that does not exist.
func (r Reader) Get(ctx context.Context, id string, withResult bool) (jobs.Job, error) {
	j, err := r.runner.Get(ctx, id, withResult)
	if err != nil {
		return jobs.Job{}, err
	}
	if principal, restricted := scope(ctx); restricted && j.Caller != principal {
		return jobs.Job{}, fmt.Errorf("%w: %s", jobs.ErrNotFound, id)
	}
	return j, nil
}

// List lists the jobs that match f among those the caller of ctx may see.
func (r Reader) List(ctx context.Context, f jobs.Filter) ([]jobs.Job, string, error) {
	if principal, restricted := scope(ctx); restricted {
		f.Caller = principal
	}
	return r.runner.Store().List(ctx, f)
}
