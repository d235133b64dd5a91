package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/content"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// fakeHost serves the job tools of the generated table over a map of jobs, and records the
// calls and the guidance of its failures.
type fakeHost struct {
	mu    sync.Mutex
	jobs  map[string]*hootv1.Job
	calls []hooteproto.Call
	// noCancel leaves the tool of TASK_ROLE_CANCEL out, as a gateway below its tier would.
	noCancel bool
	// down makes every call fail as an unreachable worker.
	down bool
}

func (h *fakeHost) Tool(role hootv1.TaskRole) *hootv1hoot.Tool {
	if h.noCancel && role == hootv1.TaskRole_TASK_ROLE_CANCEL {
		return nil
	}
	for i := range hootv1hoot.Tools {
		if hootv1hoot.Tools[i].TaskRole == role {
			return &hootv1hoot.Tools[i]
		}
	}
	return nil
}

func (h *fakeHost) Call(_ context.Context, c hooteproto.Call) (*hootv1.Result, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, c)
	if h.down {
		return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "no worker")
	}
	var id string
	switch x := c.Payload.GetRequest().(type) {
	case *hootv1.Payload_JobStatus:
		id = x.JobStatus.GetId()
	case *hootv1.Payload_JobCancel:
		id = x.JobCancel.GetId()
	default:
		return nil, errors.New("not a job tool")
	}
	j, ok := h.jobs[id]
	if !ok {
		return nil, hooteproto.NewError(hooteproto.CodeNotFound, "no such job")
	}
	if _, ok := c.Payload.GetRequest().(*hootv1.Payload_JobCancel); ok {
		j.Status = hootv1.JobStatus_JOB_STATUS_CANCELLED
		return &hootv1.Result{Result: &hootv1.Result_JobCancel{JobCancel: &hootv1.JobCancelResult{Job: j}}}, nil
	}
	return &hootv1.Result{Result: &hootv1.Result_JobStatus{JobStatus: &hootv1.JobStatusResult{Job: j}}}, nil
}

func (h *fakeHost) JobResult(job *hootv1.Job) (toolresult.Result, error) {
	if job.GetResult() == nil {
		return toolresult.Result{}, errors.New("the job ended without a result")
	}
	return toolresult.Result{Content: []content.Block{content.Text("result of " + job.GetId())}}, nil
}

func (h *fakeHost) Fail(id json.RawMessage, code int64, msg string, g *guidance.Data) *jsonrpc.Response {
	return jsonrpc.NewError(id, code, msg, g)
}

// prefixIDs makes a task id of a job id by a prefix: enough to tell ids it made from others.
type prefixIDs struct{}

func (prefixIDs) TaskID(jobID string) string { return "task-" + jobID }
func (prefixIDs) JobOfTask(taskID string) (string, bool) {
	return strings.CutPrefix(taskID, "task-")
}

var epoch = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func newTasks(jobs ...*hootv1.Job) (*Tasks, *fakeHost) {
	h := &fakeHost{jobs: make(map[string]*hootv1.Job)}
	for _, j := range jobs {
		if j.CreatedAt == nil {
			j.CreatedAt = timestamppb.New(epoch)
		}
		h.jobs[j.Id] = j
	}
	return New(h, prefixIDs{}, time.Minute, slog.New(slog.DiscardHandler)), h
}

func serve(t *testing.T, ts *Tasks, method, params string) *jsonrpc.Response {
	t.Helper()
	return ts.Serve(context.Background(), nil, json.RawMessage("1"), method, json.RawMessage(params))
}

// taskOf decodes the task a response holds.
func taskOf(t *testing.T, r *jsonrpc.Response) Task {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("error %+v", r.Error)
	}
	task, ok := r.Result.(Task)
	if !ok {
		t.Fatalf("result %T", r.Result)
	}
	return task
}

func TestDeclares(t *testing.T) {
	t.Parallel()
	for caps, want := range map[string]bool{
		`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`:   true,
		`{"extensions":{"io.modelcontextprotocol/tasks":true}}`: false,
		`{"extensions":{"other":{}}}`:                           false,
		`{}`:                                                    false,
		`not json`:                                              false,
	} {
		if got := Declares(json.RawMessage(caps)); got != want {
			t.Errorf("Declares(%s) = %v", caps, got)
		}
	}
}

