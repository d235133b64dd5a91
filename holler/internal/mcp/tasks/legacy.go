package tasks

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
)

// The experimental tasks of protocol 2025-11-25, for a session whose client declares the tasks
// capability at initialize. They are the same jobs as the 2026-07-28 extension's, with the same
// task ids; what differs is the wire: the client asks for a task with params.task, the answer
// nests the task ({"task": {...}}) with ttl and pollInterval, tasks/result blocks until the
// job ends and returns the tool's result, tasks/list lists the session's tasks (a List the
// session keeps), tasks/cancel returns the task, and notifications/tasks/status reports
// changes on the session's stream. The gateway keeps the capability and the session's side.

const (
	MethodResult = "tasks/result"
	MethodList   = "tasks/list"
	// NotifyStatus is the method of a 2025-11-25 task's status notification.
	NotifyStatus = "notifications/tasks/status"
	// MetaRelatedTask is the _meta member that names the task a result belongs to.
	MetaRelatedTask = "io.modelcontextprotocol/related-task"
)

// legacyPoll is how often tasks/result and the status watcher read a job.
const legacyPoll = 500 * time.Millisecond

// MaxListed bounds the task ids a session remembers for tasks/list; older ones are
// forgotten first (their tasks stay readable by id).
const MaxListed = 1000

// listPageSize is the most tasks one tasks/list answer holds.
const listPageSize = 50

// List are the tasks a 2025-11-25 session created, newest last.
type List struct {
	mu  sync.Mutex
	ids []string
}

// Add records the task id, forgetting the oldest beyond MaxListed.
func (st *List) Add(id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ids = append(st.ids, id)
	if len(st.ids) > MaxListed {
		st.ids = append([]string(nil), st.ids[len(st.ids)-MaxListed:]...)
	}
}

// NewestFirst returns the task ids, newest first.
func (st *List) NewestFirst() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]string, len(st.ids))
	for i, id := range st.ids {
		out[len(st.ids)-1-i] = id
	}
	return out
}

// LegacyTask is a Task of 2025-11-25.
type LegacyTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
}

// LegacyOf returns t, a task as the 2026-07-28 extension writes it, as 2025-11-25 does. In
// 2025-11-25 a tool's error fails the task.
func LegacyOf(t Task) LegacyTask {
	status := t.Status
	if status == Completed && t.Result != nil && t.Result.IsError {
		status = Failed
	}
	return LegacyTask{TaskID: t.TaskID, Status: status, StatusMessage: t.StatusMessage, CreatedAt: t.CreatedAt,
		LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTLMillis, PollInterval: t.PollIntervalMs}
}

// WatchLegacy pushes notifications/tasks/status whenever the status of the task taskID, which
// was last, changes, reading it as caller, until it ends, ended reports that its session has
// ended, or base ends.
func (ts *Tasks) WatchLegacy(base context.Context, caller *hootv1.Caller, taskID, jobID, last string, ended func() bool, push func(*jsonrpc.Notification)) {
	tick := time.NewTicker(legacyPoll)
	defer tick.Stop()
	for {
		select {
		case <-base.Done():
			return
		case <-tick.C:
		}
		if ended() {
			return
		}
		ctx, cancel := context.WithTimeout(base, ts.timeout)
		job, r := ts.Job(ctx, caller, nil, hootv1.TaskRole_TASK_ROLE_GET, jobID, taskID, nil)
		cancel()
		if r != nil {
			if r.Error != nil && r.Error.Code == jsonrpc.CodeInvalidParams {
				return // the job is gone
			}
			continue
		}
		t := LegacyOf(ts.Detailed(taskID, job))
		if t.Status != last {
			last = t.Status
			push(&jsonrpc.Notification{JSONRPC: jsonrpc.Version, Method: NotifyStatus, Params: t})
		}
		switch t.Status {
		case Completed, Failed, Cancelled:
			return
		}
	}
}

