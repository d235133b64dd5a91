// Package hoottrace is Hootenanny's OpenTelemetry tracing: the tracer provider both binaries
// set up from the standard OTEL_* environment, and the spans of the wire, the gateway's call to
// a worker and the worker's serving of it, joined by the W3C traceparent that travels in the
// frames. The wire itself (package hooteproto) knows nothing of OpenTelemetry: a worker takes
// this package's [Tracer.ServeHook], and the gateway's call sites take [Tracer.StartClient].
//
// The traceparent of a context ([hooteproto.TraceparentFrom]) is always that of the innermost
// span: every Start puts the new span's traceparent in the context it returns, so that logs
// name the span they were written in and a call made from it carries it on.
package hoottrace

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hooteproto"
)

// ScopeName names the instrumentation scope of every span this package makes.
const ScopeName = "github.com/hootenanny/hoot"

// MaxAttributeLength bounds a string attribute's value, in bytes: longer ones are cut.
const MaxAttributeLength = 256

// Enabled reports whether the environment asks for traces: OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, and OTEL_SDK_DISABLED is not "true".
func Enabled() bool {
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup returns the tracer provider that the environment asks for, and the function that
// flushes and stops it, to call on the way out (see [Shutdown]). When [Enabled] is false it
// returns nil and a shutdown that does nothing: tracing is off. Otherwise spans go in batches over OTLP/HTTP
// (protobuf) to the endpoint, as the exporter's OTEL_EXPORTER_OTLP_* variables say (headers,
// timeout, compression, TLS); OTEL_TRACES_SAMPLER and its argument choose the sampler (default:
// follow the parent, sample every root); the service is named by OTEL_SERVICE_NAME (or
// service.name in OTEL_RESOURCE_ATTRIBUTES), or else service.
func Setup(ctx context.Context, service string) (trace.TracerProvider, func(context.Context) error, error) {
	if !Enabled() {
		return nil, func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nil, err
	}
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", service)),
		resource.WithFromEnv(), // last: OTEL_SERVICE_NAME wins over the default name
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, nil, err
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithRawSpanLimits(spanLimits()),
	)
	return tp, tp.Shutdown, nil
}

// spanLimits are the SDK's limits from the environment (OTEL_SPAN_*_LIMIT), with string values
// cut at MaxAttributeLength bytes, or fewer when OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT says so.
func spanLimits() sdktrace.SpanLimits {
	l := sdktrace.NewSpanLimits()
	if l.AttributeValueLengthLimit < 0 || l.AttributeValueLengthLimit > MaxAttributeLength {
		l.AttributeValueLengthLimit = MaxAttributeLength
	}
	return l
}

// A Tracer makes Hootenanny's spans. A nil *Tracer is valid and makes none: its methods
// return their context as it is.
type Tracer struct {
	tr trace.Tracer
}

// New returns a Tracer whose spans go to tp, or nil when tp is nil.
func New(tp trace.TracerProvider) *Tracer {
	if tp == nil {
		return nil
	}
	return &Tracer{tr: tp.Tracer(ScopeName)}
}

// Start starts a span named name of the given kind, with attrs. Its parent is the span ctx
// holds or, when it holds none, the traceparent ctx carries (from another process); without
// either it starts a trace. The returned context holds the span and carries its traceparent.
func (t *Tracer) Start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if t == nil {
		return ctx, trace.SpanFromContext(ctx)
	}
	parent := ctx
	if !trace.SpanContextFromContext(ctx).IsValid() {
		if sc, ok := Parse(hooteproto.TraceparentFrom(ctx)); ok {
			parent = trace.ContextWithRemoteSpanContext(ctx, sc)
		}
	}
	ctx, span := t.tr.Start(parent, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	if sc := span.SpanContext(); sc.IsValid() {
		ctx = hooteproto.WithTraceparent(ctx, Format(sc))
	}
	return ctx, span
}

// StartChild starts a span as Start does, but only inside a trace: when ctx holds no span and
// carries no traceparent it starts none and returns ctx with the span it holds, which does
// nothing. Storage calls use it, so that the work a process does on its own (a job runner's
// polling, a collection of garbage) makes no traces of one span each.
func (t *Tracer) StartChild(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if t == nil || (!trace.SpanContextFromContext(ctx).IsValid() && !hooteproto.ValidTraceparent(hooteproto.TraceparentFrom(ctx))) {
		return ctx, trace.SpanFromContext(ctx)
	}
	return t.Start(ctx, name, kind, attrs...)
}

