//go:build linux

package hooteproto_test

// The fault tests run real worker processes (internal/testworker, built once per run) against
// an in-process broker on a real ZeroMQ socket, and break things the way production does: kill
// -9, restarts, a slow worker, a gateway restart, a rogue peer, overload, keys that do not fit.
// Each checks that nothing is lost: every call ends with its result or a specific error, in
// bounded time.
//
// They live here rather than in holler/e2e because every fault is a property of the wire
// (broker, worker loop, transport), best seen through Broker.Call's typed errors (code,
// retryable, retry-after), which the MCP layer would flatten into JSON.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/curvekey"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
	zmq "github.com/pebbe/zmq4"
)

// A short heartbeat, so that a lost worker is noticed within faultSilence.
const (
	faultHB       = 100 * time.Millisecond
	faultLiveness = 3
	faultSilence  = faultHB * faultLiveness
)

func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs worker processes")
	}
	bin := buildTestWorker(t)
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, bin string)
	}{
		{"kill -9 mid-request, then restart", faultKillAndRestart},
		{"kill -9 mid-request beside a live worker", faultKillBesideSurvivor},
		{"kill -9 with calls waiting in the queue", faultKillWithQueue},
		{"kill -9 of one of two workers under load", faultKillUnderLoad},
		{"two workers share the load", faultShareLoad},
		{"a slow worker does not block the others", faultSlowWorker},
		{"gateway restart, workers come back", faultGatewayRestart},
		{"rogue peer with garbage and oversized frames", faultRoguePeer},
		{"overload gives fast retry-after errors", faultOverload},
		{"curve keys between processes", faultCurve},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, bin)
		})
	}
}

func buildTestWorker(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "testworker")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/hootenanny/hoot/hooteproto/internal/testworker").CombinedOutput()
	if err != nil {
		t.Fatalf("build the test worker: %v\n%s", err, out)
	}
	return bin
}

// faultKillAndRestart: calls running on a worker killed with SIGKILL fail fast with a
// retryable unavailable error; a new worker process brings the service back.
func faultKillAndRestart(t *testing.T, bin string) {
	g := startFaultGateway(t, "tcp://127.0.0.1:*", nil)
	w := startFaultWorker(t, bin, g.endpoint, "doomed")
	waitWorkers(t, g.broker, "doomed")

	const inflight = 3
	type outcome struct {
		err error
		at  time.Time
	}
	outcomes := make(chan outcome, inflight)
	var msgs []string
	for i := range inflight {
		msg := fmt.Sprintf("sleep:30s/%d", i)
		msgs = append(msgs, msg)
		go func() {
			_, err := faultCall(g.broker, 30*time.Second, msg)
			outcomes <- outcome{err, time.Now()}
		}()
	}
	w.waitStarted(t, msgs...)
	killed := time.Now()
	w.kill()

	// Noticed after faultSilence without a heartbeat, checked every faultHB; the rest is slack
	// for a loaded machine. Without the heartbeat the calls would wait their 30 seconds.
	bound := faultSilence + 2*faultHB + 1500*time.Millisecond
	timeout := time.After(bound)
	for range inflight {
		select {
		case o := <-outcomes:
			var he *hooteproto.Error
			if !errors.As(o.err, &he) || he.Code() != hooteproto.CodeUnavailable || !he.Retryable() {
				t.Fatalf("a call on the killed worker ended with %v, want a retryable unavailable error", o.err)
			}
			t.Logf("a call on the killed worker failed %v after the kill (silence %v)", o.at.Sub(killed).Round(time.Millisecond), faultSilence)
		case <-timeout:
			t.Fatalf("calls on the killed worker still waiting %v after the kill", bound)
		}
	}

	startFaultWorker(t, bin, g.endpoint, "reborn")
	waitWorkers(t, g.broker, "reborn")
	res, err := faultCall(g.broker, 5*time.Second, "after the restart")
	if err != nil || res.GetWorker() != "reborn" || res.GetMessage() != "after the restart" {
		t.Fatalf("after the restart: res=%v err=%v", res, err)
	}
}

