package hooteproto_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/internal/roundtrip"
	"github.com/hootenanny/hoot/hooteproto/memconn"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
)

// benchEcho answers echo at once; unlike echoer it records nothing, so it never blocks.
type benchEcho struct{}

func (benchEcho) Echo(_ context.Context, req *hootv1.EchoRequest) (*hootv1.EchoResult, error) {
	return &hootv1.EchoResult{Message: req.GetMessage(), Worker: "bench"}, nil
}

// benchWorkerEnv names the endpoint a worker process started by BenchmarkWireRoundTrip
// connects to.
const benchWorkerEnv = "HOOTEPROTO_BENCH_WORKER"

// TestWireBenchWorkerProcess is not a test: it is the worker process of BenchmarkWireRoundTrip,
// which runs this test binary again with benchWorkerEnv set. It serves echo until its standard
// input closes, which happens at the latest when the benchmark's process ends.
func TestWireBenchWorkerProcess(t *testing.T) {
	endpoint := os.Getenv(benchWorkerEnv)
	if endpoint == "" {
		t.Skip("the worker process of BenchmarkWireRoundTrip; it runs only when that benchmark starts it")
	}
	conn, err := zmqtransport.Dial(endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w, err := hooteproto.NewWorker(conn, []hootv1hoot.Service{hootv1hoot.NewSystemService(benchEcho{})}, hooteproto.WithName("bench"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); cancel() }()
	_ = w.Run(ctx)
}

// benchWire starts a broker and one worker connected over ZeroMQ on loopback TCP, as the
// gateway and a worker are, with the default heartbeat and capacity, and waits until the
// worker is live. The worker runs in a process of its own, as hootenanny does, or, with
// inProcess, in this one.
func benchWire(b *testing.B, inProcess bool) *hooteproto.Broker {
	b.Helper()
	ls, err := zmqtransport.Listen("tcp://127.0.0.1:*", nil)
	if err != nil {
		b.Fatal(err)
	}
	broker := hooteproto.NewBroker(ls)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = broker.Run(ctx) })
	b.Cleanup(func() {
		cancel()
		wg.Wait()
		ls.Close()
	})

	if inProcess {
		ds, err := zmqtransport.Dial(ls.Endpoint(), nil)
		if err != nil {
			b.Fatal(err)
		}
		w, err := hooteproto.NewWorker(ds, []hootv1hoot.Service{hootv1hoot.NewSystemService(benchEcho{})}, hooteproto.WithName("bench"))
		if err != nil {
			b.Fatal(err)
		}
		wctx, wcancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = w.Run(wctx) }()
		b.Cleanup(func() { wcancel(); <-done; ds.Close() })
	} else {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWireBenchWorkerProcess$")
		cmd.Env = append(os.Environ(), benchWorkerEnv+"="+ls.Endpoint())
		stdin, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		cmd.Stderr = os.Stderr // its stdout has only the test's PASS
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		b.Cleanup(func() {
			stdin.Close()
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
			}
		})
	}

	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(broker.Services(), hootv1hoot.SystemServiceName) {
		if time.Now().After(deadline) {
			b.Fatal("the worker never became live")
		}
		select {
		case <-broker.Changed():
		case <-time.After(20 * time.Millisecond):
		}
	}
	return broker
}

// wireCall makes one echo round trip and checks its answer.
func wireCall(broker *hooteproto.Broker, p *hootv1.Payload) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := broker.Call(ctx, hooteproto.Call{Service: hootv1hoot.SystemServiceName, Payload: p})
	if err != nil {
		return err
	}
	if got := res.GetEcho().GetMessage(); got != p.GetEcho().GetMessage() {
		return fmt.Errorf("answer %v for %q", res, p.GetEcho().GetMessage())
	}
	return nil
}

// BenchmarkWireRoundTrip measures echo round trips broker -> worker -> broker over ZeroMQ on
// loopback: one call after another ("sequential", whose p50-µs is the latency the wire adds to
// one tool call) and many calls in flight at once ("pipelined", for throughput). rt/s is round
// trips per second. The worker runs in a process of its own, as in a real deployment
// ("worker=process"), or in the benchmark's process ("worker=inproc"). Allocations are the
// benchmark process's: the broker's side, and the worker's too when it is in process.
func BenchmarkWireRoundTrip(b *testing.B) {
	for _, mode := range []string{"process", "inproc"} {
		b.Run("worker="+mode, func(b *testing.B) { benchWireRoundTrip(b, mode == "inproc") })
	}
}

func benchWireRoundTrip(b *testing.B, inProcess bool) {
	broker := benchWire(b, inProcess)
	p := &hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: "hello, wire"}}}

	b.Run("sequential", func(b *testing.B) {
		for range 100 { // warm the connection and the pools
			if err := wireCall(broker, p); err != nil {
				b.Fatal(err)
			}
		}
		roundtrip.Sequential(b, func() error { return wireCall(broker, p) })
	})

	b.Run("pipelined", func(b *testing.B) {
		// Calls in flight at once: like holler under the HTTP benchmark's concurrency of 16,
		// twice over, and below the worker's default capacity of 64.
		const inFlight = 32
		var next atomic.Int64
		errs := make(chan error, inFlight)
		var wg sync.WaitGroup
		b.ReportAllocs()
		b.ResetTimer()
		for g := range inFlight {
			wg.Go(func() {
				p := &hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: "pipelined " + strconv.Itoa(g)}}}
				for next.Add(1) <= int64(b.N) {
					if err := wireCall(broker, p); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		b.StopTimer()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rt/s")
	})
}

// BenchmarkWireInMemory measures echo round trips broker -> worker -> broker over memconn, one
// call after another: what the broker and the worker loop cost without a transport, the part of
// BenchmarkWireRoundTrip's worker=inproc figures that is not ZeroMQ's.
func BenchmarkWireInMemory(b *testing.B) {
	n := memconn.NewNetwork()
	r, err := n.Listen("gateway", nil)
	if err != nil {
		b.Fatal(err)
	}
	broker := hooteproto.NewBroker(r)
	d := n.Dial("gateway", nil)
	w, err := hooteproto.NewWorker(d, []hootv1hoot.Service{hootv1hoot.NewSystemService(benchEcho{})}, hooteproto.WithName("bench"))
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = broker.Run(ctx) })
	wg.Go(func() { _ = w.Run(ctx) })
	b.Cleanup(func() { cancel(); wg.Wait(); d.Close(); r.Close() })
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	for !slices.Contains(broker.Services(), hootv1hoot.SystemServiceName) {
		select {
		case <-broker.Changed():
		case <-wctx.Done():
			b.Fatal("the worker never became live")
		}
	}
	p := &hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: "hello, wire"}}}
	for range 100 { // warm the pools
		if err := wireCall(broker, p); err != nil {
			b.Fatal(err)
		}
	}
	roundtrip.Sequential(b, func() error { return wireCall(broker, p) })
}
