package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"net/http"
	"strings"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MCP tasks are the workers' jobs. A call of a tool of kind JOB starts a job and answers with
// its id (JobStarted) once the job's row is written; for a client that declares the tasks
// extension (2026-07-28, io.modelcontextprotocol/tasks) that answer becomes a CreateTaskResult
// whose taskId names the job. tasks/get and tasks/cancel call the tools that the schema marks
// with a task role (job_status and job_cancel), so the gateway keeps nothing about a task and
// knows of jobs only the wire's Job message: any gateway that shares the --state-key resolves
// any task. docs/decisions.md says why task ids are the job's id with a MAC.

// The names of the tasks extension.
const (
	extensionTasks = "io.modelcontextprotocol/tasks"

	methodTasksGet    = "tasks/get"
	methodTasksUpdate = "tasks/update"
	methodTasksCancel = "tasks/cancel"

	// resultTypeTask is the resultType of a CreateTaskResult.
	resultTypeTask = "task"
)

// The statuses of a task.
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

// taskPollIntervalMillis is how often a client is asked to poll a task: jobs write their
// progress every 250 ms, and most of them run for seconds or more.
const taskPollIntervalMillis = 1000

// declaresTasks reports whether the client capabilities caps of one request declare the tasks
// extension.
func declaresTasks(caps json.RawMessage) bool {
	var c struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(caps, &c) != nil {
		return false
	}
	return rawjson.Kind(c.Extensions[extensionTasks]) == "object"
}

// isTaskMethod reports whether method is one of the tasks extension's.
func isTaskMethod(method string) bool {
	return method == methodTasksGet || method == methodTasksUpdate || method == methodTasksCancel
}

// taskTool returns the allowed tool that serves role, or nil.
func (s *Server) taskTool(role hootv1.TaskRole) *hootv1hoot.Tool {
	for i := range s.cfg.Tools {
		t := &s.cfg.Tools[i]
		if t.TaskRole == role && t.Surface == hootv1.Surface_SURFACE_UNSPECIFIED && t.Tier <= s.cfg.MaxTier {
			return t
		}
	}
	return nil
}

// tasksSupported reports whether this server serves tasks: the tools that read and cancel jobs
// are in its table and within its tier.
func (s *Server) tasksSupported() bool {
	return s.taskTool(hootv1.TaskRole_TASK_ROLE_GET) != nil && s.taskTool(hootv1.TaskRole_TASK_ROLE_CANCEL) != nil
}

// taskExtensions returns the extensions server/discover declares.
func (s *Server) taskExtensions() map[string]struct{} {
	if !s.tasksSupported() {
		return nil
	}
	return map[string]struct{}{extensionTasks: {}}
}

// missingCapabilityData is the data of a -32021 error: the capabilities the request needs.
type missingCapabilityData struct {
	Hint                 string         `json:"hint,omitempty"`
	RequiredCapabilities map[string]any `json:"requiredCapabilities"`
}

// checkTaskCapability refuses, before anything is called, a modern request that needs the
// tasks extension on a request that does not declare it: a tasks/* method, or a call of a tool
// that runs only as a task. It returns nil for every other request.
func (s *Server) checkTaskCapability(msg *message, caps json.RawMessage) *modernFailure {
	if !s.tasksSupported() || declaresTasks(caps) {
		return nil
	}
	what := ""
	switch {
	case isTaskMethod(msg.Method):
		what = msg.Method + " is a method of the tasks extension"
	case msg.Method == methodSubscriptionsListen && asksForTasks(msg.Params):
		what = "notifications of tasks (taskIds) belong to the tasks extension"
	case msg.Method == methodToolsCall:
		_, name, ok := readCallToolParams(msg.Params)
		if t, known := s.allowedTool(name); ok && known && t.TaskRequired {
			what = "the tool " + wording.Quote(name) + " runs only as a task"
		}
	}
	if what == "" {
		return nil
	}
	data := missingCapabilityData{
		Hint:                 "Declare the extension in params._meta." + metaClientCapabilities + ".extensions[\"" + extensionTasks + "\"] = {} on this request, and follow the task with tasks/get.",
		RequiredCapabilities: map[string]any{"extensions": map[string]any{extensionTasks: struct{}{}}},
	}
	if s.cfg.MinimalErrors {
		data.Hint = ""
	}
	return &modernFailure{status: http.StatusBadRequest, resp: jsonrpc.NewError(msg.ID, codeMissingCapability,
		"missing required client capability: "+what+", which this request does not declare ("+extensionTasks+")", data)}
}

