// Package zmqtransport carries HOOT/1 frames over ZeroMQ. It is the only package of the project
// that imports a ZeroMQ binding.
//
// ZeroMQ sockets are not safe for concurrent use, and a goroutine can poll sockets or select on
// channels but not both. So each [Socket] has one owner goroutine that alone touches the ZeroMQ
// socket: it polls the socket and an inproc wake-up socket, sends what callers queued on a Go
// channel and hands what it receives to a Go channel. A second goroutine owns the sending end of
// the wake-up pair and pokes the owner whenever a caller queues a frame. The owner also answers
// the context's ZAP requests when the socket uses CURVE, and reads the socket's monitor.
//
// The listening side guards itself against peers that send garbage: a peer that sends more than
// a few malformed frames, or one frame over the size limit, is banned and its frames are dropped
// unread from then on.
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
	// Logger receives reports of malformed frames, banned peers and failed handshakes
	// (default: discard).
	Logger *slog.Logger
	// Curve, when set, encrypts the connection and authenticates both sides with CurveZMQ.
	// Without it the connection is plain TCP, fit for loopback or a trusted network only.
	Curve *Curve
	// MaxMalformed is how many malformed frames a peer may send a listening socket before it
	// is banned (default DefaultMaxMalformed). A frame over the size limit bans at once.
	MaxMalformed int
}

// A Socket is a hooteproto.Conn over one ZeroMQ ROUTER (Listen) or DEALER (Dial) socket.
type Socket struct {
	endpoint string
	router   bool
	maxBody  int
	log      *slog.Logger
	curve    *Curve

	out  chan outgoing
	in   chan hooteproto.Frame
	wake chan struct{}
	done chan struct{}
	dead chan struct{} // closed when the owner goroutine has stopped
	once sync.Once

	// Only the owner goroutine touches these.
	guard      *peerGuard      // the listening side's banned peers
	logged     *lru[time.Time] // when a failed handshake of each kind was last logged
	redialAt   time.Time       // the dialling side connects again then, if not zero
	redialWait time.Duration

	malformed         atomic.Uint64
	dropped           atomic.Uint64
	banned            atomic.Uint64
	handshakeFailures atomic.Uint64
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

// Banned returns how many peers the listening socket has banned.
func (s *Socket) Banned() uint64 { return s.banned.Load() }

// Dropped returns how many frames from banned peers the socket has dropped unread.
func (s *Socket) Dropped() uint64 { return s.dropped.Load() }

// HandshakeFailures returns how many connections failed ZeroMQ's handshake: a refused or
// missing CURVE key, keys on one side only, or a connection lost during the handshake.
func (s *Socket) HandshakeFailures() uint64 { return s.handshakeFailures.Load() }

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
	if o.MaxMalformed <= 0 {
		o.MaxMalformed = DefaultMaxMalformed
	}
	if !strings.HasPrefix(endpoint, "tcp://") && !strings.HasPrefix(endpoint, "ipc://") && !strings.HasPrefix(endpoint, "inproc://") {
		return nil, fmt.Errorf("zmqtransport: endpoint %q must start with tcp://, ipc:// or inproc://, as in tcp://127.0.0.1:5580", endpoint)
	}

	s := &Socket{
		endpoint: endpoint,
		router:   router,
		maxBody:  o.MaxBody,
		log:      o.Logger,
		curve:    o.Curve,
		out:      make(chan outgoing, o.QueueLen),
		in:       make(chan hooteproto.Frame, o.QueueLen),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		dead:     make(chan struct{}),
		logged:   newLRU[time.Time](64),
	}
	if router {
		s.guard = newPeerGuard(o.MaxMalformed)
	}
	// Sockets are created and bound here, then handed to their owner goroutines; the channel
	// hand-off is the memory barrier ZeroMQ asks for when a socket moves between threads.
	zctx, err := zmq.NewContext()
	if err != nil {
		return nil, fmt.Errorf("zmqtransport: new context: %w", err)
	}
	z, err := s.sockets(zctx, o)
	if err != nil {
		z.close()
		_ = zctx.Term()
		return nil, err
	}
	go s.pump(z.push)
	go s.own(zctx, z)
	return s, nil
}

// zsockets are the ZeroMQ sockets of one Socket, all in its own context.
type zsockets struct {
	sock *zmq.Socket // the ROUTER or DEALER
	pull *zmq.Socket // the owner's end of the wake-up pair
	push *zmq.Socket // the pump's end of the wake-up pair
	mon  *zmq.Socket // receives sock's handshake events
	zap  *zmq.Socket // answers ZAP requests; nil unless a listening socket uses CURVE
	auth *zapHandler
}

// close closes the sockets, sock first so that its monitor stops before the monitor's socket
// closes. The owner goroutine clears push before it calls close: that one is the pump's.
func (z *zsockets) close() {
	for _, zs := range []*zmq.Socket{z.sock, z.mon, z.zap, z.pull} {
		if zs != nil {
			_ = zs.Close()
		}
	}
	if z.push != nil {
		_ = z.push.Close()
	}
}

// frameRoom is the room left for a frame's other parts on top of the body in ZeroMQ's own
// message size limit; a message over the limit is refused by ZeroMQ itself.
const frameRoom = 1024

