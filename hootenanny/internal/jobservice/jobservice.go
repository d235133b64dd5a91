// Package jobservice serves the tools of the "job" service (job_status, job_await, job_list and
// job_cancel) and starts the tools of kind JOB: it is the [hootv1hoot.JobStarter] that the
// generated services of such tools take, so a JOB tool needs nothing of its own to run in the
// background.
//
// A job's request and outcome are stored as protobuf: the request as the hoot.v1.Payload of
// the call, the outcome as the hoot.v1.Result the tool returned (its typed result, or its
// error as a ToolError), which job_status and job_await hand back as they are.
package jobservice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/ids"
	"github.com/hootenanny/hoot/hootenanny/internal/jobs"
	"github.com/hootenanny/hoot/hootenanny/internal/outage"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Await timeouts: the default, and the most a call waits. The most stays under the gateway's
// default call timeout (60 s), so that a wait ends as a timeout, not as a failed call.
const (
	DefaultAwaitTimeout = 30 * time.Second
	MaxAwaitTimeout     = 50 * time.Second
)

// awaitMargin is how long before a call's deadline job_await stops waiting.
const awaitMargin = 500 * time.Millisecond

// cancelWait is how long job_cancel waits for the job's work to stop.
const cancelWait = 10 * time.Second

// A Handler serves the "job" tools and starts tools of kind JOB.
type Handler struct {
	runner *jobs.Runner
	jobs   Reader // reads jobs as the caller may see them (owner.go)
	log    *slog.Logger
}

var (
	_ hootv1hoot.JobHandler = (*Handler)(nil)
	_ hootv1hoot.JobStarter = (*Handler)(nil)
)

// New returns a Handler over runner. A nil logger means slog.Default().
func New(runner *jobs.Runner, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.Default()
	}
	return &Handler{runner: runner, jobs: NewReader(runner), log: log}
}

// StartJob runs the work of the call p of a tool of kind JOB in the background and answers
// at once with the job's id. When the call is a job taken up again (see Resumer), it hands the
// work to the runner instead.
func (h *Handler) StartJob(ctx context.Context, tool string, p *hootv1.Payload, run func(context.Context) (*hootv1.Result, error)) (*hootv1.Result, error) {
	if slot, ok := ctx.Value(resumeKey{}).(*jobs.Func); ok {
		*slot = h.work(tool, run)
		return nil, nil
	}
	request, err := proto.Marshal(p)
	if err != nil {
		return nil, hooteproto.WrapError(hooteproto.CodeInternal, fmt.Errorf("encoding the request: %w", err))
	}
	j, err := h.runner.StartAs(ctx, startedBy(ctx), tool, request, h.work(tool, run))
	if err != nil {
		if e := outage.Error("starting the job", err); e != nil {
			h.log.Warn("jobservice: starting a job", "tool", tool, "err", err)
			return nil, e
		}
		h.log.Error("jobservice: starting a job", "tool", tool, "err", err)
		return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "the worker could not start the job").
			WithRetryable(true).
			WithHint("call the tool again; if it keeps failing, the worker's log says why")
	}
	return &hootv1.Result{Result: &hootv1.Result_JobStarted{JobStarted: &hootv1.JobStarted{
		JobId:     j.ID,
		Tool:      tool,
		Status:    hootv1.JobStatus(j.Status),
		CreatedAt: timestamppb.New(j.CreatedAt),
		KeptUntil: timestamppb.New(j.CreatedAt.Add(h.runner.Retention())),
	}}}, nil
}