// TestSupported checks that a gateway without the tool that cancels jobs serves no tasks and
// declares no extension.
func TestSupported(t *testing.T) {
	t.Parallel()
	ts, _ := newTasks()
	if !ts.Supported() || ts.Extensions()[Extension] != struct{}{} {
		t.Errorf("with the job tools: supported %v, extensions %v", ts.Supported(), ts.Extensions())
	}
	ts, h := newTasks()
	h.noCancel = true
	if ts.Supported() || ts.Extensions() != nil {
		t.Errorf("without job_cancel: supported %v, extensions %v", ts.Supported(), ts.Extensions())
	}
}

// TestServeRefusesBadParams checks that a request without a taskId, or tasks/update without
// answers, is refused with the field to fix, before any worker is called.
func TestServeRefusesBadParams(t *testing.T) {
	t.Parallel()
	ts, h := newTasks()
	for _, tc := range []struct{ method, params, field string }{
		{MethodGet, `{}`, "params.taskId"},
		{MethodGet, `{"taskId":7}`, "params.taskId"},
		{MethodGet, `{"taskId":""}`, "params.taskId"},
		{MethodGet, `[]`, "params.taskId"},
		{MethodUpdate, `{"taskId":"task-j1"}`, "params.inputResponses"},
	} {
		r := serve(t, ts, tc.method, tc.params)
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("%s %s: %+v", tc.method, tc.params, r)
		}
		if g, _ := r.Error.Data.(*guidance.Data); g == nil || g.Field != tc.field {
			t.Errorf("%s %s: guidance %+v, want field %s", tc.method, tc.params, r.Error.Data, tc.field)
		}
	}
	if len(h.calls) != 0 {
		t.Errorf("bad params reached a worker %d times", len(h.calls))
	}
}

// TestServeUnknownTask checks that a task id this gateway did not make, and one whose job is
// gone, are both unknown tasks, and that only the second reaches a worker.
func TestServeUnknownTask(t *testing.T) {
	t.Parallel()
	ts, h := newTasks()
	r := serve(t, ts, MethodGet, `{"taskId":"forged"}`)
	if r.Error == nil || !strings.Contains(r.Error.Message, "not a task id this server made") || len(h.calls) != 0 {
		t.Fatalf("forged id: %+v after %d calls", r.Error, len(h.calls))
	}
	r = serve(t, ts, MethodGet, `{"taskId":"task-gone"}`)
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "not kept any longer") {
		t.Fatalf("gone job: %+v", r.Error)
	}
	if len(h.calls) != 1 || h.calls[0].Payload.GetJobStatus().GetId() != "gone" {
		t.Errorf("calls %+v", h.calls)
	}
	h.down = true
	r = serve(t, ts, MethodGet, `{"taskId":"task-gone"}`)
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInternalError {
		t.Errorf("unreachable workers: %+v", r.Error)
	}
}

