package mcp

import (
	"context"
	"errors"

	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
)

// withdrawOnSession also sends withdraw, the notifications/cancelled of a question put to the
// client, on the session's own stream when the client itself cancelled the HTTP call the
// question belongs to. Such a client has most often stopped reading the call's stream (the Go
// SDK ends the call's POST when its caller cancels), so the notice on that stream never reaches
// it, and its model or form would go on answering a question no one waits for. Over stdio and
// WebSocket the call's stream is the session's, and the one notice is enough.
func withdrawOnSession(ctx context.Context, sess *session, out notifier, withdraw *jsonrpc.Notification) {
	if _, onCallStream := out.(*httpReply); onCallStream && errors.Is(context.Cause(ctx), errCancelledByClient) {
		sess.push(withdraw)
	}
}
