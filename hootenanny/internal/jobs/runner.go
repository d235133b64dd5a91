package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/ids"
)

// Defaults of a [Config]'s zero fields, and the runner's fixed intervals.
const (
	DefaultConcurrency = 4
	DefaultRetention   = 24 * time.Hour
	// FlushInterval is how often a running job's progress is written to the database, and how
	// soon a cancel asked for by another process reaches the job.
	FlushInterval = 250 * time.Millisecond
	// sweepInterval is how often finished jobs past their retention are removed.
	sweepInterval = time.Minute
	// DefaultLeaseTTL is how long a job's owner may go without renewing its claim before other
	// workers count the job orphaned. The owner renews it three times as often.
	DefaultLeaseTTL = 15 * time.Second
	// MaxAttempts is how many runs a resumable job may have: one that has stopped its worker
	// that often is failed rather than taken up again.
	MaxAttempts = 3
	// stopGrace is how long Close waits for jobs to stop after cancelling them.
	stopGrace = 10 * time.Second
)

// A Config says how a [Runner] runs jobs. Zero fields take their defaults.
type Config struct {
	// Concurrency is how many jobs run at once; the others wait, pending.
	Concurrency int
	// Retention is how long a finished job, with its result, is kept.
	Retention time.Duration
	// LeaseTTL is how long a job's claim holds without renewal; see [DefaultLeaseTTL].
	LeaseTTL time.Duration
	// Logger receives reports of faults. Nil discards them.
	Logger *slog.Logger
}

// A Resumer knows which jobs may run again on another worker, and how: it is given to
// [Runner.TakeUp] by whoever knows the tools.
type Resumer interface {
	// Resumable reports whether a job of tool may be run again from the start.
	Resumable(tool string) bool
	// Serves reports whether this worker serves tool at all: a job that waited for answers
	// runs again on any worker that serves its tool, resumable or not (see [Runner.Answer]).
	Serves(tool string) bool
	// Resume returns the work of a job of tool from the request it was started with.
	Resume(tool string, request []byte) (Func, error)
}

// A ProgressFunc reports how far a job has come: work done, work in all (0 when not known) and
// what is happening now.
type ProgressFunc func(done, total float64, message string)

// An Outcome is what a job's work returns.
type Outcome struct {
	// Result is kept as the job's result.
	Result []byte
	// Failed says the work failed; Result then describes the failure.
	Failed bool
	// Message is the job's last message, such as a summary or the failure.
	Message string
	// Questions, when not nil, says that the work stopped at questions it has no answers for:
	// the job waits for them with StatusInputRequired (see [Runner.Answer]), and Questions,
	// opaque here, is kept as the job's questions. Result is then ignored.
	Questions []byte
}

// A Func is a job's work. It must return soon after ctx ends.
type Func func(ctx context.Context, report ProgressFunc) Outcome

// The causes that end a job's context.
var (
	errCancelled = errors.New("jobs: cancelled at a caller's request")
	errStopping  = errors.New("jobs: the worker is stopping")
	errLostClaim = errors.New("jobs: another worker has taken the job up")
)

type jobIDKey struct{}

// IDFrom returns the id of the job whose work runs with ctx, or "" outside a job.
func IDFrom(ctx context.Context) string {
	id, _ := ctx.Value(jobIDKey{}).(string)
	return id
}

// A Runner runs jobs in the background of this process and keeps their records in a [Store].
type Runner struct {
	store *Store
	cfg   Config
	host  string
	owner string
	slots chan struct{}
	// resumer is set by TakeUp; until then orphans are left to their lease.
	resumer atomic.Pointer[Resumer]
	takeUp  chan struct{} // asks the lease loop for a pass over orphans now

	ctx  context.Context
	stop context.CancelCauseFunc
	wg   sync.WaitGroup

	mu      sync.Mutex
	live    map[string]*liveJob
	changed chan struct{} // closed when any job of this runner changes status, then replaced
}

// liveJob is what the runner knows of a job of its own that has not ended.
type liveJob struct {
	cancel context.CancelCauseFunc
	done   chan struct{}

	mu        sync.Mutex
	progress  float64
	total     float64
	message   string
	dirty     bool
	cancelled bool
}

