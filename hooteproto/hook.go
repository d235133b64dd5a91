package hooteproto

import (
	"context"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

// A ServeHook is told of each request a worker serves, before its handler runs: it returns the
// context to serve the request in (such as one that carries a tracing span whose parent is the
// request's traceparent, [TraceparentFrom]) and a function that is called with the request's
// Result when it has one. It runs on the request's goroutine and must be safe for concurrent
// use. The wire itself knows nothing of what a hook does with requests; package
// hooteproto/hoottrace has one that makes OpenTelemetry spans.
type ServeHook func(ctx context.Context, service string, p *hootv1.Payload) (context.Context, func(*hootv1.Result))

// WithServeHook sets the hook a worker calls around every request it serves (default: none).
func WithServeHook(h ServeHook) WorkerOption {
	return workerOption(func(c *workerConfig) { c.serveHook = h })
}

// serveHooked serves p as Serve does, inside the worker's serve hook.
func (w *Worker) serveHooked(ctx context.Context, svc hootv1hoot.Service, p *hootv1.Payload) *hootv1.Result {
	hctx, end := w.cfg.serveHook(ctx, svc.Name, p)
	res := Serve(hctx, svc, p, w.cfg.logger)
	if end != nil {
		end(res)
	}
	return res
}
