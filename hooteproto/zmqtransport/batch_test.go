package zmqtransport_test

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
	zmq "github.com/pebbe/zmq4"
)

// batchOf returns frames as one batch message (hooteproto.BatchProtocol).
func batchOf(frames ...hooteproto.Frame) []byte {
	b := []byte(hooteproto.BatchProtocol)
	for _, f := range frames {
		b = hooteproto.AppendBatchFrame(b, f.Encode())
	}
	return b
}

// rawRecv reads one message from a raw socket, waiting up to five seconds.
func rawRecv(t *testing.T, s *zmq.Socket) [][]byte {
	t.Helper()
	if err := s.SetRcvtimeo(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	msg, err := s.RecvMessageBytes(0)
	if err != nil {
		t.Fatalf("no message from the socket: %v", err)
	}
	return msg
}

// decodeMessage returns the frames of one message part, a HOOT/2 frame or a batch.
func decodeMessage(t *testing.T, part []byte) (frames []hooteproto.Frame, batch bool) {
	t.Helper()
	if hooteproto.IsBatch(part) {
		frames, err := hooteproto.DecodeBatch(part, 0, nil)
		if err != nil {
			t.Fatalf("a batch the peer cannot read: %v", err)
		}
		return frames, true
	}
	f, err := hooteproto.DecodeFrame([][]byte{part}, 0)
	if err != nil {
		t.Fatalf("a frame the peer cannot read: %v", err)
	}
	return []hooteproto.Frame{f}, false
}

// The listening side sends batches only to a peer that has sent one: a peer of HOOT/2 gets one
// HOOT/2 frame a message however many leave at once, and both peers get every frame, in order.
func TestBatchesOnlyToPeersThatSendThem(t *testing.T) {
	t.Parallel()
	router, err := zmqtransport.Listen("tcp://127.0.0.1:*", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer router.Close()
	old, batching := rogue(t, router.Endpoint()), rogue(t, router.Endpoint())

	// Frames sent from the handler while the owner is awake leave together at its next turn.
	const n = 50
	peers := make(chan string, 2)
	var sendErr error
	var mu sync.Mutex
	h := handlerFuncs{frame: func(f hooteproto.Frame) {
		peers <- f.Peer
		for i := range n {
			reply := hooteproto.Frame{Peer: f.Peer, Command: hooteproto.CommandProgress, ID: idOf(i), Body: []byte{byte(i)}}
			if err := router.Send(context.Background(), reply); err != nil {
				mu.Lock()
				sendErr = err
				mu.Unlock()
			}
		}
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = router.Serve(ctx, h) }()
	defer func() { cancel(); <-done }()

	hbFrame := hooteproto.Frame{Command: hooteproto.CommandHeartbeat}
	for _, tc := range []struct {
		name      string
		sock      *zmq.Socket
		msg       []byte
		wantBatch bool
	}{
		{"a peer of HOOT/2", old, hbFrame.Encode(), false},
		{"a peer that sends batches", batching, batchOf(hbFrame), true},
	} {
		send(t, tc.sock, tc.msg)
		select {
		case <-peers:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: its heartbeat never arrived", tc.name)
		}
		var got []hooteproto.Frame
		batches := 0
		for len(got) < n {
			msg := rawRecv(t, tc.sock)
			if len(msg) != 1 {
				t.Fatalf("%s: a message of %d parts", tc.name, len(msg))
			}
			frames, batch := decodeMessage(t, msg[0])
			if batch {
				if !tc.wantBatch {
					t.Fatalf("%s: got a batch, which it cannot read", tc.name)
				}
				batches++
			}
			got = append(got, frames...)
		}
		for i, f := range got {
			if f.Command != hooteproto.CommandProgress || f.ID != idOf(i) || !bytes.Equal(f.Body, []byte{byte(i)}) {
				t.Fatalf("%s: frame %d is %s %x %v, want PROGRESS %x [%d]", tc.name, i, f.Command, f.ID, f.Body, idOf(i), i)
			}
		}
		if len(got) != n {
			t.Fatalf("%s: %d frames, want %d", tc.name, len(got), n)
		}
		if tc.wantBatch && batches == 0 {
			t.Fatalf("%s: %d frames sent at once and no batch among them", tc.name, n)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if sendErr != nil {
		t.Fatal(sendErr)
	}
}

func idOf(i int) hooteproto.RequestID {
	var id hooteproto.RequestID
	id[0], id[15] = byte(i), 1
	return id
}

// The dialling side speaks in batches always, so that the gateway learns it reads them; a
// gateway of HOOT/2 refuses them as frames of another protocol, which names the version.
func TestDiallingSideSendsBatches(t *testing.T) {
	t.Parallel()
	zctx, err := zmq.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	defer zctx.Term()
	raw, err := zctx.NewSocket(zmq.ROUTER)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.SetLinger(0)
	if err := raw.Bind("tcp://127.0.0.1:*"); err != nil {
		t.Fatal(err)
	}
	endpoint, _ := raw.GetLastEndpoint()
	dealer, err := zmqtransport.Dial(endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dealer.Close()
	if err := dealer.Send(context.Background(), hooteproto.Frame{Command: hooteproto.CommandHeartbeat}); err != nil {
		t.Fatal(err)
	}
	msg := rawRecv(t, raw)
	if len(msg) != 2 {
		t.Fatalf("a message of %d parts after the identity, want 1", len(msg)-1)
	}
	frames, batch := decodeMessage(t, msg[1])
	if !batch || len(frames) != 1 || frames[0].Command != hooteproto.CommandHeartbeat {
		t.Fatalf("batch=%v frames=%v, want a batch of one HEARTBEAT", batch, frames)
	}
	_, err = hooteproto.DecodeFrame([][]byte{msg[1]}, 0)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(hooteproto.BatchProtocol)) {
		t.Fatalf("a decoder of one frame says %v; want it to name %s", err, hooteproto.BatchProtocol)
	}
}

// A malformed batch counts as one malformed message and delivers none of its frames, not even
// the good ones before the bad one.
func TestMalformedBatchDeliversNothing(t *testing.T) {
	t.Parallel()
	router, err := zmqtransport.Listen("tcp://127.0.0.1:*", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer router.Close()
	in := inbox(t, router)
	peer := rogue(t, router.Endpoint())
	hbFrame := hooteproto.Frame{Command: hooteproto.CommandHeartbeat}
	bad := append(batchOf(hbFrame, hbFrame), 0x7f) // a length of 127 with nothing after it
	send(t, peer, bad)
	eventually(t, "the batch counts as malformed", func() bool { return router.Malformed() == 1 })
	send(t, peer, batchOf(hbFrame))
	if f := recv(t, in); f.Command != hooteproto.CommandHeartbeat {
		t.Fatalf("got %s, want the good batch's HEARTBEAT", f.Command)
	}
	nothing(t, in)
}
