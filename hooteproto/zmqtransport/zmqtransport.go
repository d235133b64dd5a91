// Package zmqtransport carries HOOT/2 frames over ZeroMQ. It is the only package of the project
// that imports a ZeroMQ binding.
//
// ZeroMQ sockets are not safe for concurrent use, so each [Socket] has one owner goroutine that
// alone touches its ZeroMQ sockets. The owner never blocks inside ZeroMQ: it waits for its
// socket's ZMQ_FD in Go's own network poller, and other goroutines wake it by moving that
// descriptor's read deadline once they have queued work for it. Waiting in a cgo poll instead
// would pin one of the runtime's threads for as long as the socket is idle, and waking it for a
// send needed an inproc socket pair and a second goroutine; both cost latency on every call.
//
// The owner hands what it receives straight to the Handler of [Socket.Serve], on its own
// goroutine, and [Socket.Send] only queues a frame for it: a failure to send is reported to the
// Handler later. Every goroutine a frame passes through on its way costs a wake-up, so there
// are as few as the rule of one owner allows.
package zmqtransport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
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
	// QueueLen bounds the queue of frames between Send and the owner goroutine (default 1024).
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

	out     chan outgoing
	attach  chan attachment // Serve hands its Handler to the owner, and nil when it ends
	serving atomic.Bool
	poll    *poller // the owner waits in it; others wake it
	done    chan struct{}
	dead    chan struct{} // closed when the owner goroutine has stopped
	once    sync.Once

	// Only the owner goroutine touches these.
	parts      [][]byte        // the parts of the message received last
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

// An outgoing frame waits for the owner in Send's queue, already encoded by the goroutine that
// sent it, so that the owner, through which every frame passes, only hands it to ZeroMQ.
type outgoing struct {
	f   hooteproto.Frame // for SendFailed
	enc []byte
}

// An attachment hands the owner the Handler to call from now on; it closes ack once it has.
type attachment struct {
	h   hooteproto.Handler
	ack chan struct{}
}

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
		attach:   make(chan attachment, 1),
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
	var mon, zap *fdWatch
	if err == nil {
		mon, zap, err = s.pollers(z)
	}
	if err != nil {
		mon.stop()
		zap.stop()
		if s.poll != nil {
			s.poll.close()
		}
		z.close()
		_ = zctx.Term()
		return nil, err
	}
	go s.own(zctx, z, mon, zap)
	return s, nil
}

// pollers sets up the owner's wait for its main socket and the watches of the others.
func (s *Socket) pollers(z zsockets) (mon, zap *fdWatch, err error) {
	if s.poll, err = newPoller(z.sock); err != nil {
		return nil, nil, fmt.Errorf("zmqtransport: cannot watch the socket: %w", err)
	}
	if mon, err = newFDWatch(z.mon, s.poll.wake); err != nil {
		return nil, nil, fmt.Errorf("zmqtransport: cannot watch the socket's monitor: %w", err)
	}
	if z.zap != nil {
		if zap, err = newFDWatch(z.zap, s.poll.wake); err != nil {
			mon.stop()
			return nil, nil, fmt.Errorf("zmqtransport: cannot watch the ZAP handler: %w", err)
		}
	}
	return mon, zap, nil
}

// zsockets are the ZeroMQ sockets of one Socket, all in its own context.
type zsockets struct {
	sock *zmq.Socket // the ROUTER or DEALER
	mon  *zmq.Socket // receives sock's handshake events
	zap  *zmq.Socket // answers ZAP requests; nil unless a listening socket uses CURVE
	auth *zapHandler
}

// close closes the sockets, sock first so that its monitor stops before the monitor's socket
// closes. The owner goroutine clears push before it calls close: that one is the pump's.
func (z *zsockets) close() {
	for _, zs := range []*zmq.Socket{z.sock, z.mon, z.zap} {
		if zs != nil {
			_ = zs.Close()
		}
	}
}

// frameRoom is the room left for a frame's header (hooteproto.MaxHeaderLen) on top of the body
// in ZeroMQ's own message size limit; a message over the limit is refused by ZeroMQ itself.
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
	return
}

