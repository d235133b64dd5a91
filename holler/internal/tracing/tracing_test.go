package tracing_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp"
	"github.com/hootenanny/hoot/holler/internal/tracing"
	"github.com/hootenanny/hoot/hooteproto"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// echoBackend answers echo in process.
type echoBackend struct{}

func (echoBackend) Call(_ context.Context, c hooteproto.Call) (*hootv1.Result, error) {
	p := c.Payload
	return &hootv1.Result{Result: &hootv1.Result_Echo{Echo: &hootv1.EchoResult{Message: p.GetEcho().GetMessage()}}}, nil
}

// session opens an MCP session on h and returns a function that makes one tools/call of echo.
func session(tb testing.TB, h http.Handler) func() {
	post := func(body, sid string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	w := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`, "")
	sid := w.Header().Get("Mcp-Session-Id")
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
	return func() {
		w := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`, sid)
		if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(`"hello"`)) {
			tb.Fatalf("tools/call: %d %s", w.Code, w.Body.Bytes())
		}
	}
}

func server(tb testing.TB, tracer mcp.Tracer) http.Handler {
	s, err := mcp.NewServer(&mcp.Config{Backend: echoBackend{}, Tracer: tracer})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// TestSpansOfACall checks the three spans holler makes of a call, with a nil Tracer meaning
// tracing off.
func TestSpansOfACall(t *testing.T) {
	if tracing.New(nil) != nil {
		t.Fatal("a Tracer without a provider")
	}
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	call := session(t, server(t, tracing.New(tp)))
	exp.Reset()
	call()
	spans := exp.GetSpans()
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "system/EchoRequest,tools/call echo,POST /mcp" {
		t.Fatalf("spans %v", names)
	}
	if spans[0].Parent.SpanID() != spans[1].SpanContext.SpanID() || spans[1].Parent.SpanID() != spans[2].SpanContext.SpanID() {
		t.Error("the spans are not nested")
	}
}

// BenchmarkToolsCallEcho measures one tools/call through the HTTP handler with an in-process
// backend, without a Tracer (tracing off) and with one whose spans are all sampled and go to a
// batch processor that drops them: what tracing costs holler per call.
func BenchmarkToolsCallEcho(b *testing.B) {
	b.Run("off", func(b *testing.B) {
		call := session(b, server(b, nil))
		b.ReportAllocs()
		for b.Loop() {
			call()
		}
	})
	b.Run("on", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
		call := session(b, server(b, tracing.New(tp)))
		b.ReportAllocs()
		for b.Loop() {
			call()
		}
	})
}