// faultKillBesideSurvivor: calls of an idempotent tool (echo) running on a killed worker end
// either with the answer of the worker that is left, which they were re-sent to, or with a
// retryable unavailable error; none is lost and none hangs.
func faultKillBesideSurvivor(t *testing.T, bin string) {
	g := startFaultGateway(t, "tcp://127.0.0.1:*", nil)
	doomed := startFaultWorker(t, bin, g.endpoint, "doomed")
	waitWorkers(t, g.broker, "doomed")
	const inflight = 3
	type outcome struct {
		msg string
		res *hootv1.EchoResult
		err error
	}
	outcomes := make(chan outcome, inflight)
	var msgs []string
	for i := range inflight {
		msg := fmt.Sprintf("sleep:500ms/%d", i)
		msgs = append(msgs, msg)
		go func() {
			res, err := faultCall(g.broker, 30*time.Second, msg)
			outcomes <- outcome{msg, res, err}
		}()
	}
	doomed.waitStarted(t, msgs...)
	survivor := startFaultWorker(t, bin, g.endpoint, "survivor")
	waitWorkers(t, g.broker, "survivor")
	doomed.kill()

	var resent []string
	timeout := time.After(5 * time.Second)
	for range inflight {
		select {
		case o := <-outcomes:
			var he *hooteproto.Error
			switch {
			case o.err == nil && o.res.GetWorker() == "survivor" && o.res.GetMessage() == o.msg:
				resent = append(resent, o.msg)
			case errors.As(o.err, &he) && he.Code() == hooteproto.CodeUnavailable && he.Retryable():
			default:
				t.Fatalf("call %q ended with res=%v err=%v; want the survivor's answer or a retryable unavailable error", o.msg, o.res, o.err)
			}
		case <-timeout:
			t.Fatal("calls of the killed worker still waiting after 5s")
		}
	}
	t.Logf("%d of %d calls of the killed worker were re-sent to the survivor", len(resent), inflight)
	if len(resent) > 0 {
		survivor.waitStarted(t, resent...)
	}
}

// faultKillUnderLoad: while calls of an idempotent tool (echo) flow to two workers, one is
// killed with SIGKILL. Heartbeats are slow here (a lost worker would be noticed by its silence
// only after 15 seconds), so the broker must learn of the death from the closed link itself:
// every call succeeds, those in flight on the dead worker on the survivor, none waits for the
// heartbeats, none is sent back to the dead worker, and none runs twice on the survivor.
func faultKillUnderLoad(t *testing.T, bin string) {
	const hb, liveness = 5 * time.Second, 3
	g := startFaultGateway(t, "tcp://127.0.0.1:*", nil, hooteproto.WithHeartbeat(hb, liveness))
	slow := []string{"--heartbeat", hb.String(), "--liveness", fmt.Sprint(liveness)}
	doomed := startFaultWorker(t, bin, g.endpoint, "doomed", slow...)
	survivor := startFaultWorker(t, bin, g.endpoint, "survivor", slow...)
	waitWorkers(t, g.broker, "doomed", "survivor")

	type outcome struct {
		msg   string
		res   *hootv1.EchoResult
		err   error
		took  time.Duration
		ended time.Time
	}
	const callers = 8
	var (
		mu       sync.Mutex
		outcomes []outcome
		// lastEnded is when each caller's latest call ended.
		lastEnded [callers]time.Time
		stop      = make(chan struct{})
		wg        sync.WaitGroup
	)
	for c := range callers {
		wg.Go(func() {
			for i := 0; i < 10000; i++ { // bounded; stop ends it long before
				select {
				case <-stop:
					return
				default:
				}
				msg := fmt.Sprintf("quick/%d/%d", c, i)
				if i%4 == 0 {
					msg = fmt.Sprintf("sleep:200ms/%d/%d", c, i)
				}
				start := time.Now()
				res, err := faultCall(g.broker, 30*time.Second, msg)
				mu.Lock()
				outcomes = append(outcomes, outcome{msg, res, err, time.Since(start), time.Now()})
				lastEnded[c] = time.Now()
				mu.Unlock()
			}
		})
	}
	// The load reaches both workers before the kill.
	answeredBy := func(worker string, after time.Time) (n int) {
		mu.Lock()
		defer mu.Unlock()
		for _, o := range outcomes {
			if o.err == nil && o.res.GetWorker() == worker && o.ended.After(after) {
				n++
			}
		}
		return n
	}
	began := time.Now()
	faultEventually(t, "both workers answer calls", func() bool {
		return answeredBy("doomed", began) >= callers && answeredBy("survivor", began) >= callers
	})
	doomed.kill()
	killed := time.Now()
	// Every caller ends a call after the kill: the calls in flight on the dead worker have
	// ended, and each caller has gone on to another. A call that waited for the heartbeats
	// would keep its caller from it for 15 seconds.
	faultEventually(t, "every caller ends a call after the kill", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, at := range lastEnded {
			if !at.After(killed) {
				return false
			}
		}
		return true
	})
	close(stop)
	wg.Wait()

	// The calls in flight on the dead worker wait for the broker to notice; without the
	// closed link they would wait for the next heartbeat (5s) or the silence (15s).
	const bound = 2500 * time.Millisecond
	var after, onDoomedBefore int
	for _, o := range outcomes {
		if o.err != nil {
			t.Errorf("call %q failed after %v: %v", o.msg, o.took.Round(time.Millisecond), o.err)
			continue
		}
		if o.res.GetMessage() != o.msg {
			t.Errorf("call %q answered %q", o.msg, o.res.GetMessage())
		}
		if o.took > bound {
			t.Errorf("call %q took %v, over %v: it waited for the heartbeats", o.msg, o.took.Round(time.Millisecond), bound)
		}
		if o.ended.After(killed) {
			after++
			if o.res.GetWorker() == "doomed" && o.ended.Sub(killed) > bound {
				t.Errorf("call %q was answered by the dead worker %v after the kill", o.msg, o.ended.Sub(killed))
			}
		} else if o.res.GetWorker() == "doomed" {
			onDoomedBefore++
		}
	}
	if onDoomedBefore == 0 || after < callers {
		t.Fatalf("the load did not reach both workers: %d calls answered by the doomed worker before the kill, %d ended after it", onDoomedBefore, after)
	}
	if twice := survivor.startedTwice(); len(twice) > 0 {
		t.Errorf("calls run twice on the survivor: %v", twice)
	}
	t.Logf("%d calls, %d ended after the kill, all answered", len(outcomes), after)
}

