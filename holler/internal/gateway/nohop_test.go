package gateway

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
)

// noHopAddr turns this test binary into the "holler-no-hop" server of make bench (see
// serveNoHop) instead of running the tests.
var noHopAddr = flag.String("no-hop-addr", "", "serve holler's HTTP and MCP stack on this loopback `address` with echo answered in process (a make bench server), instead of running the tests")

func TestMain(m *testing.M) {
	flag.Parse()
	if *noHopAddr != "" {
		if err := serveNoHop(*noHopAddr); err != nil {
			fmt.Fprintln(os.Stderr, "no-hop server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveNoHop serves the gateway exactly as holler serve does (the same Start, router, MCP
// server and http.Server), except that tool calls go to the generated dispatch of an echo
// handler in this process rather than over ZeroMQ to a worker. Loaded next to holler in the
// same make bench run, it shows what the process hop costs: holler's CPU per call and latency
// minus this server's. It prints "ready http://ADDR/mcp" once it listens and stops on SIGTERM
// or Ctrl-C.
func serveNoHop(addr string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	g, err := Start(Config{
		WorkerEndpoint: "tcp://127.0.0.1:*", // bound, and never used
		backend:        inProcess{hootv1hoot.NewSystemService(echoHandler{})},
	})
	if err != nil {
		return err
	}
	defer g.Close()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("ready http://%s/mcp\n", l.Addr())
	return g.ServeHTTP(ctx, l)
}

// inProcess is a Backend that serves one service's calls on the caller's goroutine, as a
// worker serves them once they have reached it (hooteproto.Serve).
type inProcess struct{ svc hootv1hoot.Service }

func (b inProcess) Call(ctx context.Context, c hooteproto.Call) (*hootv1.Result, error) {
	if service := c.Service; service != b.svc.Name {
		return nil, hooteproto.NewError(hooteproto.CodeUnavailable, fmt.Sprintf("this benchmark server serves only the %q service, not %q", b.svc.Name, service)).
			WithHint("call echo, or use holler with a worker for the other tools")
	}
	return hooteproto.Serve(ctx, b.svc, c.Payload, nil), nil
}

type echoHandler struct{}

func (echoHandler) Echo(_ context.Context, req *hootv1.EchoRequest) (*hootv1.EchoResult, error) {
	return &hootv1.EchoResult{Message: req.GetMessage(), Worker: "in-process"}, nil
}

// TestNoHopServerAnswersEcho checks the benchmark server's backend: echo comes back through
// the generated dispatch, with the worker's argument checks, and other tools are refused.
func TestNoHopServerAnswersEcho(t *testing.T) {
	b := inProcess{hootv1hoot.NewSystemService(echoHandler{})}
	res, err := b.Call(t.Context(), hooteproto.Call{Service: hootv1hoot.SystemServiceName,
		Payload: &hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: "hi"}}}})
	if err != nil || res.GetEcho().GetMessage() != "hi" || res.GetEcho().GetWorker() != "in-process" {
		t.Fatalf("echo: %v, %v", res, err)
	}
	if _, err := b.Call(t.Context(), hooteproto.Call{Service: "music", Payload: &hootv1.Payload{}}); hooteproto.AsError(err).Code() != hooteproto.CodeUnavailable {
		t.Fatalf("another service: %v, want unavailable", err)
	}
	res, err = b.Call(t.Context(), hooteproto.Call{Service: hootv1hoot.SystemServiceName, Payload: &hootv1.Payload{}})
	if err != nil || hooteproto.ErrorFromTool(res.GetError()).Code() != hooteproto.CodeInvalidArgument {
		t.Fatalf("an empty payload: %v, %v, want a result with an invalid-argument error", res, err)
	}
}
