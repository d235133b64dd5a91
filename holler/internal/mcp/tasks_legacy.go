package mcp

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
)

// The experimental tasks of protocol 2025-11-25, for a session whose client declares the tasks
// capability at initialize. They are the same jobs as the 2026-07-28 extension's, with the same
// task ids; what differs is the wire: the client asks for a task with params.task, the answer
// nests the task ({"task": {...}}) with ttl and pollInterval, tasks/result blocks until the
// job ends and returns the tool's result, tasks/list lists this session's tasks, tasks/cancel
// returns the task, and notifications/tasks/status reports changes on the session's stream.

const (
	methodTasksResult = "tasks/result"
	methodTasksList   = "tasks/list"
	notifyTaskStatus  = "notifications/tasks/status"

	metaRelatedTask = "io.modelcontextprotocol/related-task"
)

// legacyTaskPoll is how often tasks/result and the status watcher read a job.
const legacyTaskPoll = 500 * time.Millisecond

// maxSessionTasks bounds the task ids a session remembers for tasks/list; older ones are
// forgotten first (their tasks stay readable by id).
const maxSessionTasks = 1000

// legacyTasksPageSize is the most tasks one tasks/list answer holds.
const legacyTasksPageSize = 50

// sessionTasks are the tasks a 2025-11-25 session created, newest last.
type sessionTasks struct {
	mu  sync.Mutex
	ids []string
}

func (st *sessionTasks) add(id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ids = append(st.ids, id)
	if len(st.ids) > maxSessionTasks {
		st.ids = append([]string(nil), st.ids[len(st.ids)-maxSessionTasks:]...)
	}
}

func (st *sessionTasks) newestFirst() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]string, len(st.ids))
	for i, id := range st.ids {
		out[len(st.ids)-1-i] = id
	}
	return out
}

// taskList returns the session's tasks, or nil when it is not a 2025-11-25 session with tasks.
func (s *session) taskList() *sessionTasks {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.legacyTasks
}

// legacyTasksCapability is the 2025-11-25 server capability tasks.
type legacyTasksCapability struct {
	List     struct{} `json:"list"`
	Cancel   struct{} `json:"cancel"`
	Requests struct {
		Tools struct {
			Call struct{} `json:"call"`
		} `json:"tools"`
	} `json:"requests"`
}

// legacyTasksFor returns the task list of a session of version v whose client declared caps
// at initialize, when it is to be served tasks: at 2025-11-25, with the tasks capability
// declared, by a server that serves tasks. Otherwise nil.
func (s *Server) legacyTasksFor(v string, caps json.RawMessage) *sessionTasks {
	var c struct {
		Tasks json.RawMessage `json:"tasks"`
	}
	if v != protocolVersion20251125 || json.Unmarshal(caps, &c) != nil || rawjson.Kind(c.Tasks) != "object" || !s.tasksSupported() {
		return nil
	}
	return &sessionTasks{}
}

// legacyCapabilities returns initialize's tasks capability for a session with tasks.
func legacyCapabilities(list *sessionTasks) *legacyTasksCapability {
	if list == nil {
		return nil
	}
	return &legacyTasksCapability{}
}

// toolExecution is a tool's execution of 2025-11-25: whether it may run as a task.
type toolExecution struct {
	TaskSupport string `json:"taskSupport"`
}

// taskSupport returns a tool's taskSupport: every tool may run as a task (a job runs as one
// anyway; a tool that answers inline runs as a job when a task is asked of it), and some only
// so.
func taskSupport(t *hootv1hoot.Tool) string {
	if t.TaskRequired {
		return "required"
	}
	return "optional"
}

// withTaskSupport returns tools/list's answer resp with each job's execution.taskSupport, for
// a session with tasks.
func (s *Server) withTaskSupport(resp *jsonrpc.Response) *jsonrpc.Response {
	res, ok := resp.Result.(listToolsResult)
	if !ok {
		return resp
	}
	tools := make([]toolDescription, len(res.Tools))
	copy(tools, res.Tools)
	for i := range tools {
		if t, ok := s.tools[tools[i].Name]; ok {
			tools[i].Execution = &toolExecution{TaskSupport: taskSupport(t)}
		}
	}
	res.Tools = tools
	out := *resp
	out.Result = res
	return &out
}