// faultKillWithQueue: when the only worker of a service dies, the call it ran and the calls
// waiting for it all fail fast as unavailable, rather than wait out their deadlines.
func faultKillWithQueue(t *testing.T, bin string) {
	g := startFaultGateway(t, "tcp://127.0.0.1:*", nil, hooteproto.WithQueue(4))
	// A service may have as many calls waiting as its workers run at once: four and four.
	w := startFaultWorker(t, bin, g.endpoint, "single", "--capacity", "4")
	waitWorkers(t, g.broker, "single")
	const n = 8 // four running, four waiting
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := faultCall(g.broker, 30*time.Second, fmt.Sprintf("sleep:30s/%d", i))
			errs <- err
		}()
	}
	faultEventually(t, "four calls running and four waiting", func() bool { return g.broker.Waiting() == 4 })
	killed := time.Now()
	w.kill()
	bound := faultSilence + 2*faultHB + 1500*time.Millisecond
	timeout := time.After(bound)
	for range n {
		select {
		case err := <-errs:
			var he *hooteproto.Error
			if !errors.As(err, &he) || he.Code() != hooteproto.CodeUnavailable || !he.Retryable() {
				t.Fatalf("a call ended with %v, want a retryable unavailable error", err)
			}
		case <-timeout:
			t.Fatalf("calls still waiting %v after their only worker was killed", bound)
		}
	}
	t.Logf("all %d calls failed within %v of the kill", n, time.Since(killed).Round(time.Millisecond))
}

// faultShareLoad: concurrent calls spread over two workers, and each is answered once.
func faultShareLoad(t *testing.T, bin string) {
	g := startFaultGateway(t, "tcp://127.0.0.1:*", nil)
	startFaultWorker(t, bin, g.endpoint, "left")
	startFaultWorker(t, bin, g.endpoint, "right")
	waitWorkers(t, g.broker, "left", "right")

	const n = 24
	results := make(chan *hootv1.EchoResult, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, err := faultCall(g.broker, 10*time.Second, fmt.Sprintf("sleep:100ms/%d", i))
			if err != nil {
				errs <- err
				return
			}
			results <- res
		})
	}
	wg.Wait()
	close(results)
	close(errs)
	for err := range errs {
		t.Errorf("call failed: %v", err)
	}
	served := map[string]int{}
	seen := map[string]bool{}
	for res := range results {
		if seen[res.GetMessage()] {
			t.Errorf("%q answered twice", res.GetMessage())
		}
		seen[res.GetMessage()] = true
		served[res.GetWorker()]++
	}
	t.Logf("served: %v", served)
	if len(seen) != n || served["left"] == 0 || served["right"] == 0 {
		t.Fatalf("%d of %d calls answered, by %v; want all, by both workers", len(seen), n, served)
	}
}

