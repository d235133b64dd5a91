package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
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
	// sweepInterval is how often finished jobs past their retention are removed and jobs of dead
	// owners are failed.
	sweepInterval = time.Minute
	// stopGrace is how long Close waits for jobs to stop after cancelling them.
	stopGrace = 10 * time.Second
)

// A Config says how a [Runner] runs jobs. Zero fields take their defaults.
type Config struct {
	// Concurrency is how many jobs run at once; the others wait, pending.
	Concurrency int
	// Retention is how long a finished job, with its result, is kept.
	Retention time.Duration
	// Logger receives reports of faults. Nil discards them.
	Logger *slog.Logger
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
}

// A Func is a job's work. It must return soon after ctx ends.
type Func func(ctx context.Context, report ProgressFunc) Outcome

// The causes that end a job's context.
var (
	errCancelled = errors.New("jobs: cancelled at a caller's request")
	errStopping  = errors.New("jobs: the worker is stopping")
)

// A Runner runs jobs in the background of this process and keeps their records in a [Store].
type Runner struct {
	store *Store
	cfg   Config
	host  string
	pid   int
	owner string
	slots chan struct{}

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

// NewRunner returns a Runner over store. It fails the jobs of dead owners on this host and then
// sweeps every minute: old finished jobs go, and orphans fail. Close stops it.
func NewRunner(ctx context.Context, store *Store, cfg Config) (*Runner, error) {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Retention <= 0 {
		cfg.Retention = DefaultRetention
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	host, pid, owner := ownerName()
	rctx, stop := context.WithCancelCause(context.Background())
	r := &Runner{
		store: store, cfg: cfg, host: host, pid: pid, owner: owner,
		slots: make(chan struct{}, cfg.Concurrency),
		ctx:   rctx, stop: stop,
		live:    make(map[string]*liveJob),
		changed: make(chan struct{}),
	}
	if err := r.sweep(ctx); err != nil {
		stop(errStopping)
		return nil, err
	}
	r.wg.Go(r.sweepLoop)
	return r, nil
}

// Store returns the runner's store.
func (r *Runner) Store() *Store { return r.store }

func (r *Runner) sweep(ctx context.Context) error {
	now := time.Now()
	n, err := r.store.failOrphans(ctx, r.host, r.pid, now)
	if err != nil {
		return fmt.Errorf("jobs: failing orphaned jobs: %w", err)
	}
	if n > 0 {
		r.cfg.Logger.Warn("jobs: failed jobs whose worker had stopped", "count", n)
	}
	if _, err := r.store.purge(ctx, now.Add(-r.cfg.Retention)); err != nil {
		return fmt.Errorf("jobs: removing old jobs: %w", err)
	}
	return nil
}

func (r *Runner) sweepLoop() {
	t := time.NewTicker(min(sweepInterval, r.cfg.Retention/4))
	defer t.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-t.C:
			if err := r.sweep(r.ctx); err != nil && r.ctx.Err() == nil {
				r.cfg.Logger.Error("jobs: sweep failed", "err", err)
			}
		}
	}
}

// Start records a new job of tool, with its request for the record, and runs fn in the
// background once a slot is free. It returns the job as recorded, pending.
func (r *Runner) Start(ctx context.Context, tool string, request []byte, fn Func) (Job, error) {
	if err := r.ctx.Err(); err != nil {
		return Job{}, errStopping
	}
	now := time.Now().UTC()
	j := Job{ID: ids.New(ids.Job, now), Tool: tool, Status: StatusPending, CreatedAt: now}
	if err := r.store.insert(ctx, j, request, r.owner); err != nil {
		return Job{}, fmt.Errorf("jobs: recording the job: %w", err)
	}
	jctx, cancel := context.WithCancelCause(r.ctx)
	l := &liveJob{cancel: cancel, done: make(chan struct{})}
	r.mu.Lock()
	r.live[j.ID] = l
	r.mu.Unlock()
	r.wg.Go(func() { r.run(jctx, j, l, fn) })
	return j, nil
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
	started, err := r.store.start(context.WithoutCancel(ctx), j.ID, now)
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
		cancel, err := r.store.progress(ctx, id, done, total, msg)
		if err != nil {
			if ctx.Err() == nil {
				r.cfg.Logger.Warn("jobs: recording progress", "job", id, "err", err)
			}
			continue
		}
		if cancel {
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
	switch {
	case cancelled || errors.Is(context.Cause(ctx), errCancelled):
		j.Status = StatusCancelled
		j.Message = "cancelled at a caller's request"
	case errors.Is(context.Cause(ctx), errStopping):
		j.Status = StatusFailed
		j.Message = "the worker stopped while the job ran; run the tool again"
		j.Result = nil
	case out.Failed:
		j.Status = StatusFailed
	default:
		j.Status = StatusSucceeded
	}
	j.FinishedAt = time.Now().UTC()
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := r.store.finish(wctx, j); err != nil {
		r.cfg.Logger.Error("jobs: recording the outcome", "job", j.ID, "err", err)
	}
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
