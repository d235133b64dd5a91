// Package tasks is MCP's tasks of the 2026-07-28 era (the io.modelcontextprotocol/tasks
// extension): the task a job tool's call answers with, tasks/get, tasks/update and
// tasks/cancel, and the status notifications a subscriptions/listen stream asks for. Tasks are
// the workers' jobs. A call of a tool of kind JOB starts a job and answers with its id
// (JobStarted) once the job's row is written; for a client that declares the extension that
// answer becomes a CreateTaskResult whose taskId names the job. tasks/get and tasks/cancel call
// the tools that the schema marks with a task role (job_status and job_cancel), so the gateway
// keeps nothing about a task and knows of jobs only the wire's Job message: any gateway that
// shares the --state-key resolves any task. docs/decisions.md says why task ids are the job's
// id with a MAC.
//
// The package reaches the gateway only through Host and IDs; the 2025-11-25 era's tasks,
// which live in a session, read tasks through it too.
package tasks

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The names of the tasks extension.
const (
	Extension = "io.modelcontextprotocol/tasks"

	MethodGet    = "tasks/get"
	MethodUpdate = "tasks/update"
	MethodCancel = "tasks/cancel"

	// ResultTypeTask is the resultType of a CreateTaskResult.
	ResultTypeTask = "task"
)

// The statuses of a task.
const (
	Working       = "working"
	InputRequired = "input_required"
	Completed     = "completed"
	Failed        = "failed"
	Cancelled     = "cancelled"
)

// PollIntervalMillis is how often a client is asked to poll a task: jobs write their progress
// every 250 ms, and most of them run for seconds or more.
const PollIntervalMillis = 1000

// Host is what tasks needs of the gateway.
type Host interface {
	// Tool returns the allowed tool that serves role, or nil.
	Tool(role hootv1.TaskRole) *hootv1hoot.Tool
	// Call sends one call to the workers.
	Call(ctx context.Context, c hooteproto.Call) (*hootv1.Result, error)
	// JobResult renders the result of a finished job as the result its tool's call would have
	// answered had it run inline.
	JobResult(job *hootv1.Job) (toolresult.Result, error)
	// Fail answers id with a JSON-RPC error and, unless the gateway gives none, guidance g.
	Fail(id json.RawMessage, code int64, msg string, g *guidance.Data) *jsonrpc.Response
}

// IDs turns a job id into the task id a client sees, and back; only ids it made come back.
type IDs interface {
	TaskID(jobID string) string
	JobOfTask(taskID string) (jobID string, ok bool)
}

// Tasks serves the tasks of one gateway.
type Tasks struct {
	host    Host
	ids     IDs
	timeout time.Duration
	log     *slog.Logger
}

// New returns the Tasks of a gateway: host reaches its tools and workers, ids makes and checks
// task ids, and each call of a task tool is bounded by timeout.
func New(host Host, ids IDs, timeout time.Duration, log *slog.Logger) *Tasks {
	return &Tasks{host: host, ids: ids, timeout: timeout, log: log}
}

// Declares reports whether the client capabilities caps of one request declare the tasks
// extension.
func Declares(caps json.RawMessage) bool {
	if declares, ok := scanDeclares(caps); ok {
		return declares
	}
	var c struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(caps, &c) != nil {
		return false
	}
	return rawjson.Kind(c.Extensions[Extension]) == "object"
}

// scanDeclares is Declares without reflection, for the capabilities of nearly every request
// ({} or a few members, one "extensions" at most); ok is false for anything it leaves to
// encoding/json: invalid or unusual text, names in other cases, or "extensions" repeated,
// which json.Unmarshal merges.
func scanDeclares(caps json.RawMessage) (declares, ok bool) {
	var ext []byte
	n := 0
	if !rawjson.ScanMembers(caps, []string{"extensions"}, func(_ int, v []byte) { ext = v; n++ }) || n > 1 {
		return false, false
	}
	if n == 0 {
		return false, true
	}
	if rawjson.Kind(ext) != "object" {
		return false, false
	}
	var mine []byte
	if !rawjson.ScanMembers(ext, []string{Extension}, func(_ int, v []byte) { mine = v }) {
		return false, false
	}
	return rawjson.Kind(mine) == "object", true
}

