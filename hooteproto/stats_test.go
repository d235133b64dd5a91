package hooteproto_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hootenanny/hoot/hooteproto/memconn"
)

// TestBrokerStats checks the broker's counts: a live worker's service with its capacity and a
// call in flight, then the worker lost without a goodbye, counted by why.
func TestBrokerStats(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testBrokerStats)
}

func testBrokerStats(t *testing.T) {
	s := startBroker(t)
	e := newEchoer("w1")
	_, kill := startWorker(t, s, e)
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
	// Its link closed: the broker knew at once, before any heartbeat was missed.
	if st.WorkersLost["connection"] != 1 || st.WorkersLost["heartbeats"] != 0 || len(st.Services) != 0 {
		t.Errorf("after the kill: %+v", st)
	}

	// A worker that falls silent, its link up, is lost for its missed heartbeats.
	conn := s.dial(t).(*memconn.Dealer)
	startWorkerOn(t, conn, newEchoer("w2"))
	waitLive(t, s.broker, "system", true)
	conn.SetSilent(true)
	waitLive(t, s.broker, "system", false)
	st = s.broker.Stats()
	if st.WorkersLost["connection"] != 1 || st.WorkersLost["heartbeats"] != 1 || st.HeartbeatsMissed == 0 {
		t.Errorf("after the silence: %+v", st)
	}
}