// ServeLegacy answers the request id of a 2025-11-25 tasks method (tasks/get, tasks/result,
// tasks/list, tasks/cancel) with params, made by caller in a session with the task list list.
// ask puts a waiting task's questions to the client; nil when the transport cannot.
func (ts *Tasks) ServeLegacy(ctx context.Context, caller *hootv1.Caller, id json.RawMessage, method string, params json.RawMessage, list *List, ask hooteproto.ClientAsker) *jsonrpc.Response {
	if method == MethodList {
		return ts.listLegacy(ctx, caller, id, params, list)
	}
	var p Params
	var taskID string
	if params == nil || rawjson.Kind(params) != "object" || json.Unmarshal(params, &p) != nil ||
		rawjson.Kind(p.TaskID) != "string" || json.Unmarshal(p.TaskID, &taskID) != nil || taskID == "" {
		return ts.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: "+method+" needs params.taskId, the taskId of a CreateTaskResult", &guidance.Data{
			Hint:  "Pass the task.taskId that a tools/call with params.task answered, unchanged.",
			Field: "params.taskId",
		})
	}
	jobID, ok := ts.ids.JobOfTask(taskID)
	if !ok {
		return ts.Unknown(id, taskID, "it is not a task id this server made")
	}
	job, r := ts.Job(ctx, caller, id, hootv1.TaskRole_TASK_ROLE_GET, jobID, taskID, nil)
	if r != nil {
		return r
	}
	t := ts.Detailed(taskID, job)
	switch method {
	case MethodCancel:
		switch t.Status {
		case Completed, Failed, Cancelled:
			return ts.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: the task has ended ("+LegacyOf(t).Status+"); only a task that has not ended can be cancelled", &guidance.Data{
				Hint: "Read its outcome with tasks/result.", Field: "params.taskId"})
		}
		job, r = ts.Job(ctx, caller, id, hootv1.TaskRole_TASK_ROLE_CANCEL, jobID, taskID, nil)
		if r != nil {
			return r
		}
		t = ts.Detailed(taskID, job)
		if t.Status != Cancelled {
			// It ended some other way while it was being stopped; 2025-11-25 wants a
			// cancelled task only, so say so rather than claim it.
			return ts.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: the task ended ("+LegacyOf(t).Status+") before it could be cancelled", &guidance.Data{
				Hint: "Read its outcome with tasks/result.", Field: "params.taskId"})
		}
		return jsonrpc.NewResult(id, LegacyOf(t))
	case MethodResult:
		return ts.legacyResult(ctx, caller, id, ask, taskID, jobID, t)
	}
	return jsonrpc.NewResult(id, LegacyOf(t))
}

// legacyResult waits until the task ends and answers what its tools/call would have: the
// tool's result (isError for its error) with the related-task _meta, or the JSON-RPC error of a
// task that failed without a result. A task that waits for input has its questions put to the
// client on this request's stream meanwhile.
func (ts *Tasks) legacyResult(ctx context.Context, caller *hootv1.Caller, id json.RawMessage, ask hooteproto.ClientAsker, taskID, jobID string, t Task) *jsonrpc.Response {
	tick := time.NewTicker(legacyPoll)
	defer tick.Stop()
	for {
		switch t.Status {
		case Completed:
			return jsonrpc.NewResult(id, struct {
				toolresult.Result
				Meta map[string]any `json:"_meta"`
			}{t.Result.Result, map[string]any{MetaRelatedTask: map[string]string{"taskId": taskID}}})
		case Failed:
			return jsonrpc.NewError(id, t.Error.Code, t.Error.Message, map[string]any{MetaRelatedTask: map[string]string{"taskId": taskID}})
		case Cancelled:
			return ts.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: the task was cancelled before it finished; it has no result", &guidance.Data{
				Hint: "Call the tool again to run it anew.", Field: "params.taskId"})
		case InputRequired:
			if r := ts.askFor(ctx, caller, id, ask, taskID, jobID); r != nil {
				return r
			}
		}
		select {
		case <-ctx.Done():
			return ts.host.Fail(id, jsonrpc.CodeInternalError, "internal error: tasks/result stopped waiting: "+context.Cause(ctx).Error(), &guidance.Data{
				Hint: "Send tasks/result again to go on waiting; the task goes on meanwhile."})
		case <-tick.C:
		}
		job, r := ts.Job(ctx, caller, id, hootv1.TaskRole_TASK_ROLE_GET, jobID, taskID, nil)
		if r != nil {
			return r
		}
		t = ts.Detailed(taskID, job)
	}
}

