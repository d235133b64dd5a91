package mcp

import (
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
)

// eraName names the era of a session for metrics.
func eraName(sess *sessions.Session) string {
	if sess.Modern {
		return era.V20260728
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
