package hooteproto_test

import (
	"context"
	"testing"
	"time"
)

// TestBrokerStats checks the broker's counts: a live worker's service with its capacity and a
// call in flight, then the worker lost without a goodbye, counted by why.
func TestBrokerStats(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in the short tier: it waits out a worker's liveness; make test runs it")
	}
	t.Parallel()
	s := startBroker(t, "tcp://127.0.0.1:*")
	e := newEchoer("w1")
	_, kill := startWorker(t, s.sock.Endpoint(), e)
	waitLive(t, s.broker, "system", true)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := call(t, s.broker, ctx, "block"); done <- err }()
	waitStarted(t, e, "block")
	st := s.broker.Stats()
	if len(st.Services) != 1 {
		t.Fatalf("services %+v", st.Services)
	}
	sys := st.Services[0]
	if sys.Name != "system" || sys.Workers != 1 || sys.InFlight != 1 || sys.Capacity < 1 || sys.Queued != 0 {
		t.Errorf("system = %+v", sys)
	}
	if st.WorkersLost["heartbeats"]+st.WorkersLost["connection"]+st.WorkersLost["disconnected"] != 0 || st.FramesRefused != 0 {
		t.Errorf("before any loss: %+v", st)
	}

	kill()
	<-done
	waitLive(t, s.broker, "system", false)
	st = s.broker.Stats()
	lost := st.WorkersLost["heartbeats"] + st.WorkersLost["connection"]
	if lost != 1 || len(st.Services) != 0 {
		t.Errorf("after the kill: %+v", st)
	}
	if st.WorkersLost["heartbeats"] == 1 && st.HeartbeatsMissed == 0 {
		t.Errorf("a worker lost for silence missed no heartbeat: %+v", st)
	}
}