// hasTaskParam reports whether tools/call's params ask for a task (params.task, an object).
func hasTaskParam(params json.RawMessage) bool {
	var p struct {
		Task json.RawMessage `json:"task"`
	}
	return json.Unmarshal(params, &p) == nil && rawjson.Kind(p.Task) == "object"
}

// checkLegacyTaskCall refuses, in a session with tasks, a task asked of a tool that cannot run
// as one, and a call of a tool that runs only as a task made without one (both -32601, as
// 2025-11-25 says). It returns nil for every other call.
func (s *Server) checkLegacyTaskCall(sess *session, msg *message) *jsonrpc.Response {
	if sess.taskList() == nil {
		return nil
	}
	_, name, ok := readCallToolParams(msg.Params)
	t, known := s.allowedTool(name)
	if !ok || !known {
		return nil // callTool answers these
	}
	if !hasTaskParam(msg.Params) && taskSupport(t) == "required" {
		return s.fail(msg.ID, jsonrpc.CodeMethodNotFound, "method not found: "+wording.Quote(name)+" runs only as a task (its execution.taskSupport is required)", &guidance.Data{
			Hint: "Call " + name + " with params.task, such as \"task\": {}, and follow the task with tasks/get and tasks/result.",
			Tool: name,
		})
	}
	return nil
}

// legacyTask is a Task of 2025-11-25.
type legacyTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
}

// legacyOf returns t, a task as the 2026-07-28 extension writes it, as 2025-11-25 does. In
// 2025-11-25 a tool's error fails the task.
func legacyOf(t tasks.Task) legacyTask {
	status := t.Status
	if status == tasks.Completed && t.Result != nil && t.Result.IsError {
		status = tasks.Failed
	}
	return legacyTask{TaskID: t.TaskID, Status: status, StatusMessage: t.StatusMessage, CreatedAt: t.CreatedAt,
		LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTLMillis, PollInterval: t.PollIntervalMs}
}

// legacyTaskCreated returns the nested CreateTaskResult of a job started by a call that asked
// for a task in a session with tasks, and starts reporting its status changes.
func (s *Server) legacyTaskCreated(msg *message, sess *session, t *hootv1hoot.Tool, js *hootv1.JobStarted) *jsonrpc.Response {
	created := s.tasks.Created(js)
	sess.taskList().add(created.TaskID)
	s.wg.Go(func() { s.watchLegacyTask(sess, created.TaskID, js.GetJobId(), created.Status) })
	s.log.Info("mcp: tool call runs as a task", "tool", t.Name, "job", js.GetJobId(), "session", sess.id)
	return jsonrpc.NewResult(msg.ID, struct {
		Task legacyTask `json:"task"`
	}{legacyOf(created)})
}

// watchLegacyTask sends notifications/tasks/status on the session's stream whenever the task's
// status changes, until it ends, the session ends or the server closes.
func (s *Server) watchLegacyTask(sess *session, taskID, jobID, last string) {
	tick := time.NewTicker(legacyTaskPoll)
	defer tick.Stop()
	for {
		select {
		case <-s.base.Done():
			return
		case <-tick.C:
		}
		sess.mu.Lock()
		ended := sess.ended
		sess.mu.Unlock()
		if ended {
			return
		}
		ctx, cancel := context.WithTimeout(s.base, s.cfg.CallTimeout)
		job, r := s.tasks.Job(ctx, sess.caller, nil, hootv1.TaskRole_TASK_ROLE_GET, jobID, taskID, nil)
		cancel()
		if r != nil {
			if r.Error != nil && r.Error.Code == jsonrpc.CodeInvalidParams {
				return // the job is gone
			}
			continue
		}
		t := legacyOf(s.tasks.Detailed(taskID, job))
		if t.Status != last {
			last = t.Status
			sess.push(&jsonrpc.Notification{JSONRPC: jsonrpc.Version, Method: notifyTaskStatus, Params: t})
		}
		switch t.Status {
		case tasks.Completed, tasks.Failed, tasks.Cancelled:
			return
		}
	}
}

