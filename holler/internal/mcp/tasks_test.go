package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// jobTable is an in-memory stand-in for the workers' jobs: the fixtures of the tasks
// scenarios start jobs in it, and job_status and job_cancel read and stop them, through the
// generated table as a worker would.
type jobTable struct {
	mu        sync.Mutex
	jobs      map[string]*hootv1.Job
	n         int
	cancelled []string
	answers   []map[string]*hootv1.ClientResponse
}

func newJobTable() *jobTable { return &jobTable{jobs: make(map[string]*hootv1.Job)} }

var tableEpoch = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// start records a job of tool that is running, or has ended as end says.
func (jt *jobTable) start(tool string, end func(*hootv1.Job)) *hootv1.Result {
	jt.mu.Lock()
	defer jt.mu.Unlock()
	jt.n++
	id := fmt.Sprintf("job_01m8a0dg0x4mgjcxewfcdh%04d", jt.n)
	created := tableEpoch.Add(time.Duration(jt.n) * time.Second)
	j := &hootv1.Job{Id: id, Tool: tool, Status: hootv1.JobStatus_JOB_STATUS_RUNNING, Message: "running",
		CreatedAt: timestamppb.New(created), StartedAt: timestamppb.New(created.Add(time.Millisecond)),
		KeptUntil: timestamppb.New(created.Add(time.Hour))}
	if end != nil {
		j.FinishedAt = timestamppb.New(created.Add(2 * time.Second))
		end(j)
	}
	jt.jobs[id] = j
	return &hootv1.Result{Result: &hootv1.Result_JobStarted{JobStarted: &hootv1.JobStarted{
		JobId: id, Tool: tool, Status: hootv1.JobStatus_JOB_STATUS_RUNNING, CreatedAt: j.CreatedAt, KeptUntil: j.KeptUntil}}}
}

func contentResult(s string) *hootv1.Result {
	return fixtureResult(&conformancev1.Result{Result: &conformancev1.Result_ConformanceContent{ConformanceContent: &conformancev1.ConformanceContentResult{
		Content: []*hootv1.Content{{Block: &hootv1.Content_Text{Text: s}}}}}})
}