var monitorSeq atomic.Uint64

func (s *Socket) sockets(zctx *zmq.Context, o Options) (z zsockets, err error) {
	kind := zmq.DEALER
	if s.router {
		kind = zmq.ROUTER
	}
	if z.sock, err = zctx.NewSocket(kind); err != nil {
		return
	}
	sock := z.sock
	maxMsg := int64(o.MaxBody) + frameRoom
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
	if o.Curve != nil {
		if z.auth, err = setCurve(sock, o.Curve, s.router, s.log); err != nil {
			return
		}
	}
	if z.auth != nil {
		// The handler must answer before the first peer can connect.
		if z.zap, err = zctx.NewSocket(zmq.REP); err != nil {
			return
		}
		if err = errors.Join(z.zap.SetLinger(0), z.zap.Bind(zapEndpoint)); err != nil {
			err = fmt.Errorf("zmqtransport: ZAP handler: %w", err)
			return
		}
	}
	monAddr := fmt.Sprintf("inproc://hoot-monitor-%d", monitorSeq.Add(1))
	if err = sock.Monitor(monAddr, watchedEvents); err != nil {
		err = fmt.Errorf("zmqtransport: monitor: %w", err)
		return
	}
	if z.mon, err = zctx.NewSocket(zmq.PAIR); err != nil {
		return
	}
	if err = errors.Join(z.mon.SetLinger(0), z.mon.Connect(monAddr)); err != nil {
		err = fmt.Errorf("zmqtransport: monitor: %w", err)
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
	if z.pull, err = zctx.NewSocket(zmq.PULL); err != nil {
		return
	}
	if err = z.pull.Bind(wakeAddr); err != nil {
		return
	}
	if z.push, err = zctx.NewSocket(zmq.PUSH); err != nil {
		return
	}
	if err = z.push.SetLinger(0); err != nil {
		return
	}
	err = z.push.Connect(wakeAddr)
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
func (s *Socket) own(zctx *zmq.Context, z zsockets) {
	defer close(s.dead)
	sock, pull := z.sock, z.pull
	defer func() {
		z.push = nil // the pump's
		z.close()
		_ = zctx.Term()
	}()
	poller := zmq.NewPoller()
	poller.Add(sock, zmq.POLLIN)
	// onlyWake leaves out sock: handshakes and sending go on while a reader is behind.
	onlyWake := zmq.NewPoller()
	for _, p := range []*zmq.Poller{poller, onlyWake} {
		p.Add(pull, zmq.POLLIN)
		p.Add(z.mon, zmq.POLLIN)
		if z.zap != nil {
			p.Add(z.zap, zmq.POLLIN)
		}
	}

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
			switch it.Socket {
			case pull:
				for {
					if _, err := pull.RecvBytes(zmq.DONTWAIT); err != nil {
						break
					}
				}
				s.flush(sock)
			case sock:
				if held == nil {
					held = s.receive(sock)
				}
			case z.mon:
				s.watch(z.mon)
			default: // the ZAP handler's socket
				z.auth.serve(z.zap, s.endpoint)
			}
		}
		if len(polled) == 0 {
			// Nothing woke us within the timeout; frames queued without a wake-up (none should
			// be) still leave.
			s.flush(sock)
		}
		if !s.redialAt.IsZero() && time.Now().After(s.redialAt) {
			s.redialAt = time.Time{}
			s.redial(sock)
		}
	}
}

// redial connects the dialling side again after libzmq gave up on a refused handshake.
func (s *Socket) redial(sock *zmq.Socket) {
	_ = sock.Disconnect(s.endpoint)
	if err := sock.Connect(s.endpoint); err != nil {
		s.log.Warn("cannot connect again", "endpoint", s.endpoint, "err", err)
	}
}

// receive reads one message and returns its frame, or nil for a malformed one. When the
// message gets its sender banned, it returns a DISCONNECT from the sender instead, so that the
// reader forgets the peer at once.
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
		if s.guard.isBanned(peer) {
			s.dropped.Add(1)
			return nil
		}
	}
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	f, err := hooteproto.DecodeFrame(parts, s.maxBody)
	if err != nil {
		s.malformed.Add(1)
		s.log.Warn("dropped a malformed frame", "endpoint", s.endpoint, "peer", fmt.Sprintf("%x", peer), "err", err)
		if !s.router {
			return nil
		}
		oversized := size > s.maxBody+frameRoom || len(parts) == 6 && len(parts[5]) > s.maxBody
		if oversized {
			s.guard.ban(peer)
		} else if !s.guard.strike(peer) {
			return nil
		}
		s.banned.Add(1)
		why := fmt.Sprintf("more than %d malformed frames", s.guard.maxMalformed)
		if oversized {
			why = fmt.Sprintf("a frame of %d bytes, over the limit", size)
		}
		s.log.Warn("banned a peer: its frames are dropped unread from now on", "endpoint", s.endpoint, "peer", fmt.Sprintf("%x", peer), "why", why)
		return &hooteproto.Frame{Peer: peer, Command: hooteproto.CommandDisconnect}
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

// Recv returns the next well-formed frame. When the listening side bans a peer, Recv returns a
// DISCONNECT from that peer, as if it had said goodbye, and nothing from it after that.
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