// A taskResult is a task as the tasks extension writes it: flat, as a CreateTaskResult
// (resultType "task") or as tasks/get's DetailedTask (resultType "complete").
type taskResult struct {
	ResultType    string `json:"resultType"`
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTLMillis is how long from its creation the task is kept; null when not known.
	TTLMillis      *int64 `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs"`
	// Result is a completed task's CallToolResult; Error a failed task's JSON-RPC error.
	Result        *inlinedResult               `json:"result,omitempty"`
	Error         *jsonrpc.ErrorObject         `json:"error,omitempty"`
	InputRequests map[string]questions.Request `json:"inputRequests,omitempty"`
}

// inlinedResult is a completed task's tool result as tasks/get inlines it: a 2026-07-28
// result, so it says its resultType like every other.
type inlinedResult struct {
	ResultType string `json:"resultType"`
	toolresult.Result
}

// taskTime writes a time as the tasks extension's ISO 8601 strings.
func taskTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// ttlMillis returns the milliseconds from created to kept, or nil when kept is not known.
func ttlMillis(created, kept interface {
	IsValid() bool
	AsTime() time.Time
}) *int64 {
	if !kept.IsValid() || !created.IsValid() {
		return nil
	}
	ms := max(kept.AsTime().Sub(created.AsTime()).Milliseconds(), 1)
	return &ms
}

// createdTask returns the CreateTaskResult of a job just started.
func (s *Server) createdTask(js *hootv1.JobStarted) taskResult {
	created := taskTime(js.GetCreatedAt().AsTime())
	return taskResult{
		ResultType:     resultTypeTask,
		TaskID:         s.states.TaskID(js.GetJobId()),
		Status:         taskWorking,
		StatusMessage:  "the job " + js.GetJobId() + " of " + js.GetTool() + " is " + strings.ToLower(strings.TrimPrefix(js.GetStatus().String(), "JOB_STATUS_")),
		CreatedAt:      created,
		LastUpdatedAt:  created,
		TTLMillis:      ttlMillis(js.GetCreatedAt(), js.GetKeptUntil()),
		PollIntervalMs: taskPollIntervalMillis,
	}
}

// A taskPlan is what the tasks of both eras make of one tools/call, decided once before the
// call goes out: whether its backend call runs as a job, and which era's CreateTaskResult a job
// it starts is answered with.
type taskPlan struct {
	// legacy: the call asks for a task (params.task) in a session with 2025-11-25 tasks. A job
	// it starts is answered as a nested task, whatever the tool's kind.
	legacy bool
	// modern: the request declares the 2026-07-28 tasks extension on a server with tasks. A
	// job tool's job is answered as a task.
	modern bool
	// asJob: the backend call of a tool that answers inline runs as a job, because the call
	// asked for a legacy task.
	asJob bool
}

// planTask returns the taskPlan of a call of t.
func (s *Server) planTask(sess *session, msg *message, t *hootv1hoot.Tool) taskPlan {
	var p taskPlan
	p.legacy = sess.taskList() != nil && hasTaskParam(msg.Params)
	p.modern = sess.modern && sess.tasks && s.tasksSupported()
	p.asJob = p.legacy && t.Kind != hootv1.Kind_KIND_JOB
	return p
}

