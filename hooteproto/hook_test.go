package hooteproto_test

import (
	"context"
	"sync"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
)

type hookKey struct{}

// hookedEcho answers echo with what its context held: the hook's value and the traceparent.
type hookedEcho struct{}

func (hookedEcho) Echo(ctx context.Context, req *hootv1.EchoRequest) (*hootv1.EchoResult, error) {
	hooteproto.ReportProgress(ctx, 1, 2, "half")
	v, _ := ctx.Value(hookKey{}).(string)
	return &hootv1.EchoResult{Message: v + " " + hooteproto.TraceparentFrom(ctx)}, nil
}

// TestServeHook checks the worker's serve hook: it sees the request's service, payload and
// traceparent, the handler runs in the context it returns (with progress still reaching the
// caller), and its end function gets the Result.
func TestServeHook(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	s := startBroker(t)
	var mu sync.Mutex
	var saw []string
	var ended []*hootv1.Result
	hook := func(ctx context.Context, service string, p *hootv1.Payload) (context.Context, func(*hootv1.Result)) {
		mu.Lock()
		saw = append(saw, service, p.GetEcho().GetMessage(), hooteproto.TraceparentFrom(ctx))
		mu.Unlock()
		return context.WithValue(ctx, hookKey{}, "hooked"), func(res *hootv1.Result) {
			mu.Lock()
			ended = append(ended, res)
			mu.Unlock()
		}
	}
	conn := s.dial(t)
	w, err := hooteproto.NewWorker(conn, []hootv1hoot.Service{hootv1hoot.NewSystemService(hookedEcho{})},
		hooteproto.WithHeartbeat(hb, liveness), hooteproto.WithServeHook(hook))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	defer func() { cancel(); <-done; conn.Close() }()
	waitLive(t, s.broker, hootv1hoot.SystemServiceName, true)

	var progress []*hootv1.Progress
	res, err := s.broker.Call(hooteproto.WithTraceparent(ctx, tp), hooteproto.Call{
		Service:  hootv1hoot.SystemServiceName,
		Payload:  &hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: "hi"}}},
		Progress: func(p *hootv1.Progress) { progress = append(progress, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.GetEcho().GetMessage(); got != "hooked "+tp {
		t.Errorf("the handler's context gave %q, want the hook's value and the traceparent", got)
	}
	if len(progress) != 1 || progress[0].GetMessage() != "half" {
		t.Errorf("progress %v, want the handler's one report", progress)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(saw) != 3 || saw[0] != hootv1hoot.SystemServiceName || saw[1] != "hi" || saw[2] != tp {
		t.Errorf("the hook saw %q", saw)
	}
	if len(ended) != 1 || ended[0].GetEcho().GetMessage() != "hooked "+tp {
		t.Errorf("the hook's end got %v", ended)
	}
}
