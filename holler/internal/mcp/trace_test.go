package mcp

import (
	"context"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hooteproto"
)

func TestTraceparentReachesTheBackend(t *testing.T) {
	t.Parallel()
	const clientTrace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	seen := make(chan string, 2)
	s, _ := newTestServer(t, nil)
	s.cfg.Backend.(*fakeBackend).override = func(ctx context.Context, _ string, p *hootv1.Payload) (*hootv1.Result, error) {
		seen <- hooteproto.TraceparentFrom(ctx)
		return &hootv1.Result{Result: &hootv1.Result_Echo{Echo: &hootv1.EchoResult{Message: p.GetEcho().GetMessage()}}}, nil
	}
	c := newMCPHTTP(t, s)
	c.initialize("2025-11-25")
	params := map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}}

	c.post(request(2, "tools/call", params), map[string]string{"traceparent": clientTrace})
	got := <-seen
	if !hooteproto.ValidTraceparent(got) || got[:36] != clientTrace[:36] || got == clientTrace {
		t.Errorf("backend saw traceparent %q; want the client's trace with a span of the gateway's own", got)
	}

	c.post(request(3, "tools/call", params), nil)
	if fresh := <-seen; !hooteproto.ValidTraceparent(fresh) || fresh[:36] == clientTrace[:36] {
		t.Errorf("without a client trace the backend saw %q; want a new trace", fresh)
	}
}
