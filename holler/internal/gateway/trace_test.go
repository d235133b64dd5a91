package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/cas/castrace"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/hoottrace"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// storingEcho answers echo after storing the message in a content store, so that a call has a
// storage call inside it; the message "missing" asks the store for an object it lacks, and
// fails with not_found. It keeps what each call's context held.
type storingEcho struct {
	store cas.Store
	mu    sync.Mutex
	seen  []seenContext
}

type seenContext struct {
	traceparent string
	span        trace.SpanContext
}

func (e *storingEcho) Echo(ctx context.Context, req *hootv1.EchoRequest) (*hootv1.EchoResult, error) {
	e.mu.Lock()
	e.seen = append(e.seen, seenContext{hooteproto.TraceparentFrom(ctx), trace.SpanContextFromContext(ctx)})
	e.mu.Unlock()
	if req.GetMessage() == "missing" {
		if _, err := e.store.Stat(ctx, cas.Hash{}); err != nil {
			return nil, hooteproto.WrapError(hooteproto.CodeNotFound, err)
		}
	}
	if _, _, err := e.store.Put(ctx, strings.NewReader(req.GetMessage()), "text/plain"); err != nil {
		return nil, err
	}
	return &hootv1.EchoResult{Message: req.GetMessage(), Worker: "traced"}, nil
}

