package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolcall"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
)

// MCP tasks are the workers' jobs; package tasks serves those of the 2026-07-28 era. What stays
// here is the call's side of them (whether a tools/call runs as a task, and the task it answers
// with), the envelope check that a request declares the extension, and taskHost, through which
// package tasks reaches the tools, the workers and the server's errors.

// The methods of the tasks extension, as the method table names them.
const (
	methodTasksGet    = tasks.MethodGet
	methodTasksUpdate = tasks.MethodUpdate
	methodTasksCancel = tasks.MethodCancel
)

// taskHost is the server as package tasks sees it.
type taskHost struct{ s *Server }

func (h taskHost) Tool(role hootv1.TaskRole) *hootv1hoot.Tool { return h.s.taskTool(role) }

func (h taskHost) Call(ctx context.Context, c hooteproto.Call) (*hootv1.Result, error) {
	return h.s.cfg.Backend.Call(ctx, c)
}

func (h taskHost) JobResult(job *hootv1.Job) (toolresult.Result, error) {
	return h.s.jobToolResult(job)
}

func (h taskHost) Fail(id json.RawMessage, code int64, msg string, g *guidance.Data) *jsonrpc.Response {
	return h.s.fail(id, code, msg, g)
}

// tasksSupported reports whether this server serves tasks: the tools that read and cancel jobs
// are in its table and within its tier.
func (s *Server) tasksSupported() bool { return s.tasksOn }

// serveTask answers tasks/get, tasks/update and tasks/cancel of a request that declares the
// extension.
func (s *Server) serveTask(ctx context.Context, msg *message) *jsonrpc.Response {
	return s.tasks.Serve(ctx, callerOf(ctx), msg.ID, msg.Method, msg.Params)
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

// missingCapabilityData is the data of a -32021 error: the capabilities the request needs.
type missingCapabilityData struct {
	Hint                 string         `json:"hint,omitempty"`
	RequiredCapabilities map[string]any `json:"requiredCapabilities"`
}

// checkTaskCapability refuses, before anything is called, a modern request that needs the
// tasks extension on a request that does not declare it: a tasks/* method, or a call of a tool
// that runs only as a task. It returns nil for every other request.
func (s *Server) checkTaskCapability(msg *message, caps json.RawMessage) *modernFailure {
	if !s.tasksSupported() || tasks.Declares(caps) {
		return nil
	}
	what := ""
	switch {
	case tasks.IsMethod(msg.Method):
		what = msg.Method + " is a method of the tasks extension"
	case msg.Method == methodSubscriptionsListen && asksForTasks(msg.Params):
		what = "notifications of tasks (taskIds) belong to the tasks extension"
	case msg.Method == methodToolsCall && s.taskRequired:
		name, ok := toolcall.Name(msg.Params)
		if t, known := s.allowedTool(name); ok && known && t.TaskRequired {
			what = "the tool " + wording.Quote(name) + " runs only as a task"
		}
	}
	if what == "" {
		return nil
	}
	data := missingCapabilityData{
		Hint:                 "Declare the extension in params._meta." + era.MetaClientCapabilities + ".extensions[\"" + tasks.Extension + "\"] = {} on this request, and follow the task with tasks/get.",
		RequiredCapabilities: map[string]any{"extensions": map[string]any{tasks.Extension: struct{}{}}},
	}
	if s.cfg.MinimalErrors {
		data.Hint = ""
	}
	return &modernFailure{status: http.StatusBadRequest, resp: jsonrpc.NewError(msg.ID, era.CodeMissingCapability,
		"missing required client capability: "+what+", which this request does not declare ("+tasks.Extension+")", data)}
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
	out, err := toolresult.Typed(m, s.calls.ContentBase(), false)
	if err != nil {
		return toolresult.Result{}, errors.New("the job's result could not be encoded")
	}
	return out, nil
}