// NewRunner returns a Runner over store. It removes finished jobs past their retention now and
// every minute, and renews the claims of its own jobs. Jobs whose owner is gone are dealt with
// once [Runner.TakeUp] has been called. Close stops it.
func NewRunner(ctx context.Context, store *Store, cfg Config) (*Runner, error) {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Retention <= 0 {
		cfg.Retention = DefaultRetention
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	host, owner := ownerName()
	rctx, stop := context.WithCancelCause(context.Background())
	r := &Runner{
		store: store, cfg: cfg, host: host, owner: owner,
		slots:  make(chan struct{}, cfg.Concurrency),
		takeUp: make(chan struct{}, 1),
		ctx:    rctx, stop: stop,
		live:    make(map[string]*liveJob),
		changed: make(chan struct{}),
	}
	if err := r.sweep(ctx); err != nil {
		stop(errStopping)
		return nil, err
	}
	r.wg.Go(r.sweepLoop)
	r.wg.Go(r.leaseLoop)
	r.wg.Go(r.adoptLoop)
	return r, nil
}

// Store returns the runner's store.
func (r *Runner) Store() *Store { return r.store }

// Live returns how many jobs this runner has started that have not ended.
func (r *Runner) Live() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.live)
}

// Retention returns how long a finished job is kept.
func (r *Runner) Retention() time.Duration { return r.cfg.Retention }

func (r *Runner) sweep(ctx context.Context) error {
	now := time.Now()
	if _, err := r.store.purge(ctx, now.Add(-r.cfg.Retention)); err != nil {
		return fmt.Errorf("jobs: removing old jobs: %w", err)
	}
	return nil
}

// every calls fn every d until the runner stops.
func (r *Runner) every(d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}

// sweepLoop removes old finished jobs every sweepInterval (or a quarter of the retention).
func (r *Runner) sweepLoop() {
	r.every(min(sweepInterval, r.cfg.Retention/4), func() {
		if err := r.sweep(r.ctx); err != nil && r.ctx.Err() == nil {
			r.cfg.Logger.Error("jobs: sweep failed", "err", err)
		}
	})
}

// Start records a new job of tool, with its request for the record, and runs fn in the
// background once a slot is free. It returns the job as recorded, pending. The job names no
// caller: it is StartAs with an empty caller.
func (r *Runner) Start(ctx context.Context, tool string, request []byte, fn Func) (Job, error) {
	return r.StartAs(ctx, "", tool, request, fn)
}

// StartAs is Start for a job started by caller, which the job's record keeps (Job.Caller).
func (r *Runner) StartAs(ctx context.Context, caller, tool string, request []byte, fn Func) (Job, error) {
	if err := r.ctx.Err(); err != nil {
		return Job{}, errStopping
	}
	now := time.Now().UTC()
	j := Job{ID: ids.New(ids.Job, now), Tool: tool, Caller: caller, Status: StatusPending, CreatedAt: now}
	if err := r.store.insert(ctx, j, request, r.owner, now.Add(r.cfg.LeaseTTL)); err != nil {
		return Job{}, fmt.Errorf("jobs: recording the job: %w", err)
	}
	r.launch(j, fn)
	return j, nil
}

// launch runs fn as the work of j, a job of this runner's, in the background.
func (r *Runner) launch(j Job, fn Func) {
	base := context.WithValue(r.ctx, jobIDKey{}, j.ID)
	if j.answers != nil {
		base = context.WithValue(base, answersKey{}, j.answers)
	}
	jctx, cancel := context.WithCancelCause(base)
	l := &liveJob{cancel: cancel, done: make(chan struct{})}
	r.mu.Lock()
	r.live[j.ID] = l
	r.mu.Unlock()
	r.wg.Go(func() { r.run(jctx, j, l, fn) })
}