// isLegacyTaskMethod reports whether method is one of the 2025-11-25 tasks methods.
func isLegacyTaskMethod(method string) bool {
	switch method {
	case methodTasksGet, methodTasksResult, methodTasksList, methodTasksCancel:
		return true
	}
	return false
}

// serveLegacyTask answers the tasks methods of 2025-11-25 in a session with tasks.
func (s *Server) serveLegacyTask(ctx context.Context, sess *session, msg *message, out notifier) *jsonrpc.Response {
	if msg.Method == methodTasksList {
		return s.listLegacyTasks(ctx, sess, msg)
	}
	var p tasks.Params
	var taskID string
	if msg.Params == nil || rawjson.Kind(msg.Params) != "object" || json.Unmarshal(msg.Params, &p) != nil ||
		rawjson.Kind(p.TaskID) != "string" || json.Unmarshal(p.TaskID, &taskID) != nil || taskID == "" {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: "+msg.Method+" needs params.taskId, the taskId of a CreateTaskResult", &guidance.Data{
			Hint:  "Pass the task.taskId that a tools/call with params.task answered, unchanged.",
			Field: "params.taskId",
		})
	}
	jobID, ok := s.states.JobOfTask(taskID)
	if !ok {
		return s.tasks.Unknown(msg.ID, taskID, "it is not a task id this server made")
	}
	job, r := s.tasks.Job(ctx, callerOf(ctx), msg.ID, hootv1.TaskRole_TASK_ROLE_GET, jobID, taskID, nil)
	if r != nil {
		return r
	}
	t := s.tasks.Detailed(taskID, job)
	switch msg.Method {
	case methodTasksCancel:
		switch t.Status {
		case tasks.Completed, tasks.Failed, tasks.Cancelled:
			return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: the task has ended ("+legacyOf(t).Status+"); only a task that has not ended can be cancelled", &guidance.Data{
				Hint: "Read its outcome with tasks/result.", Field: "params.taskId"})
		}
		job, r = s.tasks.Job(ctx, callerOf(ctx), msg.ID, hootv1.TaskRole_TASK_ROLE_CANCEL, jobID, taskID, nil)
		if r != nil {
			return r
		}
		t = s.tasks.Detailed(taskID, job)
		if t.Status != tasks.Cancelled {
			// It ended some other way while it was being stopped; 2025-11-25 wants a
			// cancelled task only, so say so rather than claim it.
			return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: the task ended ("+legacyOf(t).Status+") before it could be cancelled", &guidance.Data{
				Hint: "Read its outcome with tasks/result.", Field: "params.taskId"})
		}
		return jsonrpc.NewResult(msg.ID, legacyOf(t))
	case methodTasksResult:
		return s.legacyTaskResult(ctx, sess, msg, out, taskID, jobID, t)
	}
	return jsonrpc.NewResult(msg.ID, legacyOf(t))
}

// legacyTaskResult waits until the task ends and answers what its tools/call would have: the
// tool's result (isError for its error) with the related-task _meta, or the JSON-RPC error of a
// task that failed without a result. A task that waits for input has its questions put to the
// client on this request's stream meanwhile.
func (s *Server) legacyTaskResult(ctx context.Context, sess *session, msg *message, out notifier, taskID, jobID string, t tasks.Task) *jsonrpc.Response {
	tick := time.NewTicker(legacyTaskPoll)
	defer tick.Stop()
	for {
		switch t.Status {
		case tasks.Completed:
			return jsonrpc.NewResult(msg.ID, struct {
				toolresult.Result
				Meta map[string]any `json:"_meta"`
			}{t.Result.Result, map[string]any{metaRelatedTask: map[string]string{"taskId": taskID}}})
		case tasks.Failed:
			return jsonrpc.NewError(msg.ID, t.Error.Code, t.Error.Message, map[string]any{metaRelatedTask: map[string]string{"taskId": taskID}})
		case tasks.Cancelled:
			return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: the task was cancelled before it finished; it has no result", &guidance.Data{
				Hint: "Call the tool again to run it anew.", Field: "params.taskId"})
		case tasks.InputRequired:
			if r := s.askForTask(ctx, sess, msg, out, taskID, jobID, t); r != nil {
				return r
			}
		}
		select {
		case <-ctx.Done():
			return s.fail(msg.ID, jsonrpc.CodeInternalError, "internal error: tasks/result stopped waiting: "+context.Cause(ctx).Error(), &guidance.Data{
				Hint: "Send tasks/result again to go on waiting; the task goes on meanwhile."})
		case <-tick.C:
		}
		job, r := s.tasks.Job(ctx, callerOf(ctx), msg.ID, hootv1.TaskRole_TASK_ROLE_GET, jobID, taskID, nil)
		if r != nil {
			return r
		}
		t = s.tasks.Detailed(taskID, job)
	}
}