// TestDetailed checks each status of a job as tasks/get shows it.
func TestDetailed(t *testing.T) {
	t.Parallel()
	done := &hootv1.Job{Id: "ok", Status: hootv1.JobStatus_JOB_STATUS_SUCCEEDED, ToolAnswered: true,
		Result:     &hootv1.Result{Result: &hootv1.Result_Echo{Echo: &hootv1.EchoResult{Message: "x"}}},
		FinishedAt: timestamppb.New(epoch.Add(3 * time.Second)), KeptUntil: timestamppb.New(epoch.Add(time.Hour))}
	crashed := &hootv1.Job{Id: "crash", Status: hootv1.JobStatus_JOB_STATUS_FAILED, Message: "worker died"}
	empty := &hootv1.Job{Id: "empty", Status: hootv1.JobStatus_JOB_STATUS_SUCCEEDED, ToolAnswered: true}
	asking := &hootv1.Job{Id: "ask", Status: hootv1.JobStatus_JOB_STATUS_INPUT_REQUIRED, Questions: map[string]*hootv1.ClientRequest{
		"q-1": {Request: &hootv1.ClientRequest_Elicitation{Elicitation: &hootv1.ElicitationRequest{Message: "Sure?"}}}}}
	running := &hootv1.Job{Id: "run", Status: hootv1.JobStatus_JOB_STATUS_RUNNING}
	ts, _ := newTasks(done, crashed, empty, asking, running)

	task := taskOf(t, serve(t, ts, MethodGet, `{"taskId":"task-ok"}`))
	if task.Status != Completed || task.Result == nil || task.Result.ResultType != "complete" || *task.Result.Content[0].Text != "result of ok" {
		t.Errorf("succeeded: %+v", task)
	}
	if task.TTLMillis == nil || *task.TTLMillis != time.Hour.Milliseconds() || task.LastUpdatedAt != "2026-11-25T12:00:03.000Z" || task.PollIntervalMs != PollIntervalMillis {
		t.Errorf("times of the succeeded task: ttl %v, last %s", task.TTLMillis, task.LastUpdatedAt)
	}
	task = taskOf(t, serve(t, ts, MethodGet, `{"taskId":"task-crash"}`))
	if task.Status != Failed || task.Error == nil || task.Error.Message != "worker died" || task.Result != nil {
		t.Errorf("failed without the tool's answer: %+v", task)
	}
	task = taskOf(t, serve(t, ts, MethodGet, `{"taskId":"task-empty"}`))
	if task.Status != Failed || task.Error == nil || !strings.Contains(task.Error.Message, "without a result") {
		t.Errorf("succeeded without a result: %+v", task)
	}
	task = taskOf(t, serve(t, ts, MethodGet, `{"taskId":"task-ask"}`))
	if task.Status != InputRequired || len(task.InputRequests) != 1 {
		t.Errorf("waiting on a question: %+v", task)
	}
	task = taskOf(t, serve(t, ts, MethodGet, `{"taskId":"task-run"}`))
	if task.Status != Working || task.TTLMillis != nil {
		t.Errorf("running: %+v", task)
	}
	if r := serve(t, ts, MethodCancel, `{"taskId":"task-run"}`); r.Error != nil {
		t.Fatalf("cancel: %+v", r.Error)
	}
	if task = taskOf(t, serve(t, ts, MethodGet, `{"taskId":"task-run"}`)); task.Status != Cancelled {
		t.Errorf("after tasks/cancel: %+v", task)
	}
}

// TestListen checks the filter member taskIds: a value that is not a list, or names too many
// tasks, is refused; ids this gateway did not make are left out; and a task is announced until
// it ends, after which the stream's follower stops by itself.
func TestListen(t *testing.T) {
	t.Parallel()
	done := &hootv1.Job{Id: "ok", Status: hootv1.JobStatus_JOB_STATUS_SUCCEEDED, ToolAnswered: true,
		Result: &hootv1.Result{Result: &hootv1.Result_Echo{Echo: &hootv1.EchoResult{Message: "x"}}}}
	ts, _ := newTasks(done)
	notify := func(string, map[string]any) {}
	if _, _, problem := ts.Listen(context.Background(), nil, json.RawMessage(`"task-ok"`), notify); problem == "" {
		t.Error("a string was taken as a list of task ids")
	}
	many, _ := json.Marshal(make([]string, MaxListen+1))
	if _, _, problem := ts.Listen(context.Background(), nil, many, notify); problem == "" {
		t.Errorf("%d task ids were taken", MaxListen+1)
	}
	honoured, stop, problem := ts.Listen(context.Background(), nil, json.RawMessage(`["forged"]`), notify)
	if problem != "" || stop != nil || len(honoured.([]string)) != 0 {
		t.Errorf("forged ids: honoured %v, problem %q", honoured, problem)
	}

	got := make(chan map[string]any, 4)
	honoured, stop, problem = ts.Listen(context.Background(), nil, json.RawMessage(`["task-ok","forged"]`), func(method string, params map[string]any) {
		if method == Notification {
			got <- params
		}
	})
	if problem != "" || stop == nil || strings.Join(honoured.([]string), ",") != "task-ok" {
		t.Fatalf("honoured %v, problem %q", honoured, problem)
	}
	n := <-got
	stop() // returns once the follower has stopped
	if n["taskId"] != "task-ok" || n["status"] != Completed || n["resultType"] != nil {
		t.Errorf("notification %v", n)
	}
	if len(got) != 0 {
		t.Errorf("%d more notifications of a task that had ended", len(got))
	}
}
