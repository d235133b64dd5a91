package hooteproto

import (
	"context"
	"log/slog"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"google.golang.org/protobuf/proto"
)

// A call run as a job. The gateway may want a call of a tool that answers inline run as a job
// (an MCP task the client asked for): it says so in Call.AsJob, which the REQUEST carries
// (hoot.v1.Request.as_job), and
// the worker hands the call to its JobStarter, which records the job, answers job_started at
// once, and keeps what the tool answers as the job's result.

// WithJobStarter gives a worker the JobStarter that runs the calls a caller wants run as
// jobs. Without one, such calls are refused as unavailable.
func WithJobStarter(js hootv1hoot.JobStarter) WorkerOption {
	return workerOption(func(c *workerConfig) { c.jobs = js })
}

// serveAsJob checks the call p of svc as Serve does and starts it as a job through jobs.
func serveAsJob(ctx context.Context, jobs hootv1hoot.JobStarter, svc hootv1hoot.Service, p *hootv1.Payload, logger *slog.Logger) *hootv1.Result {
	msg := RequestOf(p)
	if msg == nil {
		return errorResult(NewError(CodeInvalidArgument, "the request holds no tool call"))
	}
	if err := Validate(msg); err != nil {
		return errorResult(err)
	}
	if jobs == nil {
		return errorResult(NewError(CodeUnavailable, "this worker does not run calls as jobs").
			WithHint("call the tool without asking for a task"))
	}
	opts, _ := proto.GetExtension(msg.ProtoReflect().Descriptor().Options(), hootv1.E_Tool).(*hootv1.ToolOptions)
	res, err := jobs.StartJob(ctx, opts.GetName(), p, func(ctx context.Context) (*hootv1.Result, error) {
		return RunInline(ctx, svc, p, logger)
	})
	if err != nil {
		return errorResult(AsError(err))
	}
	return res
}

// RunInline serves the call p with svc as Serve does, for the work of a job: a failure is the
// returned error rather than a Result holding it.
func RunInline(ctx context.Context, svc hootv1hoot.Service, p *hootv1.Payload, logger *slog.Logger) (*hootv1.Result, error) {
	res := Serve(ctx, svc, p, logger)
	if te := res.GetError(); te != nil {
		return nil, ErrorFromTool(te)
	}
	return res, nil
}
