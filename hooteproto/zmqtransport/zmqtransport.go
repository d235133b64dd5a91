// Package zmqtransport carries HOOT/1 frames over ZeroMQ. It is the only package of the project
// that imports a ZeroMQ binding.
//
// ZeroMQ sockets are not safe for concurrent use, and a goroutine can poll sockets or select on
// channels but not both. So each [Socket] has one owner goroutine that alone touches the ZeroMQ
// socket: it polls the socket and an inproc wake-up socket, sends what callers queued on a Go
// channel and hands what it receives to a Go channel. A second goroutine owns the sending end of
// the wake-up pair and pokes the owner whenever a caller queues a frame.
package zmqtransport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hootenanny/hoot/hooteproto"
	zmq "github.com/pebbe/zmq4"
)

// Options tune a Socket. The zero value is usable; nil means the zero value.
type Options struct {
	// MaxBody is the largest frame body accepted or sent (default hooteproto.DefaultMaxBody).
	// Larger incoming messages are refused by ZeroMQ itself, which drops the peer's connection.
	MaxBody int
	// Linger is how long Close waits for queued frames to leave (default 500ms).
	Linger time.Duration
	// HighWaterMark bounds ZeroMQ's queues per peer, in messages (default 10000).
	HighWaterMark int
	// QueueLen bounds the Go channels between callers and the owner goroutine (default 1024).
	QueueLen int
	// Logger receives reports of malformed frames (default: discard).
	Logger *slog.Logger
}

// A Socket is a hooteproto.Conn over one ZeroMQ ROUTER (Listen) or DEALER (Dial) socket.
type Socket struct {
	endpoint string
	router   bool
	maxBody  int
	log      *slog.Logger

	out  chan outgoing
	in   chan hooteproto.Frame
	wake chan struct{}
	done chan struct{}
	dead chan struct{} // closed when the owner goroutine has stopped
	once sync.Once

	malformed atomic.Uint64
}

var _ hooteproto.Conn = (*Socket)(nil)

type outgoing struct {
	frame hooteproto.Frame
	errc  chan error
}

var wakeSeq atomic.Uint64

// Listen binds a ROUTER socket to endpoint (such as "tcp://127.0.0.1:5580"): the gateway's side.
func Listen(endpoint string, opts *Options) (*Socket, error) {
	return open(endpoint, true, opts)
}

// Dial connects a DEALER socket to endpoint: a worker's side. ZeroMQ connects in the
// background and reconnects by itself; frames sent meanwhile wait in its queue.
func Dial(endpoint string, opts *Options) (*Socket, error) {
	return open(endpoint, false, opts)
}

// Endpoint returns the endpoint the socket was opened with; after Listen on port 0 it is the
// bound endpoint with the port ZeroMQ chose.
func (s *Socket) Endpoint() string { return s.endpoint }

// Malformed returns how many malformed frames the socket has received and dropped.
func (s *Socket) Malformed() uint64 { return s.malformed.Load() }

