// Package toolcall answers tools/call for the MCP server (package mcp): it finds the tool,
// applies the policy (package consent), decodes and validates the arguments, puts the call to a
// person when the policy or the tool's elicited fields say so, calls the backend with the call's
// progress, log and question relays, and renders the typed answer. The worker calls of prompts
// and resources (CallEntry) share its backend call and its rounds.
//
// The server reaches it through a [Server] made once with what does not change after the
// server's start (the tool table, the policy, the request-state signer, the tasks), and lends
// it what belongs to the server's lifetime through a [Host]: the watch of a 2025-11-25 task
// that a call started.
package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/mcp/arguments"
	"github.com/hootenanny/hoot/holler/internal/mcp/config"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/loglevel"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
	"github.com/hootenanny/hoot/holler/internal/mcp/round"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
)

const (
	methodToolsCall = "tools/call"
	// NotifyProgress is the notification that relays a worker's progress.
	NotifyProgress = "notifications/progress"
)

// A Host is what a Server needs of the MCP server it is part of.
type Host interface {
	// LegacyTaskCreated answers a call in a session with 2025-11-25 tasks that asked for a task
	// and started the job js: the nested CreateTaskResult, the task added to the session's list
	// and its status changes reported for as long as the server runs.
	LegacyTaskCreated(id json.RawMessage, sess *sessions.Session, t *hootv1hoot.Tool, js *hootv1.JobStarted) *jsonrpc.Response
}

// Options are what a Server is made of; none of it changes after the server's start.
type Options struct {
	// Config is the MCP server's configuration, its defaults filled in: the Backend, the
	// Tracer, the call timeout, MinimalErrors, the content route's base and the logger.
	Config *config.Config
	// Tools holds every tool of the table by name, allowed or not, so that a tool above the
	// tier limit is refused by name rather than reported unknown; Allowed are the tools within
	// MaxTier, in table order.
	Tools   map[string]*hootv1hoot.Tool
	Allowed []*hootv1hoot.Tool
	// Policy decides which calls may go to a worker.
	Policy consent.Policy
	// States signs and checks the requestState of the 2026-07-28 era's rounds.
	States *reqstate.Signer
	// Tasks serves the tasks of both eras; nil or unsupported when the table has no jobs.
	Tasks *tasks.Tasks
	// ClientCalls are the requests to clients that wait for a response, which the MCP server
	// delivers the responses of.
	ClientCalls *sessions.Calls
}

// A Server answers tools/call, and calls a worker for prompts and resources.
type Server struct {
	host         Host
	cfg          *config.Config
	log          *slog.Logger
	policy       consent.Policy
	tools        map[string]*hootv1hoot.Tool
	allowed      []*hootv1hoot.Tool
	allowedNames []string
	states       *reqstate.Signer
	tasks        *tasks.Tasks
	tasksOn      bool
	clientCalls  *sessions.Calls
}

// New returns the Server of o for host.
func New(host Host, o Options) *Server {
	s := &Server{host: host, cfg: o.Config, log: o.Config.Logger, policy: o.Policy, tools: o.Tools, allowed: o.Allowed,
		states: o.States, tasks: o.Tasks, tasksOn: o.Tasks != nil && o.Tasks.Supported(), clientCalls: o.ClientCalls}
	for _, t := range o.Allowed {
		s.allowedNames = append(s.allowedNames, t.Name)
	}
	return s
}

// Name returns the name of the tool that tools/call's params name; ok is false unless the
// params are an object with a name that is a non-empty string.
func Name(params json.RawMessage) (name string, ok bool) {
	_, name, ok = readCallToolParams(params)
	return name, ok
}

// Known returns the name of the tool of the table that tools/call's params name, allowed or
// not, or "" when they name none.
func (s *Server) Known(params json.RawMessage) string {
	if name, ok := Name(params); ok && s.tools[name] != nil {
		return name
	}
	return ""
}