// faultSlowWorker: while one worker is busy with a long call, quick calls are answered by the
// other at once.
func faultSlowWorker(t *testing.T, bin string) {
	g := startFaultGateway(t, "tcp://127.0.0.1:*", nil)
	workers := map[string]*faultWorker{
		"tortoise": startFaultWorker(t, bin, g.endpoint, "tortoise"),
		"hare":     startFaultWorker(t, bin, g.endpoint, "hare"),
	}
	waitWorkers(t, g.broker, "tortoise", "hare")

	ctx, cancel := context.WithCancel(context.Background())
	long := make(chan error, 1)
	go func() {
		_, err := g.broker.Call(ctx, hooteproto.Call{Service: hootv1hoot.SystemServiceName, Payload: faultEcho("sleep:30s/long")})
		long <- err
	}()
	var slow string
	faultEventually(t, "the long call starts", func() bool {
		for name, w := range workers {
			if w.hasStarted("sleep:30s/long") {
				slow = name
			}
		}
		return slow != ""
	})
	for i := range 10 {
		res, err := faultCall(g.broker, 5*time.Second, fmt.Sprintf("quick/%d", i))
		if err != nil {
			t.Fatalf("quick call %d: %v", i, err)
		}
		if res.GetWorker() == slow {
			t.Fatalf("quick call %d went to the busy worker %s, not the free one", i, slow)
		}
	}
	select {
	case err := <-long:
		t.Fatalf("the long call ended early: %v", err)
	default:
	}
	cancel()
	if err := <-long; hooteproto.CodeOf(err) != hooteproto.CodeCanceled {
		t.Fatalf("the long call: %v, want canceled", err)
	}
}