func open(endpoint string, router bool, opts *Options) (*Socket, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxBody <= 0 {
		o.MaxBody = hooteproto.DefaultMaxBody
	}
	if o.Linger == 0 {
		o.Linger = 500 * time.Millisecond
	}
	if o.HighWaterMark <= 0 {
		o.HighWaterMark = 10000
	}
	if o.QueueLen <= 0 {
		o.QueueLen = 1024
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if !strings.HasPrefix(endpoint, "tcp://") && !strings.HasPrefix(endpoint, "ipc://") && !strings.HasPrefix(endpoint, "inproc://") {
		return nil, fmt.Errorf("zmqtransport: endpoint %q must start with tcp://, ipc:// or inproc://, as in tcp://127.0.0.1:5580", endpoint)
	}

	s := &Socket{
		endpoint: endpoint,
		router:   router,
		maxBody:  o.MaxBody,
		log:      o.Logger,
		out:      make(chan outgoing, o.QueueLen),
		in:       make(chan hooteproto.Frame, o.QueueLen),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		dead:     make(chan struct{}),
	}
	// Sockets are created and bound here, then handed to their owner goroutines; the channel
	// hand-off is the memory barrier ZeroMQ asks for when a socket moves between threads.
	zctx, err := zmq.NewContext()
	if err != nil {
		return nil, fmt.Errorf("zmqtransport: new context: %w", err)
	}
	sock, pull, push, err := s.sockets(zctx, o)
	if err != nil {
		for _, z := range []*zmq.Socket{sock, pull, push} {
			if z != nil {
				_ = z.Close()
			}
		}
		_ = zctx.Term()
		return nil, err
	}
	go s.pump(push)
	go s.own(zctx, sock, pull)
	return s, nil
}

func (s *Socket) sockets(zctx *zmq.Context, o Options) (sock, pull, push *zmq.Socket, err error) {
	kind := zmq.DEALER
	if s.router {
		kind = zmq.ROUTER
	}
	if sock, err = zctx.NewSocket(kind); err != nil {
		return
	}
	// Room for the frame's other parts on top of the body.
	maxMsg := int64(o.MaxBody) + 1024
	setters := []error{
		sock.SetLinger(o.Linger),
		sock.SetSndhwm(o.HighWaterMark),
		sock.SetRcvhwm(o.HighWaterMark),
		sock.SetMaxmsgsize(maxMsg),
	}
	if s.router {
		// An unroutable peer is an error to report, not a frame to drop in silence.
		setters = append(setters, sock.SetRouterMandatory(1))
	}
	if err = errors.Join(setters...); err != nil {
		err = fmt.Errorf("zmqtransport: socket options: %w", err)
		return
	}
	if s.router {
		if err = sock.Bind(s.endpoint); err != nil {
			err = fmt.Errorf("zmqtransport: cannot listen on %s: %w (is another gateway running there?)", s.endpoint, err)
			return
		}
		if bound, gerr := sock.GetLastEndpoint(); gerr == nil && bound != "" {
			s.endpoint = bound
		}
	} else if err = sock.Connect(s.endpoint); err != nil {
		err = fmt.Errorf("zmqtransport: cannot connect to %s: %w", s.endpoint, err)
		return
	}
	wakeAddr := fmt.Sprintf("inproc://hoot-wake-%d", wakeSeq.Add(1))
	if pull, err = zctx.NewSocket(zmq.PULL); err != nil {
		return
	}
	if err = pull.Bind(wakeAddr); err != nil {
		return
	}
	if push, err = zctx.NewSocket(zmq.PUSH); err != nil {
		return
	}
	if err = push.SetLinger(0); err != nil {
		return
	}
	err = push.Connect(wakeAddr)
	return
}

// pump owns the sending end of the wake-up pair.
func (s *Socket) pump(push *zmq.Socket) {
	defer push.Close()
	for {
		select {
		case <-s.wake:
			// A wake-up that cannot be queued means one is already waiting: that is enough.
			_, _ = push.SendBytes(nil, zmq.DONTWAIT)
		case <-s.done:
			_, _ = push.SendBytes(nil, zmq.DONTWAIT)
			return
		}
	}
}

// own is the only code that touches the ZeroMQ socket.
func (s *Socket) own(zctx *zmq.Context, sock, pull *zmq.Socket) {
	defer close(s.dead)
	defer func() {
		_ = sock.Close()
		_ = pull.Close()
		_ = zctx.Term()
	}()
	poller := zmq.NewPoller()
	poller.Add(sock, zmq.POLLIN)
	poller.Add(pull, zmq.POLLIN)
	onlyWake := zmq.NewPoller()
	onlyWake.Add(pull, zmq.POLLIN)

	var held *hooteproto.Frame // received but not yet taken by a reader
	for {
		if held != nil {
			select {
			case s.in <- *held:
				held = nil
			default:
			}
		}
		p, timeout := poller, 250*time.Millisecond
		if held != nil {
			// Stop reading the socket until the reader catches up, but keep sending.
			p, timeout = onlyWake, time.Millisecond
		}
		polled, err := p.Poll(timeout)
		if err != nil && !errors.Is(err, zmq.ETERM) {
			s.log.Warn("zmq poll failed", "endpoint", s.endpoint, "err", err)
		}
		select {
		case <-s.done:
			s.failQueued()
			return
		default:
		}
		for _, it := range polled {
			if it.Socket == pull {
				for {
					if _, err := pull.RecvBytes(zmq.DONTWAIT); err != nil {
						break
					}
				}
				s.flush(sock)
				continue
			}
			if held == nil {
				held = s.receive(sock)
			}
		}
		if len(polled) == 0 {
			// Nothing woke us within the timeout; frames queued without a wake-up (none should
			// be) still leave.
			s.flush(sock)
		}
	}
}

// receive reads one message and returns its frame, or nil for a malformed one.
func (s *Socket) receive(sock *zmq.Socket) *hooteproto.Frame {
	parts, err := sock.RecvMessageBytes(zmq.DONTWAIT)
	if err != nil {
		return nil
	}
	var peer string
	if s.router {
		if len(parts) == 0 {
			return nil
		}
		peer, parts = string(parts[0]), parts[1:]
	}
	f, err := hooteproto.DecodeFrame(parts, s.maxBody)
	if err != nil {
		s.malformed.Add(1)
		s.log.Warn("dropped a malformed frame", "endpoint", s.endpoint, "peer", fmt.Sprintf("%x", peer), "err", err)
		return nil
	}
	f.Peer = peer
	return &f
}

func (s *Socket) flush(sock *zmq.Socket) {
	for {
		select {
		case o := <-s.out:
			err := s.write(sock, &o.frame)
			if o.errc != nil {
				o.errc <- err
			}
		default:
			return
		}
	}
}

func (s *Socket) write(sock *zmq.Socket, f *hooteproto.Frame) error {
	if len(f.Body) > s.maxBody {
		return fmt.Errorf("zmqtransport: frame body of %d bytes is over the limit of %d", len(f.Body), s.maxBody)
	}
	parts := f.Parts()
	var err error
	if s.router {
		if f.Peer == "" {
			return errors.New("zmqtransport: a frame sent from the router side needs a Peer")
		}
		_, err = sock.SendMessageDontwait([]byte(f.Peer), parts)
	} else {
		_, err = sock.SendMessageDontwait(parts)
	}
	if err != nil {
		if errors.Is(err, zmq.EHOSTUNREACH) {
			return fmt.Errorf("zmqtransport: peer %x is not connected: %w", f.Peer, err)
		}
		if errors.Is(err, zmq.Errno(syscall.EAGAIN)) {
			return fmt.Errorf("zmqtransport: send queue to the peer is full: %w", err)
		}
		return fmt.Errorf("zmqtransport: send: %w", err)
	}
	return nil
}

func (s *Socket) failQueued() {
	for {
		select {
		case o := <-s.out:
			if o.errc != nil {
				o.errc <- hooteproto.ErrClosed
			}
		default:
			return
		}
	}
}

// Send queues f and waits until the owner goroutine has handed it to ZeroMQ, so that an
// unroutable peer or a full queue is reported here rather than lost.
func (s *Socket) Send(ctx context.Context, f hooteproto.Frame) error {
	errc := make(chan error, 1)
	select {
	case s.out <- outgoing{frame: f, errc: errc}:
	case <-s.done:
		return hooteproto.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
	select {
	case err := <-errc:
		return err
	case <-s.dead:
		return hooteproto.ErrClosed
	case <-ctx.Done():
		// The frame may still leave; the caller has stopped waiting for it.
		return ctx.Err()
	}
}

// Recv returns the next well-formed frame.
func (s *Socket) Recv(ctx context.Context) (hooteproto.Frame, error) {
	select {
	case f := <-s.in:
		return f, nil
	case <-s.done:
		return hooteproto.Frame{}, hooteproto.ErrClosed
	case <-ctx.Done():
		return hooteproto.Frame{}, ctx.Err()
	}
}

// Close stops both goroutines and closes the sockets, waiting up to the linger time for queued
// frames to leave. It is safe to call more than once.
func (s *Socket) Close() error {
	s.once.Do(func() { close(s.done) })
	<-s.dead
	return nil
}
