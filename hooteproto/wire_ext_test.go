package hooteproto_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/memconn"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
	"google.golang.org/protobuf/proto"
)

const (
	hb       = 250 * time.Millisecond
	liveness = 3
)

// echoer is a system service whose echo can block, fail, report progress or panic on request.
type echoer struct {
	name      string
	started   chan string
	cancelled chan string
	deadline  chan time.Duration
}

func newEchoer(name string) *echoer {
	return &echoer{name: name, started: make(chan string, 1024), cancelled: make(chan string, 16), deadline: make(chan time.Duration, 1)}
}

func (e *echoer) Echo(ctx context.Context, req *hootv1.EchoRequest) (*hootv1.EchoResult, error) {
	e.started <- req.GetMessage()
	if dl, ok := ctx.Deadline(); ok {
		select {
		case e.deadline <- time.Until(dl):
		default: // only the first is looked at
		}
	}
	switch req.GetMessage() {
	case "block":
		<-ctx.Done()
		e.cancelled <- req.GetMessage()
		return nil, ctx.Err()
	case "fail":
		return nil, hooteproto.NewError(hooteproto.CodeNotFound, "nothing here").WithField("message").WithHint("try another")
	case "progress":
		for i := 1; i <= 3; i++ {
			hooteproto.ReportProgress(ctx, float64(i), 3, "step")
		}
	case "panic":
		panic("boom")
	case "slow":
		select {
		case <-time.After(300 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &hootv1.EchoResult{Message: req.GetMessage(), Worker: e.name}, nil
}

// waitStarted waits until e has started a call with message msg, skipping others; a call that
// never starts fails the test after 10s instead of hanging it.
func waitStarted(t *testing.T, e *echoer, msg string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-e.started:
			if m == msg {
				return
			}
		case <-timeout:
			t.Fatalf("worker %q never started a call %q", e.name, msg)
		}
	}
}

// A stack is a running broker and the way to connect workers to it. Most tests run it on an
// in-memory connection (memconn), inside a synctest bubble where heartbeats and liveness take
// no real time; those about ZeroMQ itself run it on a socket over TCP on loopback.
type stack struct {
	broker *hooteproto.Broker
	stop   func()
	// dial returns a new connection to the broker, closed when the test ends.
	dial func(t *testing.T) hooteproto.Conn
	// net and router are the in-memory network and the broker's connection, on memconn.
	net    *memconn.Network
	router *memconn.Router
	// sock is the broker's socket, on ZeroMQ.
	sock *zmqtransport.Socket
}

// gatewayAddr is the address of the in-memory broker on its network.
const gatewayAddr = "gateway"

// startBroker runs a broker on a new in-memory network.
func startBroker(t *testing.T, opts ...hooteproto.BrokerOption) *stack {
	t.Helper()
	return startBrokerOn(t, memconn.NewNetwork(), opts...)
}

// startBrokerOn runs a broker at gatewayAddr on n, where workers of an earlier broker find it.
func startBrokerOn(t *testing.T, n *memconn.Network, opts ...hooteproto.BrokerOption) *stack {
	t.Helper()
	r, err := n.Listen(gatewayAddr, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := runBroker(t, r, opts)
	s.net, s.router = n, r
	s.dial = func(t *testing.T) hooteproto.Conn {
		d := n.Dial(gatewayAddr, nil)
		t.Cleanup(func() { d.Close() })
		return d
	}
	return s
}

// startZMQBroker runs a broker on a ZeroMQ socket bound to endpoint.
func startZMQBroker(t *testing.T, endpoint string, opts ...hooteproto.BrokerOption) *stack {
	t.Helper()
	sock, err := zmqtransport.Listen(endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := runBroker(t, sock, opts)
	s.sock = sock
	s.dial = func(t *testing.T) hooteproto.Conn {
		conn, err := zmqtransport.Dial(sock.Endpoint(), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	return s
}

// runBroker runs a broker on conn until the stack's stop, which closes conn, or the test's end.
func runBroker(t *testing.T, conn hooteproto.Conn, opts []hooteproto.BrokerOption) *stack {
	b := hooteproto.NewBroker(conn, append([]hooteproto.BrokerOption{hooteproto.WithHeartbeat(hb, liveness)}, opts...)...)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = b.Run(ctx) })
	s := &stack{broker: b}
	var once sync.Once
	s.stop = func() { once.Do(func() { cancel(); wg.Wait(); conn.Close() }) }
	t.Cleanup(s.stop)
	return s
}

// startWorker runs a worker connected to s until the returned stop is called (or the test
// ends). kill closes its connection without a goodbye, as a crash would.
func startWorker(t *testing.T, s *stack, e *echoer, opts ...hooteproto.WorkerOption) (stop, kill func()) {
	t.Helper()
	conn := s.dial(t)
	w, err := hooteproto.NewWorker(conn, []hootv1hoot.Service{hootv1hoot.NewSystemService(e)},
		append([]hooteproto.WorkerOption{hooteproto.WithHeartbeat(hb, liveness), hooteproto.WithName(e.name)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done; conn.Close() }) }
	kill = func() { once.Do(func() { conn.Close(); cancel(); <-done }) }
	t.Cleanup(stop)
	return stop, kill
}

func waitLive(t *testing.T, b *hooteproto.Broker, service string, want bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		changed := b.Changed()
		live := false
		for _, s := range b.Services() {
			live = live || s == service
		}
		if live == want {
			return
		}
		select {
		case <-changed:
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("service %q live=%v never came", service, want)
}

func echo(msg string) *hootv1.Payload {
	return &hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: msg}}}
}

func call(t *testing.T, b *hooteproto.Broker, ctx context.Context, msg string) (*hootv1.Result, error) {
	t.Helper()
	return b.Call(ctx, hooteproto.Call{Service: hootv1hoot.SystemServiceName, Payload: echo(msg)})
}

// TestWireRoundTrip runs the round trip's checks on the in-memory connection, in a synctest
// bubble; TestWireRoundTripZMQ runs the same over ZeroMQ and TCP.
func TestWireRoundTrip(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		roundTrip(t, startBroker(t), func(name string, f func(t *testing.T)) {
			defer func() {
				if t.Failed() {
					t.Logf("in %q", name)
				}
			}()
			f(t)
		})
	})
}