// faultGatewayRestart: a call in flight when the gateway stops fails as unavailable; the
// workers find the new gateway on the same endpoint by themselves.
func faultGatewayRestart(t *testing.T, bin string) {
	first := startFaultGateway(t, "tcp://127.0.0.1:*", nil)
	endpoint := first.endpoint
	w1 := startFaultWorker(t, bin, endpoint, "one")
	w2 := startFaultWorker(t, bin, endpoint, "two")
	waitWorkers(t, first.broker, "one", "two")

	inflight := make(chan error, 1)
	go func() {
		_, err := faultCall(first.broker, 30*time.Second, "sleep:30s/inflight")
		inflight <- err
	}()
	faultEventually(t, "the call starts", func() bool {
		return w1.hasStarted("sleep:30s/inflight") || w2.hasStarted("sleep:30s/inflight")
	})
	first.stop()
	select {
	case err := <-inflight:
		var he *hooteproto.Error
		if !errors.As(err, &he) || he.Code() != hooteproto.CodeUnavailable || !he.Retryable() {
			t.Fatalf("the call in flight: %v, want a retryable unavailable error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call in flight outlived its gateway")
	}

	second := startFaultGateway(t, endpoint, nil)
	restarted := time.Now()
	waitWorkers(t, second.broker, "one", "two")
	t.Logf("both workers back %v after the restart", time.Since(restarted).Round(time.Millisecond))
	for i := range 5 {
		if _, err := faultCall(second.broker, 5*time.Second, fmt.Sprintf("again/%d", i)); err != nil {
			t.Fatalf("call %d to the new gateway: %v", i, err)
		}
	}
}

// faultRoguePeer: a peer that sends garbage, oversized frames and messages over ZeroMQ's limit
// is banned and its frames dropped, while the gateway and a real worker go on serving.
func faultRoguePeer(t *testing.T, bin string) {
	const maxBody = 64 << 10
	g := startFaultGateway(t, "tcp://127.0.0.1:*", &zmqtransport.Options{MaxBody: maxBody})
	w := startFaultWorker(t, bin, g.endpoint, "steady")
	waitWorkers(t, g.broker, "steady")

	const calls = 30
	errc := make(chan error, 1)
	go func() {
		for i := range calls {
			res, err := faultCall(g.broker, 5*time.Second, fmt.Sprintf("sleep:5ms/%d", i))
			if err == nil && res.GetWorker() != "steady" {
				err = fmt.Errorf("answered by %q", res.GetWorker())
			}
			if err != nil {
				errc <- fmt.Errorf("call %d: %w", i, err)
				return
			}
		}
		errc <- nil
	}()

	zctx, err := zmq.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	defer zctx.Term()
	newRogue := func() *zmq.Socket {
		s, err := zctx.NewSocket(zmq.DEALER)
		if err != nil {
			t.Fatal(err)
		}
		s.SetLinger(0)
		if err := s.Connect(g.endpoint); err != nil {
			t.Fatal(err)
		}
		return s
	}
	garbler, fat, giant := newRogue(), newRogue(), newRogue()
	defer garbler.Close()
	defer fat.Close()
	defer giant.Close()
	hbFrame := hooteproto.Frame{Command: hooteproto.CommandHeartbeat}
	for _, msg := range [][][]byte{
		{[]byte("GET / HTTP/1.1\r\n\r\n")},
		{[]byte("HOOT/0"), {1}, nil, nil, nil, nil},
		{[]byte(hooteproto.Protocol), {99}, nil, nil, nil, nil},
		{[]byte(hooteproto.Protocol), {byte(hooteproto.CommandReply)}, []byte("short id"), nil, nil, nil},
		{[]byte(hooteproto.Protocol), {byte(hooteproto.CommandReady)}, nil, []byte("BAD SERVICE"), nil, nil, []byte("seventh")},
		hbFrame.Parts(), // banned by now: dropped unread
	} {
		if _, err := garbler.SendMessage(msg); err != nil {
			t.Fatal(err)
		}
	}
	// One frame over the body limit bans at once.
	oversized := hooteproto.Frame{Command: hooteproto.CommandReply, ID: hooteproto.NewRequestID(), Body: make([]byte, maxBody+100)}
	for _, parts := range [][][]byte{oversized.Parts(), hbFrame.Parts()} {
		if _, err := fat.SendMessage(parts); err != nil {
			t.Fatal(err)
		}
	}
	// One over ZeroMQ's own message limit never reaches the owner: ZeroMQ drops the connection.
	huge := hooteproto.Frame{Command: hooteproto.CommandReply, ID: hooteproto.NewRequestID(), Body: make([]byte, 8*maxBody)}
	if _, err := giant.SendMessage(huge.Parts()); err != nil {
		t.Fatal(err)
	}

	// The garbler: 4 malformed frames (banned at the 4th), then 2 dropped unread; the fat one:
	// 1 oversized (banned), then 1 dropped.
	faultEventually(t, "both rogues banned and their later frames dropped", func() bool {
		return g.sock.Banned() == 2 && g.sock.Dropped() == 3
	})
	if m := g.sock.Malformed(); m != zmqtransport.DefaultMaxMalformed+2 {
		t.Fatalf("%d malformed frames decoded, want %d: a banned peer's frame, or the huge one, got through", m, zmqtransport.DefaultMaxMalformed+2)
	}
	if err := <-errc; err != nil {
		t.Fatalf("while the rogues ran: %v", err)
	}
	if w.exitedEarly() {
		t.Fatal("the worker process died")
	}
	t.Logf("malformed %d, banned %d, dropped %d", g.sock.Malformed(), g.sock.Banned(), g.sock.Dropped())
}

// faultOverload: with two workers of capacity 1 and room for 8 calls to wait, a burst of 40
// calls ends, every one of them, with its own result or an overloaded error that says when to
// retry; the refusals come at once.
func faultOverload(t *testing.T, bin string) {
	const queue = 8
	g := startFaultGateway(t, "tcp://127.0.0.1:*", nil, hooteproto.WithQueue(queue))
	startFaultWorker(t, bin, g.endpoint, "narrow1", "--capacity", "1")
	startFaultWorker(t, bin, g.endpoint, "narrow2", "--capacity", "1")
	waitWorkers(t, g.broker, "narrow1", "narrow2")

	const n = 40
	type outcome struct {
		msg  string
		res  *hootv1.EchoResult
		err  error
		took time.Duration
	}
	outcomes := make(chan outcome, n)
	start := make(chan struct{})
	for i := range n {
		msg := fmt.Sprintf("sleep:200ms/%d", i)
		go func() {
			<-start
			began := time.Now()
			res, err := faultCall(g.broker, 20*time.Second, msg)
			outcomes <- outcome{msg, res, err, time.Since(began)}
		}()
	}
	close(start)
	var ok, overloaded int
	var slowestRefusal time.Duration
	deadline := time.After(15 * time.Second)
	for range n {
		var o outcome
		select {
		case o = <-outcomes:
		case <-deadline:
			t.Fatalf("%d of %d calls still waiting after 15s", n-ok-overloaded, n)
		}
		var he *hooteproto.Error
		switch {
		case o.err == nil:
			if o.res.GetMessage() != o.msg {
				t.Fatalf("call %q got the answer to %q", o.msg, o.res.GetMessage())
			}
			ok++
		case errors.As(o.err, &he) && he.Code() == hooteproto.CodeOverloaded:
			if he.RetryAfter() <= 0 || !he.Retryable() {
				t.Fatalf("overloaded without a retry-after: %v", o.err)
			}
			overloaded++
			slowestRefusal = max(slowestRefusal, o.took)
		default:
			t.Fatalf("call %q ended with %v, want its result or overloaded", o.msg, o.err)
		}
	}
	t.Logf("%d calls: %d answered, %d refused as overloaded (the slowest refusal took %v)", n, ok, overloaded, slowestRefusal)
	if ok+overloaded != n || ok < 2 || overloaded == 0 {
		t.Fatalf("answered %d, overloaded %d, of %d", ok, overloaded, n)
	}
	// A refusal does not wait for a slot, which would take up to queue/2 x 200ms.
	if slowestRefusal > time.Second {
		t.Fatalf("an overloaded error took %v", slowestRefusal)
	}
	if _, err := faultCall(g.broker, 5*time.Second, "after the burst"); err != nil {
		t.Fatalf("after the burst: %v", err)
	}
}

// faultCurve: with CURVE on the gateway, a worker process with an allowed key serves, one with
// an unknown key or none is never heard from.
func faultCurve(t *testing.T, bin string) {
	dir := t.TempDir()
	keyFiles := func(name string) (public, secret string) {
		p, err := curvekey.Generate()
		if err != nil {
			t.Fatal(err)
		}
		public, secret, err = curvekey.WriteFiles(filepath.Join(dir, name), p, "faults test")
		if err != nil {
			t.Fatal(err)
		}
		return public, secret
	}
	gatewayPublic, gatewaySecret := keyFiles("gateway")
	knownPublic, knownSecret := keyFiles("known")
	_, strangerSecret := keyFiles("stranger")

	keys, err := curvekey.ReadSecret(gatewaySecret)
	if err != nil {
		t.Fatal(err)
	}
	allow, err := curvekey.ReadAllowed(knownPublic)
	if err != nil {
		t.Fatal(err)
	}
	g := startFaultGateway(t, "tcp://127.0.0.1:*", &zmqtransport.Options{Curve: &zmqtransport.Curve{SecretKey: keys.Secret, Allow: allow}})

	startFaultWorker(t, bin, g.endpoint, "stranger", "--curve-secret", strangerSecret, "--curve-server", gatewayPublic)
	startFaultWorker(t, bin, g.endpoint, "keyless")
	faultEventually(t, "two refused handshakes", func() bool { return g.sock.HandshakeFailures() >= 2 })
	if _, err := faultCall(g.broker, 5*time.Second, "anyone?"); hooteproto.CodeOf(err) != hooteproto.CodeUnavailable {
		t.Fatalf("with only refused workers: %v, want unavailable", err)
	}

	startFaultWorker(t, bin, g.endpoint, "known", "--curve-secret", knownSecret, "--curve-server", gatewayPublic)
	waitWorkers(t, g.broker, "known")
	for i := range 10 {
		res, err := faultCall(g.broker, 5*time.Second, fmt.Sprintf("sleep:10ms/%d", i))
		if err != nil || res.GetWorker() != "known" {
			t.Fatalf("call %d: res=%v err=%v; only the known worker may answer", i, res, err)
		}
	}
}

type faultGateway struct {
	endpoint string
	sock     *zmqtransport.Socket
	broker   *hooteproto.Broker
	stop     func()
}

// startFaultGateway listens on endpoint, trying again for a while if the port is still taken
// (as it is for a moment after a gateway on it stops), and runs a broker there.
func startFaultGateway(t *testing.T, endpoint string, opts *zmqtransport.Options, bopts ...hooteproto.BrokerOption) *faultGateway {
	t.Helper()
	var sock *zmqtransport.Socket
	faultEventually(t, "listen on "+endpoint, func() bool {
		var err error
		sock, err = zmqtransport.Listen(endpoint, opts)
		return err == nil
	})
	b := hooteproto.NewBroker(sock, append([]hooteproto.BrokerOption{hooteproto.WithHeartbeat(faultHB, faultLiveness)}, bopts...)...)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = b.Run(ctx) })
	g := &faultGateway{endpoint: sock.Endpoint(), sock: sock, broker: b}
	var once sync.Once
	g.stop = func() { once.Do(func() { cancel(); wg.Wait(); sock.Close() }) }
	t.Cleanup(g.stop)
	return g
}

