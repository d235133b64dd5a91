package zmqtransport_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
)

// handlerFuncs adapts two functions to a hooteproto.Handler.
type handlerFuncs struct {
	frame  func(hooteproto.Frame)
	failed func(hooteproto.Frame, error)
}

func (h handlerFuncs) HandleFrame(f hooteproto.Frame) { h.frame(f) }
func (h handlerFuncs) SendFailed(f hooteproto.Frame, err error) {
	if h.failed != nil {
		h.failed(f, err)
	}
}

// While other goroutines keep sending, the goroutine that holds the socket sends only what was
// queued when it took it: it neither stays in Send for as long as the others queue nor keeps
// the owner from receiving. Here every frame sent fails (its peer is unknown) and its report
// takes a while, as a log line does.
func TestSendersDoNotStarveTheOwner(t *testing.T) {
	t.Parallel()
	router, err := zmqtransport.Listen("tcp://127.0.0.1:*", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer router.Close()
	dealer, err := zmqtransport.Dial(router.Endpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dealer.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const want = 50
	var got atomic.Int64
	arrived := make(chan struct{})
	h := handlerFuncs{
		frame: func(hooteproto.Frame) {
			if got.Add(1) == want {
				close(arrived)
			}
		},
		failed: func(hooteproto.Frame, error) { time.Sleep(20 * time.Microsecond) },
	}
	go func() { _ = router.Serve(ctx, h) }()

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-arrived:
					return
				case <-ctx.Done():
					return
				default:
				}
				_ = router.Send(ctx, hooteproto.Frame{Peer: "nobody", Command: hooteproto.CommandHeartbeat})
			}
		})
	}
	for range want {
		if err := dealer.Send(ctx, hooteproto.Frame{Command: hooteproto.CommandHeartbeat}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-arrived:
	case <-ctx.Done():
		t.Errorf("the router's owner delivered %d of %d frames while other goroutines sent: it never got the socket", got.Load(), want)
	}
	cancel()
	wg.Wait()
}

// A Handler may call Send even when the queue is full, as the broker's does to answer a peer it
// does not know: Send then sends from its own goroutine rather than wait for a holder that may
// have gone, or for the owner, which is the caller. Here the frames fail (their peer is
// unknown) and their reports take a while, so that the queue stays full.
func TestHandlerSendsOnAFullQueue(t *testing.T) {
	t.Parallel()
	router, err := zmqtransport.Listen("tcp://127.0.0.1:*", &zmqtransport.Options{QueueLen: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer router.Close()
	dealer, err := zmqtransport.Dial(router.Endpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dealer.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const want = 100
	handled := make(chan error, want)
	go func() {
		_ = router.Serve(ctx, handlerFuncs{
			frame: func(hooteproto.Frame) {
				// A handler's own deadline, far shorter than the test's: a Send that waits for
				// a queue nobody empties runs into it.
				sctx, scancel := context.WithTimeout(ctx, 3*time.Second)
				defer scancel()
				handled <- router.Send(sctx, hooteproto.Frame{Peer: "nobody", Command: hooteproto.CommandDisconnect})
			},
			failed: func(hooteproto.Frame, error) { time.Sleep(100 * time.Microsecond) },
		})
	}()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = router.Send(ctx, hooteproto.Frame{Peer: "nobody", Command: hooteproto.CommandHeartbeat})
			}
		})
	}
	for range want {
		if err := dealer.Send(ctx, hooteproto.Frame{Command: hooteproto.CommandHeartbeat}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	for i := range want {
		select {
		case err := <-handled:
			if err != nil {
				t.Fatalf("frame %d: the handler's Send failed: %v", i, err)
			}
		case <-ctx.Done():
			t.Fatalf("the router's handler ran %d of %d times", i, want)
		}
	}
	close(stop)
	wg.Wait()
}