// backend returns a backend that serves the tasks fixtures and the job tools over jt.
func (jt *jobTable) backend() *fakeBackend {
	b := newFakeBackend()
	b.override = func(ctx context.Context, _ string, p *hootv1.Payload) (*hootv1.Result, error) {
		switch x := requestOf(p).(type) {
		case *conformancev1.Payload_Greet:
			if callOf(ctx).AsJob {
				return jt.start("greet", func(j *hootv1.Job) {
					j.Status, j.Result, j.ToolAnswered = hootv1.JobStatus_JOB_STATUS_SUCCEEDED, contentResult("Hello, "+x.Greet.GetName()+"!"), true
				}), nil
			}
			return contentResult("Hello, " + x.Greet.GetName() + "!"), nil
		case *conformancev1.Payload_SlowCompute:
			if x.SlowCompute.GetSeconds() > 0 {
				return jt.start("slow_compute", nil), nil
			}
			return jt.start("slow_compute", func(j *hootv1.Job) {
				j.Status, j.Message, j.Result, j.ToolAnswered = hootv1.JobStatus_JOB_STATUS_SUCCEEDED, "done", contentResult("computed "+x.SlowCompute.GetLabel()), true
			}), nil
		case *conformancev1.Payload_FailingJob:
			return jt.start("failing_job", func(j *hootv1.Job) {
				j.Status, j.Message, j.ToolAnswered = hootv1.JobStatus_JOB_STATUS_FAILED, "it failed", true
				j.Result = &hootv1.Result{Result: &hootv1.Result_Error{Error: &hootv1.ToolError{
					Category: hootv1.ErrorCategory_ERROR_CATEGORY_VALIDATION, Message: "failing_job always fails"}}}
			}), nil
		case *conformancev1.Payload_ProtocolErrorJob:
			return jt.start("protocol_error_job", func(j *hootv1.Job) {
				j.Status, j.Message = hootv1.JobStatus_JOB_STATUS_FAILED, "the job failed unexpectedly"
				j.Result = &hootv1.Result{Result: &hootv1.Result_Error{Error: &hootv1.ToolError{
					Category: hootv1.ErrorCategory_ERROR_CATEGORY_UNAVAILABLE, Message: "the job failed unexpectedly"}}}
			}), nil
		case *conformancev1.Payload_ConfirmDelete:
			return jt.start("confirm_delete", func(j *hootv1.Job) {
				j.Status, j.Message, j.FinishedAt = hootv1.JobStatus_JOB_STATUS_INPUT_REQUIRED, "waiting", nil
				j.Questions = map[string]*hootv1.ClientRequest{"q-1": {Request: &hootv1.ClientRequest_Elicitation{Elicitation: &hootv1.ElicitationRequest{
					Message: "Delete " + x.ConfirmDelete.GetFilename() + "?"}}}}
			}), nil
		case *hootv1.Payload_JobAnswer:
			j, err := jt.get(x.JobAnswer.GetId())
			if err != nil {
				return nil, err
			}
			jt.mu.Lock()
			jt.answers = append(jt.answers, x.JobAnswer.GetAnswers())
			for k, a := range x.JobAnswer.GetAnswers() {
				if _, ok := j.Questions[k]; ok {
					delete(j.Questions, k)
					j.Status, j.ToolAnswered = hootv1.JobStatus_JOB_STATUS_SUCCEEDED, true
					j.Result = contentResult("answered " + a.GetElicitation().GetAction().String())
				}
			}
			jt.mu.Unlock()
			return &hootv1.Result{Result: &hootv1.Result_JobAnswer{JobAnswer: &hootv1.JobAnswerResult{Job: j}}}, nil
		case *hootv1.Payload_JobStatus:
			j, err := jt.get(x.JobStatus.GetId())
			if err != nil {
				return nil, err
			}
			return &hootv1.Result{Result: &hootv1.Result_JobStatus{JobStatus: &hootv1.JobStatusResult{Job: j}}}, nil
		case *hootv1.Payload_JobCancel:
			id := x.JobCancel.GetId()
			jt.mu.Lock()
			j, ok := jt.jobs[id]
			if ok && j.GetFinishedAt() == nil {
				j.Status, j.Message, j.FinishedAt = hootv1.JobStatus_JOB_STATUS_CANCELLED, "cancelled at a caller's request", timestamppb.New(tableEpoch.Add(time.Hour))
				jt.cancelled = append(jt.cancelled, id)
			}
			jt.mu.Unlock()
			if !ok {
				return nil, hooteproto.NewError(hooteproto.CodeNotFound, "no such job: "+id)
			}
			return &hootv1.Result{Result: &hootv1.Result_JobCancel{JobCancel: &hootv1.JobCancelResult{Job: j}}}, nil
		}
		return nil, hooteproto.NewError(hooteproto.CodeNotFound, "no fixture")
	}
	return b
}

func (jt *jobTable) get(id string) (*hootv1.Job, error) {
	jt.mu.Lock()
	defer jt.mu.Unlock()
	j, ok := jt.jobs[id]
	if !ok {
		return nil, hooteproto.NewError(hooteproto.CodeNotFound, "no such job: "+id)
	}
	return j, nil
}

// newTasksClient returns a client of a server over jt whose state key is key.
func newTasksClient(t *testing.T, jt *jobTable, key []byte) *mcpHTTP {
	t.Helper()
	s, err := NewServer(&Config{Backend: jt.backend(), MaxTier: hootv1.Tier_TIER_STANDARD, StateKey: key})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return newMCPHTTP(t, s)
}

// withTasks returns params whose _meta declares the tasks extension.
func withTasks(params map[string]any) map[string]any {
	m := modernMetaOf(era.V20260728)
	m[era.MetaClientCapabilities] = map[string]any{"extensions": map[string]any{tasks.Extension: map[string]any{}}}
	params["_meta"] = m
	return params
}

// taskCall sends a tasks/* request for taskID with the extension declared and Mcp-Name set.
func (c *mcpHTTP) taskCall(id int, method, taskID string, extra map[string]any) *httpAnswer {
	c.t.Helper()
	p := map[string]any{"taskId": taskID}
	for k, v := range extra {
		p[k] = v
	}
	return c.modernCall(id, method, withTasks(p), map[string]string{era.HeaderName: taskID})
}

