package zmqtransport_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
	zmq "github.com/pebbe/zmq4"
	"google.golang.org/protobuf/proto"
)

// recv returns the next frame of an inbox, or fails the test after a second.
func recv(t *testing.T, in <-chan hooteproto.Frame) hooteproto.Frame {
	t.Helper()
	select {
	case f := <-in:
		return f
	case <-time.After(time.Second):
		t.Fatal("recv: no frame within a second")
		return hooteproto.Frame{}
	}
}

func nothing(t *testing.T, in <-chan hooteproto.Frame) {
	t.Helper()
	select {
	case f := <-in:
		t.Fatalf("got %s from peer %x, want nothing", f.Command, f.Peer)
	case <-time.After(100 * time.Millisecond):
	}
}

func send(t *testing.T, s *zmq.Socket, parts ...[]byte) {
	t.Helper()
	if _, err := s.SendMessage(parts); err != nil {
		t.Fatal(err)
	}
}

func heartbeat() [][]byte {
	f := hooteproto.Frame{Command: hooteproto.CommandHeartbeat}
	return f.Parts()
}

func TestGuardBansAfterMalformedFrames(t *testing.T) {
	t.Parallel()
	var l logs
	s, err := zmqtransport.Listen("tcp://127.0.0.1:*", &zmqtransport.Options{Logger: l.logger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in := inbox(t, s)
	bad, good := rogue(t, s.Endpoint()), rogue(t, s.Endpoint())

	// A well-formed frame first, to learn the rogue's routing identity.
	send(t, bad, heartbeat()...)
	peer := recv(t, in).Peer
	for range zmqtransport.DefaultMaxMalformed {
		send(t, bad, []byte("garbage"))
	}
	send(t, bad, heartbeat()...)
	if f := recv(t, in); f.Peer != peer || f.Command != hooteproto.CommandHeartbeat {
		t.Fatalf("after %d malformed frames, got %s from %x; want the peer's heartbeat", zmqtransport.DefaultMaxMalformed, f.Command, f.Peer)
	}
	// One more is one too many: the peer is banned, which the reader learns as a DISCONNECT.
	send(t, bad, []byte("GET / HTTP/1.1"), []byte{0xff})
	if f := recv(t, in); f.Peer != peer || f.Command != hooteproto.CommandDisconnect {
		t.Fatalf("got %s from %x, want a DISCONNECT from the banned peer %x", f.Command, f.Peer, peer)
	}
	if s.Banned() != 1 || s.Malformed() != zmqtransport.DefaultMaxMalformed+1 || !l.has("banned a peer") {
		t.Fatalf("banned=%d malformed=%d logs=%q", s.Banned(), s.Malformed(), l.msgs)
	}
	// Nothing from it is read any more, well-formed or not; other peers are heard.
	send(t, bad, heartbeat()...)
	send(t, bad, []byte("more garbage"))
	nothing(t, in)
	eventually(t, "the banned peer's frames are dropped", func() bool { return s.Dropped() == 2 })
	send(t, good, heartbeat()...)
	if f := recv(t, in); f.Peer == peer || f.Command != hooteproto.CommandHeartbeat {
		t.Fatalf("got %s from %x, want the other peer's heartbeat", f.Command, f.Peer)
	}
	if s.Malformed() != zmqtransport.DefaultMaxMalformed+1 {
		t.Fatalf("malformed = %d: a banned peer's frames were decoded", s.Malformed())
	}
}

func TestGuardBansAnOversizedFrameAtOnce(t *testing.T) {
	t.Parallel()
	const maxBody = 1024
	s, err := zmqtransport.Listen("tcp://127.0.0.1:*", &zmqtransport.Options{MaxBody: maxBody})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in := inbox(t, s)
	bad := rogue(t, s.Endpoint())
	// Over the body limit, but under ZeroMQ's own message limit, so it reaches the guard.
	f := hooteproto.Frame{Command: hooteproto.CommandReply, ID: hooteproto.NewRequestID(), Body: make([]byte, maxBody+100)}
	send(t, bad, f.Parts()...)
	if got := recv(t, in); got.Command != hooteproto.CommandDisconnect || s.Banned() != 1 {
		t.Fatalf("got %s, banned=%d; want a DISCONNECT and a ban after one oversized frame", got.Command, s.Banned())
	}
	send(t, bad, heartbeat()...)
	nothing(t, in)
}

// TestGuardMessageSizeLimit checks what ZeroMQ itself does with a message over ZMQ_MAXMSGSIZE:
// it drops the sender's connection, before anything reaches the socket's owner.
func TestGuardMessageSizeLimit(t *testing.T) {
	t.Parallel()
	const maxBody = 1024
	s, err := zmqtransport.Listen("tcp://127.0.0.1:*", &zmqtransport.Options{MaxBody: maxBody})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in := inbox(t, s)

	zctx, err := zmq.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	defer zctx.Term()
	bad, _ := zctx.NewSocket(zmq.DEALER)
	defer bad.Close()
	bad.SetLinger(0)
	bad.SetReconnectIvl(time.Minute) // stay disconnected once dropped
	if err := bad.Monitor("inproc://rogue-monitor", zmq.EVENT_HANDSHAKE_SUCCEEDED|zmq.EVENT_DISCONNECTED); err != nil {
		t.Fatal(err)
	}
	mon, _ := zctx.NewSocket(zmq.PAIR)
	defer mon.Close()
	mon.SetLinger(0)
	mon.SetRcvtimeo(5 * time.Second)
	mon.Connect("inproc://rogue-monitor")
	if err := bad.Connect(s.Endpoint()); err != nil {
		t.Fatal(err)
	}
	if ev, _, _, err := mon.RecvEvent(0); err != nil || ev != zmq.EVENT_HANDSHAKE_SUCCEEDED {
		t.Fatalf("event %v, %v; want the handshake", ev, err)
	}
	huge := hooteproto.Frame{Command: hooteproto.CommandReply, ID: hooteproto.NewRequestID(), Body: make([]byte, 4*maxBody)}
	send(t, bad, huge.Parts()...)
	if ev, _, _, err := mon.RecvEvent(0); err != nil || ev != zmq.EVENT_DISCONNECTED {
		t.Fatalf("event %v, %v; want the gateway to drop the connection", ev, err)
	}
	nothing(t, in)
	if s.Malformed() != 0 || s.Banned() != 0 {
		t.Fatalf("malformed=%d banned=%d: the message reached the owner", s.Malformed(), s.Banned())
	}
	// The socket goes on serving other peers.
	good := rogue(t, s.Endpoint())
	send(t, good, heartbeat()...)
	if f := recv(t, in); f.Command != hooteproto.CommandHeartbeat {
		t.Fatalf("got %s", f.Command)
	}
}

// TestGuardForgetsABannedWorker: a peer that registered as a worker and then sends garbage is
// forgotten by the broker at once, long before its silence would give it away, and its calls
// go to a worker that behaves.
func TestGuardForgetsABannedWorker(t *testing.T) {
	t.Parallel()
	g := listen(t, "tcp://127.0.0.1:*", nil, hooteproto.WithHeartbeat(10*time.Second, 3))
	bad := rogue(t, g.sock.Endpoint())
	ready, _ := proto.Marshal(&hootv1.Ready{Services: []string{hootv1hoot.SystemServiceName}, Capacity: 1000, Name: "rogue"})
	f := hooteproto.Frame{Command: hooteproto.CommandReady, Body: ready}
	send(t, bad, f.Parts()...)
	eventually(t, "the rogue registers", func() bool { return live(g.broker) })

	for range zmqtransport.DefaultMaxMalformed + 1 {
		send(t, bad, bytes.Repeat([]byte{0xee}, 64))
	}
	eventually(t, "the broker forgets the banned rogue", func() bool { return !live(g.broker) })
	if g.conn.disconnect.Load() != 1 {
		t.Fatalf("the broker read %d DISCONNECT frames, want 1", g.conn.disconnect.Load())
	}
	// It cannot come back under the same identity: its READY is dropped unread.
	dropped := g.sock.Dropped()
	send(t, bad, f.Parts()...)
	eventually(t, "the banned peer's READY is dropped", func() bool { return g.sock.Dropped() > dropped })
	if live(g.broker) {
		t.Fatal("the banned peer registered again")
	}
	serve(t, g.sock.Endpoint(), "honest", nil)
	eventually(t, "an honest worker registers", func() bool { return live(g.broker) })
	for i := range 5 {
		res, err := call(g.broker, "hello")
		if err != nil || res.GetEcho().GetWorker() != "honest" {
			t.Fatalf("call %d: res=%v err=%v", i, res, err)
		}
	}
}

// Send refuses at once a frame the other side's decoder would drop (and count against the
// sender), rather than sending it.
func TestSendRefusesWhatThePeerWould(t *testing.T) {
	t.Parallel()
	router, dealer := socketPair(t, nil, nil)
	ctx := context.Background()
	for name, f := range map[string]hooteproto.Frame{
		"malformed traceparent": {Command: hooteproto.CommandRequest, ID: hooteproto.NewRequestID(), Service: "cas", Traceparent: strings.Repeat("x", 55)},
		"zero request id":       {Command: hooteproto.CommandRequest, Service: "cas"},
		"bad service name":      {Command: hooteproto.CommandReady, Service: "Not A Service"},
	} {
		if err := dealer.Send(ctx, f); !errors.Is(err, hooteproto.ErrFrame) {
			t.Errorf("%s: Send = %v, want an error wrapping hooteproto.ErrFrame", name, err)
		}
	}
	if err := router.Send(ctx, hooteproto.Frame{Command: hooteproto.CommandHeartbeat}); err == nil {
		t.Error("the router side sent a frame without a Peer")
	}
}