func (r *Runner) run(ctx context.Context, j Job, l *liveJob, fn Func) {
	defer func() {
		r.mu.Lock()
		delete(r.live, j.ID)
		r.mu.Unlock()
		close(l.done)
		l.cancel(nil)
		r.notify()
	}()
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	case <-ctx.Done():
		r.end(ctx, j, l, Outcome{})
		return
	}
	now := time.Now().UTC()
	started, err := r.store.start(context.WithoutCancel(ctx), j.ID, r.owner, now)
	if err != nil || !started {
		if err != nil {
			r.cfg.Logger.Error("jobs: recording the start", "job", j.ID, "err", err)
		}
		l.mu.Lock()
		l.cancelled = true
		l.mu.Unlock()
		r.end(ctx, j, l, Outcome{})
		return
	}
	j.Status, j.StartedAt = StatusRunning, now
	r.notify()

	flushed := make(chan struct{})
	fctx, stopFlush := context.WithCancel(ctx)
	go func() {
		defer close(flushed)
		r.flushLoop(fctx, j.ID, l)
	}()
	out := r.call(ctx, j, fn, l)
	stopFlush()
	<-flushed
	r.end(ctx, j, l, out)
}

// call runs fn and turns a panic into a failure.
func (r *Runner) call(ctx context.Context, j Job, fn Func, l *liveJob) (out Outcome) {
	defer func() {
		if p := recover(); p != nil {
			r.cfg.Logger.Error("jobs: job panicked", "job", j.ID, "tool", j.Tool, "panic", p, "stack", string(debug.Stack()))
			out = Outcome{Failed: true, Message: "the job failed unexpectedly; the worker's log has the details"}
		}
	}()
	return fn(ctx, func(done, total float64, message string) {
		l.mu.Lock()
		l.progress, l.total, l.message, l.dirty = done, total, message, true
		l.mu.Unlock()
	})
}

// flushLoop writes the job's progress while it runs and watches for a cancel asked for by
// another process.
func (r *Runner) flushLoop(ctx context.Context, id string, l *liveJob) {
	t := time.NewTicker(FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		l.mu.Lock()
		done, total, msg := l.progress, l.total, l.message
		l.dirty = false
		l.mu.Unlock()
		cancel, ours, err := r.store.progress(ctx, id, r.owner, done, total, msg)
		if err != nil {
			if ctx.Err() == nil {
				r.cfg.Logger.Warn("jobs: recording progress", "job", id, "err", err)
			}
			continue
		}
		switch {
		case !ours:
			// This worker's claim lapsed (it could not reach the database for longer than the
			// lease) and another took the job up: stop, and write nothing more.
			r.cfg.Logger.Warn("jobs: another worker has taken up a job of this one", "job", id)
			l.cancel(errLostClaim)
			return
		case cancel:
			l.mu.Lock()
			l.cancelled = true
			l.mu.Unlock()
			l.cancel(errCancelled)
		}
	}
}

// end records the job's outcome.
func (r *Runner) end(ctx context.Context, j Job, l *liveJob, out Outcome) {
	l.mu.Lock()
	j.Progress, j.Total, j.Message = l.progress, l.total, out.Message
	cancelled := l.cancelled
	l.mu.Unlock()
	j.Result = out.Result
	cause := context.Cause(ctx)
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	switch {
	case errors.Is(cause, errLostClaim):
		return
	case errors.Is(cause, errStopping) && !cancelled && r.resumable(j.Tool):
		// Another worker takes the job up at once.
		if err := r.store.release(wctx, j.ID, r.owner, "waiting for another worker: the one that ran it stopped"); err != nil {
			r.cfg.Logger.Error("jobs: handing the job over", "job", j.ID, "err", err)
		}
		return
	}
	if out.Questions != nil && !cancelled && cause == nil {
		j.Message = out.Message
		if _, err := r.store.park(wctx, j, r.owner, out.Questions); err != nil {
			r.cfg.Logger.Error("jobs: recording the questions of a job; the job is left to a takeover", "job", j.ID, "err", err)
		}
		return
	}
	switch {
	case cancelled || errors.Is(cause, errCancelled):
		j.Status = StatusCancelled
		j.Message = "cancelled at a caller's request"
	case errors.Is(cause, errStopping):
		j.Status = StatusFailed
		j.Message = "the worker stopped while the job ran; run the tool again"
		j.Result = nil
	case out.Failed:
		j.Status = StatusFailed
	default:
		j.Status = StatusSucceeded
	}
	j.FinishedAt = time.Now().UTC()
	// A database that blinks should not lose the outcome: the write is tried a few times. If it
	// still fails, the job's lease is no longer renewed (it leaves r.live), so it lapses and a
	// takeover runs the job again or ends it.
	for try := 1; ; try++ {
		err := r.store.finish(wctx, j, r.owner)
		if err == nil {
			return
		}
		if try == finishTries || wctx.Err() != nil {
			r.cfg.Logger.Error("jobs: recording the outcome; the job is left to a takeover", "job", j.ID, "err", err)
			return
		}
		select {
		case <-wctx.Done():
		case <-time.After(time.Duration(try) * 500 * time.Millisecond):
		}
	}
}

