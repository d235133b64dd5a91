package zmqtransport_test

import (
	"context"
	"errors"
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
	router, dealer := socketPair(t, nil, nil)

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

	fl := flood(t, router)
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
	if !fl.allReturn(ctx) {
		t.Errorf("a goroutine stayed in Send, sending for the others, for as long as they sent")
	}
	fl.stop()
}

// A Handler may call Send even when the queue is full, as the broker's does to answer a peer it
// does not know: Send then sends from its own goroutine rather than wait for a holder that may
// have gone, or for the owner, which is the caller. Here the frames fail (their peer is
// unknown) and their reports take a while, so that the queue stays full.
func TestHandlerSendsOnAFullQueue(t *testing.T) {
	t.Parallel()
	router, dealer := socketPair(t, &zmqtransport.Options{QueueLen: 2}, nil)

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

	flood(t, router)
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
}

// A flooder sends frames to a peer the router does not know, so that every one fails, from
// four goroutines as fast as they can, until stop is called or the test ends.
type flooder struct {
	sent   [4]atomic.Int64 // Sends that returned, by goroutine
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

func flood(t *testing.T, router *zmqtransport.Socket) *flooder {
	ctx, cancel := context.WithCancel(context.Background())
	fl := &flooder{cancel: cancel}
	for i := range fl.sent {
		fl.wg.Go(func() {
			for ctx.Err() == nil {
				err := router.Send(ctx, hooteproto.Frame{Peer: "nobody", Command: hooteproto.CommandHeartbeat})
				if errors.Is(err, hooteproto.ErrClosed) {
					return
				}
				fl.sent[i].Add(1)
			}
		})
	}
	t.Cleanup(fl.stop) // before the sockets close: cleanups run last first
	return fl
}

func (fl *flooder) stop() { fl.once.Do(func() { fl.cancel(); fl.wg.Wait() }) }

// allReturn waits until every goroutine's Send has returned again, while all of them go on
// sending, and reports false if one has not when ctx ends: that one is stuck in a Send.
func (fl *flooder) allReturn(ctx context.Context) bool {
	var from [4]int64
	for i := range fl.sent {
		from[i] = fl.sent[i].Load()
	}
	for i := range fl.sent {
		for fl.sent[i].Load() <= from[i]+1 { // +1: a Send under way at the start may return
			select {
			case <-ctx.Done():
				return false
			case <-time.After(time.Millisecond):
			}
		}
	}
	return true
}