// work returns the job's work: run, with its progress reported to the runner, its artifacts
// keyed by the job (so that a run taken up again finds those of an earlier run), and its
// Result or error kept as the job's outcome.
func (h *Handler) work(tool string, run func(context.Context) (*hootv1.Result, error)) jobs.Func {
	return func(ctx context.Context, report jobs.ProgressFunc) jobs.Outcome {
		ctx = hooteproto.WithProgress(ctx, func(pr *hootv1.Progress) { report(pr.GetProgress(), pr.GetTotal(), pr.GetMessage()) })
		ctx = artifacts.WithJobKeys(ctx, jobs.IDFrom(ctx))
		q := newQuestions(jobs.AnswersFrom(ctx))
		ctx = hooteproto.WithAsk(ctx, q.ask)
		res, err := run(ctx)
		if err != nil && q.waiting() {
			// The tool stopped at a question nobody has answered yet: the job waits for it.
			b, n := q.encode()
			return jobs.Outcome{Questions: b, Message: fmt.Sprintf("waiting for answers to %d question(s); job_status shows them, job_answer answers them", n)}
		}
		if err == nil && res == nil {
			err = hooteproto.NewError(hooteproto.CodeInternal, "the tool returned no result")
		}
		out := jobs.Outcome{Message: "done"}
		if err != nil {
			e := hooteproto.AsError(err)
			if e.Code() == hooteproto.CodeInternal {
				h.log.Error("job failed", "tool", tool, "err", err)
			}
			res = &hootv1.Result{Result: &hootv1.Result_Error{Error: hooteproto.ToolErrorOf(e)}}
			out.Failed, out.Message = true, e.Message()
		}
		b, merr := proto.Marshal(res)
		if merr != nil {
			h.log.Error("job result does not encode", "tool", tool, "err", merr)
			return jobs.Outcome{Failed: true, Message: "the result could not be encoded"}
		}
		out.Result = b
		return out
	}
}

// JobStatus returns a job, with its result once it is done.
func (h *Handler) JobStatus(ctx context.Context, req *hootv1.JobStatusRequest) (*hootv1.JobStatusResult, error) {
	j, err := h.jobs.Get(ctx, req.GetId(), true)
	if err != nil {
		return nil, h.jobError(ctx, err, "id")
	}
	return &hootv1.JobStatusResult{Job: h.job(j, true)}, nil
}

// JobAwait waits for jobs to be done, up to a timeout.
func (h *Handler) JobAwait(ctx context.Context, req *hootv1.JobAwaitRequest) (*hootv1.JobAwaitResult, error) {
	seen := make(map[string]int)
	for i, id := range req.GetIds() {
		if j, dup := seen[id]; dup {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
				fmt.Sprintf("ids[%d] is %s, which ids[%d] names already", i, id, j)).
				WithField(fmt.Sprintf("ids[%d]", i)).WithHint("name each job once")
		}
		seen[id] = i
		// Each job must be the caller's before anything waits on it.
		if _, restricted := scope(ctx); restricted {
			if _, err := h.jobs.Get(ctx, id, false); err != nil {
				return nil, h.jobError(ctx, err, fmt.Sprintf("ids[%d]", i))
			}
		}
	}
	timeout := DefaultAwaitTimeout
	if ms := req.GetTimeoutMs(); ms > 0 {
		timeout = min(time.Duration(ms)*time.Millisecond, MaxAwaitTimeout)
	}
	if deadline, ok := ctx.Deadline(); ok {
		// End the wait a little before the call's own deadline, so that the caller gets the
		// jobs as they stand rather than a failed call.
		timeout = max(min(timeout, time.Until(deadline)-awaitMargin), 0)
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	js, timedOut, err := h.runner.Await(wctx, req.GetIds(), req.GetMode() == hootv1.AwaitMode_AWAIT_MODE_ANY)
	if err != nil {
		if errors.Is(err, jobs.ErrNotFound) {
			for i, id := range req.GetIds() {
				if _, gerr := h.runner.Get(ctx, id, false); errors.Is(gerr, jobs.ErrNotFound) {
					return nil, h.jobError(ctx, gerr, fmt.Sprintf("ids[%d]", i))
				}
			}
		}
		return nil, h.jobError(ctx, err, "ids")
	}
	if ctx.Err() != nil {
		// The call itself ended (cancelled, or out of time), not just the wait.
		return nil, hooteproto.AsError(ctx.Err())
	}
	res := &hootv1.JobAwaitResult{TimedOut: timedOut}
	for _, j := range js {
		res.Jobs = append(res.Jobs, h.job(j, true))
	}
	return res, nil
}

// JobList lists jobs, newest first, without their results.
func (h *Handler) JobList(ctx context.Context, req *hootv1.JobListRequest) (*hootv1.JobListResult, error) {
	if c := req.GetCursor(); c != "" && !ids.Valid(ids.Job, c) {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "cursor "+c+" is not one that job_list returned").
			WithField("cursor").
			WithHint("pass next_cursor from the previous answer unchanged, or leave cursor out to start from the newest")
	}
	f := jobs.Filter{Status: jobs.Status(req.GetStatus()), Tool: req.GetTool(), After: req.GetCursor(), Limit: int(req.GetLimit())}
	if s := req.GetSince(); s != nil {
		if err := s.CheckValid(); err != nil {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "since is not a valid time: "+err.Error()).
				WithField("since").WithHint(`give a time in RFC 3339, such as "2026-01-02T15:04:05Z"`)
		}
		f.Since = s.AsTime()
	}
	js, next, err := h.jobs.List(ctx, f)
	if err != nil {
		return nil, h.jobError(ctx, err, "")
	}
	res := &hootv1.JobListResult{NextCursor: next}
	for _, j := range js {
		res.Jobs = append(res.Jobs, h.job(j, false))
	}
	return res, nil
}

