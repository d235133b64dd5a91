// Package tracing is holler's OpenTelemetry spans: the HTTP request, the tools/call in it and
// the call to a worker in that, through the mcp.Tracer hook, so that the MCP layer knows
// nothing of a tracing library.
package tracing

import (
	"context"
	"net/http"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp"
	"github.com/hootenanny/hoot/hooteproto/hoottrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Tracer implements mcp.Tracer.
type Tracer struct{ t *hoottrace.Tracer }

// New returns the Tracer whose spans go to tp, or nil when tp is nil (tracing off).
func New(tp trace.TracerProvider) *Tracer {
	if tp == nil {
		return nil
	}
	return &Tracer{t: hoottrace.New(tp)}
}

var _ mcp.Tracer = (*Tracer)(nil)

// StartRequest implements mcp.Tracer: a server span named for the HTTP method and path.
func (t *Tracer) StartRequest(ctx context.Context, r *http.Request, method string) (context.Context, func()) {
	ctx, span := t.t.Start(ctx, r.Method+" "+hoottrace.Bounded(r.URL.Path), trace.SpanKindServer,
		attribute.String("http.request.method", r.Method),
		attribute.String("url.path", hoottrace.Bounded(r.URL.Path)),
		attribute.String("mcp.method.name", hoottrace.Bounded(method)),
	)
	return ctx, func() { span.End() }
}

// StartCall implements mcp.Tracer: an internal span named "tools/call TOOL" once the tool is
// known, with the tool, the protocol era and the outcome; a failure sets the error status
// with the failure's code.
func (t *Tracer) StartCall(ctx context.Context) (context.Context, func(mcp.CallRecord)) {
	ctx, span := t.t.Start(ctx, "tools/call", trace.SpanKindInternal, attribute.String("mcp.method.name", "tools/call"))
	return ctx, func(r mcp.CallRecord) {
		if r.Tool != "" {
			// Only names of the tool table: a client could send any other.
			span.SetName("tools/call " + r.Tool)
			span.SetAttributes(attribute.String("gen_ai.tool.name", r.Tool))
		}
		span.SetAttributes(attribute.String("mcp.era", r.Era), attribute.String("hoot.outcome", r.Outcome))
		if r.Code != "" {
			hoottrace.Fail(span, r.Code)
		}
		span.End()
	}
}

// StartBackendCall implements mcp.Tracer: the client span of the call to a worker, whose
// traceparent the REQUEST frame carries.
func (t *Tracer) StartBackendCall(ctx context.Context, service string, p *hootv1.Payload) (context.Context, func(*hootv1.Result, error)) {
	return t.t.StartClient(ctx, service, p)
}