// StartClient starts the span of a call of p to a worker of service: a client span, whose
// traceparent, in the returned context, is what the broker puts in the REQUEST frame, so that
// the worker's span is its child. end ends it with the call's result and error.
func (t *Tracer) StartClient(ctx context.Context, service string, p *hootv1.Payload) (_ context.Context, end func(*hootv1.Result, error)) {
	method := RequestName(p)
	ctx, span := t.Start(ctx, service+"/"+method, trace.SpanKindClient, rpcAttributes(service, method)...)
	return ctx, func(res *hootv1.Result, err error) { EndResult(span, res, err) }
}

// ServeHook returns the hook with which a worker makes the span of each request it serves: a
// server span, the child of the span whose traceparent the request carried.
func (t *Tracer) ServeHook() hooteproto.ServeHook {
	return func(ctx context.Context, service string, p *hootv1.Payload) (context.Context, func(*hootv1.Result)) {
		method := RequestName(p)
		ctx, span := t.Start(ctx, service+"/"+method, trace.SpanKindServer, rpcAttributes(service, method)...)
		return ctx, func(res *hootv1.Result) { EndResult(span, res, nil) }
	}
}

func rpcAttributes(service, method string) []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("rpc.system", "hoot"),
		attribute.String("rpc.service", Bounded(service)),
		attribute.String("rpc.method", method),
	}
}

// RequestName names the request p holds by its message (such as "EchoRequest"), or
// "unknown" when it holds none.
func RequestName(p *hootv1.Payload) string {
	if m := hooteproto.RequestOf(p); m != nil {
		return string(m.ProtoReflect().Descriptor().Name())
	}
	return "unknown"
}

// EndResult ends span with the outcome of a call: an error status and the code of err, or of
// the tool error res holds, when there is one. Messages are left out: they may quote the
// call's arguments.
func EndResult(span trace.Span, res *hootv1.Result, err error) {
	switch {
	case err != nil:
		Fail(span, hooteproto.AsError(err).Code().String())
	case res.GetError() != nil:
		Fail(span, hooteproto.ErrorFromTool(res.GetError()).Code().String())
	}
	span.End()
}

// Fail marks span failed with code, which names the kind of failure (such as "not_found").
func Fail(span trace.Span, code string) {
	code = Bounded(code)
	span.SetAttributes(attribute.String("error.type", code))
	span.SetStatus(codes.Error, code)
}

// EndErr ends span, failed with the class of err when it is not nil.
func EndErr(span trace.Span, err error, class func(error) string) {
	if err != nil {
		c := "error"
		if class != nil {
			c = class(err)
		}
		Fail(span, c)
	}
	span.End()
}

// Bounded returns s cut to at most MaxAttributeLength bytes, on a rune boundary.
func Bounded(s string) string {
	if len(s) <= MaxAttributeLength {
		return s
	}
	i := MaxAttributeLength
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i]
}

// Parse reads a W3C traceparent into a remote span context; ok is false when tp is not a
// valid traceparent.
func Parse(tp string) (sc trace.SpanContext, ok bool) {
	if !hooteproto.ValidTraceparent(tp) {
		return sc, false
	}
	tid, err := trace.TraceIDFromHex(tp[3:35])
	if err != nil {
		return sc, false
	}
	sid, err := trace.SpanIDFromHex(tp[36:52])
	if err != nil {
		return sc, false
	}
	var flags trace.TraceFlags
	if tp[54] == '1' || tp[54] == '3' || tp[54] == '5' || tp[54] == '7' || tp[54] == '9' || tp[54] == 'b' || tp[54] == 'd' || tp[54] == 'f' {
		flags = trace.FlagsSampled
	}
	sc = trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: flags, Remote: true})
	return sc, sc.IsValid()
}

// Format writes sc as a W3C traceparent.
func Format(sc trace.SpanContext) string {
	flags := "00"
	if sc.IsSampled() {
		flags = "01"
	}
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + flags
}

// ShutdownTimeout is how long a process waits on its way out for its spans to be sent.
const ShutdownTimeout = 5 * time.Second

// Shutdown calls shutdown, as Setup returned it, to send the last spans, waiting at most
// ShutdownTimeout even when ctx has ended; a failure goes to logger.
func Shutdown(ctx context.Context, shutdown func(context.Context) error, logger *slog.Logger) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	if err := shutdown(sctx); err != nil && logger != nil {
		logger.Warn("sending the last spans", "err", err)
	}
}