// IsMethod reports whether method is one of the tasks extension's.
func IsMethod(method string) bool {
	return method == MethodGet || method == MethodUpdate || method == MethodCancel
}

// Supported reports whether the gateway serves tasks: the tools that read and cancel jobs are
// in its table and within its tier.
func (ts *Tasks) Supported() bool {
	return ts.host.Tool(hootv1.TaskRole_TASK_ROLE_GET) != nil && ts.host.Tool(hootv1.TaskRole_TASK_ROLE_CANCEL) != nil
}

// Extensions returns the extensions server/discover declares.
func (ts *Tasks) Extensions() map[string]struct{} {
	if !ts.Supported() {
		return nil
	}
	return map[string]struct{}{Extension: {}}
}

// A Task is a task as the tasks extension writes it: flat, as a CreateTaskResult
// (resultType "task") or as tasks/get's DetailedTask (resultType "complete").
type Task struct {
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
	Result        *Inlined                     `json:"result,omitempty"`
	Error         *jsonrpc.ErrorObject         `json:"error,omitempty"`
	InputRequests map[string]questions.Request `json:"inputRequests,omitempty"`
}

// Inlined is a completed task's tool result as tasks/get inlines it: a 2026-07-28
// result, so it says its resultType like every other.
type Inlined struct {
	ResultType string `json:"resultType"`
	toolresult.Result
}

// Time writes a time as the tasks extension's ISO 8601 strings.
func Time(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

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

// Created returns the CreateTaskResult of a job just started.
func (ts *Tasks) Created(js *hootv1.JobStarted) Task {
	created := Time(js.GetCreatedAt().AsTime())
	return Task{
		ResultType:     ResultTypeTask,
		TaskID:         ts.ids.TaskID(js.GetJobId()),
		Status:         Working,
		StatusMessage:  "the job " + js.GetJobId() + " of " + js.GetTool() + " is " + strings.ToLower(strings.TrimPrefix(js.GetStatus().String(), "JOB_STATUS_")),
		CreatedAt:      created,
		LastUpdatedAt:  created,
		TTLMillis:      ttlMillis(js.GetCreatedAt(), js.GetKeptUntil()),
		PollIntervalMs: PollIntervalMillis,
	}
}

// Params are the params of tasks/get, tasks/update and tasks/cancel.
type Params struct {
	TaskID         json.RawMessage `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses"`
}

// Serve answers the request id of method (tasks/get, tasks/update or tasks/cancel) with params,
// made by caller on a request that declares the extension.
func (ts *Tasks) Serve(ctx context.Context, caller *hootv1.Caller, id json.RawMessage, method string, params json.RawMessage) *jsonrpc.Response {
	var p Params
	var taskID string
	if params == nil || rawjson.Kind(params) != "object" || json.Unmarshal(params, &p) != nil ||
		rawjson.Kind(p.TaskID) != "string" || json.Unmarshal(p.TaskID, &taskID) != nil || taskID == "" {
		return ts.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: "+method+" needs params.taskId, the taskId of a CreateTaskResult", &guidance.Data{
			Hint:  "Pass the taskId that a tools/call answered with resultType \"task\", unchanged.",
			Field: "params.taskId",
		})
	}
	if method == MethodUpdate && rawjson.Kind(p.InputResponses) != "object" {
		return ts.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: tasks/update needs params.inputResponses, an object of answers by the keys of the task's inputRequests", &guidance.Data{
			Hint:  "Answer the inputRequests that tasks/get shows, each under its key, as in {\"key\":{\"action\":\"accept\",\"content\":{...}}}.",
			Field: "params.inputResponses",
		})
	}
	jobID, ok := ts.ids.JobOfTask(taskID)
	if !ok {
		return ts.Unknown(id, taskID, "it is not a task id this server made")
	}
	role := hootv1.TaskRole_TASK_ROLE_GET
	if method == MethodCancel {
		role = hootv1.TaskRole_TASK_ROLE_CANCEL
	}
	job, r := ts.Job(ctx, caller, id, role, jobID, taskID, nil)
	if r != nil {
		return r
	}
	switch method {
	case MethodCancel:
		ts.log.Info("mcp: task cancelled", "job", jobID, "status", job.GetStatus().String())
		return jsonrpc.NewResult(id, struct{}{})
	case MethodUpdate:
		return ts.update(ctx, caller, id, job, taskID, p.InputResponses)
	}
	return jsonrpc.NewResult(id, ts.Detailed(taskID, job))
}