// A faultWorker is a running testworker process.
type faultWorker struct {
	cmd    *exec.Cmd
	stderr lockedBuffer
	exited chan struct{}
	killed bool

	mu      sync.Mutex
	started map[string]int // how often each message started
}

func startFaultWorker(t *testing.T, bin, endpoint, name string, args ...string) *faultWorker {
	t.Helper()
	args = append([]string{"--gateway", endpoint, "--name", name,
		"--heartbeat", faultHB.String(), "--liveness", fmt.Sprint(faultLiveness)}, args...)
	w := &faultWorker{cmd: exec.Command(bin, args...), exited: make(chan struct{}), started: map[string]int{}}
	w.cmd.Stderr = &w.stderr
	// Should the test binary die, its workers die with it.
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := w.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(w.exited)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if msg, ok := strings.CutPrefix(sc.Text(), "started "); ok {
				w.mu.Lock()
				w.started[msg]++
				w.mu.Unlock()
			}
		}
		_ = w.cmd.Wait()
	}()
	t.Cleanup(func() {
		w.kill()
		if t.Failed() && w.stderr.Len() > 0 {
			t.Logf("worker %s said:\n%s", name, w.stderr.String())
		}
	})
	return w
}

// kill sends SIGKILL, as a crash or the OOM killer would, and waits for the process to end.
func (w *faultWorker) kill() {
	w.mu.Lock()
	w.killed = true
	w.mu.Unlock()
	_ = w.cmd.Process.Kill()
	<-w.exited
}