// taskAnswer returns the CreateTaskResult of a call of t whose worker answered res, as the plan
// p says; nil when the answer is not a task, and the call answers as it always did.
func (s *Server) taskAnswer(p taskPlan, msg *message, sess *session, t *hootv1hoot.Tool, res *hootv1.Result) *jsonrpc.Response {
	js := res.GetJobStarted()
	switch {
	case js == nil:
		return nil
	case p.legacy:
		return s.legacyTaskCreated(msg, sess, t, js)
	case p.modern && t.Kind == hootv1.Kind_KIND_JOB:
		s.log.Info("mcp: tool call runs as a task", "tool", t.Name, "job", js.GetJobId())
		return jsonrpc.NewResult(msg.ID, s.createdTask(js))
	}
	return nil
}

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	TaskID         json.RawMessage `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses"`
}

// serveTask answers tasks/get, tasks/update and tasks/cancel of a request that declares the
// extension.
func (s *Server) serveTask(ctx context.Context, msg *message) *jsonrpc.Response {
	var p taskParams
	var taskID string
	if msg.Params == nil || rawjson.Kind(msg.Params) != "object" || json.Unmarshal(msg.Params, &p) != nil ||
		rawjson.Kind(p.TaskID) != "string" || json.Unmarshal(p.TaskID, &taskID) != nil || taskID == "" {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: "+msg.Method+" needs params.taskId, the taskId of a CreateTaskResult", &guidance.Data{
			Hint:  "Pass the taskId that a tools/call answered with resultType \"task\", unchanged.",
			Field: "params.taskId",
		})
	}
	if msg.Method == methodTasksUpdate && rawjson.Kind(p.InputResponses) != "object" {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: tasks/update needs params.inputResponses, an object of answers by the keys of the task's inputRequests", &guidance.Data{
			Hint:  "Answer the inputRequests that tasks/get shows, each under its key, as in {\"key\":{\"action\":\"accept\",\"content\":{...}}}.",
			Field: "params.inputResponses",
		})
	}
	jobID, ok := s.states.JobOfTask(taskID)
	if !ok {
		return s.unknownTask(msg.ID, taskID, "it is not a task id this server made")
	}
	role := hootv1.TaskRole_TASK_ROLE_GET
	if msg.Method == methodTasksCancel {
		role = hootv1.TaskRole_TASK_ROLE_CANCEL
	}
	job, r := s.callTaskTool(ctx, callerOf(ctx), msg.ID, role, jobID, taskID, nil)
	if r != nil {
		return r
	}
	switch msg.Method {
	case methodTasksCancel:
		s.log.Info("mcp: task cancelled", "job", jobID, "status", job.GetStatus().String())
		return jsonrpc.NewResult(msg.ID, struct{}{})
	case methodTasksUpdate:
		return s.updateTask(ctx, msg.ID, job, taskID, p.InputResponses)
	}
	return jsonrpc.NewResult(msg.ID, s.detailedTask(taskID, job))
}

// updateTask gives the job the answers of inputResponses to the questions it waits on, through
// the tool of TASK_ROLE_UPDATE, and acks. Answers under keys the job does not wait on are
// ignored, as the extension asks: a task's keys are never reused, so they can only be stale.
func (s *Server) updateTask(ctx context.Context, id json.RawMessage, job *hootv1.Job, taskID string, raw json.RawMessage) *jsonrpc.Response {
	var given map[string]json.RawMessage
	if json.Unmarshal(raw, &given) != nil {
		return s.fail(id, jsonrpc.CodeInvalidParams, "invalid params: params.inputResponses must be an object", &guidance.Data{Hint: "Answer each input request under its key.", Field: "params.inputResponses"})
	}
	answers := make(map[string]*hootv1.ClientResponse)
	for key, q := range job.GetQuestions() {
		a, ok := given[key]
		if !ok || rawjson.Kind(a) == "null" {
			continue
		}
		if rawjson.Kind(a) != "object" {
			return s.fail(id, jsonrpc.CodeInvalidParams, "invalid params: params.inputResponses."+key+" must be the result of the input request "+key+", an object", &guidance.Data{
				Hint:  "Answer an elicitation/create with {\"action\":\"accept\",\"content\":{...}}, a sampling/createMessage with the sampled message.",
				Field: "params.inputResponses." + key,
			})
		}
		answers[key] = questions.Response(q, a, nil)
	}
	if len(answers) == 0 || s.taskTool(hootv1.TaskRole_TASK_ROLE_UPDATE) == nil {
		return jsonrpc.NewResult(id, struct{}{})
	}
	jobID := job.GetId()
	if _, r := s.callTaskTool(ctx, callerOf(ctx), id, hootv1.TaskRole_TASK_ROLE_UPDATE, jobID, taskID, answers); r != nil {
		return r
	}
	s.log.Info("mcp: task answered", "job", jobID, "answers", len(answers))
	return jsonrpc.NewResult(id, struct{}{})
}

