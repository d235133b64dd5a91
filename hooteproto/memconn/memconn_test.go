package memconn_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/memconn"
)

// recorder is a PeerWatcher that keeps what its connection hands it.
type recorder struct {
	frames chan hooteproto.Frame
	failed chan error
	lost   chan struct{}
}

func newRecorder() *recorder {
	return &recorder{frames: make(chan hooteproto.Frame, 64), failed: make(chan error, 64), lost: make(chan struct{}, 64)}
}

func (r *recorder) HandleFrame(f hooteproto.Frame)         { r.frames <- f }
func (r *recorder) SendFailed(_ hooteproto.Frame, e error) { r.failed <- e }
func (r *recorder) PeerLost()                              { r.lost <- struct{}{} }

// serve runs c.Serve(h), in a synctest bubble, and returns once it has its Handler and waits;
// the returned stop ends it and waits for it.
func serve(t *testing.T, c hooteproto.Conn, h hooteproto.Handler) (stop func() error) {
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- c.Serve(ctx, h) }()
	synctest.Wait()
	return func() error { cancel(); return <-errc }
}

func listen(t *testing.T, n *memconn.Network, addr string, opts *memconn.Options) *memconn.Router {
	t.Helper()
	r, err := n.Listen(addr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRoundTrip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := memconn.NewNetwork()
		r := listen(t, n, "gw", nil)
		d := n.Dial("gw", nil)
		defer d.Close()
		rh, dh := newRecorder(), newRecorder()
		defer serve(t, r, rh)()
		defer serve(t, d, dh)()

		id := hooteproto.NewRequestID()
		tp := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
		if err := d.Send(t.Context(), hooteproto.Frame{Command: hooteproto.CommandReply, ID: id, Traceparent: tp, Body: []byte("result")}); err != nil {
			t.Fatal(err)
		}
		got := <-rh.frames
		if got.Command != hooteproto.CommandReply || got.ID != id || got.Traceparent != tp || string(got.Body) != "result" || got.Peer != d.Identity() || got.Peer == "" {
			t.Fatalf("router got %+v, want the REPLY from %q", got, d.Identity())
		}
		if err := r.Send(t.Context(), hooteproto.Frame{Peer: got.Peer, Command: hooteproto.CommandRequest, ID: id, Service: "system", Body: []byte("req")}); err != nil {
			t.Fatal(err)
		}
		back := <-dh.frames
		if back.Command != hooteproto.CommandRequest || back.Service != "system" || string(back.Body) != "req" || back.Peer != "" {
			t.Fatalf("dealer got %+v", back)
		}
	})
}

// What is wrong with a frame itself is Send's error; the receiver's decoder never sees it.
func TestSendChecksTheFrame(t *testing.T) {
	n := memconn.NewNetwork()
	r := listen(t, n, "gw", &memconn.Options{MaxBody: 8})
	d := n.Dial("gw", &memconn.Options{MaxBody: 8})
	defer d.Close()
	for name, err := range map[string]error{
		"no peer":        r.Send(t.Context(), hooteproto.Frame{Command: hooteproto.CommandHeartbeat}),
		"body too large": d.Send(t.Context(), hooteproto.Frame{Command: hooteproto.CommandHeartbeat, Body: make([]byte, 9)}),
		"zero id":        d.Send(t.Context(), hooteproto.Frame{Command: hooteproto.CommandReply}),
		"bad service":    d.Send(t.Context(), hooteproto.Frame{Command: hooteproto.CommandReady, Service: "Not Valid"}),
	} {
		if err == nil {
			t.Errorf("%s: Send took the frame", name)
		}
	}
	if _, err := n.Listen("gw", nil); err == nil || !strings.Contains(err.Error(), "already listens") {
		t.Errorf("a second Listen at the same address: %v", err)
	}
}

// Messages that are not frames are counted and dropped, and the connection goes on.
func TestMalformedIsDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := memconn.NewNetwork()
		r := listen(t, n, "gw", &memconn.Options{MaxBody: 16})
		d := n.Dial("gw", nil)
		defer d.Close()
		rh := newRecorder()
		defer serve(t, r, rh)()
		big := hooteproto.Frame{Command: hooteproto.CommandHeartbeat, Body: make([]byte, 17)}
		for _, b := range [][]byte{[]byte("GET / HTTP/1.1"), {}, []byte("HOOT/1"), big.Encode()} {
			if err := d.SendRaw(b); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.Send(t.Context(), hooteproto.Frame{Command: hooteproto.CommandHeartbeat}); err != nil {
			t.Fatal(err)
		}
		if f := <-rh.frames; f.Command != hooteproto.CommandHeartbeat {
			t.Fatalf("got %v", f.Command)
		}
		if got := r.Malformed(); got != 4 {
			t.Fatalf("malformed = %d, want 4", got)
		}
	})
}