func (w *faultWorker) exitedEarly() bool {
	select {
	case <-w.exited:
		w.mu.Lock()
		defer w.mu.Unlock()
		return !w.killed
	default:
		return false
	}
}

func (w *faultWorker) hasStarted(msg string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.started[msg] > 0
}

// startedTwice returns the messages the worker started more than once, but for the probes of
// waitWorkers, which all say the same.
func (w *faultWorker) startedTwice() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var twice []string
	for msg, n := range w.started {
		if n > 1 && !strings.HasSuffix(msg, "/probe") {
			twice = append(twice, msg)
		}
	}
	return twice
}

func (w *faultWorker) waitStarted(t *testing.T, msgs ...string) {
	t.Helper()
	faultEventually(t, "the worker starts "+strings.Join(msgs, ", "), func() bool {
		for _, m := range msgs {
			if !w.hasStarted(m) {
				return false
			}
		}
		return true
	})
}

// waitWorkers waits until each named worker has answered a call, probing with bursts of
// concurrent calls, which the broker spreads over the workers it knows.
func waitWorkers(t *testing.T, b *hooteproto.Broker, names ...string) {
	t.Helper()
	seen := map[string]bool{}
	faultEventually(t, "workers "+strings.Join(names, ", ")+" answer", func() bool {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 2 * len(names) {
			wg.Go(func() {
				if res, err := faultCall(b, 2*time.Second, "sleep:20ms/probe"); err == nil {
					mu.Lock()
					seen[res.GetWorker()] = true
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		for _, n := range names {
			if !seen[n] {
				return false
			}
		}
		return true
	})
}

func faultEcho(msg string) *hootv1.Payload {
	return &hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: msg}}}
}

// faultCall makes one echo call and returns its result, or its error whether the broker or the
// worker reported it.
func faultCall(b *hooteproto.Broker, timeout time.Duration, msg string) (*hootv1.EchoResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, err := b.Call(ctx, hooteproto.Call{Service: hootv1hoot.SystemServiceName, Payload: faultEcho(msg)})
	if err != nil {
		return nil, err
	}
	if te := res.GetError(); te != nil {
		return nil, hooteproto.ErrorFromTool(te)
	}
	return res.GetEcho(), nil
}

// faultEventually waits up to 10 seconds for cond, checking every 10ms.
func faultEventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lockedBuffer is a bytes.Buffer that a process may write while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Len()
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
