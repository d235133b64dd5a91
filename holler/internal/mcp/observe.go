package mcp

import (
	"time"

	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
)

// An Observer is told of tool calls, for an operator's metrics. Its methods run on the
// request's goroutine, so they must be quick and safe for concurrent use.
type Observer interface {
	// CallStarted is called when a tools/call starts.
	CallStarted()
	// CallEnded is called when it has its answer.
	CallEnded(CallRecord)
}

// A CallRecord describes one tools/call that ended.
type CallRecord struct {
	// Tool is the tool called, or "" when the call named no tool of the table.
	Tool string
	// Era is the protocol the call came in: "2026-07-28" or "2025" (every older version).
	Era string
	// Outcome is "ok", "tool_error" (a result with isError: the tool failed, or the gateway
	// refused it before any worker), "input_required" (the client must answer a question
	// first) or "rejected" (a JSON-RPC error: unknown tool, malformed params).
	Outcome  string
	Duration time.Duration
	// Code names the failure when Outcome is "tool_error" (a hooteproto code, such as
	// "invalid_argument") or "rejected" (the JSON-RPC error's code, such as "-32602"). It is
	// set only for a Tracer.
	Code string
}

// eraName names the era of a session for metrics.
func eraName(sess *session) string {
	if sess.modern {
		return protocolVersion20260728
	}
	return "2025"
}

// outcomeOf classifies a tools/call's response.
func outcomeOf(resp *jsonrpc.Response) string {
	switch {
	case resp == nil || resp.Error != nil:
		return "rejected"
	}
	switch r := resp.Result.(type) {
	case toolresult.Result:
		if r.IsError {
			return "tool_error"
		}
	case *questions.InputRequired, questions.InputRequired:
		return "input_required"
	}
	return "ok"
}