// askFor puts the questions of a task that waits for input to the client with ask, and gives
// the job the answers. It returns the response that ends the request when the client cannot be
// asked.
func (ts *Tasks) askFor(ctx context.Context, caller *hootv1.Caller, id json.RawMessage, ask hooteproto.ClientAsker, taskID, jobID string) *jsonrpc.Response {
	if ask == nil {
		return ts.host.Fail(id, jsonrpc.CodeInternalError, "internal error: the task waits for input, which this transport cannot ask for", &guidance.Data{
			Hint: "Call tasks/result over a transport that carries requests to the client (an HTTP event stream or stdio)."})
	}
	job, r := ts.Job(ctx, caller, id, hootv1.TaskRole_TASK_ROLE_GET, jobID, taskID, nil)
	if r != nil {
		return r
	}
	answers := make(map[string]*hootv1.ClientResponse)
	for key, q := range job.GetQuestions() {
		actx, cancel := context.WithTimeout(ctx, ts.timeout)
		a, err := ask(actx, q)
		cancel()
		if err != nil {
			e := hooteproto.AsError(err)
			return ts.host.Fail(id, jsonrpc.CodeInternalError, "internal error: the task waits for input that the client could not give: "+e.Message(), &guidance.Data{
				Hint: "Send tasks/result again from a client that answers " + questions.MethodElicit + " and sampling/createMessage."})
		}
		answers[key] = a
	}
	if len(answers) > 0 && ts.host.Tool(hootv1.TaskRole_TASK_ROLE_UPDATE) != nil {
		if _, r := ts.Job(ctx, caller, id, hootv1.TaskRole_TASK_ROLE_UPDATE, jobID, taskID, answers); r != nil {
			return r
		}
	}
	return nil
}

// listLegacy answers tasks/list with the tasks this session created, newest first, a
// page at a time; tasks no longer kept are left out.
func (ts *Tasks) listLegacy(ctx context.Context, caller *hootv1.Caller, id json.RawMessage, params json.RawMessage, list *List) *jsonrpc.Response {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if params != nil && (rawjson.Kind(params) != "object" || json.Unmarshal(params, &p) != nil) {
		return ts.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: tasks/list takes an object with an optional cursor (a string)", &guidance.Data{
			Hint: "Send tasks/list with empty params for the first page, and with the nextCursor of a page for the next."})
	}
	ids := list.NewestFirst()
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 || n > len(ids) {
			return ts.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: unknown cursor "+wording.Quote(wording.Short(*p.Cursor)), &guidance.Data{
				Hint: "Pass the nextCursor of the previous tasks/list answer unchanged, or leave it out to start from the newest task."})
		}
		start = n
	}
	res := struct {
		Tasks      []LegacyTask `json:"tasks"`
		NextCursor string       `json:"nextCursor,omitempty"`
	}{Tasks: []LegacyTask{}}
	end := min(start+listPageSize, len(ids))
	for _, taskID := range ids[start:end] {
		jobID, _ := ts.ids.JobOfTask(taskID)
		job, r := ts.Job(ctx, caller, id, hootv1.TaskRole_TASK_ROLE_GET, jobID, taskID, nil)
		if r != nil {
			if r.Error != nil && r.Error.Code == jsonrpc.CodeInvalidParams {
				continue // no longer kept
			}
			return r
		}
		res.Tasks = append(res.Tasks, LegacyOf(ts.Detailed(taskID, job)))
	}
	if end < len(ids) {
		res.NextCursor = strconv.Itoa(end)
	}
	return jsonrpc.NewResult(id, res)
}
