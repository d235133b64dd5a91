package zmqtransport_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
	zmq "github.com/pebbe/zmq4"
)

const hb = 50 * time.Millisecond

// logs records log messages, for tests that look for one.
type logs struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logs) logger() *slog.Logger { return slog.New(logHandler{l}) }

func (l *logs) has(substr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.msgs {
		if strings.Contains(m, substr) {
			return true
		}
	}
	return false
}

type logHandler struct{ l *logs }

func (h logHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h logHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool { b.WriteString(" " + a.String()); return true })
	h.l.mu.Lock()
	h.l.msgs = append(h.l.msgs, b.String())
	h.l.mu.Unlock()
	return nil
}
func (h logHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h logHandler) WithGroup(string) slog.Handler      { return h }

// counting is a Conn that counts the frames the broker reads, by command.
type counting struct {
	hooteproto.Conn
	ready, disconnect atomic.Int64
}

func (c *counting) Serve(ctx context.Context, h hooteproto.Handler) error {
	return c.Conn.Serve(ctx, countingHandler{h, c})
}

type countingHandler struct {
	hooteproto.Handler
	c *counting
}

func (h countingHandler) HandleFrame(f hooteproto.Frame) {
	switch f.Command {
	case hooteproto.CommandReady:
		h.c.ready.Add(1)
	case hooteproto.CommandDisconnect:
		h.c.disconnect.Add(1)
	}
	h.Handler.HandleFrame(f)
}

// inbox serves s until the test ends and returns the frames it receives.
func inbox(t *testing.T, s *zmqtransport.Socket) <-chan hooteproto.Frame {
	t.Helper()
	h := inboxHandler(make(chan hooteproto.Frame, 4096))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Serve(ctx, h) }()
	t.Cleanup(func() { cancel(); <-done })
	return h
}

// inboxHandler queues what it is handed; its buffer is larger than any test's traffic.
type inboxHandler chan hooteproto.Frame

func (h inboxHandler) HandleFrame(f hooteproto.Frame)     { h <- f }
func (h inboxHandler) SendFailed(hooteproto.Frame, error) {}

type gateway struct {
	sock   *zmqtransport.Socket
	conn   *counting
	broker *hooteproto.Broker
	stop   func()
}

func listen(t *testing.T, endpoint string, opts *zmqtransport.Options, bopts ...hooteproto.BrokerOption) *gateway {
	t.Helper()
	sock, err := zmqtransport.Listen(endpoint, opts)
	if err != nil {
		t.Fatal(err)
	}
	conn := &counting{Conn: sock}
	b := hooteproto.NewBroker(conn, append([]hooteproto.BrokerOption{hooteproto.WithHeartbeat(hb, 3)}, bopts...)...)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = b.Run(ctx) })
	g := &gateway{sock: sock, conn: conn, broker: b}
	var once sync.Once
	g.stop = func() { once.Do(func() { cancel(); wg.Wait(); sock.Close() }) }
	t.Cleanup(g.stop)
	return g
}

type echo struct{ name string }

func (e echo) Echo(ctx context.Context, req *hootv1.EchoRequest) (*hootv1.EchoResult, error) {
	return &hootv1.EchoResult{Message: req.GetMessage(), Worker: e.name}, nil
}

// serve runs a worker named name over a socket dialled with opts, until the test ends.
func serve(t *testing.T, endpoint, name string, opts *zmqtransport.Options) *zmqtransport.Socket {
	t.Helper()
	sock, err := zmqtransport.Dial(endpoint, opts)
	if err != nil {
		t.Fatal(err)
	}
	w, err := hooteproto.NewWorker(sock, []hootv1hoot.Service{hootv1hoot.NewSystemService(echo{name})},
		hooteproto.WithHeartbeat(hb, 3), hooteproto.WithName(name))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; sock.Close() })
	return sock
}

func call(b *hooteproto.Broker, msg string) (*hootv1.Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p := &hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: msg}}}
	return b.Call(ctx, hooteproto.Call{Service: hootv1hoot.SystemServiceName, Payload: p})
}

// eventually waits up to 5 seconds for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: never happened within 5s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func live(b *hooteproto.Broker) bool {
	for _, s := range b.Services() {
		if s == hootv1hoot.SystemServiceName {
			return true
		}
	}
	return false
}

// rogue returns a raw DEALER connected to endpoint, in a context of its own.
func rogue(t *testing.T, endpoint string) *zmq.Socket {
	t.Helper()
	zctx, err := zmq.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	s, err := zctx.NewSocket(zmq.DEALER)
	if err != nil {
		t.Fatal(err)
	}
	s.SetLinger(0)
	if err := s.Connect(endpoint); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); zctx.Term() })
	return s
}

// socketPair opens a listening socket on a loopback port of ZeroMQ's choosing and a dialling
// one connected to it, with the given options (nil for the defaults); the test closes both.
func socketPair(t *testing.T, routerOpts, dealerOpts *zmqtransport.Options) (router, dealer *zmqtransport.Socket) {
	t.Helper()
	router, err := zmqtransport.Listen("tcp://127.0.0.1:*", routerOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { router.Close() })
	dealer, err = zmqtransport.Dial(router.Endpoint(), dealerOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dealer.Close() })
	return router, dealer
}
