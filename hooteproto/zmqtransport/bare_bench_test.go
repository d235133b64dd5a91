package zmqtransport_test

import (
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hooteproto/internal/roundtrip"
	zmq "github.com/pebbe/zmq4"
)

// bareEchoEnv names the endpoint the echo process of BenchmarkBareZeroMQ connects to.
const bareEchoEnv = "ZMQTRANSPORT_BARE_ECHO"

// TestBareEchoProcess is not a test: it is the echo process of BenchmarkBareZeroMQ, which runs
// this test binary again with bareEchoEnv set. It sends every message back, with blocking
// calls into ZeroMQ and nothing else, until its standard input closes.
func TestBareEchoProcess(t *testing.T) {
	endpoint := os.Getenv(bareEchoEnv)
	if endpoint == "" {
		t.Skip("the echo process of BenchmarkBareZeroMQ; it runs only when that benchmark starts it")
	}
	sock, err := zmq.NewSocket(zmq.DEALER)
	if err != nil {
		t.Fatal(err)
	}
	if err := sock.Connect(endpoint); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); os.Exit(0) }()
	if _, err := sock.SendBytes([]byte("hello"), 0); err != nil {
		t.Fatal(err)
	}
	for {
		msg, err := sock.RecvBytes(0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sock.SendBytes(msg, 0); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkBareZeroMQ is the floor under BenchmarkWireRoundTrip of package hooteproto: a
// ROUTER and a DEALER in a process of its own, on loopback TCP through the same binding, each
// blocked in ZeroMQ's receive, sending a message of the size of an echo call's frame back and
// forth: one after another ("sequential", p50-µs) and 32 in flight ("pipelined"). Nothing of
// the project is on the path, so the difference to the wire's figures is what the transport,
// the broker and the worker add.
func BenchmarkBareZeroMQ(b *testing.B) {
	router, err := zmq.NewSocket(zmq.ROUTER)
	if err != nil {
		b.Fatal(err)
	}
	defer router.Close()
	if err := router.Bind("tcp://127.0.0.1:*"); err != nil {
		b.Fatal(err)
	}
	endpoint, err := router.GetLastEndpoint()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBareEchoProcess$")
	cmd.Env = append(os.Environ(), bareEchoEnv+"="+endpoint)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	peer, err := router.RecvBytes(0)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := router.RecvBytes(0); err != nil { // the hello
		b.Fatal(err)
	}
	// About the size of an echo REQUEST frame with its traceparent.
	msg := make([]byte, 120)
	send := func() {
		if _, err := router.SendBytes(peer, zmq.SNDMORE); err != nil {
			b.Fatal(err)
		}
		if _, err := router.SendBytes(msg, 0); err != nil {
			b.Fatal(err)
		}
	}
	recv := func() {
		for range 2 { // the peer's identity, then the message
			if _, err := router.RecvBytes(0); err != nil {
				b.Fatal(err)
			}
		}
	}
	for range 100 {
		send()
		recv()
	}

	b.Run("sequential", func(b *testing.B) {
		roundtrip.Sequential(b, func() error { send(); recv(); return nil })
	})
	b.Run("pipelined", func(b *testing.B) {
		const inFlight = 32
		sent := 0
		for ; sent < min(inFlight, b.N); sent++ {
			send()
		}
		for range b.N {
			recv()
			if sent < b.N {
				send()
				sent++
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rt/s")
	})
}