// finishTries is how often the outcome of a job is written before it is left to a takeover.
const finishTries = 4

// TakeUp hands the runner a Resumer and deals with the jobs whose owner is gone, now and from
// then on: a job of a resumable tool that has had fewer than MaxAttempts runs is run again here;
// the others end, failed (or cancelled, when a cancel was asked for), with a message that says
// why. res may be nil: no job is then run again.
func (r *Runner) TakeUp(ctx context.Context, res Resumer) error {
	r.resumer.Store(&res)
	return r.adopt(ctx)
}

func (r *Runner) resumable(tool string) bool {
	p := r.resumer.Load()
	return p != nil && *p != nil && (*p).Resumable(tool)
}

// leaseLoop renews the claims of this runner's jobs three times per lease. It does nothing
// else, and each renewal is bounded by the interval, so that nothing slower (such as taking up
// orphans) can make this runner's own leases lapse.
func (r *Runner) leaseLoop() {
	interval := r.cfg.LeaseTTL / 3
	r.every(interval, func() {
		r.mu.Lock()
		ids := make([]string, 0, len(r.live))
		for id := range r.live {
			ids = append(ids, id)
		}
		r.mu.Unlock()
		if len(ids) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(r.ctx, interval)
		err := r.store.renew(ctx, r.owner, ids, time.Now().Add(r.cfg.LeaseTTL))
		cancel()
		if err != nil && r.ctx.Err() == nil {
			r.cfg.Logger.Warn("jobs: renewing the claims of running jobs", "err", err)
		}
	})
}

// adoptLoop looks for orphans three times per lease once TakeUp has been called; each pass is
// bounded by the lease.
func (r *Runner) adoptLoop() {
	r.every(r.cfg.LeaseTTL/3, func() {
		if r.resumer.Load() == nil {
			return
		}
		ctx, cancel := context.WithTimeout(r.ctx, r.cfg.LeaseTTL)
		err := r.adopt(ctx)
		cancel()
		if err != nil && r.ctx.Err() == nil {
			r.cfg.Logger.Warn("jobs: looking for jobs whose worker stopped", "err", err)
		}
	})
}

// adopt deals with the orphans it finds, up to what this runner has room for.
func (r *Runner) adopt(ctx context.Context) error {
	if r.ctx.Err() != nil {
		return nil
	}
	now := time.Now()
	found, err := r.store.orphans(ctx, r.host, now, 2*r.cfg.Concurrency)
	if err != nil {
		return fmt.Errorf("jobs: reading jobs whose worker stopped: %w", err)
	}
	var res Resumer
	if p := r.resumer.Load(); p != nil {
		res = *p
	}
	for _, o := range found {
		r.mu.Lock()
		_, mine := r.live[o.ID]
		r.mu.Unlock()
		if mine {
			continue // a job of this runner whose renewal failed: it still runs here
		}
		status, msg := StatusFailed, "the worker that ran this job stopped before it finished; run the tool again"
		rerun := o.Answers != nil && !o.Cancelled // it waited for answers and got them
		if rerun && (res == nil || !res.Serves(o.Tool)) {
			continue // a worker that serves its tool takes it up
		}
		switch {
		case o.Cancelled:
			status, msg = StatusCancelled, "cancelled at a caller's request"
		case res == nil || !rerun && !res.Resumable(o.Tool):
		case o.Attempts >= MaxAttempts:
			msg = fmt.Sprintf("the job's worker stopped during each of its %d runs; run the tool again, maybe with less work", o.Attempts)
		default:
			r.mu.Lock()
			room := len(r.live) < r.cfg.Concurrency
			r.mu.Unlock()
			if !room {
				continue // another worker may take it, or this one later
			}
			fn, err := res.Resume(o.Tool, o.Request)
			if err != nil {
				msg = "the job could not be taken up by another worker: " + err.Error()
				break
			}
			ok, err := r.store.claim(ctx, o, r.owner, now.Add(r.cfg.LeaseTTL),
				fmt.Sprintf("taken up by another worker (run %d) after its worker stopped", o.Attempts+1))
			if err != nil {
				return fmt.Errorf("jobs: taking up job %s: %w", o.ID, err)
			}
			if ok {
				r.cfg.Logger.Info("jobs: took up a job whose worker stopped", "job", o.ID, "tool", o.Tool, "run", o.Attempts+1)
				r.launch(Job{ID: o.ID, Tool: o.Tool, Status: StatusPending, answers: o.Answers}, fn)
			}
			continue
		}
		ok, err := r.store.endOrphan(ctx, o, status, msg, now)
		if err != nil {
			return fmt.Errorf("jobs: ending job %s: %w", o.ID, err)
		}
		if ok {
			r.cfg.Logger.Warn("jobs: ended a job whose worker stopped", "job", o.ID, "tool", o.Tool, "status", status)
		}
	}
	return nil
}