func TestWireRoundTripZMQ(t *testing.T) {
	t.Parallel()
	roundTrip(t, startZMQBroker(t, "tcp://127.0.0.1:*"), func(name string, f func(t *testing.T)) { t.Run(name, f) })
}

// roundTrip checks calls that succeed, fail, panic, break the schema's rules, report progress,
// are cancelled and run out of time, on a worker connected to s; run runs each check, as a
// subtest where the bubble of synctest allows one.
func roundTrip(t *testing.T, s *stack, run func(name string, f func(t *testing.T))) {
	e := newEchoer("w1")
	startWorker(t, s, e)
	waitLive(t, s.broker, "system", true)

	// A bound for the whole test and its subtests, generous for a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := call(t, s.broker, ctx, "hello")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.GetEcho(); got.GetMessage() != "hello" || got.GetWorker() != "w1" {
		t.Fatalf("result = %v", res)
	}
	// The caller's deadline reached the handler.
	if d := <-e.deadline; d <= 0 || d > 30*time.Second {
		t.Fatalf("handler deadline %v, want within the caller's 30s", d)
	}

	run("handler error becomes a ToolError", func(t *testing.T) {
		res, err := call(t, s.broker, ctx, "fail")
		if err != nil {
			t.Fatal(err)
		}
		te := res.GetError()
		if te.GetCategory() != hootv1.ErrorCategory_ERROR_CATEGORY_NOT_FOUND || te.GetField() != "message" || te.GetHint() != "try another" {
			t.Fatalf("tool error = %v", te)
		}
	})
	run("panic becomes an internal error and the worker lives on", func(t *testing.T) {
		res, err := call(t, s.broker, ctx, "panic")
		if err != nil {
			t.Fatal(err)
		}
		if res.GetError().GetCategory() != hootv1.ErrorCategory_ERROR_CATEGORY_INTERNAL {
			t.Fatalf("result = %v", res)
		}
		if _, err := call(t, s.broker, ctx, "still there"); err != nil {
			t.Fatal(err)
		}
	})
	run("the worker enforces the schema's rules", func(t *testing.T) {
		res, err := call(t, s.broker, ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if te := res.GetError(); te.GetCategory() != hootv1.ErrorCategory_ERROR_CATEGORY_VALIDATION || te.GetField() != "message" {
			t.Fatalf("empty required message: %v", res)
		}
	})
	run("progress reaches the caller in order", func(t *testing.T) {
		var got []float64
		res, err := s.broker.Call(ctx, hooteproto.Call{Service: "system", Payload: echo("progress"), Progress: func(p *hootv1.Progress) { got = append(got, p.GetProgress()) }})
		if err != nil || res.GetEcho() == nil {
			t.Fatalf("res=%v err=%v", res, err)
		}
		if len(got) != 3 || got[0] != 1 || got[2] != 3 {
			t.Fatalf("progress = %v, want [1 2 3]", got)
		}
	})
	run("cancellation reaches the handler", func(t *testing.T) {
		cctx, ccancel := context.WithCancel(ctx)
		errc := make(chan error, 1)
		go func() { _, err := call(t, s.broker, cctx, "block"); errc <- err }()
		waitStarted(t, e, "block")
		ccancel()
		if err := <-errc; hooteproto.CodeOf(err) != hooteproto.CodeCanceled {
			t.Fatalf("err = %v, want canceled", err)
		}
		select {
		case <-e.cancelled:
		case <-time.After(5 * time.Second):
			t.Fatal("the handler never saw the cancellation")
		}
	})
	run("a deadline stops the handler", func(t *testing.T) {
		// Long enough for the request to reach the worker on a loaded machine: a request whose
		// deadline passes while it waits in the broker is never sent, and no handler starts.
		dctx, dcancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer dcancel()
		type answer struct {
			res *hootv1.Result
			err error
		}
		done := make(chan answer, 1)
		go func() { res, err := call(t, s.broker, dctx, "block"); done <- answer{res, err} }()
		for started := false; !started; {
			select {
			case m := <-e.started:
				started = m == "block"
			case a := <-done:
				t.Fatalf("the call ended (%v, %v) before its handler started", a.res, a.err)
			}
		}
		a := <-done
		// The worker's copy of the deadline and the caller's own race: either way it is a timeout.
		if a.err == nil {
			a.err = hooteproto.ErrorFromTool(a.res.GetError())
		}
		if hooteproto.CodeOf(a.err) != hooteproto.CodeDeadlineExceeded {
			t.Fatalf("res = %v, err = %v, want deadline exceeded", a.res, a.err)
		}
		select {
		case <-e.cancelled:
		case <-time.After(5 * time.Second):
			t.Fatal("the handler ran past its deadline")
		}
	})
}