// own is the only code that touches the ZeroMQ sockets. It waits for its main socket in Go's
// network poller itself (poller), so a frame that arrives wakes it directly; other goroutines
// wake it when they queue work for it.
func (s *Socket) own(zctx *zmq.Context, z zsockets, mon, zap *fdWatch) {
	defer close(s.dead)
	defer func() {
		// The descriptors go first: they are copies of descriptors the sockets own.
		mon.stop()
		zap.stop()
		s.poll.close()
		z.close()
		_ = zctx.Term()
	}()

	var h hooteproto.Handler // nil while no Serve runs: frames then wait in the socket
	first := true
	for {
		select {
		case r := <-s.attach:
			h = r.h
			close(r.ack)
		default:
		}
		select {
		case <-s.done:
			// What Send has queued goes to ZeroMQ, which sends it within the linger time.
			s.flush(z.sock, h)
			return
		default:
		}
		s.flush(z.sock, h)
		// The monitor and the ZAP handler are served when their watch signals (and once at
		// the start); the watch looks at its descriptor again once they have been.
		if sig := mon.signalled(); sig || first {
			for readable(z.mon) {
				s.watch(z.mon)
			}
			if sig {
				mon.rearm()
			}
		}
		if sig := zap.signalled(); sig || first && zap != nil {
			for readable(z.zap) {
				z.auth.serve(z.zap, s.endpoint)
			}
			if sig {
				zap.rearm()
			}
		}
		first = false
		if !s.redialAt.IsZero() && !time.Now().Before(s.redialAt) {
			s.redialAt = time.Time{}
			s.redial(z.sock)
		}
		err := s.poll.wait(s.redialAt, func() bool {
			more, delivered := s.drain(z.sock, h)
			if delivered {
				// Let the goroutines the handler has just readied (a worker's calls, a
				// gateway's callers) run before the owner looks for work and parks: what they
				// send in the meantime then goes out in this turn, without waking the owner
				// again. At c16 this took the worker's CPU per call from 39-40 to 37 us.
				runtime.Gosched()
			}
			return more || s.busy(mon, zap)
		})
		if err != nil {
			// Not expected: the descriptor is the owner's own. Poll slowly rather than spin.
			s.log.Error("cannot wait for the ZeroMQ socket; polling it", "endpoint", s.endpoint, "err", err)
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// busy reports whether the owner has work besides the socket's messages.
func (s *Socket) busy(mon, zap *fdWatch) bool {
	if len(s.out) > 0 || len(s.attach) > 0 || mon.pending() || zap.pending() {
		return true
	}
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// maxDrain bounds how many messages one turn of the owner loop takes from the socket, so that
// sending goes on under a flood; the loop comes back at once for the rest.
const maxDrain = 256

// drain hands the socket's waiting messages to h and reports whether messages remain and
// whether it handed over any. Without a handler it only lets ZeroMQ process its pending
// commands (which re-arms ZMQ_FD) and leaves the messages where they are.
func (s *Socket) drain(sock *zmq.Socket, h hooteproto.Handler) (more, delivered bool) {
	for range maxDrain {
		if !readable(sock) || h == nil {
			return false, delivered
		}
		if f, ok := s.receive(sock); ok {
			h.HandleFrame(f)
			delivered = true
		}
	}
	return true, delivered
}

// recvParts reads the parts of one message into the owner's own slice, which the next call
// reuses (the parts themselves are new each time).
func (s *Socket) recvParts(sock *zmq.Socket) ([][]byte, error) {
	parts := s.parts[:0]
	for {
		b, err := sock.RecvBytes(zmq.DONTWAIT)
		if err != nil {
			return nil, err
		}
		parts = append(parts, b)
		more, err := sock.GetRcvmore()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
	}
	if cap(parts) <= 8 { // a message of many parts is malformed anyway: do not keep its slice
		s.parts = parts
	}
	return parts, nil
}

// readable reports whether zs has a message waiting. Asking also lets ZeroMQ process its
// pending commands, which re-arms the socket's ZMQ_FD signal.
func readable(zs *zmq.Socket) bool {
	ev, err := zs.GetEvents()
	return err == nil && ev&zmq.POLLIN != 0
}

// redial connects the dialling side again after libzmq gave up on a refused handshake.
func (s *Socket) redial(sock *zmq.Socket) {
	_ = sock.Disconnect(s.endpoint)
	if err := sock.Connect(s.endpoint); err != nil {
		s.log.Warn("cannot connect again", "endpoint", s.endpoint, "err", err)
	}
}

// receive reads one message and returns its frame, or false for a malformed one. When the
// message gets its sender banned, it returns a DISCONNECT from the sender instead, so that the
// handler forgets the peer at once.
func (s *Socket) receive(sock *zmq.Socket) (hooteproto.Frame, bool) {
	parts, err := s.recvParts(sock)
	if err != nil {
		return hooteproto.Frame{}, false
	}
	var peer string
	if s.router {
		if len(parts) == 0 {
			return hooteproto.Frame{}, false
		}
		peer, parts = string(parts[0]), parts[1:]
		if s.guard.isBanned(peer) {
			s.dropped.Add(1)
			return hooteproto.Frame{}, false
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
			return hooteproto.Frame{}, false
		}
		oversized := size > s.maxBody+frameRoom || errors.Is(err, hooteproto.ErrFrameTooLarge)
		if oversized {
			s.guard.ban(peer)
		} else if !s.guard.strike(peer) {
			return hooteproto.Frame{}, false
		}
		s.banned.Add(1)
		why := fmt.Sprintf("more than %d malformed frames", s.guard.maxMalformed)
		if oversized {
			why = fmt.Sprintf("a frame of %d bytes, over the limit", size)
		}
		s.log.Warn("banned a peer: its frames are dropped unread from now on", "endpoint", s.endpoint, "peer", fmt.Sprintf("%x", peer), "why", why)
		return hooteproto.Frame{Peer: peer, Command: hooteproto.CommandDisconnect}, true
	}
	f.Peer = peer
	return f, true
}

// flush sends every frame queued now.
func (s *Socket) flush(sock *zmq.Socket, h hooteproto.Handler) {
	for {
		select {
		case o := <-s.out:
			s.sendOne(sock, o, h)
		default:
			return
		}
	}
}

// sendOne hands o to ZeroMQ and reports a failure to h, or logs it when no Serve runs.
func (s *Socket) sendOne(sock *zmq.Socket, o outgoing, h hooteproto.Handler) {
	err := s.write(sock, &o)
	if err == nil {
		return
	}
	if h != nil {
		h.SendFailed(o.f, err)
		return
	}
	s.log.Debug("could not send a frame", "endpoint", s.endpoint, "command", o.f.Command, "err", err)
}

// check returns what is wrong with f itself, before it is queued.
func (s *Socket) check(f *hooteproto.Frame) error {
	if len(f.Body) > s.maxBody {
		return fmt.Errorf("zmqtransport: frame body of %d bytes is over the limit of %d", len(f.Body), s.maxBody)
	}
	if len(f.Service) > hooteproto.MaxServiceLen || len(f.Traceparent) > 255 {
		return fmt.Errorf("zmqtransport: a service name of %d bytes or a traceparent of %d bytes does not fit a frame", len(f.Service), len(f.Traceparent))
	}
	if s.router && f.Peer == "" {
		return errors.New("zmqtransport: a frame sent from the router side needs a Peer")
	}
	return nil
}

func (s *Socket) write(sock *zmq.Socket, o *outgoing) error {
	f := &o.f
	var err error
	if s.router {
		// ZeroMQ routes (or refuses) a message at its first part, the peer's identity; the
		// rest of a message whose first part it took always follows.
		if _, err = sock.SendBytes([]byte(f.Peer), zmq.SNDMORE|zmq.DONTWAIT); err == nil {
			_, err = sock.SendBytes(o.enc, zmq.DONTWAIT)
		}
	} else {
		_, err = sock.SendBytes(o.enc, zmq.DONTWAIT)
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

// Send encodes f, queues it for the owner goroutine and returns; it waits only while the queue
// is full. What is wrong with f itself is reported here; a peer that is not connected or a full
// ZeroMQ queue is reported later to the Handler of Serve.
func (s *Socket) Send(ctx context.Context, f hooteproto.Frame) error {
	if err := s.check(&f); err != nil {
		return err
	}
	o := outgoing{f: f, enc: f.Encode()}
	o.f.Body = nil // SendFailed reports the frame; its body need not stay alive meanwhile
	select {
	case <-s.done:
		return hooteproto.ErrClosed
	default:
	}
	select {
	case s.out <- o:
		s.poll.wake()
		return nil
	default:
	}
	select {
	case s.out <- o:
		s.poll.wake()
		return nil
	case <-s.done:
		return hooteproto.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Serve hands every well-formed frame to h, on the owner goroutine, until ctx ends (it then
// returns ctx's error) or the socket closes (ErrClosed). When the listening side bans a peer, h
// gets a DISCONNECT from that peer, as if it had said goodbye, and nothing from it after that.
func (s *Socket) Serve(ctx context.Context, h hooteproto.Handler) error {
	if h == nil {
		return errors.New("zmqtransport: Serve needs a Handler")
	}
	if !s.serving.CompareAndSwap(false, true) {
		return errors.New("zmqtransport: Serve is already running on this socket")
	}
	defer s.serving.Store(false)
	if !s.attachHandler(h) {
		return hooteproto.ErrClosed
	}
	select {
	case <-ctx.Done():
		// Once the owner has taken nil it calls h no more.
		s.attachHandler(nil)
		return ctx.Err()
	case <-s.done:
		<-s.dead
		return hooteproto.ErrClosed
	}
}

// attachHandler hands h to the owner and waits until it has taken it; false means the owner
// has stopped (and calls no handler any more).
func (s *Socket) attachHandler(h hooteproto.Handler) bool {
	a := attachment{h: h, ack: make(chan struct{})}
	select {
	case s.attach <- a: // only one Serve runs, so there is room unless the owner has stopped
	case <-s.dead:
		return false
	}
	s.poll.wake()
	select {
	case <-a.ack:
		return true
	case <-s.dead:
		return false
	}
}

// Close stops the owner (and the goroutines that watch the monitor and ZAP sockets) and closes
// the sockets, waiting up to the linger time for queued
// frames to leave. It is safe to call more than once.
func (s *Socket) Close() error {
	s.once.Do(func() {
		close(s.done)
		s.poll.wake()
	})
	<-s.dead
	return nil
}
