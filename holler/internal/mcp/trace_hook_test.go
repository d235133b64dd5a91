package mcp

import (
	"context"
	"net/http"
	"sync"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/hooteproto"
)

// recordingTracer is a Tracer that records the parent each span was started under, and gives
// each span a traceparent of its own: the request's ends in ...01, the call's ...02, the
// backend call's ...03.
type recordingTracer struct {
	mu      sync.Mutex
	parents map[string]string // span → the traceparent of its context when it started
	records []CallRecord
	ended   []string
}

const (
	spanRequest = "00-11111111111111111111111111111111-0000000000000001-01"
	spanCall    = "00-11111111111111111111111111111111-0000000000000002-01"
	spanBackend = "00-11111111111111111111111111111111-0000000000000003-01"
)

func (r *recordingTracer) start(ctx context.Context, span, tp string) context.Context {
	r.mu.Lock()
	r.parents[span] = hooteproto.TraceparentFrom(ctx)
	r.mu.Unlock()
	return hooteproto.WithTraceparent(ctx, tp)
}

func (r *recordingTracer) end(span string) {
	r.mu.Lock()
	r.ended = append(r.ended, span)
	r.mu.Unlock()
}

func (r *recordingTracer) StartRequest(ctx context.Context, _ *http.Request, method string) (context.Context, func()) {
	return r.start(ctx, "request "+method, spanRequest), func() { r.end("request " + method) }
}

func (r *recordingTracer) StartCall(ctx context.Context) (context.Context, func(CallRecord)) {
	return r.start(ctx, "call", spanCall), func(rec CallRecord) {
		r.mu.Lock()
		r.records = append(r.records, rec)
		r.mu.Unlock()
		r.end("call")
	}
}

func (r *recordingTracer) StartBackendCall(ctx context.Context, service string, _ *hootv1.Payload) (context.Context, func(*hootv1.Result, error)) {
	return r.start(ctx, "backend "+service, spanBackend), func(*hootv1.Result, error) { r.end("backend " + service) }
}

// TestTracerHooks checks the Tracer's place in a call: the request's span under the client's
// traceparent (_meta before the header in the 2026-07-28 era), the call's under the request's,
// the backend call's under the call's, and the backend given the backend span's traceparent
// rather than one of the server's making; and the failures' codes in the call's record.
func TestTracerHooks(t *testing.T) {
	t.Parallel()
	const header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	const meta = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	seen := make(chan string, 4)
	s, _ := newTestServer(t, nil)
	tr := &recordingTracer{parents: map[string]string{}}
	s.cfg.Tracer = tr
	s.cfg.Backend.(*fakeBackend).override = func(ctx context.Context, _ string, p *hootv1.Payload) (*hootv1.Result, error) {
		seen <- hooteproto.TraceparentFrom(ctx)
		if p.GetEcho().GetMessage() == "fail" {
			return nil, hooteproto.NewError(hooteproto.CodeNotFound, "gone")
		}
		return &hootv1.Result{Result: &hootv1.Result_Echo{Echo: &hootv1.EchoResult{Message: p.GetEcho().GetMessage()}}}, nil
	}
	c := newMCPHTTP(t, s)
	c.initialize("2025-11-25")
	c.post(request(2, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}}), map[string]string{"traceparent": header})
	if got := <-seen; got != spanBackend {
		t.Errorf("the backend saw %q, want the backend span's %q", got, spanBackend)
	}
	tr.mu.Lock()
	if tr.parents["request tools/call"] != header || tr.parents["call"] != spanRequest || tr.parents["backend system"] != spanCall {
		t.Errorf("parents %v", tr.parents)
	}
	if len(tr.records) != 1 || tr.records[0].Tool != "echo" || tr.records[0].Outcome != "ok" || tr.records[0].Code != "" {
		t.Errorf("records %+v", tr.records)
	}
	tr.mu.Unlock()

	c.post(request(3, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "fail"}}), nil)
	<-seen
	c.post(request(4, "tools/call", map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}), nil)
	tr.mu.Lock()
	if n := len(tr.records); n != 3 || tr.records[1].Code != "not_found" || tr.records[2].Code != "-32602" {
		t.Errorf("records %+v, want codes not_found and -32602", tr.records)
	}
	tr.mu.Unlock()

	// 2026-07-28: _meta.traceparent is the request span's parent, before the header.
	m := newMCPHTTP(t, s)
	params := map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}}
	mt := modernMetaOf(era.V20260728)
	mt["traceparent"] = meta
	params["_meta"] = mt
	m.modernCall(5, "tools/call", params, map[string]string{"traceparent": header})
	if got := <-seen; got != spanBackend {
		t.Errorf("modern: the backend saw %q", got)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.parents["request tools/call"] != meta {
		t.Errorf("modern: the request span's parent is %q, want _meta's %q", tr.parents["request tools/call"], meta)
	}
	// Every call's span and backend span ended before the answer went out.
	count := map[string]int{}
	for _, e := range tr.ended {
		count[e]++
	}
	if count["call"] != 4 || count["backend system"] != 3 {
		t.Errorf("ended %v, want 4 calls and 3 backend calls", count)
	}
}