func TestWireNoWorker(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := startBroker(t)
		_, err := call(t, s.broker, context.Background(), "hi")
		var e *hooteproto.Error
		if !errors.As(err, &e) || e.Code() != hooteproto.CodeUnavailable || !strings.Contains(e.Message(), `"system"`) || e.Hint() == "" {
			t.Fatalf("err = %v, want unavailable naming the service, with a hint", err)
		}
	})
}

// A worker that dies mid-request fails the call as retryable and unavailable, and its service
// is no longer live: at once when its link closes, after the missed heartbeats when it only
// falls silent.
func TestWireWorkerDiesMidRequest(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"link closed", "silent"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				s := startBroker(t)
				e := newEchoer("doomed")
				conn := s.dial(t).(*memconn.Dealer)
				startWorkerOn(t, conn, e)
				waitLive(t, s.broker, "system", true)

				errc := make(chan error, 1)
				go func() {
					_, err := call(t, s.broker, context.Background(), "block")
					errc <- err
				}()
				waitStarted(t, e, "block")
				died := time.Now()
				if how == "silent" {
					conn.SetSilent(true)
				} else {
					conn.Close() // as a process that dies: no goodbye
				}
				err := <-errc
				var he *hooteproto.Error
				if !errors.As(err, &he) || he.Code() != hooteproto.CodeUnavailable || !he.Retryable() {
					t.Fatalf("err = %v, want a retryable unavailable error", err)
				}
				// In the bubble, time passes only while every goroutine waits: the call ended
				// when the broker's own timers said, not when a loaded machine got round to it.
				took := time.Since(died)
				silence := hb * liveness
				switch {
				case how == "silent" && (took <= silence || took > silence+hb):
					t.Fatalf("the silent worker was given up %v after it fell silent, want within one heartbeat after %v", took, silence)
				case how == "link closed" && took != 0:
					t.Fatalf("the closed link was noticed %v after it closed, want at once", took)
				}
				waitLive(t, s.broker, "system", false)
			})
		})
	}
}

// startWorkerOn runs a worker for e on conn, as startWorker does.
func startWorkerOn(t *testing.T, conn hooteproto.Conn, e *echoer, opts ...hooteproto.WorkerOption) (stop, kill func()) {
	t.Helper()
	return startWorker(t, &stack{dial: func(*testing.T) hooteproto.Conn { return conn }}, e, opts...)
}