// resultOf decodes the result of a one-message answer, failing the test on an error.
func taskAnswer(t *testing.T, what string, a *httpAnswer) map[string]any {
	t.Helper()
	if a.status != http.StatusOK || len(a.messages) != 1 || a.messages[0].Error != nil {
		t.Fatalf("%s: status %d: %s", what, a.status, a.body)
	}
	var out map[string]any
	if err := json.Unmarshal(a.messages[0].Result, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// createTask calls tool with the extension declared and returns its CreateTaskResult.
func createTask(t *testing.T, c *mcpHTTP, id int, tool string, args map[string]any) map[string]any {
	t.Helper()
	r := taskAnswer(t, tool, c.modernCall(id, "tools/call", withTasks(map[string]any{"name": tool, "arguments": args}), nil))
	if r["resultType"] != "task" {
		t.Fatalf("%s: resultType %v, want task: %v", tool, r["resultType"], r)
	}
	return r
}

func TestTasksCreateAndGet(t *testing.T) {
	t.Parallel()
	jt := newJobTable()
	c := newTasksClient(t, jt, nil)

	// server/discover declares the extension, and no 2025-11-25 tasks capability.
	caps := taskAnswer(t, "discover", c.modernCall(1, era.MethodDiscover, nil, nil))["capabilities"].(map[string]any)
	if ext, _ := caps["extensions"].(map[string]any); ext == nil || ext[tasks.Extension] == nil || caps["tasks"] != nil {
		t.Errorf("discover capabilities = %v, want extensions[%s] and no tasks", caps, tasks.Extension)
	}

	// A job's call with the extension answers a flat CreateTaskResult.
	created := createTask(t, c, 2, "slow_compute", map[string]any{"seconds": 60, "label": "x"})
	for _, k := range []string{"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"} {
		if created[k] == nil {
			t.Errorf("CreateTaskResult lacks %s: %v", k, created)
		}
	}
	for _, k := range []string{"task", "ttl", "pollInterval", "requestState", "result", "error", "inputRequests", "content"} {
		if _, ok := created[k]; ok {
			t.Errorf("CreateTaskResult has %s: %v", k, created)
		}
	}
	if created["status"] != tasks.Working || created["ttlMs"] != float64(time.Hour/time.Millisecond) || created["pollIntervalMs"] != float64(tasks.PollIntervalMillis) {
		t.Errorf("CreateTaskResult = %v", created)
	}
	taskID := created["taskId"].(string)
	if !strings.HasPrefix(taskID, "job_01m8a0dg0x4mgjcxewfcdh0001.") {
		t.Errorf("task id %q does not name its job", taskID)
	}

	// tasks/get of a running job: working, without result or error.
	got := taskAnswer(t, "tasks/get working", c.taskCall(3, methodTasksGet, taskID, nil))
	if got["status"] != tasks.Working || got["taskId"] != taskID || got["resultType"] != "complete" || got["result"] != nil || got["error"] != nil {
		t.Errorf("tasks/get of a running job = %v", got)
	}

	// Finished jobs: the tool's result inlined; a tool's error completed with isError; a job
	// without an answer of its tool failed with an error and no result.
	done := createTask(t, c, 4, "slow_compute", map[string]any{"seconds": 0, "label": "now"})["taskId"].(string)
	got = taskAnswer(t, "tasks/get completed", c.taskCall(5, methodTasksGet, done, nil))
	res, _ := got["result"].(map[string]any)
	if got["status"] != tasks.Completed || res == nil || !strings.Contains(fmt.Sprint(res["content"]), "computed now") || res["isError"] != nil {
		t.Errorf("tasks/get of a finished job = %v", got)
	}
	// The inlined result is a 2026-07-28 result like any other: it says its resultType (the
	// tasks extension's own client refuses it otherwise).
	if res["resultType"] != "complete" {
		t.Errorf("the inlined result has resultType %v, want complete", res["resultType"])
	}
	if meta, _ := res["_meta"].(map[string]any); meta["io.modelcontextprotocol/related-task"] != nil {
		t.Errorf("inlined result carries related-task: %v", res)
	}
	failing := createTask(t, c, 6, "failing_job", nil)["taskId"].(string)
	got = taskAnswer(t, "tasks/get tool error", c.taskCall(7, methodTasksGet, failing, nil))
	if res, _ := got["result"].(map[string]any); got["status"] != tasks.Completed || res["isError"] != true || got["error"] != nil {
		t.Errorf("tasks/get of a job whose tool failed = %v", got)
	}
	broken := createTask(t, c, 8, "protocol_error_job", nil)["taskId"].(string)
	got = taskAnswer(t, "tasks/get failed", c.taskCall(9, methodTasksGet, broken, nil))
	e, _ := got["error"].(map[string]any)
	if got["status"] != tasks.Failed || got["result"] != nil || e["code"] != float64(jsonrpc.CodeInternalError) || e["message"] == "" {
		t.Errorf("tasks/get of a job that failed without an answer = %v", got)
	}

	// A sync tool stays sync, even with the extension and a legacy task param.
	a := c.modernCall(10, "tools/call", withTasks(map[string]any{"name": "greet", "arguments": map[string]any{"name": "W"},
		"task": map[string]any{"ttl": 60000}}), nil)
	if g := taskAnswer(t, "greet", a); g["resultType"] != "complete" || g["taskId"] != nil || !strings.Contains(fmt.Sprint(g["content"]), "Hello, W!") {
		t.Errorf("greet with the extension = %v", g)
	}
	// Without the extension a job answers as it always did: its job id, as a complete result.
	a = c.modernCall(11, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 1}}, nil)
	if g := taskAnswer(t, "slow_compute without the extension", a); g["resultType"] != "complete" || g["taskId"] != nil ||
		!strings.Contains(string(a.messages[0].Result), `"job_id":"job_`) {
		t.Errorf("slow_compute without the extension = %s", a.body)
	}
}

