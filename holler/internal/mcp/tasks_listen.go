package mcp

import (
	"context"
	"encoding/json"

	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
)

// methodSubscriptionsListen is subscriptions/listen, whose filter may ask for task
// notifications (package tasks serves them).
const methodSubscriptionsListen = "subscriptions/listen"

// asksForTasks reports whether a subscriptions/listen request's params ask for taskIds.
func asksForTasks(params json.RawMessage) bool {
	var p struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	return json.Unmarshal(params, &p) == nil && p.Notifications[tasks.ListenMember] != nil
}

// openTaskListen serves the filter member taskIds of one subscriptions/listen stream as the
// caller of rctx, until the stream stops or the server closes.
func (s *Server) openTaskListen(rctx context.Context, value json.RawMessage, notify func(method string, params map[string]any)) (honoured any, stop func(), problem string) {
	return s.tasks.Listen(s.base, callerOf(rctx), value, notify)
}