// callToolParams are tools/call's params.
type callToolParams struct {
	Name      json.RawMessage `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

// ProgressParams are notifications/progress's params.
type ProgressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// readCallToolParams reads tools/call's params and the tool's name from them; ok is false
// unless they are an object with a name that is a non-empty string.
func readCallToolParams(params json.RawMessage) (p callToolParams, name string, ok bool) {
	if params == nil || rawjson.Kind(params) != "object" {
		return p, "", false
	}
	if !scanCallToolParams(params, &p) {
		var err error
		if p, err = unmarshalCallToolParams(params); err != nil {
			return p, "", false
		}
	}
	if rawjson.Kind(p.Name) != "string" {
		return p, "", false
	}
	name, err := rawjson.Unquote(p.Name)
	return p, name, err == nil && name != ""
}

// tools/call's params are read with rawjson's member scanner, which falls back to
// json.Unmarshal whenever it gives up (scan_test.go compares the two). The JSON-RPC
// envelope around them is read the same way in package jsonrpc.

// unmarshalCallToolParams is json.Unmarshal into callToolParams: what the scanner is held to.
func unmarshalCallToolParams(data []byte) (callToolParams, error) {
	var p callToolParams
	err := json.Unmarshal(data, &p)
	return p, err
}

var (
	callToolNames = []string{"name", "arguments", "_meta"}
	metaNames     = []string{"progressToken"}
)

// scanCallToolParams decodes tools/call's params into p as json.Unmarshal does, and returns
// false when it cannot tell that the two agree.
func scanCallToolParams(data []byte, p *callToolParams) bool {
	var q callToolParams
	var meta []byte
	metas := 0
	if !rawjson.ScanMembers(data, callToolNames, func(i int, v []byte) {
		switch i {
		case 0:
			q.Name = v
		case 1:
			q.Arguments = v
		case 2:
			meta = v
			metas++
		}
	}) {
		return false
	}
	if metas > 1 {
		// json.Unmarshal merges a repeated _meta into one struct (a later {} keeps an earlier
		// progressToken); leave that to it rather than copy the rule.
		return false
	}
	if meta != nil && rawjson.Kind(meta) != "null" {
		// An _meta that is not an object is an error of json.Unmarshal; leave it to that.
		if rawjson.Kind(meta) != "object" || !rawjson.ScanMembers(meta, metaNames, func(_ int, v []byte) { q.Meta.ProgressToken = v }) {
			return false
		}
	}
	*p = q
	return true
}

// CallTool answers tools/call: find the tool, apply the policy (package consent), decode and
// validate the arguments, have a person confirm the call if the policy says so, call the
// backend, and render its typed answer.
func (s *Server) CallTool(ctx context.Context, sess *sessions.Session, msg *jsonrpc.Message, out sessions.Notifier) *jsonrpc.Response {
	p, name, ok := readCallToolParams(msg.Params)
	if !ok {
		g := &guidance.Data{
			Hint:  "Name the tool in params.name and put its arguments in params.arguments.",
			Tools: s.allowedNames,
			Try:   guidance.TryToolsList(),
		}
		if len(s.allowed) > 0 {
			g.Try = guidance.TryToolsCall(s.allowed[0])
		}
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: tools/call needs params.name, the name of a tool, and params.arguments, an object", g)
	}
	t, known := s.tools[name]
	if !known {
		near := wording.Close(name, s.allowedNames)
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "unknown tool "+wording.Quote(name)+wording.DidYouMean(near), &guidance.Data{
			Hint:       "Call one of the tools in tools; tools/list describes each with its arguments.",
			Tool:       name,
			DidYouMean: near,
			Tools:      s.allowedNames,
			Try:        guidance.TryToolsList(),
		})
	}
	// The policy decides before the arguments are read what it can decide without them: a
	// call that would be refused anyway is not sent back to have its arguments fixed first.
	// The caller's grant (package access), read once: it caps the policy, owns a round's signed
	// state and names the caller to the worker.
	grant, _ := access.GrantOf(ctx)
	policy := s.policy
	if grant != nil {
		policy = policy.ForGrant(grant)
	}
	var ask consent.Confirmer
	d, cannot := policy.Decide(t, func() (bool, string) {
		var why string
		ask, why = s.confirmerFor(sess, out)
		return ask != nil, why
	})
	if d.Refused() {
		return s.refuse(msg.ID, sess, t, d, cannot, nil)
	}

	req, bad := arguments.Decode(t, p.Arguments)
	if bad != nil {
		return s.badArguments(msg.ID, sess, t, bad)
	}
	// In the 2026-07-28 era the call may be a retry that carries answers (package round); bad
	// retry members are a *questions.Malformed or a *reqstate.Error.
	var rd *round.Round
	if sess.Modern {
		var err error
		if rd, err = round.Open(s.states, methodToolsCall, name, grant.Principal(), req, sess.Caps().CanAnswer, msg.Params); err != nil {
			return s.roundFailure(msg.ID, methodToolsCall, name, err)
		}
	}
	// Only a call that decoded is put to a person: whether it may run, and the arguments it
	// left out that a person supplies (person.go). A call that needs neither, and carries no
	// answers of an earlier round, goes straight on.
	if d.Confirmation == consent.ConfirmationRequired || len(t.Elicit) > 0 || (rd != nil && len(rd.Filled()) > 0) {
		var r *jsonrpc.Response
		if req, d, r = s.askPerson(ctx, personCall{msg: msg, sess: sess, out: out, tool: t, args: p.Arguments, round: rd}, d, ask, req); r != nil {
			return r
		}
	}
	if d.Confirmation != consent.ConfirmationNotRequired {
		s.log.Info("mcp: tool call allowed", "tool", name, "session", sess.ID(), "confirmation", d.Confirmation, "outcome", d.Outcome)
	}

	var onProgress func(*hootv1.Progress)
	if out != nil && (rawjson.Kind(p.Meta.ProgressToken) == "string" || rawjson.Kind(p.Meta.ProgressToken) == "number") {
		onProgress = progressRelay(rawjson.Compact(p.Meta.ProgressToken), out)
	}
	var asker hooteproto.ClientAsker
	if out != nil {
		onProgress = s.logRelay(sess, out, onProgress)
		if !sess.Modern {
			asker = s.ClientAsker(sess, out)
		}
	}
	if rd != nil {
		// The 2026-07-28 era forbids requests of the server to the client: questions become
		// an input_required result.
		asker = rd.Ask
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.CallTimeout)
	defer cancel()
	payload := t.Wrap(req)
	cctx, endBackend := s.startBackendCall(cctx, t.Service, payload)
	traceparent := hooteproto.TraceparentFrom(cctx)
	// What the tasks of either era make of the call is decided here, once.
	plan := s.planTask(sess, msg, t)
	start := time.Now()
	res, err := s.cfg.Backend.Call(cctx, hooteproto.Call{
		Service:  t.Service,
		Payload:  payload,
		Caller:   grant.Caller(),
		Progress: onProgress,
		Ask:      asker,
		AsJob:    plan.asJob,
	})
	elapsed := time.Since(start)
	if endBackend != nil {
		endBackend(res, err)
	}
	if rd != nil {
		if r := s.endRound(msg.ID, rd, err != nil || res.GetError() != nil); r != nil {
			return r
		}
	}
	// The call's logger is made only when something is logged: making it allocates.
	log := func() *slog.Logger {
		return s.log.With("tool", name, "service", t.Service, "session", sess.ID(), "elapsed", elapsed, "traceparent", traceparent)
	}
	if err != nil {
		e := hooteproto.AsError(err)
		if errors.Is(context.Cause(ctx), sessions.ErrCancelledByClient) {
			e = hooteproto.WrapError(hooteproto.CodeCanceled, err).WithHint("The call was cancelled at the client's request.")
		}
		log().Info("mcp: tool call failed", "code", e.Code(), "err", err)
		s.logCallFailure(sess, out, name, t.Service, e)
		return jsonrpc.NewResult(msg.ID, toolresult.Failure(name, e))
	}
	if res == nil {
		log().Error("mcp: backend returned neither a result nor an error")
		return s.internalError(msg.ID, "the worker gave no result for tool "+wording.Quote(name))
	}
	if te := res.GetError(); te != nil {
		e := hooteproto.ErrorFromTool(te)
		log().Info("mcp: tool answered with an error", "code", e.Code(), "message", e.Message())
		return jsonrpc.NewResult(msg.ID, toolresult.Failure(name, e))
	}
	if r := s.taskAnswer(plan, msg, sess, t, res); r != nil {
		return r
	}
	m, ok := t.Unwrap(res)
	if !ok || m == nil {
		log().Error("mcp: backend returned the result of another tool", "result", fmt.Sprintf("%T", res.GetResult()))
		return s.internalError(msg.ID, "the worker answered tool "+wording.Quote(name)+" with a result of another kind")
	}
	// The content of results embedded in m (a finished job's, in job_await's answer) follows
	// its own.
	result, err := toolresult.Typed(m, s.ContentBase(), true)
	if err != nil {
		log().Error("mcp: result does not encode as JSON", "err", err)
		return s.internalError(msg.ID, "the result of tool "+wording.Quote(name)+" could not be encoded")
	}
	if s.log.Enabled(ctx, slog.LevelDebug) {
		log().Debug("mcp: tool call done")
	}
	return jsonrpc.NewResult(msg.ID, result)
}

// startBackendCall returns the context for a call of p to a worker of service: one whose
// traceparent is the call's own, in the trace of ctx's (or a new trace). With a Tracer it is
// the span of the call, which end ends; without one, a span id made up for the call, and end
// is nil.
func (s *Server) startBackendCall(ctx context.Context, service string, p *hootv1.Payload) (_ context.Context, end func(*hootv1.Result, error)) {
	if s.cfg.Tracer == nil {
		return hooteproto.WithTraceparent(ctx, hooteproto.NextTraceparent(hooteproto.TraceparentFrom(ctx))), nil
	}
	return s.cfg.Tracer.StartBackendCall(ctx, service, p)
}

// The tasks of both eras (package tasks, and the Host for a 2025-11-25 task) cut into a call at two
// points only: the plan before it goes out and the answer when it started a job.

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
func (s *Server) planTask(sess *sessions.Session, msg *jsonrpc.Message, t *hootv1hoot.Tool) taskPlan {
	var p taskPlan
	p.legacy = sess.TaskList() != nil && tasks.AsksForTask(msg.Params)
	p.modern = sess.Modern && sess.Tasks && s.tasksOn
	p.asJob = p.legacy && t.Kind != hootv1.Kind_KIND_JOB
	return p
}

// taskAnswer returns the CreateTaskResult of a call of t whose worker answered res, as the plan
// p says; nil when the answer is not a task, and the call answers as it always did.
func (s *Server) taskAnswer(p taskPlan, msg *jsonrpc.Message, sess *sessions.Session, t *hootv1hoot.Tool, res *hootv1.Result) *jsonrpc.Response {
	js := res.GetJobStarted()
	switch {
	case js == nil:
		return nil
	case p.legacy:
		return s.host.LegacyTaskCreated(msg.ID, sess, t, js)
	case p.modern && t.Kind == hootv1.Kind_KIND_JOB:
		s.log.Info("mcp: tool call runs as a task", "tool", t.Name, "job", js.GetJobId())
		return jsonrpc.NewResult(msg.ID, s.tasks.Created(js))
	}
	return nil
}

// progressRelay returns the function that turns a worker's progress reports into
// notifications/progress for token. MCP requires progress to grow with every notification, so
// reports that do not are dropped.
func progressRelay(token json.RawMessage, out sessions.Notifier) func(*hootv1.Progress) {
	var mu sync.Mutex
	var last float64
	sent := false
	return func(p *hootv1.Progress) {
		if p == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if sent && p.GetProgress() <= last {
			return
		}
		sent, last = true, p.GetProgress()
		out.Notify(&jsonrpc.Notification{
			JSONRPC: jsonrpc.Version,
			Method:  NotifyProgress,
			Params: ProgressParams{
				ProgressToken: token,
				Progress:      p.GetProgress(),
				Total:         p.GetTotal(),
				Message:       p.GetMessage(),
			},
		})
	}
}

// ContentBase is the base URL of the gateway's content route that a result's links point
// under, or "" when the gateway serves none.
func (s *Server) ContentBase() string {
	if s.cfg.ContentBaseURL == nil {
		return ""
	}
	return s.cfg.ContentBaseURL()
}

// endRound closes the round of a call once the call has ended, failed or not, and returns what the request
// answers instead of the call's own result: -32602 for a malformed answer, the input_required
// result when questions are pending, -32021 when the call failed after asking what the client
// cannot answer; nil to answer with the call's result.
func (s *Server) endRound(id json.RawMessage, r *round.Round, failed bool) *jsonrpc.Response {
	e := r.End(failed)
	switch {
	case e.Malformed != nil:
		return s.roundFailure(id, r.Method(), r.Name(), e.Malformed)
	case e.Pending:
		res, err := e.Asks, e.Err
		if err != nil {
			return s.fail(id, jsonrpc.CodeInvalidParams, "invalid params: "+err.Error(), &guidance.Data{
				Hint:  "Answer with less: the answers are carried back to the client in requestState, which is bounded to " + strconv.Itoa(reqstate.MaxBytes) + " bytes.",
				Field: "params." + questions.ParamInputResponses,
			})
		}
		keys := make([]string, 0, len(res.InputRequests))
		for k := range res.InputRequests {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		s.log.Info("mcp: request waits for the client's answers", "method", r.Method(), "name", r.Name(), "questions", strings.Join(keys, ","))
		return jsonrpc.NewResult(id, res)
	case e.Missing != nil:
		return s.missingCapability(id, r.Method(), r.Name(), e.Missing)
	}
	return nil
}

// ClientAsker returns the ClientAsker of one tools/call: it sends a tool's request to the
// client on out and waits for the response.
func (s *Server) ClientAsker(sess *sessions.Session, out sessions.Notifier) hooteproto.ClientAsker {
	return func(ctx context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
		method, params := questions.Params(req)
		if method == "" {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "the request for the client is empty")
		}
		if method == questions.MethodRootsList && !sess.Caps().Roots {
			// Sampling and elicitation are left to the client to refuse, as they always were.
			return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "this client did not declare the roots capability in initialize, so it cannot be asked for its roots")
		}
		msg, err := s.clientCalls.Ask(ctx, sess, out, method, params)
		if err != nil {
			return nil, hooteproto.AsError(err)
		}
		return questions.Response(req, msg.Result, msg.Error), nil
	}
}

// logCallFailure tells the session, on the call's stream, when a call failed because its
// service has no live worker or its worker went away: an event of the gateway, not of the
// tool, which the client may want to see besides the tool's error result.
func (s *Server) logCallFailure(sess *sessions.Session, out sessions.Notifier, tool, service string, e *hooteproto.Error) {
	if e.Code() != hooteproto.CodeUnavailable {
		return
	}
	sess.Log(out, loglevel.Warning, "holler", map[string]any{
		"event":   "unavailable",
		"tool":    tool,
		"service": service,
		"message": e.Message(),
	})
}

// logRelay returns the function that relays a worker's reports for one call: log entries
// become notifications/message for sess, on out; progress goes to progress, if not nil.
func (s *Server) logRelay(sess *sessions.Session, out sessions.Notifier, progress func(*hootv1.Progress)) func(*hootv1.Progress) {
	return func(p *hootv1.Progress) {
		if e := p.GetLog(); e != nil {
			level := loglevel.Info
			if e.GetLevel() != hootv1.LogLevel_LOG_LEVEL_UNSPECIFIED {
				level = loglevel.Level(e.GetLevel() - hootv1.LogLevel_LOG_LEVEL_DEBUG)
			}
			sess.Log(out, level, e.GetLogger(), e.GetMessage())
			return
		}
		if progress != nil {
			progress(p)
		}
	}
}
