package e2e

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP trace receiver on loopback: it keeps the spans exported to it.
type otlpReceiver struct {
	mu       sync.Mutex
	spans    []*tracepb.Span
	services map[string]bool
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 8<<20))
	var export coltrace.ExportTraceServiceRequest
	if err != nil || req.URL.Path != "/v1/traces" || proto.Unmarshal(body, &export) != nil {
		http.Error(w, "want an ExportTraceServiceRequest at /v1/traces", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range export.GetResourceSpans() {
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				r.services[a.GetValue().GetStringValue()] = true
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			r.spans = append(r.spans, ss.GetSpans()...)
		}
	}
	r.mu.Unlock()
	b, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(b)
}

// childOf returns a span the receiver holds whose parent is the span id parent.
func (r *otlpReceiver) childOf(parent []byte) *tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.spans {
		if string(s.GetParentSpanId()) == string(parent) {
			return s
		}
	}
	return nil
}

// traceparentHeader sends a W3C traceparent with every request.
type traceparentHeader struct{ tp string }

func (h traceparentHeader) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Traceparent", h.tp)
	return http.DefaultTransport.RoundTrip(req)
}

// TestWorkerProcessJoinsTheTrace runs the hootenanny binary as the worker, exporting over
// OTLP/HTTP to a receiver of the test, and checks that the worker's span of a call is the
// child of the gateway's client span, in the client's trace, and has a storage span inside.
func TestWorkerProcessJoinsTheTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in the short tier: it builds and starts a worker process; make test runs it")
	}
	recv := &otlpReceiver{services: map[string]bool{}}
	ts := httptest.NewServer(recv)
	defer ts.Close()
	// The worker process inherits these; the gateway, in this process, is given its provider.
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", ts.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("OTEL_SERVICE_NAME", "")
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	url := startStackWith(t, func(c *gateway.Config) { c.TracerProvider = tp })

	const client = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	// A session whose every request carries the client's traceparent.
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: traceparentHeader{client}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "cas_store", Arguments: map[string]any{"content": "traced bytes"}}); err != nil || res.IsError {
		t.Fatalf("cas_store: %v %+v", err, res)
	}
	var call *tracetest.SpanStub
	for _, sp := range exp.GetSpans() {
		if sp.SpanKind == trace.SpanKindClient {
			call = &sp
		}
	}
	if call == nil || call.SpanContext.TraceID().String() != client[3:35] {
		t.Fatalf("no client span of the gateway in the client's trace: %v", exp.GetSpans())
	}
	callID := call.SpanContext.SpanID()
	var worker, storage *tracepb.Span
	for range 300 {
		if worker = recv.childOf(callID[:]); worker != nil {
			if storage = recv.childOf(worker.GetSpanId()); storage != nil {
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if worker == nil {
		t.Fatalf("the worker exported no child of the gateway's span %v (%d spans)", callID, len(recv.spans))
	}
	if got := hex.EncodeToString(worker.GetTraceId()); got != client[3:35] || worker.GetKind() != tracepb.Span_SPAN_KIND_SERVER || worker.GetName() != call.Name {
		t.Errorf("the worker's span %q (kind %v) is in trace %s; want server span %q in %s", worker.GetName(), worker.GetKind(), got, call.Name, client[3:35])
	}
	if storage == nil {
		t.Fatalf("no storage span inside the worker's span %q", worker.GetName())
	}
	recv.mu.Lock()
	defer recv.mu.Unlock()
	if !recv.services["hootenanny"] {
		t.Errorf("services %v, want the worker's default name hootenanny", recv.services)
	}
}