func TestWireWorkerReturnsAfterGatewayRestart(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// The worker's connection dials the gateway's address, and reaches the new gateway there
		// by itself.
		first := startBroker(t)
		startWorker(t, first, newEchoer("w"))
		waitLive(t, first.broker, "system", true)
		first.stop()

		second := startBrokerOn(t, first.net)
		waitLive(t, second.broker, "system", true)
		res, err := call(t, second.broker, context.Background(), "again")
		if err != nil || res.GetEcho().GetMessage() != "again" {
			t.Fatalf("res=%v err=%v", res, err)
		}
	})
}

func TestWireQueueAndOverload(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// One worker that runs one call at a time, and room for one more call to wait.
		s := startBroker(t, hooteproto.WithQueue(1))
		e := newEchoer("single")
		startWorker(t, s, e, hooteproto.WithCapacity(1))
		waitLive(t, s.broker, "system", true)

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		firstCtx, stopFirst := context.WithCancel(ctx)
		first := make(chan error, 1)
		go func() { _, err := call(t, s.broker, firstCtx, "block"); first <- err }()
		waitStarted(t, e, "block")
		queued := make(chan *hootv1.Result, 1)
		go func() { res, _ := call(t, s.broker, ctx, "queued"); queued <- res }()
		synctest.Wait() // the second call waits for the worker
		if n := s.broker.Waiting(); n != 1 {
			t.Fatalf("%d calls waiting, want the second one", n)
		}
		// The third call finds the worker busy and the queue full: it is refused at once. (Had it
		// waited for a slot, it would have waited for the blocked call, that is until its deadline.)
		_, err := call(t, s.broker, ctx, "third")
		var he *hooteproto.Error
		if !errors.As(err, &he) || he.Code() != hooteproto.CodeOverloaded || he.RetryAfter() <= 0 || !he.Retryable() {
			t.Fatalf("third call: %v, want overloaded with a retry-after", err)
		}
		stopFirst()
		if err := <-first; hooteproto.CodeOf(err) != hooteproto.CodeCanceled {
			t.Fatalf("first call: %v", err)
		}
		// The waiting call ran once the slot was free.
		if res := <-queued; res.GetEcho().GetMessage() != "queued" {
			t.Fatalf("queued call = %v", res)
		}
	})
}

func TestWireLeastLoaded(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := startBroker(t)
		a, b := newEchoer("a"), newEchoer("b")
		startWorker(t, s, a)
		startWorker(t, s, b)
		synctest.Wait() // both have announced themselves
		if st := s.broker.Stats(); len(st.Services) != 1 || st.Services[0].Workers != 2 {
			t.Fatalf("services %+v, want system with two workers", st.Services)
		}
		// Two calls at once go to two workers: each goes to the least loaded one.
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 2)
		for range 2 {
			go func() { _, err := call(t, s.broker, ctx, "block"); errc <- err }()
		}
		waitStarted(t, a, "block")
		waitStarted(t, b, "block")
		cancel()
		<-errc
		<-errc
	})
}

func TestWireDrain(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := startBroker(t)
		e := newEchoer("leaving")
		stop, _ := startWorker(t, s, e)
		waitLive(t, s.broker, "system", true)

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		errc := make(chan error, 1)
		go func() {
			res, err := call(t, s.broker, ctx, "slow")
			if err == nil && res.GetEcho().GetMessage() != "slow" {
				err = errors.New("wrong result: " + res.String())
			}
			errc <- err
		}()
		waitStarted(t, e, "slow")
		// Stopping the worker lets the running call finish instead of cutting it off.
		stop()
		if err := <-errc; err != nil {
			t.Fatalf("a call running while its worker drained: %v", err)
		}
		waitLive(t, s.broker, "system", false)
	})
}