// JobCancel stops a job and returns it.
func (h *Handler) JobCancel(ctx context.Context, req *hootv1.JobCancelRequest) (*hootv1.JobCancelResult, error) {
	if _, err := h.jobs.Get(ctx, req.GetId(), false); err != nil {
		return nil, h.jobError(ctx, err, "id")
	}
	wctx, cancel := context.WithTimeout(ctx, cancelWait)
	defer cancel()
	j, err := h.runner.Cancel(wctx, req.GetId())
	if err != nil {
		return nil, h.jobError(ctx, err, "id")
	}
	return &hootv1.JobCancelResult{Job: h.job(j, true)}, nil
}

// job returns j in its wire form. With withResult, a job that ended without a result (its worker stopped, or
// it was cancelled while it waited) gets one that says why, so that every ended job has one.
func (h *Handler) job(j jobs.Job, withResult bool) *hootv1.Job {
	out := &hootv1.Job{
		Id:        j.ID,
		Tool:      j.Tool,
		Status:    hootv1.JobStatus(j.Status),
		Progress:  j.Progress,
		Total:     j.Total,
		Message:   j.Message,
		CreatedAt: timestamppb.New(j.CreatedAt),
	}
	if !j.StartedAt.IsZero() {
		out.StartedAt = timestamppb.New(j.StartedAt)
	}
	// A job is kept for the retention after it ends; one that runs is kept at least that long
	// from now.
	kept := time.Now()
	if !j.FinishedAt.IsZero() {
		out.FinishedAt = timestamppb.New(j.FinishedAt)
		kept = j.FinishedAt
	}
	out.KeptUntil = timestamppb.New(kept.Add(h.runner.Retention()))
	if len(j.Result) > 0 {
		res := new(hootv1.Result)
		if err := proto.Unmarshal(j.Result, res); err != nil {
			h.log.Error("unreadable job result", "job", j.ID, "err", err)
		} else {
			out.Result, out.ToolAnswered = res, true
		}
	}
	if j.Status == jobs.StatusInputRequired {
		out.Questions = decodeQuestions(j.Questions)
	}
	if withResult && out.Result == nil && j.Status.Done() && j.Status != jobs.StatusSucceeded {
		e := hooteproto.NewError(hooteproto.CodeUnavailable, j.Message).WithHint("run the tool again to start a new job")
		if j.Status == jobs.StatusCancelled {
			e = hooteproto.NewError(hooteproto.CodeCanceled, j.Message).WithRetryable(false)
		}
		out.Result = &hootv1.Result{Result: &hootv1.Result_Error{Error: hooteproto.ToolErrorOf(e)}}
	}
	return out
}

// jobError turns an error of the job store into the error of the caller of ctx.
func (h *Handler) jobError(ctx context.Context, err error, field string) error {
	if errors.Is(err, jobs.ErrNotFound) {
		hint := "pass a job id that a tool of kind JOB returned (job_started.job_id); job_list shows the jobs kept, and finished jobs are kept only for a while"
		if _, restricted := scope(ctx); restricted {
			// The same words whether the job does not exist or is another caller's.
			hint = "pass the id of a job that you started (job_started.job_id): a caller sees only its own jobs; job_list shows yours that are kept, and finished jobs are kept only for a while"
		}
		return hooteproto.NewError(hooteproto.CodeNotFound, err.Error()[len("jobs: "):]).
			WithField(field).
			WithHint(hint)
	}
	if e := outage.Error("reading the jobs", err); e != nil {
		h.log.Warn("jobservice: job store failed", "err", err)
		return e
	}
	h.log.Error("jobservice: job store failed", "err", err)
	return hooteproto.NewError(hooteproto.CodeInternal, "reading the jobs failed inside the worker").
		WithHint("this is a fault in the server, not in the call; if it keeps happening, tell the server's operator")
}
