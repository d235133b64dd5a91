package conformance

import (
	"context"
	"fmt"
	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	"sync"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
)

// The fixtures of the tasks extension's scenarios (service "conformance_tasks"). Those of kind
// JOB run as jobs, so as MCP tasks: the generated service hands their work to the job service.

// TasksHandler serves the tasks fixtures. Its zero value is ready to use.
type TasksHandler struct {
	// tick is how often slow_compute reports progress; zero means a tenth of a second.
	tick time.Duration
}

var _ conformancev1hoot.ConformanceTasksHandler = TasksHandler{}

// NewTasks returns the service of the tasks fixtures, whose jobs jobs starts.
func NewTasks(jobs hootv1hoot.JobStarter) hootv1hoot.Service {
	return conformancev1hoot.NewConformanceTasksService(TasksHandler{}, jobs)
}

// Greet answers "Hello, {name}!".
func (TasksHandler) Greet(_ context.Context, req *conformancev1.ConformanceGreetRequest) (*conformancev1.ConformanceContentResult, error) {
	return blocks(text("Hello, " + req.GetName() + "!")), nil
}

// SlowCompute works for the seconds asked, reporting its progress, and answers with its label.
// It stops as soon as its context ends, which is how a cancelled task stops.
func (h TasksHandler) SlowCompute(ctx context.Context, req *conformancev1.ConformanceSlowComputeRequest) (*conformancev1.ConformanceContentResult, error) {
	tick := h.tick
	if tick <= 0 {
		tick = 100 * time.Millisecond
	}
	total := time.Duration(req.GetSeconds()) * time.Second
	start := time.Now()
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		done := time.Since(start)
		if done >= total {
			break
		}
		hooteproto.ReportProgress(ctx, done.Seconds(), total.Seconds(), "computing")
		select {
		case <-ctx.Done():
			return nil, hooteproto.WrapError(hooteproto.CodeCanceled, context.Cause(ctx))
		case <-t.C:
		}
	}
	return blocks(text(fmt.Sprintf("slow_compute %q done after %d s", req.GetLabel(), req.GetSeconds()))), nil
}

// FailingJob answers with a tool error after about a second.
func (TasksHandler) FailingJob(ctx context.Context, _ *conformancev1.ConformanceFailingJobRequest) (*conformancev1.ConformanceContentResult, error) {
	select {
	case <-ctx.Done():
		return nil, hooteproto.WrapError(hooteproto.CodeCanceled, context.Cause(ctx))
	case <-time.After(time.Second):
	}
	return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "failing_job always fails: this is the tool error the conformance suite expects").
		WithHint("nothing to fix: the fixture fails on purpose")
}

// ProtocolErrorJob fails without an answer of its own: its work panics, which the job runner
// records as a job that failed inside the worker.
func (TasksHandler) ProtocolErrorJob(context.Context, *conformancev1.ConformanceProtocolErrorJobRequest) (*conformancev1.ConformanceContentResult, error) {
	panic("protocol_error_job fails inside the worker on purpose")
}

// confirmSchema is the form of confirm_delete's and multi_input's questions.
func confirmSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"confirm": map[string]any{"type": "boolean", "description": "Tick to confirm"},
			"name":    map[string]any{"type": "string", "description": "Your name"},
		},
	}
}

// ConfirmDelete asks the user to confirm the deletion of a file and answers with what they
// said. It deletes nothing.
func (TasksHandler) ConfirmDelete(ctx context.Context, req *conformancev1.ConformanceConfirmDeleteRequest) (*conformancev1.ConformanceContentResult, error) {
	res, err := elicit(ctx, "Delete "+req.GetFilename()+"?", confirmSchema())
	if err != nil {
		return nil, err
	}
	return blocks(text("confirm_delete of " + req.GetFilename() + ": " + describe(res))), nil
}

// MultiInput asks the user two questions at once and answers with both answers.
func (TasksHandler) MultiInput(ctx context.Context, _ *conformancev1.ConformanceMultiInputRequest) (*conformancev1.ConformanceContentResult, error) {
	var (
		wg      sync.WaitGroup
		answers [2]string
		errs    [2]error
	)
	for i := range answers {
		wg.Go(func() {
			res, err := elicit(ctx, fmt.Sprintf("Question %d of 2: who are you?", i+1), confirmSchema())
			answers[i], errs[i] = describe(res), err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return blocks(text("multi_input: " + answers[0] + "; " + answers[1])), nil
}

// TestToolWithTask greets the name it is given, as a task. The gateway asks the user for the
// name before the task exists when the caller leaves it out (the field is elicited), so the
// handler always has one; it still refuses an empty name rather than greet nobody.
func (TasksHandler) TestToolWithTask(_ context.Context, req *conformancev1.ConformanceTestToolWithTaskRequest) (*conformancev1.ConformanceContentResult, error) {
	if req.GetName() == "" {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "test_tool_with_task needs a name").
			WithHint("Call it with name, or from a client that can ask its user for it.")
	}
	return blocks(text("Hello, " + req.GetName() + "! (test_tool_with_task)")), nil
}
