package mcp

import (
	"context"
	"encoding/json"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolcall"
	"github.com/hootenanny/hoot/holler/internal/mcp/toollist"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
)

// The experimental tasks of protocol 2025-11-25 (package tasks serves their methods), for a
// session whose client declares the tasks capability at initialize. They are the same jobs as the 2026-07-28 extension's, with the same
// task ids; what differs is the wire: the client asks for a task with params.task, the answer
// nests the task ({"task": {...}}) with ttl and pollInterval, tasks/result blocks until the
// job ends and returns the tool's result, tasks/list lists this session's tasks, tasks/cancel
// returns the task, and notifications/tasks/status reports changes on the session's stream.

const (
	methodTasksResult = tasks.MethodResult
	methodTasksList   = tasks.MethodList
)

// legacyTasksFor returns the task list of a session of version v whose client declared caps
// at initialize, when it is to be served tasks: at 2025-11-25, with the tasks capability
// declared, by a server that serves tasks. Otherwise nil.
func (s *Server) legacyTasksFor(v string, caps json.RawMessage) *tasks.List {
	var c struct {
		Tasks json.RawMessage `json:"tasks"`
	}
	if v != era.V20251125 || json.Unmarshal(caps, &c) != nil || rawjson.Kind(c.Tasks) != "object" || !s.tasksSupported() {
		return nil
	}
	return &tasks.List{}
}

// withTaskSupport returns tools/list's answer resp with each job's execution.taskSupport, for
// a session with tasks.
func (s *Server) withTaskSupport(resp *jsonrpc.Response) *jsonrpc.Response {
	res, ok := resp.Result.(toollist.Result)
	if !ok {
		return resp
	}
	tools := make([]toollist.Description, len(res.Tools))
	copy(tools, res.Tools)
	for i := range tools {
		if t, ok := s.tools[tools[i].Name]; ok {
			tools[i].Execution = &toollist.Execution{TaskSupport: tasks.Support(t)}
		}
	}
	res.Tools = tools
	out := *resp
	out.Result = res
	return &out
}

// checkLegacyTaskCall refuses, in a session with tasks (which the caller checks), a task asked
// of a tool that cannot run as one, and a call of a tool that runs only as a task made without
// one (both -32601, as 2025-11-25 says). It returns nil for every other call.
func (s *Server) checkLegacyTaskCall(sess *sessions.Session, msg *message) *jsonrpc.Response {
	name, ok := toolcall.Name(msg.Params)
	t, known := s.allowedTool(name)
	if !ok || !known {
		return nil // tools/call answers these
	}
	if !tasks.AsksForTask(msg.Params) && tasks.Support(t) == "required" {
		return s.fail(msg.ID, jsonrpc.CodeMethodNotFound, "method not found: "+wording.Quote(name)+" runs only as a task (its execution.taskSupport is required)", &guidance.Data{
			Hint: "Call " + name + " with params.task, such as \"task\": {}, and follow the task with tasks/get and tasks/result.",
			Tool: name,
		})
	}
	return nil
}

// callHost is the server as package toolcall sees it.
type callHost struct{ s *Server }

// LegacyTaskCreated returns the nested CreateTaskResult of a job started by a call that asked
// for a task in a session with tasks, and starts reporting its status changes.
func (h callHost) LegacyTaskCreated(id json.RawMessage, sess *sessions.Session, t *hootv1hoot.Tool, js *hootv1.JobStarted) *jsonrpc.Response {
	s := h.s
	created := s.tasks.Created(js)
	sess.TaskList().Add(created.TaskID)
	s.wg.Go(func() {
		s.tasks.WatchLegacy(s.base, sess.Caller, created.TaskID, js.GetJobId(), created.Status, sess.HasEnded, sess.Push)
	})
	s.log.Info("mcp: tool call runs as a task", "tool", t.Name, "job", js.GetJobId(), "session", sess.ID())
	return jsonrpc.NewResult(id, struct {
		Task tasks.LegacyTask `json:"task"`
	}{tasks.LegacyOf(created)})
}

// serveLegacyTask answers the tasks methods of 2025-11-25 in a session with tasks; out, when
// the transport has one, carries a waiting task's questions to the client.
func (s *Server) serveLegacyTask(ctx context.Context, sess *sessions.Session, msg *message, out sessions.Notifier) *jsonrpc.Response {
	var ask hooteproto.ClientAsker
	if out != nil {
		ask = s.calls.ClientAsker(sess, out)
	}
	return s.tasks.ServeLegacy(ctx, callerOf(ctx), msg.ID, msg.Method, msg.Params, sess.TaskList(), ask)
}