// askForTask puts the questions of a task that waits for input to the client, on the stream of
// the request msg, and gives the job the answers. It returns the response that ends the request
// when the client cannot be asked.
func (s *Server) askForTask(ctx context.Context, sess *session, msg *message, out notifier, taskID, jobID string, t tasks.Task) *jsonrpc.Response {
	if out == nil {
		return s.fail(msg.ID, jsonrpc.CodeInternalError, "internal error: the task waits for input, which this transport cannot ask for", &guidance.Data{
			Hint: "Call tasks/result over a transport that carries requests to the client (an HTTP event stream or stdio)."})
	}
	job, r := s.tasks.Job(ctx, callerOf(ctx), msg.ID, hootv1.TaskRole_TASK_ROLE_GET, jobID, taskID, nil)
	if r != nil {
		return r
	}
	ask := s.clientAsker(sess, out)
	answers := make(map[string]*hootv1.ClientResponse)
	for key, q := range job.GetQuestions() {
		actx, cancel := context.WithTimeout(ctx, s.cfg.CallTimeout)
		a, err := ask(actx, q)
		cancel()
		if err != nil {
			e := hooteproto.AsError(err)
			return s.fail(msg.ID, jsonrpc.CodeInternalError, "internal error: the task waits for input that the client could not give: "+e.Message(), &guidance.Data{
				Hint: "Send tasks/result again from a client that answers " + questions.MethodElicit + " and sampling/createMessage."})
		}
		answers[key] = a
	}
	if len(answers) > 0 && s.taskTool(hootv1.TaskRole_TASK_ROLE_UPDATE) != nil {
		if _, r := s.tasks.Job(ctx, callerOf(ctx), msg.ID, hootv1.TaskRole_TASK_ROLE_UPDATE, jobID, taskID, answers); r != nil {
			return r
		}
	}
	return nil
}

// listLegacyTasks answers tasks/list with the tasks this session created, newest first, a
// page at a time; tasks no longer kept are left out.
func (s *Server) listLegacyTasks(ctx context.Context, sess *session, msg *message) *jsonrpc.Response {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if msg.Params != nil && (rawjson.Kind(msg.Params) != "object" || json.Unmarshal(msg.Params, &p) != nil) {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: tasks/list takes an object with an optional cursor (a string)", &guidance.Data{
			Hint: "Send tasks/list with empty params for the first page, and with the nextCursor of a page for the next."})
	}
	ids := sess.taskList().newestFirst()
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 || n > len(ids) {
			return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: unknown cursor "+wording.Quote(wording.Short(*p.Cursor)), &guidance.Data{
				Hint: "Pass the nextCursor of the previous tasks/list answer unchanged, or leave it out to start from the newest task."})
		}
		start = n
	}
	res := struct {
		Tasks      []legacyTask `json:"tasks"`
		NextCursor string       `json:"nextCursor,omitempty"`
	}{Tasks: []legacyTask{}}
	end := min(start+legacyTasksPageSize, len(ids))
	for _, taskID := range ids[start:end] {
		jobID, _ := s.states.JobOfTask(taskID)
		job, r := s.tasks.Job(ctx, callerOf(ctx), msg.ID, hootv1.TaskRole_TASK_ROLE_GET, jobID, taskID, nil)
		if r != nil {
			if r.Error != nil && r.Error.Code == jsonrpc.CodeInvalidParams {
				continue // no longer kept
			}
			return r
		}
		res.Tasks = append(res.Tasks, legacyOf(s.tasks.Detailed(taskID, job)))
	}
	if end < len(ids) {
		res.NextCursor = strconv.Itoa(end)
	}
	return jsonrpc.NewResult(msg.ID, res)
}
