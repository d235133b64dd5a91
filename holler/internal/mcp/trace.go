package mcp

import (
	"context"
	"net/http"
	"strconv"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/hooteproto"
)

// A Tracer makes the spans of a trace for the server's work: the HTTP request, the tools/call
// in it, and the call to the backend in that. Each Start method takes the context whose
// traceparent ([hooteproto.TraceparentFrom]) is the parent, and returns the context for the
// work inside the new span, whose traceparent is the new span's own, with the function that
// ends the span. The methods run on the request's goroutine and must be safe for concurrent
// use. The server knows nothing of a tracing library: holler's tracing package implements
// this with OpenTelemetry.
type Tracer interface {
	// StartRequest starts the span of the HTTP request r, which carries the JSON-RPC method
	// method. Its parent is the traceparent the client sent, if any.
	StartRequest(ctx context.Context, r *http.Request, method string) (context.Context, func())
	// StartCall starts the span of a tools/call; end is given its record.
	StartCall(ctx context.Context) (context.Context, func(CallRecord))
	// StartBackendCall starts the span of the call of p to a worker of service. The
	// traceparent of the returned context is what the call carries to the worker; end is given
	// the call's result and error.
	StartBackendCall(ctx context.Context, service string, p *hootv1.Payload) (context.Context, func(*hootv1.Result, error))
}

// observeCall answers tools/call as callTool does, telling the Observer and the Tracer.
func (s *Server) observeCall(ctx context.Context, sess *session, msg *message, out notifier) *jsonrpc.Response {
	o := s.cfg.Observer
	if o != nil {
		o.CallStarted()
	}
	var end func(CallRecord)
	if s.cfg.Tracer != nil {
		ctx, end = s.cfg.Tracer.StartCall(ctx)
	}
	start := time.Now()
	resp := s.callTool(ctx, sess, msg, out)
	rec := CallRecord{Tool: msg.tool, Era: eraName(sess), Outcome: outcomeOf(resp), Duration: time.Since(start)}
	if o != nil {
		o.CallEnded(rec)
	}
	if end != nil {
		rec.Code = failureCode(resp)
		end(rec)
	}
	return resp
}

// failureCode names the failure that resp answers, or "" when it is no failure.
func failureCode(resp *jsonrpc.Response) string {
	if resp == nil {
		return ""
	}
	if resp.Error != nil {
		return strconv.FormatInt(resp.Error.Code, 10)
	}
	if r, ok := resp.Result.(toolresult.Result); ok && r.IsError {
		if r.Code == 0 {
			return hooteproto.CodeInternal.String()
		}
		return r.Code.String()
	}
	return ""
}