// callTaskTool calls the tool of role for the job jobID on behalf of caller, and returns the
// job it answers with, or the response that ends the request. A job of another caller is
// answered by the worker as one that does not exist, so it is an unknown task here too.
func (s *Server) callTaskTool(ctx context.Context, caller *hootv1.Caller, id json.RawMessage, role hootv1.TaskRole, jobID, taskID string, answers map[string]*hootv1.ClientResponse) (*hootv1.Job, *jsonrpc.Response) {
	t := s.taskTool(role)
	req := t.NewRequest()
	r := req.ProtoReflect()
	fields := r.Descriptor().Fields()
	if fields.Len() < 1 || fields.Get(0).Kind() != protoreflect.StringKind {
		// The generator refuses such a schema; this is a gateway built against another one.
		return nil, s.internalError(id, "the tool "+wording.Quote(t.Name)+" does not take a job id first")
	}
	r.Set(fields.Get(0), protoreflect.ValueOfString(jobID))
	if len(answers) > 0 {
		if fields.Len() < 2 || !fields.Get(1).IsMap() {
			return nil, s.internalError(id, "the tool "+wording.Quote(t.Name)+" does not take answers")
		}
		m := r.Mutable(fields.Get(1)).Map()
		for k, a := range answers {
			m.Set(protoreflect.ValueOfString(k).MapKey(), protoreflect.ValueOfMessage(a.ProtoReflect()))
		}
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.CallTimeout)
	defer cancel()
	cctx = hooteproto.WithTraceparent(cctx, hooteproto.NextTraceparent(hooteproto.TraceparentFrom(ctx)))
	res, err := s.cfg.Backend.Call(cctx, hooteproto.Call{Service: t.Service, Payload: t.Wrap(req), Caller: caller})
	if err == nil && res.GetError() != nil {
		err = hooteproto.ErrorFromTool(res.GetError())
	}
	if err != nil {
		e := hooteproto.AsError(err)
		if e.Code() == hooteproto.CodeNotFound {
			return nil, s.unknownTask(id, taskID, "its job is not kept any longer, never existed, or was started by another caller")
		}
		s.log.Info("mcp: task tool failed", "tool", t.Name, "job", jobID, "code", e.Code(), "err", err)
		g := &guidance.Data{Hint: "Send the request again; the workers that keep tasks could not be reached or failed."}
		if e.Hint() != "" {
			g.Hint = e.Hint()
		}
		return nil, s.fail(id, jsonrpc.CodeInternalError, "internal error: the task could not be read: "+e.Message(), g)
	}
	m, ok := t.Unwrap(res)
	job := jobField(m)
	if !ok || job == nil {
		return nil, s.internalError(id, "the worker answered "+wording.Quote(t.Name)+" without the job")
	}
	return job, nil
}

// jobField returns the hoot.v1.Job that the result m holds, or nil.
func jobField(m proto.Message) *hootv1.Job {
	if m == nil {
		return nil
	}
	r := m.ProtoReflect()
	fields := r.Descriptor().Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		if f.Message() == nil || f.IsList() || f.IsMap() || !r.Has(f) {
			continue
		}
		if j, ok := r.Get(f).Message().Interface().(*hootv1.Job); ok {
			return j
		}
	}
	return nil
}

