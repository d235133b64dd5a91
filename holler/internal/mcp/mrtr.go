package mcp

import (
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
	"github.com/hootenanny/hoot/holler/internal/mcp/round"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
)

// A worker's questions to the client in the 2026-07-28 era are asked in rounds (package
// round); this file opens a request's round and turns how it ends into the request's answer.

// codeMissingCapability is MCP 2026-07-28's MissingRequiredClientCapability: the request needs a
// capability the client did not declare in it.
const codeMissingCapability = -32021

// endRound closes the round once the call has ended, failed or not, and returns what the request
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
		return jsonrpc.NewError(id, codeMissingCapability, text, &guidance.Data{RequiredCapabilities: missing})
	}
	return jsonrpc.NewError(id, codeMissingCapability, text, g)
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