func (r *Runner) notify() {
	r.mu.Lock()
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// Get returns the job id, with its result when withResult is set. The progress of a job this
// runner runs is the latest reported, not only the latest written.
func (r *Runner) Get(ctx context.Context, id string, withResult bool) (Job, error) {
	j, err := r.store.Get(ctx, id, withResult)
	if err != nil {
		return Job{}, err
	}
	r.mu.Lock()
	l := r.live[id]
	r.mu.Unlock()
	if l != nil && !j.Status.Done() {
		l.mu.Lock()
		j.Progress, j.Total, j.Message = l.progress, l.total, l.message
		l.mu.Unlock()
	}
	return j, nil
}

// Await waits until the jobs are done (all of them, or any one when anyDone) or ctx ends, and
// returns them with their results, in the order of idList. timedOut is true when ctx ended
// first. A job that does not exist gives an error that matches [ErrNotFound].
func (r *Runner) Await(ctx context.Context, idList []string, anyDone bool) (jobs []Job, timedOut bool, err error) {
	poll := time.NewTicker(FlushInterval)
	defer poll.Stop()
	for {
		r.mu.Lock()
		changed := r.changed
		r.mu.Unlock()
		jobs = jobs[:0]
		done := 0
		for _, id := range idList {
			j, err := r.Get(context.WithoutCancel(ctx), id, true)
			if err != nil {
				return nil, false, err
			}
			if j.Status.Done() {
				done++
			}
			jobs = append(jobs, j)
		}
		if done == len(idList) || (anyDone && done > 0) {
			return jobs, false, nil
		}
		select {
		case <-changed:
		case <-poll.C: // jobs of other processes change only in the database
		case <-ctx.Done():
			return jobs, true, nil
		}
	}
}

// Cancel stops the job id if it has not ended and waits, up to ctx, for it to stop; it
// returns the job as it then stands. Cancelling a job that has ended changes nothing.
func (r *Runner) Cancel(ctx context.Context, id string) (Job, error) {
	r.mu.Lock()
	l := r.live[id]
	r.mu.Unlock()
	if l != nil {
		l.mu.Lock()
		l.cancelled = true
		l.mu.Unlock()
		l.cancel(errCancelled)
		select {
		case <-l.done:
		case <-ctx.Done():
		}
		return r.Get(context.WithoutCancel(ctx), id, true)
	}
	j, err := r.store.Get(ctx, id, false)
	if err != nil {
		return Job{}, err
	}
	if j.Status == StatusInputRequired {
		if _, err := r.store.cancelWaiting(ctx, id, time.Now()); err != nil {
			return Job{}, err
		}
		r.notify()
		return r.Get(ctx, id, true)
	}
	if j.Status.Done() {
		return r.Get(ctx, id, true)
	}
	// Another process runs it: ask its owner, and wait for it to stop.
	if _, err := r.store.requestCancel(ctx, id); err != nil {
		return Job{}, err
	}
	jobs, _, err := r.Await(ctx, []string{id}, false)
	if err != nil {
		return Job{}, err
	}
	return jobs[0], nil
}

// Close cancels the jobs that still run, which end failed as the worker stops, waits for them
// (up to a grace period) and stops the sweeps.
func (r *Runner) Close() error {
	r.stop(errStopping)
	done := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-time.After(stopGrace):
		return errors.New("jobs: some jobs did not stop within the grace period")
	}
}