// update gives the job the answers of inputResponses to the questions it waits on, through
// the tool of TASK_ROLE_UPDATE, and acks. Answers under keys the job does not wait on are
// ignored, as the extension asks: a task's keys are never reused, so they can only be stale.
func (ts *Tasks) update(ctx context.Context, caller *hootv1.Caller, id json.RawMessage, job *hootv1.Job, taskID string, raw json.RawMessage) *jsonrpc.Response {
	var given map[string]json.RawMessage
	if json.Unmarshal(raw, &given) != nil {
		return ts.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: params.inputResponses must be an object", &guidance.Data{Hint: "Answer each input request under its key.", Field: "params.inputResponses"})
	}
	answers := make(map[string]*hootv1.ClientResponse)
	for key, q := range job.GetQuestions() {
		a, ok := given[key]
		if !ok || rawjson.Kind(a) == "null" {
			continue
		}
		if rawjson.Kind(a) != "object" {
			return ts.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: params.inputResponses."+key+" must be the result of the input request "+key+", an object", &guidance.Data{
				Hint:  "Answer an elicitation/create with {\"action\":\"accept\",\"content\":{...}}, a sampling/createMessage with the sampled message.",
				Field: "params.inputResponses." + key,
			})
		}
		answers[key] = questions.Response(q, a, nil)
	}
	if len(answers) == 0 || ts.host.Tool(hootv1.TaskRole_TASK_ROLE_UPDATE) == nil {
		return jsonrpc.NewResult(id, struct{}{})
	}
	jobID := job.GetId()
	if _, r := ts.Job(ctx, caller, id, hootv1.TaskRole_TASK_ROLE_UPDATE, jobID, taskID, answers); r != nil {
		return r
	}
	ts.log.Info("mcp: task answered", "job", jobID, "answers", len(answers))
	return jsonrpc.NewResult(id, struct{}{})
}

// Job calls the tool of role for the job jobID on behalf of caller, and returns the
// job it answers with, or the response that ends the request. A job of another caller is
// answered by the worker as one that does not exist, so it is an unknown task here too.
func (ts *Tasks) Job(ctx context.Context, caller *hootv1.Caller, id json.RawMessage, role hootv1.TaskRole, jobID, taskID string, answers map[string]*hootv1.ClientResponse) (*hootv1.Job, *jsonrpc.Response) {
	t := ts.host.Tool(role)
	req := t.NewRequest()
	r := req.ProtoReflect()
	fields := r.Descriptor().Fields()
	if fields.Len() < 1 || fields.Get(0).Kind() != protoreflect.StringKind {
		// The generator refuses such a schema; this is a gateway built against another one.
		return nil, ts.internal(id, "the tool "+wording.Quote(t.Name)+" does not take a job id first")
	}
	r.Set(fields.Get(0), protoreflect.ValueOfString(jobID))
	if len(answers) > 0 {
		if fields.Len() < 2 || !fields.Get(1).IsMap() {
			return nil, ts.internal(id, "the tool "+wording.Quote(t.Name)+" does not take answers")
		}
		m := r.Mutable(fields.Get(1)).Map()
		for k, a := range answers {
			m.Set(protoreflect.ValueOfString(k).MapKey(), protoreflect.ValueOfMessage(a.ProtoReflect()))
		}
	}
	cctx, cancel := context.WithTimeout(ctx, ts.timeout)
	defer cancel()
	cctx = hooteproto.WithTraceparent(cctx, hooteproto.NextTraceparent(hooteproto.TraceparentFrom(ctx)))
	res, err := ts.host.Call(cctx, hooteproto.Call{Service: t.Service, Payload: t.Wrap(req), Caller: caller})
	if err == nil && res.GetError() != nil {
		err = hooteproto.ErrorFromTool(res.GetError())
	}
	if err != nil {
		e := hooteproto.AsError(err)
		if e.Code() == hooteproto.CodeNotFound {
			return nil, ts.Unknown(id, taskID, "its job is not kept any longer, never existed, or was started by another caller")
		}
		ts.log.Info("mcp: task tool failed", "tool", t.Name, "job", jobID, "code", e.Code(), "err", err)
		g := &guidance.Data{Hint: "Send the request again; the workers that keep tasks could not be reached or failed."}
		if e.Hint() != "" {
			g.Hint = e.Hint()
		}
		return nil, ts.host.Fail(id, jsonrpc.CodeInternalError, "internal error: the task could not be read: "+e.Message(), g)
	}
	m, ok := t.Unwrap(res)
	job := jobField(m)
	if !ok || job == nil {
		return nil, ts.internal(id, "the worker answered "+wording.Quote(t.Name)+" without the job")
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

// Unknown answers a task id that names no task this server can read.
func (ts *Tasks) Unknown(id json.RawMessage, taskID, why string) *jsonrpc.Response {
	return ts.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: unknown task "+wording.Quote(wording.Short(taskID))+": "+why, &guidance.Data{
		Hint:  "Pass the taskId of a CreateTaskResult unchanged; tasks are kept for the ttlMs they were created with, and a gateway reads only the task ids of gateways that share its --state-key.",
		Field: "params.taskId",
		Got:   wording.Short(taskID),
	})
}

