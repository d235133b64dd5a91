package hoottrace_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/hoottrace"
)

func TestParseFormat(t *testing.T) {
	for _, tp := range []string{
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
	} {
		sc, ok := hoottrace.Parse(tp)
		if !ok || !sc.IsRemote() || hoottrace.Format(sc) != tp {
			t.Errorf("Parse(%q) = %v, %v; formats as %q", tp, sc, ok, hoottrace.Format(sc))
		}
	}
	for _, bad := range []string{"", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "junk"} {
		if _, ok := hoottrace.Parse(bad); ok {
			t.Errorf("Parse(%q) accepted it", bad)
		}
	}
}

// FuzzParse checks that Parse never panics and that what it accepts formats back to a valid
// traceparent of the same trace and span.
func FuzzParse(f *testing.F) {
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ff")
	f.Add("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	f.Add("")
	f.Fuzz(func(t *testing.T, tp string) {
		sc, ok := hoottrace.Parse(tp)
		if !ok {
			return
		}
		out := hoottrace.Format(sc)
		if !hooteproto.ValidTraceparent(out) || out[:52] != "00"+tp[2:52] {
			t.Fatalf("Parse(%q) formats as %q", tp, out)
		}
	})
}

func TestBounded(t *testing.T) {
	long := strings.Repeat("é", hoottrace.MaxAttributeLength) // two bytes each
	b := hoottrace.Bounded(long)
	if len(b) > hoottrace.MaxAttributeLength || !utf8.ValidString(b) || len(b) < hoottrace.MaxAttributeLength-1 {
		t.Errorf("Bounded gave %d bytes, valid UTF-8 %v", len(b), utf8.ValidString(b))
	}
	if hoottrace.Bounded("short") != "short" {
		t.Error("Bounded changed a short string")
	}
}

func TestSetupFromEnvironment(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	tp, shutdown, err := hoottrace.Setup(context.Background(), "test")
	if err != nil || tp != nil || shutdown(context.Background()) != nil {
		t.Fatalf("without an endpoint: %v, %v; want tracing off", tp, err)
	}
	if hoottrace.New(tp) != nil {
		t.Fatal("a Tracer without a provider")
	}
	// Nothing listens there, and nothing is sent: the provider only has to exist.
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:1/v1/traces")
	tp, shutdown, err = hoottrace.Setup(context.Background(), "test")
	if err != nil || tp == nil {
		t.Fatalf("with an endpoint: %v, %v; want a provider", tp, err)
	}
	_ = shutdown(context.Background())
	t.Setenv("OTEL_SDK_DISABLED", "true")
	if hoottrace.Enabled() {
		t.Error("enabled with OTEL_SDK_DISABLED=true")
	}
}

// TestStartParents checks where a span's parent comes from: the span in the context, else the
// traceparent it carries, else none; and that the returned context carries the new span's.
func TestStartParents(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tr := hoottrace.New(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)))
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx, span := tr.Start(hooteproto.WithTraceparent(context.Background(), tp), "outer", trace.SpanKindServer)
	if span.SpanContext().TraceID().String() != tp[3:35] || hooteproto.TraceparentFrom(ctx) != hoottrace.Format(span.SpanContext()) {
		t.Fatalf("outer span %v, context's traceparent %q", span.SpanContext(), hooteproto.TraceparentFrom(ctx))
	}
	_, inner := tr.StartChild(ctx, "inner", trace.SpanKindInternal)
	inner.End()
	span.End()
	if _, none := tr.StartChild(context.Background(), "orphan", trace.SpanKindInternal); none.SpanContext().IsValid() {
		t.Error("StartChild outside a trace made a span")
	}
	spans := exp.GetSpans()
	if len(spans) != 2 || spans[0].Parent.SpanID() != spans[1].SpanContext.SpanID() || spans[1].Parent.SpanID().String() != tp[36:52] {
		t.Fatalf("spans %v", spans)
	}
	var nilTracer *hoottrace.Tracer
	if c, _ := nilTracer.Start(ctx, "x", trace.SpanKindInternal); c != ctx {
		t.Error("a nil Tracer changed the context")
	}
	// The serve hook ends its span with the tool error's code.
	exp.Reset()
	hctx, end := tr.ServeHook()(hooteproto.WithTraceparent(context.Background(), tp), "system",
		&hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: "x"}}})
	if !trace.SpanContextFromContext(hctx).IsValid() {
		t.Fatal("the serve hook's context holds no span")
	}
	end(&hootv1.Result{Result: &hootv1.Result_Error{Error: hooteproto.ToolErrorOf(hooteproto.NewError(hooteproto.CodeNotFound, "gone"))}})
	if s := exp.GetSpans(); len(s) != 1 || s[0].Name != "system/EchoRequest" || s[0].Status.Description != "not_found" {
		t.Fatalf("serve hook spans %v", s)
	}
}