// unknownTask answers a task id that names no task this server can read.
func (s *Server) unknownTask(id json.RawMessage, taskID, why string) *jsonrpc.Response {
	return s.fail(id, jsonrpc.CodeInvalidParams, "invalid params: unknown task "+wording.Quote(wording.Short(taskID))+": "+why, &guidance.Data{
		Hint:  "Pass the taskId of a CreateTaskResult unchanged; tasks are kept for the ttlMs they were created with, and a gateway reads only the task ids of gateways that share its --state-key.",
		Field: "params.taskId",
		Got:   wording.Short(taskID),
	})
}

// detailedTask returns job as tasks/get shows it.
func (s *Server) detailedTask(taskID string, job *hootv1.Job) taskResult {
	last := job.GetCreatedAt().AsTime()
	for _, ts := range []interface {
		IsValid() bool
		AsTime() time.Time
	}{job.GetStartedAt(), job.GetFinishedAt()} {
		if ts.IsValid() && ts.AsTime().After(last) {
			last = ts.AsTime()
		}
	}
	out := taskResult{
		ResultType:     "complete",
		TaskID:         taskID,
		StatusMessage:  job.GetMessage(),
		CreatedAt:      taskTime(job.GetCreatedAt().AsTime()),
		LastUpdatedAt:  taskTime(last),
		TTLMillis:      ttlMillis(job.GetCreatedAt(), job.GetKeptUntil()),
		PollIntervalMs: taskPollIntervalMillis,
	}
	switch job.GetStatus() {
	case hootv1.JobStatus_JOB_STATUS_SUCCEEDED, hootv1.JobStatus_JOB_STATUS_FAILED:
		if job.GetStatus() == hootv1.JobStatus_JOB_STATUS_FAILED && !job.GetToolAnswered() {
			// The job ended without an answer of the tool's: a failure of the server, not a
			// result, which MCP reports as a failed task with a JSON-RPC error.
			out.Status = taskFailed
			msg := job.GetMessage()
			if msg == "" {
				msg = "the job failed inside the worker"
			}
			out.Error = &jsonrpc.ErrorObject{Code: jsonrpc.CodeInternalError, Message: msg}
			break
		}
		res, err := s.jobToolResult(job)
		if err != nil {
			out.Status = taskFailed
			out.Error = &jsonrpc.ErrorObject{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			break
		}
		out.Status, out.Result = taskCompleted, &inlinedResult{ResultType: "complete", Result: res}
	case hootv1.JobStatus_JOB_STATUS_CANCELLED:
		out.Status = taskCancelled
	case hootv1.JobStatus_JOB_STATUS_INPUT_REQUIRED:
		out.Status = taskInputRequired
		out.InputRequests = make(map[string]questions.Request, len(job.GetQuestions()))
		for key, q := range job.GetQuestions() {
			// As a call's input_required result has them: 2026-07-28's shape, the form named.
			if r, ok := questions.Of(q); ok {
				out.InputRequests[key] = r
			}
		}
	default:
		out.Status = taskWorking
	}
	return out
}

// jobToolResult renders the result of a finished job as the CallToolResult its tool's call
// would have answered had it run inline: its typed result, or its error with isError.
func (s *Server) jobToolResult(job *hootv1.Job) (toolresult.Result, error) {
	res := job.GetResult()
	if res == nil {
		return toolresult.Result{}, errors.New("the job ended without a result")
	}
	if te := res.GetError(); te != nil {
		return toolresult.Failure(job.GetTool(), hooteproto.ErrorFromTool(te)), nil
	}
	r := res.ProtoReflect()
	f := r.WhichOneof(r.Descriptor().Oneofs().ByName("result"))
	if f == nil || f.Message() == nil {
		return toolresult.Result{}, errors.New("the job's result is empty")
	}
	m := r.Get(f).Message().Interface()
	if t, ok := s.tools[job.GetTool()]; ok {
		// The tool's own result, which a tool of a carried schema's (a fixture's) is inside.
		if own, ok := t.UnwrapResult(res); ok {
			m = own
		}
	}
	out, err := toolresult.Typed(m, s.contentBase(), false)
	if err != nil {
		return toolresult.Result{}, errors.New("the job's result could not be encoded")
	}
	return out, nil
}
