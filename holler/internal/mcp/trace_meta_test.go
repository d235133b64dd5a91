package mcp

import (
	"context"
	"sync"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
)

// traceRecorder is a worker's system service that records the traceparent each echo runs under.
type traceRecorder struct{ seen chan string }

func (r traceRecorder) Echo(ctx context.Context, req *hootv1.EchoRequest) (*hootv1.EchoResult, error) {
	r.seen <- hooteproto.TraceparentFrom(ctx)
	return &hootv1.EchoResult{Message: req.GetMessage()}, nil
}

// TestTraceContextInMetaReachesTheWorker: a traceparent in a request's _meta makes the worker's
// handler run in the client's trace, over the real wire, in both eras and over both
// transports; a malformed one is ignored.
func TestTraceContextInMetaReachesTheWorker(t *testing.T) {
	t.Parallel()
	sock, err := zmqtransport.Listen("tcp://127.0.0.1:*", nil)
	if err != nil {
		t.Fatal(err)
	}
	broker := hooteproto.NewBroker(sock)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = broker.Run(ctx) })
	conn, err := zmqtransport.Dial(sock.Endpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := traceRecorder{seen: make(chan string, 8)}
	w, err := hooteproto.NewWorker(conn, []hootv1hoot.Service{hootv1hoot.NewSystemService(rec)})
	if err != nil {
		t.Fatal(err)
	}
	wg.Go(func() { _ = w.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait(); conn.Close(); sock.Close() })
	for deadline := time.Now().Add(10 * time.Second); ; {
		changed := broker.Changed()
		if len(broker.Services()) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker never became live")
		}
		select {
		case <-changed:
		case <-time.After(50 * time.Millisecond):
		}
	}
	s, err := NewServer(&Config{Backend: broker})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })

	const clientTrace = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"
	metaWith := func(modern bool, tp string) map[string]any {
		m := map[string]any{"traceparent": tp, "tracestate": "vendor=x", "baggage": "k=v"}
		if modern {
			m[era.MetaProtocolVersion] = era.V20260728
			m[era.MetaClientCapabilities] = map[string]any{}
		}
		return m
	}
	echo := func(modern bool, tp string) map[string]any {
		return map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}, "_meta": metaWith(modern, tp)}
	}
	inClientTrace := func(name string) {
		t.Helper()
		select {
		case got := <-rec.seen:
			if !hooteproto.ValidTraceparent(got) || got[3:35] != clientTrace[3:35] || got == clientTrace {
				t.Errorf("%s: the worker's handler ran under %q; want the client's trace id %s with a span of its own", name, got, clientTrace[3:35])
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the call never reached the worker", name)
		}
	}

	legacy := newMCPHTTP(t, s)
	legacy.initialize(era.Latest)
	if r := legacy.call(2, methodToolsCall, echo(false, clientTrace)); r.Error != nil {
		t.Fatalf("legacy call: %+v", r.Error)
	}
	inClientTrace("2025-11-25 over HTTP")

	modern := newMCPHTTP(t, s)
	if a := modern.modernCall(3, methodToolsCall, echo(true, clientTrace), nil); a.status != 200 {
		t.Fatalf("modern call: %d %s", a.status, a.body)
	}
	inClientTrace("2026-07-28 over HTTP")

	stdio := newMCPStdio(t, s)
	stdio.send(modernLine(4, methodToolsCall, echo(true, clientTrace)))
	if r := stdio.recv(); r.Error != nil {
		t.Fatalf("stdio call: %+v", r.Error)
	}
	inClientTrace("2026-07-28 over stdio")

	// A malformed traceparent is ignored: the call goes through, in a trace of its own.
	if a := modern.modernCall(5, methodToolsCall, echo(true, "00-not-a-trace"), nil); a.status != 200 || a.last(t).Error != nil {
		t.Fatalf("call with a malformed traceparent: %d %s", a.status, a.body)
	}
	if got := <-rec.seen; !hooteproto.ValidTraceparent(got) || got[3:35] == clientTrace[3:35] {
		t.Errorf("with a malformed traceparent the worker ran under %q", got)
	}
}