func TestTasksCancelAndUpdate(t *testing.T) {
	t.Parallel()
	jt := newJobTable()
	c := newTasksClient(t, jt, nil)
	taskID := createTask(t, c, 1, "slow_compute", map[string]any{"seconds": 60})["taskId"].(string)

	for i, method := range []string{methodTasksCancel, methodTasksCancel} {
		// The second cancel finds the task ended: the same empty ack.
		ack := taskAnswer(t, "tasks/cancel", c.taskCall(2+i, method, taskID, nil))
		if ack["resultType"] != "complete" || len(ack) != 2 || ack["_meta"] == nil {
			t.Errorf("tasks/cancel #%d = %v, want only resultType and _meta", i+1, ack)
		}
	}
	if len(jt.cancelled) != 1 {
		t.Errorf("the job was cancelled %d times, want once", len(jt.cancelled))
	}
	if got := taskAnswer(t, "tasks/get", c.taskCall(4, methodTasksGet, taskID, nil)); got["status"] != tasks.Cancelled {
		t.Errorf("tasks/get after cancel = %v", got)
	}

	ack := taskAnswer(t, "tasks/update", c.taskCall(5, methodTasksUpdate, taskID, map[string]any{"inputResponses": map[string]any{"k": map[string]any{}}}))
	if ack["resultType"] != "complete" || len(ack) != 2 {
		t.Errorf("tasks/update = %v", ack)
	}
	a := c.taskCall(6, methodTasksUpdate, taskID, nil)
	checkModernError(t, "tasks/update without inputResponses", a, "6", http.StatusOK, jsonrpc.CodeInvalidParams)
}

