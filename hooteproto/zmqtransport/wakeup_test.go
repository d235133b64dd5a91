package zmqtransport_test

import (
	"context"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hooteproto"
)

// TestNoLostWakeups sends frames back and forth, one at a time and in bursts, with nothing
// else on the wire: a frame that arrives while its owner waits is seen only through the
// readiness signal of the socket's descriptor, so a watch that fails to signal leaves it
// waiting for traffic that never comes, and a receive runs out of time. (Subtler races, where a
// signal is lost only while the owner is busy, show up as stalls in BenchmarkWireRoundTrip's
// pipelined runs rather than here.)
func TestNoLostWakeups(t *testing.T) {
	t.Parallel()
	router, dealer := socketPair(t, nil, nil)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	routerIn, dealerIn := inbox(t, router), inbox(t, dealer)
	go func() { // the router answers every frame with a frame of the same id
		for {
			select {
			case f := <-routerIn:
				f.Command = hooteproto.CommandReply
				if err := router.Send(ctx, f); err != nil {
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	recv := func(what string) hooteproto.Frame {
		t.Helper()
		select {
		case f := <-dealerIn:
			return f
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no frame within 5s (a frame waited for a signal that was lost)", what)
			return hooteproto.Frame{}
		}
	}
	for i := range 500 {
		id := hooteproto.NewRequestID()
		if err := dealer.Send(ctx, hooteproto.Frame{Command: hooteproto.CommandRequest, ID: id, Body: []byte{byte(i)}}); err != nil {
			t.Fatal(err)
		}
		if f := recv("ping-pong"); f.ID != id {
			t.Fatalf("round %d: got id %v, want %v", i, f.ID, id)
		}
	}
	for burst := range 20 {
		const n = 64
		for range n {
			if err := dealer.Send(ctx, hooteproto.Frame{Command: hooteproto.CommandRequest, ID: hooteproto.NewRequestID()}); err != nil {
				t.Fatal(err)
			}
		}
		for range n {
			recv("burst " + string(rune('a'+burst)))
		}
	}
}