func TestWireResendWhenRefusedWhileDraining(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := startBroker(t)
		leaving, staying := newEchoer("leaving"), newEchoer("staying")
		stopLeaving, _ := startWorker(t, s, leaving)
		waitLive(t, s.broker, "system", true)

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// Keep the leaving worker busy so its drain lasts a while, then stop it. The staying worker
		// starts only once the slow call runs: started before, it could take that call itself.
		go func() { _, _ = call(t, s.broker, ctx, "slow") }()
		waitStarted(t, leaving, "slow")
		startWorker(t, s, staying)
		synctest.Wait() // the staying worker has announced itself
		if st := s.broker.Stats(); len(st.Services) != 1 || st.Services[0].Workers != 2 {
			t.Fatalf("services %+v, want system with two workers", st.Services)
		}
		// The leaving worker is busy, so the staying one, the least loaded, takes the next call.
		if res, err := call(t, s.broker, ctx, "ping"); err != nil || res.GetEcho().GetWorker() != "staying" {
			t.Fatalf("a call while the leaving worker is busy: %v, %v; want the staying worker's answer", res, err)
		}
		stopped := make(chan struct{})
		go func() { stopLeaving(); close(stopped) }()
		// Every call made meanwhile is answered, by the worker that stays.
		for i := range 20 {
			res, err := call(t, s.broker, ctx, "ping")
			if err != nil {
				t.Fatalf("call %d during the drain: %v", i, err)
			}
			if te := res.GetError(); te != nil {
				t.Fatalf("call %d during the drain: %v", i, te)
			}
		}
		<-stopped
	})
}

// Garbage from a peer is dropped by the connection's decoder, and a well-formed frame from a
// peer that never said READY gets no work and changes nothing: the broker serves on. (The ZeroMQ
// transport's own handling of such peers, with bans, is tested in zmqtransport and TestFaults.)
func TestWireGarbageFromAPeer(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := startBroker(t)
		startWorker(t, s, newEchoer("w"))
		waitLive(t, s.broker, "system", true)

		rogue := s.dial(t).(*memconn.Dealer)
		garbage := [][]byte{[]byte("GET / HTTP/1.1"), {0xff}, {}, []byte("HOOT/1")}
		for _, g := range garbage {
			if err := rogue.SendRaw(g); err != nil {
				t.Fatal(err)
			}
		}
		f := hooteproto.Frame{Command: hooteproto.CommandReply, ID: hooteproto.NewRequestID(), Body: []byte{0xff, 0xff}}
		if err := rogue.Send(t.Context(), f); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := s.router.Malformed(); got != uint64(len(garbage)) {
			t.Fatalf("malformed frames counted = %d, want %d", got, len(garbage))
		}
		if st := s.broker.Stats(); len(st.Services) != 1 || st.Services[0].Workers != 1 || st.Services[0].InFlight != 0 {
			t.Fatalf("after garbage: %+v", st.Services)
		}
		res, err := call(t, s.broker, context.Background(), "fine")
		if err != nil || res.GetEcho().GetMessage() != "fine" {
			t.Fatalf("after garbage: res=%v err=%v", res, err)
		}
	})
}

func TestWireSlowerWorkerHeartbeatIsHonoured(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := startBroker(t)
		// The worker beats four times slower than the broker: by the broker's own interval it would
		// look dead after 3 intervals; by its announced one it is alive.
		startWorker(t, s, newEchoer("slow-beat"), hooteproto.WithHeartbeat(4*hb, liveness))
		waitLive(t, s.broker, "system", true)
		changed := s.broker.Changed()
		select {
		case <-changed:
			t.Fatalf("the worker was dropped (live services now %v)", s.broker.Services())
		case <-time.After(12 * hb):
		}
		if res, err := call(t, s.broker, context.Background(), "still here"); err != nil || res.GetEcho() == nil {
			t.Fatalf("res=%v err=%v", res, err)
		}
		if st := s.broker.Stats(); st.HeartbeatsMissed != 0 {
			t.Fatalf("heartbeats missed: %d", st.HeartbeatsMissed)
		}
	})
}

// rawPeer connects a bare connection to the broker of s, as a worker's would be but with no
// Worker on it: the test sends its frames itself and reads what the broker sends in got
// (buffered for n frames). ctx, the test's deadline of 20 s, ends the connection's Serve.
func rawPeer(t *testing.T, s *stack, n int) (ctx context.Context, conn hooteproto.Conn, got frames) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	conn = s.dial(t)
	got = make(frames, n)
	done := make(chan struct{})
	go func() { defer close(done); _ = conn.Serve(ctx, got) }()
	t.Cleanup(func() { cancel(); <-done })
	return ctx, conn, got
}

// frames is a Handler that passes on what a connection receives.
type frames chan hooteproto.Frame

func (c frames) HandleFrame(f hooteproto.Frame)     { c <- f }
func (c frames) SendFailed(hooteproto.Frame, error) {}