func TestTasksErrors(t *testing.T) {
	t.Parallel()
	jt := newJobTable()
	c := newTasksClient(t, jt, nil)
	taskID := createTask(t, c, 1, "slow_compute", map[string]any{"seconds": 60})["taskId"].(string)
	jobID, _, _ := strings.Cut(taskID, ".")

	// Unknown, forged and expired task ids are -32602, for every method.
	forged := jobID + ".AAAAAAAAAAAAAAAAAAAAAA"
	other := newTasksClient(t, jt, []byte("another key of at least 16 bytes"))
	for i, method := range []string{methodTasksGet, methodTasksCancel, methodTasksUpdate} {
		extra := map[string]any{"inputResponses": map[string]any{}}
		for j, id := range []string{"tasks-conformance-nonexistent-12345", jobID, forged, strings.Repeat("x", 200) + "." + "y"} {
			a := c.taskCall(10*i+j+10, method, id, extra)
			checkModernError(t, method+" "+id, a, fmt.Sprint(10*i+j+10), http.StatusOK, jsonrpc.CodeInvalidParams)
		}
		// A gateway with another key does not know the task.
		checkModernError(t, method+" at another gateway", other.taskCall(50+i, method, taskID, extra), fmt.Sprint(50+i), http.StatusOK, jsonrpc.CodeInvalidParams)
	}
	// A job the workers no longer keep.
	jt.mu.Lock()
	delete(jt.jobs, jobID)
	jt.mu.Unlock()
	checkModernError(t, "expired task", c.taskCall(60, methodTasksGet, taskID, nil), "60", http.StatusOK, jsonrpc.CodeInvalidParams)
	// No taskId at all.
	a := c.modernCall(61, methodTasksGet, withTasks(map[string]any{}), nil)
	checkModernError(t, "no taskId", a, "61", http.StatusOK, jsonrpc.CodeInvalidParams)

	// Mcp-Name must repeat the task id.
	a = c.modernCall(62, methodTasksGet, withTasks(map[string]any{"taskId": taskID}), map[string]string{era.HeaderName: "wrong"})
	checkModernError(t, "Mcp-Name mismatch", a, "62", http.StatusBadRequest, era.CodeHeaderMismatch)
	a = c.modernCall(63, methodTasksGet, withTasks(map[string]any{"taskId": taskID}), nil)
	checkModernError(t, "Mcp-Name missing", a, "63", http.StatusBadRequest, era.CodeHeaderMismatch)

	// tasks/result and tasks/list are not methods of 2026-07-28.
	for i, method := range []string{"tasks/result", "tasks/list"} {
		a := c.modernCall(70+i, method, withTasks(map[string]any{"taskId": taskID}), map[string]string{era.HeaderName: taskID})
		checkModernError(t, method, a, fmt.Sprint(70+i), http.StatusNotFound, jsonrpc.CodeMethodNotFound)
	}

	// Without the extension declared: tasks/* and a task-only tool are -32021, with the
	// capability they need.
	missing := func(name string, a *httpAnswer) {
		t.Helper()
		if a.status != http.StatusBadRequest || len(a.messages) != 1 || a.messages[0].Error == nil || a.messages[0].Error.Code != era.CodeMissingCapability {
			t.Errorf("%s: want 400 and %d: %s", name, era.CodeMissingCapability, a.body)
			return
		}
		req, _ := a.messages[0].Error.Data["requiredCapabilities"].(map[string]any)
		ext, _ := req["extensions"].(map[string]any)
		if _, ok := ext[tasks.Extension]; !ok {
			t.Errorf("%s: data %v does not name the extension", name, a.messages[0].Error.Data)
		}
	}
	for i, method := range []string{methodTasksGet, methodTasksUpdate, methodTasksCancel} {
		missing(method, c.modernCall(80+i, method, map[string]any{"taskId": taskID, "inputResponses": map[string]any{}}, map[string]string{era.HeaderName: taskID}))
	}
	missing("failing_job", c.modernCall(90, "tools/call", map[string]any{"name": "failing_job", "arguments": map[string]any{}}, nil))
}

// TestTasksAcrossGateways reads and cancels a task through a second server that shares the
// state key, which holds nothing of the first.
func TestTasksAcrossGateways(t *testing.T) {
	t.Parallel()
	jt := newJobTable()
	key := []byte("a key the fleet's gateways share")
	a, b := newTasksClient(t, jt, key), newTasksClient(t, jt, key)
	taskID := createTask(t, a, 1, "slow_compute", map[string]any{"seconds": 60})["taskId"].(string)
	if got := taskAnswer(t, "tasks/get at b", b.taskCall(2, methodTasksGet, taskID, nil)); got["status"] != tasks.Working {
		t.Errorf("tasks/get through the other gateway = %v", got)
	}
	taskAnswer(t, "tasks/cancel at b", b.taskCall(3, methodTasksCancel, taskID, nil))
	if got := taskAnswer(t, "tasks/get at a", a.taskCall(4, methodTasksGet, taskID, nil)); got["status"] != tasks.Cancelled {
		t.Errorf("tasks/get after a cancel through the other gateway = %v", got)
	}
}