// tracedStack starts a gateway with tp (nil: tracing off) and a worker in this process over
// the wire on loopback, whose spans, and its store's, go to tp too. It returns the MCP URL.
func tracedStack(t *testing.T, tp trace.TracerProvider) (string, *storingEcho) {
	t.Helper()
	g, err := Start(Config{WorkerEndpoint: "tcp://127.0.0.1:*", TracerProvider: tp, Heartbeat: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	dir, err := cas.OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var tracer *hoottrace.Tracer
	opts := []hooteproto.WorkerOption{hooteproto.WithHeartbeat(200*time.Millisecond, 3)}
	if tp != nil {
		tracer = hoottrace.New(tp)
		opts = append(opts, hooteproto.WithServeHook(tracer.ServeHook()))
	}
	echo := &storingEcho{store: castrace.Wrap(dir, tracer)}
	conn, err := zmqtransport.Dial(g.WorkerEndpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := hooteproto.NewWorker(conn, []hootv1hoot.Service{hootv1hoot.NewSystemService(echo)}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; conn.Close() })
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := g.WaitForServices(wctx, hootv1hoot.SystemServiceName); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(g.Handler())
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", echo
}

// mcpPost posts one JSON-RPC message and returns the response's body and headers.
func mcpPost(t *testing.T, url, session, body string, header map[string]string) (string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %d %s", body, resp.StatusCode, b)
	}
	return string(b), resp.Header
}

// callEcho opens a session and calls echo with message, sending traceparent (if not empty).
func callEcho(t *testing.T, url, message, traceparent string) string {
	t.Helper()
	_, h := mcpPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil)
	sid := h.Get("Mcp-Session-Id")
	mcpPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	args, _ := json.Marshal(map[string]any{"message": message})
	header := map[string]string{}
	if traceparent != "" {
		header["Traceparent"] = traceparent
	}
	body, _ := mcpPost(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":`+string(args)+`}}`, header)
	return body
}

// callSpans is how many spans callEcho makes: the HTTP requests of initialize and of
// notifications/initialized, and the five of the call.
const callSpans = 7

const clientTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// waitSpans waits, a bounded time, until exp holds at least n spans, and returns them.
func waitSpans(t *testing.T, exp *tracetest.InMemoryExporter, n int) tracetest.SpanStubs {
	t.Helper()
	for range 200 {
		if s := exp.GetSpans(); len(s) >= n {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
	s := exp.GetSpans()
	t.Fatalf("%d spans, want %d: %v", len(s), n, spanNames(s))
	return nil
}

// attr returns the value of s's attribute key, or "".
func attr(s tracetest.SpanStub, key string) string {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

func spanNames(spans tracetest.SpanStubs) []string {
	var names []string
	for _, s := range spans {
		names = append(names, s.Name+"/"+s.SpanKind.String())
	}
	return names
}

// chain returns the spans of one call in order, from the HTTP request down to the storage
// call, failing unless each is the parent of the next and all are in the client's trace.
func chain(t *testing.T, spans tracetest.SpanStubs, storage string) []tracetest.SpanStub {
	t.Helper()
	find := func(name string, kind trace.SpanKind) tracetest.SpanStub {
		t.Helper()
		for _, s := range spans {
			if s.Name == name && s.SpanKind == kind && (name != "POST /mcp" || attr(s, "mcp.method.name") == "tools/call") {
				return s
			}
		}
		t.Fatalf("no %s span %q among %v", kind, name, spanNames(spans))
		return tracetest.SpanStub{}
	}
	want := []tracetest.SpanStub{
		find("POST /mcp", trace.SpanKindServer),
		find("tools/call echo", trace.SpanKindInternal),
		find("system/EchoRequest", trace.SpanKindClient),
		find("system/EchoRequest", trace.SpanKindServer),
		find(storage, trace.SpanKindInternal),
	}
	client, _ := hoottrace.Parse(clientTraceparent)
	if p := want[0].Parent; p.SpanID() != client.SpanID() || !p.IsRemote() {
		t.Errorf("the HTTP span's parent is %v, want the client's span %v", p.SpanID(), client.SpanID())
	}
	for i, s := range want {
		if s.SpanContext.TraceID() != client.TraceID() {
			t.Errorf("span %q is in trace %v, want the client's %v", s.Name, s.SpanContext.TraceID(), client.TraceID())
		}
		if i > 0 && s.Parent.SpanID() != want[i-1].SpanContext.SpanID() {
			t.Errorf("span %q (%v) has parent %v, want %q (%v)", s.Name, s.SpanKind, s.Parent.SpanID(), want[i-1].Name, want[i-1].SpanContext.SpanID())
		}
	}
	return want
}

// TestTraceFromHTTPToStorage follows one tools/call with a client's traceparent through the
// gateway, the wire and a worker to its store: five spans, each the parent of the next, in the
// client's trace; and a failing call marks its spans with the error's code.
func TestTraceFromHTTPToStorage(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	url, echo := tracedStack(t, tp)

	if body := callEcho(t, url, "hi", clientTraceparent); !strings.Contains(body, `"traced"`) {
		t.Fatalf("echo: %s", body)
	}
	spans := chain(t, waitSpans(t, exp, callSpans), "cas.Put")
	// The frame carried the broker span's id: the handler's span is the worker's, whose
	// parent is the client span, exported above.
	echo.mu.Lock()
	seen := echo.seen[0]
	echo.mu.Unlock()
	if !seen.span.Equal(spans[3].SpanContext) || seen.traceparent != hoottrace.Format(spans[3].SpanContext) {
		t.Errorf("the handler's context holds span %v and traceparent %q, want the worker's span %v", seen.span.SpanID(), seen.traceparent, spans[3].SpanContext.SpanID())
	}
	if attr(spans[1], "gen_ai.tool.name") != "echo" || attr(spans[1], "hoot.outcome") != "ok" {
		t.Errorf("tools/call attributes %v, want the tool and the outcome", spans[1].Attributes)
	}
	for _, s := range spans {
		for _, kv := range s.Attributes {
			if strings.Contains(kv.Value.String(), "hi") && kv.Key != "url.path" {
				t.Errorf("span %q has attribute %s=%q, which looks like an argument", s.Name, kv.Key, kv.Value.String())
			}
		}
	}

	exp.Reset()
	if body := callEcho(t, url, "missing", clientTraceparent); !strings.Contains(body, `"isError":true`) {
		t.Fatalf("echo missing: %s", body)
	}
	failed := chain(t, waitSpans(t, exp, callSpans), "cas.Stat")
	for _, s := range failed[1:] {
		if s.Status.Code != codes.Error {
			t.Errorf("span %q has status %v, want an error", s.Name, s.Status)
		}
	}
	for i, want := range []string{"", "not_found", "not_found", "not_found", "not_found"} {
		if i > 0 && failed[i].Status.Description != want {
			t.Errorf("span %q: status %q, want %q", failed[i].Name, failed[i].Status.Description, want)
		}
	}
}

// TestNoTracerTraceparentStillTravels checks that without a tracer provider no span is made
// and the worker still gets the client's trace with a span id of the gateway's call.
func TestNoTracerTraceparentStillTravels(t *testing.T) {
	url, echo := tracedStack(t, nil)
	if body := callEcho(t, url, "hi", clientTraceparent); !strings.Contains(body, `"traced"`) {
		t.Fatalf("echo: %s", body)
	}
	echo.mu.Lock()
	seen := echo.seen[0]
	echo.mu.Unlock()
	if !hooteproto.ValidTraceparent(seen.traceparent) || seen.traceparent[:36] != clientTraceparent[:36] || seen.traceparent == clientTraceparent {
		t.Errorf("the handler saw traceparent %q; want the client's trace with a span of the gateway's own", seen.traceparent)
	}
	if seen.span.IsValid() {
		t.Errorf("the handler's context holds a span %v without tracing", seen.span)
	}
	if castrace.Wrap(echo.store, nil) != echo.store {
		t.Error("castrace.Wrap with no tracer wrapped the store")
	}
}