// A worker that falls silent is dropped and its calls fail; should it only have been slow, it
// is told to stop those that will not be sent again (artifact_create is not idempotent), so
// that they do not run on for nobody.
func TestSilentWorkerIsToldToStop(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := startBroker(t)
		ctx, conn, got := rawPeer(t, s, 16)
		ready, err := proto.Marshal(&hootv1.Ready{Services: []string{hootv1hoot.ArtifactServiceName}, Capacity: 1, Name: "mute", HeartbeatMs: uint32(hb.Milliseconds())})
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.Send(ctx, hooteproto.Frame{Command: hooteproto.CommandReady, Body: ready}); err != nil {
			t.Fatal(err)
		}
		waitLive(t, s.broker, hootv1hoot.ArtifactServiceName, true)

		create := &hootv1.Payload{Request: &hootv1.Payload_ArtifactCreate{ArtifactCreate: &hootv1.ArtifactCreateRequest{
			Source: &hootv1.ArtifactCreateRequest_Content{Content: "never answered"}}}}
		_, err = s.broker.Call(ctx, hooteproto.Call{Service: hootv1hoot.ArtifactServiceName, Payload: create})
		if hooteproto.CodeOf(err) != hooteproto.CodeUnavailable || !strings.Contains(err.Error(), "heartbeats") {
			t.Fatalf("call to a silent worker: %v, want unavailable for missed heartbeats", err)
		}
		var request hooteproto.RequestID
		for {
			select {
			case f := <-got:
				switch f.Command {
				case hooteproto.CommandRequest:
					request = f.ID
				case hooteproto.CommandCancel:
					if f.ID != request {
						t.Fatalf("CANCEL for %v, want the request %v", f.ID, request)
					}
					return
				}
			case <-ctx.Done():
				t.Fatal("the silent worker was never told to stop its call")
			}
		}
	})
}

// A peer the broker does not know is told DISCONNECT, so that a worker forgotten by a restarted
// gateway announces itself again; a peer that keeps sending is told once per heartbeat
// interval, not once per frame.
func TestUnknownPeerIsToldOncePerInterval(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := startBroker(t)
		ctx, conn, got := rawPeer(t, s, 1024)
		told := func() (n int) {
			synctest.Wait() // the broker has read every frame and answered
			for len(got) > 0 {
				if f := <-got; f.Command == hooteproto.CommandDisconnect {
					n++
				}
			}
			return n
		}
		beat := func(n int) {
			for range n {
				if err := conn.Send(ctx, hooteproto.Frame{Command: hooteproto.CommandHeartbeat}); err != nil {
					t.Fatal(err)
				}
			}
		}
		// The bubble's clock stands still while the test sends: 200 frames in one instant.
		beat(200)
		if n := told(); n != 1 {
			t.Fatalf("told DISCONNECT %d times for 200 frames within one heartbeat interval, want once", n)
		}
		time.Sleep(hb / 2)
		beat(10)
		if n := told(); n != 0 {
			t.Fatalf("told DISCONNECT %d more times half an interval later, want none", n)
		}
		time.Sleep(hb / 2)
		beat(10)
		if n := told(); n != 1 {
			t.Fatalf("told DISCONNECT %d times once the interval had passed, want once", n)
		}
	})
}

// Run returns when its connection closes, not only when its context ends, whether the
// connection closes while Run serves or before it begins.
func TestBrokerRunReturnsWhenTheConnectionCloses(t *testing.T) {
	t.Parallel()
	for _, serving := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			r, err := memconn.NewNetwork().Listen(gatewayAddr, nil)
			if err != nil {
				t.Fatal(err)
			}
			b := hooteproto.NewBroker(r, hooteproto.WithHeartbeat(hb, liveness))
			if !serving {
				r.Close()
			}
			done := make(chan error, 1)
			go func() { done <- b.Run(context.Background()) }()
			if serving {
				synctest.Wait() // Run serves
				r.Close()
			}
			if err := <-done; err != nil {
				t.Fatalf("serving %v: Run = %v, want nil after the connection closed", serving, err)
			}
		})
	}
}

// Run over ZeroMQ returns when its socket closes.
func TestBrokerRunReturnsWhenTheSocketCloses(t *testing.T) {
	t.Parallel()
	sock, err := zmqtransport.Listen("tcp://127.0.0.1:*", nil)
	if err != nil {
		t.Fatal(err)
	}
	b := hooteproto.NewBroker(sock, hooteproto.WithHeartbeat(hb, liveness))
	done := make(chan error, 1)
	go func() { done <- b.Run(context.Background()) }()
	sock.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v, want nil after the connection closed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run still runs 10 s after its connection closed")
	}
}