// TestTasksUnsupported: a gateway whose tier hides the job tools serves no tasks.
func TestTasksUnsupported(t *testing.T) {
	t.Parallel()
	jt := newJobTable()
	s, err := NewServer(&Config{Backend: jt.backend(), MaxTier: hootv1.Tier_TIER_BASIC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := newMCPHTTP(t, s)
	caps := taskAnswer(t, "discover", c.modernCall(1, era.MethodDiscover, nil, nil))["capabilities"].(map[string]any)
	if caps["extensions"] != nil {
		t.Errorf("discover without the job tools declares %v", caps["extensions"])
	}
	a := c.taskCall(2, methodTasksGet, "job_x.y", nil)
	checkModernError(t, "tasks/get without tasks", a, "2", http.StatusNotFound, jsonrpc.CodeMethodNotFound)
	// A job's call answers its job id, extension or not.
	a = c.modernCall(3, "tools/call", withTasks(map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 1}}), nil)
	if g := taskAnswer(t, "slow_compute", a); g["resultType"] != "complete" {
		t.Errorf("slow_compute at a gateway without tasks = %v", g)
	}
}

func TestTasksInputRequired(t *testing.T) {
	t.Parallel()
	jt := newJobTable()
	c := newTasksClient(t, jt, nil)
	taskID := createTask(t, c, 1, "confirm_delete", map[string]any{"filename": "a.txt"})["taskId"].(string)

	got := taskAnswer(t, "tasks/get", c.taskCall(2, methodTasksGet, taskID, nil))
	reqs, _ := got["inputRequests"].(map[string]any)
	q, _ := reqs["q-1"].(map[string]any)
	if got["status"] != tasks.InputRequired || q["method"] != questions.MethodElicit || !strings.Contains(fmt.Sprint(q["params"]), "Delete a.txt?") || got["result"] != nil {
		t.Fatalf("tasks/get of a job that waits = %v", got)
	}
	// The question has the shape of a call's input_required entry: 2026-07-28 names the form.
	if p, _ := q["params"].(map[string]any); p["mode"] != "form" {
		t.Errorf("tasks/get's elicitation names no form mode: %v", q["params"])
	}
	// Answers to keys the job does not wait on are acked and ignored.
	taskAnswer(t, "tasks/update unknown key", c.taskCall(3, methodTasksUpdate, taskID, map[string]any{"inputResponses": map[string]any{"unknown-key": map[string]any{"ignored": true}}}))
	if len(jt.answers) != 0 {
		t.Errorf("answers to unknown keys reached the job: %v", jt.answers)
	}
	// An answer that is not a result is refused.
	a := c.taskCall(4, methodTasksUpdate, taskID, map[string]any{"inputResponses": map[string]any{"q-1": 12345}})
	checkModernError(t, "malformed answer", a, "4", http.StatusOK, jsonrpc.CodeInvalidParams)
	// The answer goes to the job, typed.
	ack := taskAnswer(t, "tasks/update", c.taskCall(5, methodTasksUpdate, taskID, map[string]any{"inputResponses": map[string]any{
		"q-1": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}}))
	if ack["resultType"] != "complete" || len(ack) != 2 {
		t.Errorf("tasks/update = %v", ack)
	}
	if len(jt.answers) != 1 || jt.answers[0]["q-1"].GetElicitation().GetContent()["confirm"].GetFlag() != true {
		t.Fatalf("the job's answers = %v", jt.answers)
	}
	got = taskAnswer(t, "tasks/get", c.taskCall(6, methodTasksGet, taskID, nil))
	if got["status"] != tasks.Completed || !strings.Contains(fmt.Sprint(got["result"]), "ELICITATION_ACTION_ACCEPT") || got["inputRequests"] != nil {
		t.Errorf("tasks/get after the answer = %v", got)
	}
}
