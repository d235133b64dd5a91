package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/mcp/arguments"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/round"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
)

// callToolParams are tools/call's params.
type callToolParams struct {
	Name      json.RawMessage `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

// progressParams are notifications/progress's params.
type progressParams struct {
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
// json.Unmarshal whenever it gives up (fastscan_test.go compares the two). The JSON-RPC
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

// callTool answers tools/call: find the tool, apply the policy (package consent), decode and
// validate the arguments, have a person confirm the call if the policy says so, call the
// backend, and render its typed answer.
func (s *Server) callTool(ctx context.Context, sess *sessions.Session, msg *message, out sessions.Notifier) *jsonrpc.Response {
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
	msg.tool = name
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
	// In the 2026-07-28 era the call may be a retry that carries answers (mrtr.go); bad retry
	// members are a *questions.Malformed or a *reqstate.Error.
	var rd *round.Round
	if sess.Modern {
		var err error
		if rd, err = round.Open(s.states, methodToolsCall, name, grant.Principal(), req, sess.Caps().CanAnswer, msg.Params); err != nil {
			return s.roundFailure(msg.ID, methodToolsCall, name, err)
		}
	}
	// Only a call that decoded is put to a person: whether it may run, and the arguments it
	// left out that a person supplies (askargs.go). A call that needs neither, and carries no
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
			asker = s.clientAsker(sess, out)
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
	result, err := toolresult.Typed(m, s.contentBase(), true)
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

// The tasks of both eras (package tasks, tasks.go, tasks_legacy.go) cut into a call at two
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
func (s *Server) planTask(sess *sessions.Session, msg *message, t *hootv1hoot.Tool) taskPlan {
	var p taskPlan
	p.legacy = sess.TaskList() != nil && tasks.AsksForTask(msg.Params)
	p.modern = sess.Modern && sess.Tasks && s.tasksOn
	p.asJob = p.legacy && t.Kind != hootv1.Kind_KIND_JOB
	return p
}

// taskAnswer returns the CreateTaskResult of a call of t whose worker answered res, as the plan
// p says; nil when the answer is not a task, and the call answers as it always did.
func (s *Server) taskAnswer(p taskPlan, msg *message, sess *sessions.Session, t *hootv1hoot.Tool, res *hootv1.Result) *jsonrpc.Response {
	js := res.GetJobStarted()
	switch {
	case js == nil:
		return nil
	case p.legacy:
		return s.legacyTaskCreated(msg, sess, t, js)
	case p.modern && t.Kind == hootv1.Kind_KIND_JOB:
		s.log.Info("mcp: tool call runs as a task", "tool", t.Name, "job", js.GetJobId())
		return jsonrpc.NewResult(msg.ID, s.tasks.Created(js))
	}
	return nil
}

// refuse answers a call that the policy refused with decision d, before anything reached a
// worker.
func (s *Server) refuse(id json.RawMessage, sess *sessions.Session, t *hootv1hoot.Tool, d consent.Decision, cannot string, unanswered error) *jsonrpc.Response {
	e := s.policy.Refusal(t, d, cannot, unanswered)
	s.log.Info("mcp: tool call refused by policy", "tool", t.Name, "session", sess.ID(), "tier", d.Tier, "maxTier", d.MaxTier,
		"confirmation", d.Confirmation, "outcome", d.Outcome)
	return jsonrpc.NewResult(id, toolresult.Guided(t.Name, e, &guidance.Data{Hint: e.Hint(), Tool: t.Name, Policy: &d}))
}

// badArguments answers arguments that do not decode or validate: as a tool result with
// isError for protocol versions from 2025-11-25 (so that the model sees it), and as -32602
// with the same guidance before.
func (s *Server) badArguments(id json.RawMessage, sess *sessions.Session, t *hootv1hoot.Tool, bad *arguments.Error) *jsonrpc.Response {
	msg := "invalid arguments for " + t.Name + ": " + bad.Message
	hint := bad.Hint
	switch {
	case hint != "":
	case bad.Field != "":
		hint = "Fix " + bad.Field + " and call " + t.Name + " again; example shows a valid call."
	default:
		hint = "Fix the arguments and call " + t.Name + " again; example shows a valid call."
	}
	g := &guidance.Data{
		Hint:       hint,
		Tool:       t.Name,
		Field:      bad.Field,
		Expected:   bad.Expected,
		Got:        bad.Got,
		DidYouMean: bad.DidYouMean,
		Usage:      t.Usage,
		Example:    guidance.ExampleCall(t),
	}
	if s.cfg.MinimalErrors {
		g = nil
	}
	if argumentErrorsAsResults(sess.ProtocolVersion()) {
		return jsonrpc.NewResult(id, toolresult.BadArguments(msg, g))
	}
	return s.fail(id, jsonrpc.CodeInvalidParams, msg, g)
}

// argumentErrorsAsResults reports whether a session of protocol version v gets bad tool
// arguments as a tool result with isError (so the model sees them) rather than as -32602.
// Protocol versions are dates, so they compare as strings.
func argumentErrorsAsResults(v string) bool { return v >= era.V20251125 }

// internalError answers a fault of the server or a worker.
func (s *Server) internalError(id json.RawMessage, msg string) *jsonrpc.Response {
	return s.fail(id, jsonrpc.CodeInternalError, "internal error: "+msg, &guidance.Data{
		Hint: "This is a fault of the server, not of the request; try again later, and report it if it persists.",
	})
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
			Method:  notifyProgress,
			Params: progressParams{
				ProgressToken: token,
				Progress:      p.GetProgress(),
				Total:         p.GetTotal(),
				Message:       p.GetMessage(),
			},
		})
	}
}

// inputAnswer returns the answer of a call whose confirmer ended with err when that error is an
// answer of its own: the input_required result that asks the question, or the refusal of the
// retry's requestState or inputResponses. It returns nil for any other error.
func (s *Server) inputAnswer(id json.RawMessage, sess *sessions.Session, t *hootv1hoot.Tool, err error) *jsonrpc.Response {
	var ir *round.InputRequired
	if errors.As(err, &ir) {
		s.log.Info("mcp: tool call waits for a person", "tool", t.Name, "session", sess.ID())
		return jsonrpc.NewResult(id, ir.Result)
	}
	if err != nil {
		return s.roundFailure(id, methodToolsCall, t.Name, err)
	}
	return nil
}

// contentBase is the base URL of the gateway's content route that a result's links point
// under, or "" when the gateway serves none.
func (s *Server) contentBase() string {
	if s.cfg.ContentBaseURL == nil {
		return ""
	}
	return s.cfg.ContentBaseURL()
}