// Detailed returns job as tasks/get shows it.
func (ts *Tasks) Detailed(taskID string, job *hootv1.Job) Task {
	last := job.GetCreatedAt().AsTime()
	for _, ts := range []interface {
		IsValid() bool
		AsTime() time.Time
	}{job.GetStartedAt(), job.GetFinishedAt()} {
		if ts.IsValid() && ts.AsTime().After(last) {
			last = ts.AsTime()
		}
	}
	out := Task{
		ResultType:     "complete",
		TaskID:         taskID,
		StatusMessage:  job.GetMessage(),
		CreatedAt:      Time(job.GetCreatedAt().AsTime()),
		LastUpdatedAt:  Time(last),
		TTLMillis:      ttlMillis(job.GetCreatedAt(), job.GetKeptUntil()),
		PollIntervalMs: PollIntervalMillis,
	}
	switch job.GetStatus() {
	case hootv1.JobStatus_JOB_STATUS_SUCCEEDED, hootv1.JobStatus_JOB_STATUS_FAILED:
		if job.GetStatus() == hootv1.JobStatus_JOB_STATUS_FAILED && !job.GetToolAnswered() {
			// The job ended without an answer of the tool's: a failure of the server, not a
			// result, which MCP reports as a failed task with a JSON-RPC error.
			out.Status = Failed
			msg := job.GetMessage()
			if msg == "" {
				msg = "the job failed inside the worker"
			}
			out.Error = &jsonrpc.ErrorObject{Code: jsonrpc.CodeInternalError, Message: msg}
			break
		}
		res, err := ts.host.JobResult(job)
		if err != nil {
			out.Status = Failed
			out.Error = &jsonrpc.ErrorObject{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			break
		}
		out.Status, out.Result = Completed, &Inlined{ResultType: "complete", Result: res}
	case hootv1.JobStatus_JOB_STATUS_CANCELLED:
		out.Status = Cancelled
	case hootv1.JobStatus_JOB_STATUS_INPUT_REQUIRED:
		out.Status = InputRequired
		out.InputRequests = make(map[string]questions.Request, len(job.GetQuestions()))
		for key, q := range job.GetQuestions() {
			// As a call's input_required result has them: 2026-07-28's shape, the form named.
			if r, ok := questions.Of(q); ok {
				out.InputRequests[key] = r
			}
		}
	default:
		out.Status = Working
	}
	return out
}

// internal answers a fault of the gateway or a worker.
func (ts *Tasks) internal(id json.RawMessage, msg string) *jsonrpc.Response {
	return ts.host.Fail(id, jsonrpc.CodeInternalError, "internal error: "+msg, &guidance.Data{
		Hint: "This is a fault of the server, not of the request; try again later, and report it if it persists.",
	})
}
