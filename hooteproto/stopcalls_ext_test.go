package hooteproto_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
)

// waitCancelled waits until e's handler has seen its call's context end, and returns how long
// that took from since on the bubble's clock.
func waitCancelled(t *testing.T, e *echoer, since time.Time) time.Duration {
	t.Helper()
	select {
	case m := <-e.cancelled:
		if m != "block" {
			t.Fatalf("cancelled %q, want block", m)
		}
		return time.Since(since)
	case <-time.After(2 * time.Hour):
		t.Fatal("the running call was never cancelled")
		return 0
	}
}

// A worker that stops lets its calls run for the drain timeout and then cancels those still
// running: their contexts are the worker's own, not children of one it cancels.
func TestWireDrainTimeoutCancelsRunningCalls(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := startBroker(t)
		e := newEchoer("stuck")
		stop, _ := startWorker(t, s, e, hooteproto.WithDrainTimeout(time.Minute))
		waitLive(t, s.broker, "system", true)

		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		ended := make(chan struct{})
		go func() { _, _ = call(t, s.broker, ctx, "block"); close(ended) }()
		waitStarted(t, e, "block")
		began := time.Now()
		stopped := make(chan struct{})
		go func() { stop(); close(stopped) }()
		if took := waitCancelled(t, e, began); took < time.Minute || took > time.Minute+time.Second {
			t.Fatalf("the call was cancelled %v after the worker began to stop, want the drain timeout of 1m", took)
		}
		<-stopped
		<-ended
	})
}

// A worker whose connection closes cancels its running calls at once: nobody is left to take
// their answers, and the drain timeout is not waited for.
func TestWireLostConnectionCancelsRunningCalls(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := startBroker(t)
		e := newEchoer("cut off")
		conn := s.dial(t)
		w, err := hooteproto.NewWorker(conn, []hootv1hoot.Service{hootv1hoot.NewSystemService(e)},
			hooteproto.WithHeartbeat(hb, liveness), hooteproto.WithName(e.name), hooteproto.WithDrainTimeout(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		runErr := make(chan error, 1)
		go func() { runErr <- w.Run(context.Background()) }()
		waitLive(t, s.broker, "system", true)

		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
		defer cancel()
		go func() { _, _ = call(t, s.broker, ctx, "block") }()
		waitStarted(t, e, "block")
		began := time.Now()
		conn.Close()
		if took := waitCancelled(t, e, began); took > time.Second {
			t.Fatalf("the call was cancelled %v after the connection closed, want at once", took)
		}
		if err := <-runErr; err == nil {
			t.Fatal("Run returned nil after its connection closed")
		}
	})
}
