package main

import (
	"fmt"
	"sync"
	"testing"

	zmq "github.com/pebbe/zmq4"
)

// TestHopRoundTrip sends messages from several goroutines at once through one hop and checks
// that each gets its own message back, through sockets the pool hands out again.
func TestHopRoundTrip(t *testing.T) {
	echoCtx, err := zmq.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	sock, endpoint, err := bindEcho(echoCtx, "tcp://127.0.0.1:*")
	if err != nil {
		t.Fatal(err)
	}
	echoed := make(chan error, 1)
	go func() { echoed <- echo(sock) }()

	hopCtx, err := zmq.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	h := &hop{endpoint: endpoint, zctx: hopCtx}
	const goroutines, calls = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			for i := range calls {
				msg := fmt.Sprintf("g%d-%d", g, i)
				got, err := h.roundTrip(msg)
				if err != nil || got != msg {
					errs <- fmt.Errorf("round trip of %q: %q, %v", msg, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	h.mu.Lock()
	pooled := len(h.idle)
	h.mu.Unlock()
	if pooled == 0 || pooled > goroutines {
		t.Errorf("%d sockets in the pool after %d goroutines' calls, want 1 to %d", pooled, goroutines, goroutines)
	}

	h.stop()
	if err := hopCtx.Term(); err != nil {
		t.Error(err)
	}
	if err := echoCtx.Term(); err != nil { // ends echo's receive
		t.Error(err)
	}
	if err := <-echoed; err == nil {
		t.Error("echo returned no error after its context ended")
	}
}