// A dealer that closes is a peer gone: the router's Serve hears that a link closed, and a frame
// for the peer fails with ErrPeerGone.
func TestClosedDealerIsAPeerGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := memconn.NewNetwork()
		r := listen(t, n, "gw", nil)
		d := n.Dial("gw", nil)
		rh := newRecorder()
		defer serve(t, r, rh)()
		if err := d.Send(t.Context(), hooteproto.Frame{Command: hooteproto.CommandHeartbeat}); err != nil {
			t.Fatal(err)
		}
		peer := (<-rh.frames).Peer
		d.Close()
		<-rh.lost
		if r.Peers() != 0 {
			t.Fatalf("%d peers after the only one closed", r.Peers())
		}
		if err := r.Send(t.Context(), hooteproto.Frame{Peer: peer, Command: hooteproto.CommandHeartbeat}); err != nil {
			t.Fatal(err)
		}
		if err := <-rh.failed; !errors.Is(err, hooteproto.ErrPeerGone) || !strings.Contains(err.Error(), "peer") {
			t.Fatalf("send to a closed peer failed with %v, want ErrPeerGone", err)
		}
		if err := d.Send(t.Context(), hooteproto.Frame{Command: hooteproto.CommandHeartbeat}); !errors.Is(err, hooteproto.ErrClosed) {
			t.Fatalf("Send after Close = %v, want ErrClosed", err)
		}
		if err := d.Serve(t.Context(), newRecorder()); !errors.Is(err, hooteproto.ErrClosed) {
			t.Fatalf("Serve after Close = %v, want ErrClosed", err)
		}
	})
}

// A full queue fails the frame rather than block the sender; frames wait in the queue while no
// Serve runs, and are received in order once one does.
func TestQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := memconn.NewNetwork()
		r := listen(t, n, "gw", &memconn.Options{QueueLen: 2})
		d := n.Dial("gw", nil)
		defer d.Close()
		dh := newRecorder()
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() { errc <- d.Serve(ctx, dh) }()
		synctest.Wait() // the dealer's Serve has its Handler: SendFailed reaches it
		for i := range 3 {
			if err := d.Send(t.Context(), hooteproto.Frame{Command: hooteproto.CommandProgress, ID: hooteproto.RequestID{byte(i + 1)}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := <-dh.failed; err == nil || !strings.Contains(err.Error(), "full") {
			t.Fatalf("the third frame failed with %v, want a full queue", err)
		}
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("Serve = %v, want the context's error", err)
		}
		rh := newRecorder()
		defer serve(t, r, rh)()
		for i := range 2 {
			if f := <-rh.frames; f.ID[0] != byte(i+1) {
				t.Fatalf("frame %d is %v", i, f.ID)
			}
		}
	})
}

// A dealer whose router went away connects, under a new identity, to the next router that
// listens at its address; with none, its frames fail.
func TestDealerConnectsAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := memconn.NewNetwork()
		first := listen(t, n, "gw", nil)
		d := n.Dial("gw", nil)
		defer d.Close()
		dh := newRecorder()
		defer serve(t, d, dh)()
		before := d.Identity()
		first.Close()

		if err := d.Send(t.Context(), hooteproto.Frame{Command: hooteproto.CommandHeartbeat}); err != nil {
			t.Fatal(err)
		}
		if err := <-dh.failed; err == nil || !strings.Contains(err.Error(), "no router") {
			t.Fatalf("with no router: %v", err)
		}
		second := listen(t, n, "gw", nil)
		rh := newRecorder()
		defer serve(t, second, rh)()
		if err := d.Send(t.Context(), hooteproto.Frame{Command: hooteproto.CommandHeartbeat}); err != nil {
			t.Fatal(err)
		}
		if f := <-rh.frames; f.Peer == before || f.Peer != d.Identity() {
			t.Fatalf("the new router knows the dealer as %q (before %q, now %q)", f.Peer, before, d.Identity())
		}
	})
}

// A silent dealer's frames are lost both ways while its link stays up.
func TestSilent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := memconn.NewNetwork()
		r := listen(t, n, "gw", nil)
		d := n.Dial("gw", nil)
		defer d.Close()
		rh, dh := newRecorder(), newRecorder()
		defer serve(t, r, rh)()
		defer serve(t, d, dh)()
		peer := d.Identity()
		d.SetSilent(true)
		_ = d.Send(t.Context(), hooteproto.Frame{Command: hooteproto.CommandHeartbeat})
		_ = r.Send(t.Context(), hooteproto.Frame{Peer: peer, Command: hooteproto.CommandHeartbeat})
		synctest.Wait()
		if len(rh.frames)+len(dh.frames)+len(rh.failed)+len(dh.failed)+len(rh.lost) != 0 {
			t.Fatal("a silent link passed on or reported something")
		}
		d.SetSilent(false)
		_ = r.Send(t.Context(), hooteproto.Frame{Peer: peer, Command: hooteproto.CommandHeartbeat})
		if f := <-dh.frames; f.Command != hooteproto.CommandHeartbeat {
			t.Fatalf("got %v", f.Command)
		}
	})
}

// One Serve runs at a time, and a closed router ends the Serve that runs.
func TestServe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := memconn.NewNetwork()
		r, err := n.Listen("gw", nil)
		if err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() { errc <- r.Serve(t.Context(), newRecorder()) }()
		synctest.Wait()
		if err := r.Serve(t.Context(), newRecorder()); err == nil || !strings.Contains(err.Error(), "already running") {
			t.Fatalf("a second Serve: %v", err)
		}
		r.Close()
		if err := <-errc; !errors.Is(err, hooteproto.ErrClosed) {
			t.Fatalf("Serve after Close = %v, want ErrClosed", err)
		}
		if err := r.Serve(t.Context(), nil); err == nil {
			t.Fatal("Serve took a nil Handler")
		}
	})
}
