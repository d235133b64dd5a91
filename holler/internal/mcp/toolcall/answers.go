package toolcall

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/arguments"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
)

// The answers of a call that ends before its result: refused by the policy, arguments or a
// round's members that will not do, a capability the client did not declare, a fault.

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

// missingCapability answers -32021: the request needed capabilities the client did not declare.
// error.data carries requiredCapabilities even when guidance is off, as the protocol asks.
func (s *Server) missingCapability(id json.RawMessage, method, name string, missing map[string]any) *jsonrpc.Response {
	names := make([]string, 0, len(missing))
	for k := range missing {
		names = append(names, k)
	}
	sort.Strings(names)
	text := "missing required client capability: " + wording.Quote(name) + " needs the client to declare " + strings.Join(names, ", ") +
		" in params._meta." + era.MetaClientCapabilities
	g := &guidance.Data{
		Hint: "Declare " + strings.Join(names, " and ") + " in params._meta." + era.MetaClientCapabilities + " of the " + method +
			" (only if the client can answer such questions), and call again; requiredCapabilities shows what to add.",
		Field:                "params._meta." + era.MetaClientCapabilities,
		RequiredCapabilities: missing,
	}
	if method == methodToolsCall {
		g.Tool = name
	}
	if s.cfg.MinimalErrors {
		return jsonrpc.NewError(id, era.CodeMissingCapability, text, &guidance.Data{RequiredCapabilities: missing})
	}
	return jsonrpc.NewError(id, era.CodeMissingCapability, text, g)
}

// roundFailure answers a retry whose requestState or inputResponses this server will not take
// (a *reqstate.Error or a *questions.Malformed); it returns nil for any other error.
func (s *Server) roundFailure(id json.RawMessage, method, name string, err error) *jsonrpc.Response {
	what := wording.Quote(name)
	again := "Call " + name + " again"
	if method != methodToolsCall {
		what = method + " of " + wording.Quote(name)
		again = "Send the " + method + " of " + wording.Quote(name) + " again"
	}
	var se *reqstate.Error
	var ma *questions.Malformed
	switch {
	case errors.As(err, &se):
		s.log.Info("mcp: requestState refused", "method", method, "name", name, "why", se.Why)
		hint := se.Hint
		if hint == "" {
			hint = again + " without requestState and inputResponses: the questions are asked again, " +
				"and the retry carries the new requestState unchanged, to this server or to one that shares its --state-key."
		}
		g := &guidance.Data{Hint: hint, Field: "params." + questions.ParamRequestState}
		if method == methodToolsCall {
			g.Tool = name
		}
		return s.fail(id, jsonrpc.CodeInvalidParams, "invalid params: "+se.Why+"; "+what+" did not run", g)
	case errors.As(err, &ma):
		g := &guidance.Data{
			Hint: "Answer each question of inputRequests under its key with the result of its method: elicitation/create " +
				`{"action":"accept","content":{...}}, sampling/createMessage {"role":"assistant","content":{"type":"text","text":"..."},"model":"..."}, ` +
				`roots/list {"roots":[{"uri":"file:///..."}]}; or ` + strings.ToLower(again[:1]) + again[1:] + " without requestState and inputResponses to be asked afresh.",
			Field: ma.Field,
		}
		if method == methodToolsCall {
			g.Tool = name
		}
		return s.fail(id, jsonrpc.CodeInvalidParams, "invalid params: "+ma.Why, g)
	}
	return nil
}

// fail returns an error response with guidance g, or without data when guidance is off.
func (s *Server) fail(id json.RawMessage, code int64, msg string, g *guidance.Data) *jsonrpc.Response {
	if s.cfg.MinimalErrors || g == nil {
		return jsonrpc.NewError(id, code, msg, nil)
	}
	return jsonrpc.NewError(id, code, msg, g)
}
