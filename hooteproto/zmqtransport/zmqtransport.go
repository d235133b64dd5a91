// Package zmqtransport carries HOOT/2 frames over ZeroMQ, several for one peer in one message
// (hooteproto.BatchProtocol) when they leave together and the peer reads batches. It is the
// only package of the project that imports a ZeroMQ binding.
//
// ZeroMQ sockets are not safe for concurrent use; a ZeroMQ socket may move between threads with
// a full memory barrier in between. Each [Socket] keeps its ZeroMQ socket behind a mutex, and one
// owner goroutine receives. A frame sent ([Socket.Send]) while the owner is awake waits for the
// owner's next turn, which sends it with whatever else was queued; while the owner sleeps, the
// goroutine that sends it hands it to ZeroMQ itself when the mutex is free. The owner never blocks inside ZeroMQ, which would hold the
// socket: it sleeps in poll(2) on the socket's ZMQ_FD (and on the monitor's and ZAP handler's
// sockets, which it alone touches), and other goroutines wake it through a pipe when they have
// work for it.
//
// The owner hands what it receives straight to the Handler of [Socket.Serve], on its own
// goroutine. Every goroutine a frame passes through on its way costs a wake-up, so there are as
// few as the rule of one socket at a time allows: a frame sent goes from its sender, or from an
// owner that is awake anyway, to ZeroMQ, and a frame received from the owner to the handler.
package zmqtransport

import (
	"context"
	"encoding/binary"
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
	// QueueLen bounds the queue of frames that Send leaves for the goroutine holding the
	// socket (default 1024); a Send that finds it full sends from its own goroutine.
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

	out     chan outgoing   // frames waiting for whoever holds mu next
	attach  chan attachment // Serve hands its Handler to the owner, and nil when it ends
	serving atomic.Bool
	wk      *waker // the owner sleeps until it is woken through it
	done    chan struct{}
	dead    chan struct{} // closed when the owner goroutine has stopped
	once    sync.Once

	// mu guards the ZeroMQ socket: whoever holds it may use sock. Holders never wait for
	// anything but ZeroMQ's non-blocking calls and the Handler's SendFailed.
	mu      sync.Mutex
	sock    *zmq.Socket
	h       hooteproto.Handler // written by the owner with mu held; SendFailed's receiver
	closed  bool               // the sockets are closed: nothing may touch sock
	peerBuf []byte             // the routing identity of the frame being sent
	// Batches (hooteproto.BatchProtocol): the message under construction, and the frames
	// taken from the queue for one flush with which of them have left.
	batchBuf []byte
	pending  []outgoing
	sent     []bool
	batchIdx []int
	// batchPeers are the peers of a listening socket that have sent a batch, and so read
	// them; the others get one HOOT/2 frame a message. A dialling socket sends batches
	// always (see maxBatchBytes).
	batchPeers *lru[struct{}]
	// idle is set while the owner sleeps on ZMQ_FD: from the turn that found the socket empty
	// until the owner holds mu again. A holder that uses the socket meanwhile may have read the
	// descriptor's signal of a message that has just arrived, so it must look for one.
	idle bool
	// missed is set by a holder that found a message waiting after it used the socket while
	// the owner was idle, and cleared by the owner's turn, which receives it. It keeps the
	// message from being slept on when the holder's wake-up came before the owner announced
	// its sleep (and so wrote nothing to the pipe): the owner looks at it after announcing.
	missed atomic.Bool

	// Only the owner goroutine touches these.
	parts      [][]byte           // the parts of the message received last
	batch      []hooteproto.Frame // the frames of one turn
	guard      *peerGuard         // the listening side's banned peers
	logged     *lru[time.Time]    // when a failed handshake of each kind was last logged
	redialAt   time.Time          // the dialling side connects again then, if not zero
	redialWait time.Duration

	malformed         atomic.Uint64
	dropped           atomic.Uint64
	banned            atomic.Uint64
	handshakeFailures atomic.Uint64
}

var _ hooteproto.Conn = (*Socket)(nil)

// An outgoing frame waits in Send's queue for whoever holds the socket next, already encoded by
// the goroutine that sent it, into a buffer of encPool that goes back to it once ZeroMQ has
// copied the frame.
type outgoing struct {
	f   hooteproto.Frame // for SendFailed
	enc []byte
	buf *[]byte
}

// encPool keeps the buffers that frames are encoded into on their way to ZeroMQ, which copies
// what it is given: a frame sent costs no allocation of its own. Buffers larger than
// maxPooledEnc are left to the collector rather than kept.
var encPool = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledEnc = maxBatchedFrame

// encode encodes f into a buffer of encPool.
func encode(f *hooteproto.Frame) outgoing {
	buf := encPool.Get().(*[]byte)
	return outgoing{f: *f, enc: f.AppendEncode((*buf)[:0]), buf: buf}
}

// release gives o's buffer back to encPool once ZeroMQ has copied the frame.
func (o *outgoing) release() {
	if o.buf != nil && cap(o.enc) <= maxPooledEnc {
		*o.buf = o.enc[:0]
		encPool.Put(o.buf)
	}
	o.buf, o.enc = nil, nil
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
		s.batchPeers = newLRU[struct{}](maxBatchPeers)
	}
	// Sockets are created and bound here, then handed to the owner goroutine; starting it is
	// the memory barrier ZeroMQ asks for when a socket moves between threads, as the mutex is
	// afterwards.
	zctx, err := zmq.NewContext()
	if err != nil {
		return nil, fmt.Errorf("zmqtransport: new context: %w", err)
	}
	z, err := s.sockets(zctx, o)
	var fds []pollFD
	if err == nil {
		fds, err = s.pollFDs(z)
	}
	if err != nil {
		if s.wk != nil {
			s.wk.close()
		}
		z.close()
		_ = zctx.Term()
		return nil, err
	}
	s.sock = z.sock
	go s.own(zctx, z, fds)
	return s, nil
}

// The owner's descriptors, in the order of pollFDs.
const (
	fdSock = iota
	fdMon
	fdWake
	fdZap // present only with a ZAP handler
)

// pollFDs sets up the waker and returns the descriptors the owner sleeps on.
func (s *Socket) pollFDs(z zsockets) ([]pollFD, error) {
	var fds []pollFD
	for _, zs := range []*zmq.Socket{z.sock, z.mon} {
		fd, err := zs.GetFd()
		if err != nil {
			return nil, fmt.Errorf("zmqtransport: cannot watch the socket: ZMQ_FD: %w", err)
		}
		fds = append(fds, pollFD{fd: int32(fd)})
	}
	wk, err := newWaker()
	if err != nil {
		return nil, fmt.Errorf("zmqtransport: cannot make the owner's wake-up pipe: %w", err)
	}
	s.wk = wk
	fds = append(fds, pollFD{fd: int32(wk.r)})
	if z.zap != nil {
		fd, err := z.zap.GetFd()
		if err != nil {
			return nil, fmt.Errorf("zmqtransport: cannot watch the ZAP handler: ZMQ_FD: %w", err)
		}
		fds = append(fds, pollFD{fd: int32(fd)})
	}
	return fds, nil
}

// zsockets are the ZeroMQ sockets of one Socket, all in its own context.
type zsockets struct {
	sock *zmq.Socket // the ROUTER or DEALER
	mon  *zmq.Socket // receives sock's handshake events
	zap  *zmq.Socket // answers ZAP requests; nil unless a listening socket uses CURVE
	auth *zapHandler
}

// close closes the sockets, sock first so that its monitor stops before the monitor's socket
// closes.
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

// own receives: it alone reads the main socket and touches the monitor and ZAP sockets. It
// sleeps in poll(2) until one of them has something or another goroutine wakes it.
func (s *Socket) own(zctx *zmq.Context, z zsockets, fds []pollFD) {
	defer close(s.dead)
	defer func() {
		s.mu.Lock()
		// What Send has queued goes to ZeroMQ, which sends it within the linger time.
		s.flushLocked()
		s.closed = true
		z.close()
		s.mu.Unlock()
		s.wk.close()
		_ = zctx.Term()
	}()

	// The monitor and the ZAP handler are served when poll finds their descriptors readable,
	// and once at the start; serving them reads the descriptors empty.
	monReady, zapReady := true, z.zap != nil
	var sleepErr error
	for {
		select {
		case r := <-s.attach:
			s.mu.Lock()
			s.h = r.h
			s.mu.Unlock()
			close(r.ack)
		default:
		}
		select {
		case <-s.done:
			return
		default:
		}
		if monReady {
			for readable(z.mon) {
				s.watch(z.mon)
			}
			monReady = false
		}
		if zapReady {
			for readable(z.zap) {
				z.auth.serve(z.zap, s.endpoint)
			}
			zapReady = false
		}
		if !s.redialAt.IsZero() && !time.Now().Before(s.redialAt) {
			s.redialAt = time.Time{}
			s.mu.Lock()
			s.redial(z.sock)
			s.mu.Unlock()
		}
		// While the owner is awake (waiting is clear), a Send only queues its frame: the
		// owner's next turn sends it with whatever else was queued, so nobody else has to
		// use the socket and look for a message after it.
		delivered, more := s.turn()
		if delivered {
			// Let the goroutines the handler has just readied (a worker's calls, a gateway's
			// callers) run on this thread before the owner sleeps in a system call with them
			// still queued behind it. What they send waits for the next turn.
			runtime.Gosched()
		}
		if more {
			continue
		}
		// Announce the sleep before the last look for work, so that work that comes after
		// that look finds waiting set: its sender wakes the owner, or sends by itself and
		// wakes the owner if a message waits. The turn found the socket empty, so a message
		// that arrives from now on makes ZMQ_FD readable and ends the sleep; no turn more is
		// needed to look for one.
		s.wk.waiting.Store(true)
		if s.busy() {
			s.wk.waiting.Store(false)
			continue
		}
		err := sleep(fds, s.redialAt)
		s.wk.waiting.Store(false)
		monReady, zapReady = fds[fdMon].ready(), len(fds) > fdZap && fds[fdZap].ready()
		if fds[fdWake].ready() {
			s.wk.drain()
		}
		if err != nil {
			// Not expected: the descriptors are the owner's own. Poll slowly rather than spin.
			if sleepErr == nil {
				s.log.Error("cannot wait for the ZeroMQ socket; polling it", "endpoint", s.endpoint, "err", err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		sleepErr = err
	}
}

// busy reports whether the owner has work besides the socket's messages.
func (s *Socket) busy() bool {
	if len(s.out) > 0 || len(s.attach) > 0 || s.missed.Load() {
		return true
	}
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// maxDrain bounds how many messages one turn of the owner takes from the socket, so that the
// owner looks at its other work under a flood; it comes back at once for the rest.
const maxDrain = 256

// turn sends what Send has left in the queue, takes the socket's waiting messages (up to
// maxDrain) and then, with the socket free, hands them to the Handler; it reports whether it
// handed over any and whether messages remain. It holds the socket once a turn, so that the
// owner receives however many senders wait for it. Without a handler it only lets ZeroMQ
// process its pending commands (which re-arms ZMQ_FD) and leaves the messages where they are.
func (s *Socket) turn() (delivered, more bool) {
	h := s.h // only the owner writes it
	s.mu.Lock()
	s.idle = false
	s.missed.Store(false) // this turn receives whatever a holder found waiting
	s.flushLocked()
	if h == nil {
		readable(s.sock)
		s.idle = true
		s.mu.Unlock()
		return false, false
	}
	batch, empty := s.batch[:0], false
	for range maxDrain { // receives, dropped ones included: a flood of bad frames is bounded too
		// A receive that finds nothing has ZeroMQ process its commands, as asking for
		// ZMQ_EVENTS does; asking before each receive would cost a system call more a message.
		var none bool
		if batch, none = s.receive(s.sock, batch); none {
			empty = true
			break
		}
	}
	s.idle = empty
	s.mu.Unlock()
	for _, f := range batch {
		h.HandleFrame(f)
	}
	clear(batch) // the frames are the handler's now
	s.batch = batch[:0]
	return len(batch) > 0, !empty
}

// recvParts reads the parts of one message into the owner's own slice, which the next call
// reuses (the parts themselves are new each time). With no message waiting it returns
// errNoMessage.
func (s *Socket) recvParts(sock *zmq.Socket) ([][]byte, error) {
	parts := s.parts[:0]
	for {
		b, err := sock.RecvBytes(zmq.DONTWAIT)
		if err != nil {
			if len(parts) == 0 && errors.Is(err, zmq.Errno(syscall.EAGAIN)) {
				return nil, errNoMessage
			}
			return nil, err
		}
		parts = append(parts, b)
		if s.router && len(parts) == 1 && sock == s.sock {
			// A ROUTER puts the peer's identity in front of every message, which has at
			// least one part of its own: no need to ask whether more follows.
			continue
		}
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

// errNoMessage says that the socket had no message waiting.
var errNoMessage = errors.New("no message")

// receive reads one message and appends its frames to frames: one for a HOOT/2 frame, several
// for a batch, none for a malformed message; empty says that no message was waiting (or the
// socket could not be read). When the message gets its sender banned, it appends a DISCONNECT
// from the sender instead, so that the handler forgets the peer at once.
func (s *Socket) receive(sock *zmq.Socket, frames []hooteproto.Frame) (_ []hooteproto.Frame, empty bool) {
	parts, err := s.recvParts(sock)
	if err != nil {
		// An error other than errNoMessage (the context ending) ends the turn as well.
		return frames, true
	}
	var peer string
	if s.router {
		if len(parts) == 0 {
			return frames, false
		}
		peer, parts = string(parts[0]), parts[1:]
		if s.guard.isBanned(peer) {
			s.dropped.Add(1)
			return frames, false
		}
	}
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	n := len(frames)
	batch := len(parts) == 1 && hooteproto.IsBatch(parts[0])
	if batch {
		frames, err = hooteproto.DecodeBatch(parts[0], s.maxBody, frames)
	} else {
		var f hooteproto.Frame
		if f, err = hooteproto.DecodeFrame(parts, s.maxBody); err == nil {
			frames = append(frames, f)
		}
	}
	if err != nil {
		s.malformed.Add(1)
		s.log.Warn("dropped a malformed frame", "endpoint", s.endpoint, "peer", fmt.Sprintf("%x", peer), "err", err)
		if !s.router {
			return frames, false
		}
		oversized := size > s.maxBody+frameRoom || errors.Is(err, hooteproto.ErrFrameTooLarge)
		if oversized {
			s.guard.ban(peer)
		} else if !s.guard.strike(peer) {
			return frames, false
		}
		s.banned.Add(1)
		s.batchPeers.remove(peer)
		why := fmt.Sprintf("more than %d malformed frames", s.guard.maxMalformed)
		if oversized {
			why = fmt.Sprintf("a frame of %d bytes, over the limit", size)
		}
		s.log.Warn("banned a peer: its frames are dropped unread from now on", "endpoint", s.endpoint, "peer", fmt.Sprintf("%x", peer), "why", why)
		return append(frames, hooteproto.Frame{Peer: peer, Command: hooteproto.CommandDisconnect}), false
	}
	if s.router {
		if batch {
			s.batchPeers.put(peer, struct{}{})
		}
		for i := n; i < len(frames); i++ {
			frames[i].Peer = peer
		}
	}
	return frames, false
}

// Bounds of the batches a Socket sends: frames for the same peer that leave in one flush go
// as one message of hooteproto.BatchProtocol, up to maxBatchBytes and MaxBatchFrames; a frame
// larger than maxBatchedFrame always leaves alone. A listening socket remembers up to
// maxBatchPeers peers that read batches (each connection is a peer of its own); one it has
// forgotten gets one HOOT/2 frame a message until it sends a batch again. A dialling socket
// sends every message as a batch, even of one frame, so that the listening side learns that it
// reads them; a gateway of HOOT/2 only refuses such a worker's frames as of an unknown
// protocol, and the worker never becomes live there.
const (
	maxBatchBytes   = 64 << 10
	maxBatchedFrame = 16 << 10
	maxBatchPeers   = 4096
)

// flushLocked sends the frames queued when it starts, those for one peer together as batches
// where the peer reads them; the caller holds mu. Frames queued meanwhile are left to the next
// holder (every holder looks at the queue again once it has let go of the socket), so that no
// goroutine sends for the others for as long as they queue.
func (s *Socket) flushLocked() {
	pending := s.pending[:0]
	for range len(s.out) {
		select {
		case o := <-s.out:
			pending = append(pending, o)
		default:
		}
	}
	if len(pending) == 1 {
		s.sendLocked(pending[0])
	} else if len(pending) > 0 {
		s.sendBatchesLocked(pending)
	}
	for i := range pending {
		pending[i].release()
	}
	clear(pending) // the frames may go
	s.pending = pending[:0]
}

// sendBatchesLocked sends pending, grouped by peer in their order; the caller holds mu.
func (s *Socket) sendBatchesLocked(pending []outgoing) {
	sent := s.sent[:0]
	for range pending {
		sent = append(sent, false)
	}
	for i := range pending {
		if sent[i] {
			continue
		}
		sent[i] = true
		first := &pending[i]
		if len(first.enc) > maxBatchedFrame || s.router && !s.readsBatches(first.f.Peer) {
			s.sendLocked(*first)
			continue
		}
		buf := hooteproto.AppendBatchFrame(append(s.batchBuf[:0], hooteproto.BatchProtocol...), first.enc)
		in := append(s.batchIdx[:0], i)
		for j := i + 1; j < len(pending) && len(in) < hooteproto.MaxBatchFrames; j++ {
			o := &pending[j]
			if sent[j] || o.f.Peer != first.f.Peer || len(o.enc) > maxBatchedFrame {
				continue
			}
			if len(buf)+len(o.enc)+binary.MaxVarintLen64 > maxBatchBytes {
				break
			}
			buf = hooteproto.AppendBatchFrame(buf, o.enc)
			sent[j] = true
			in = append(in, j)
		}
		s.batchBuf, s.batchIdx = buf, in
		if s.closed {
			break
		}
		if err := s.writeMessage(s.sock, first.f.Peer, buf); err != nil {
			for _, j := range in {
				s.sendFailedLocked(pending[j].f, err)
			}
		}
	}
	s.sent = sent[:0]
}

// readsBatches reports whether the listening side's peer has sent a batch; the caller holds mu.
func (s *Socket) readsBatches(peer string) bool {
	_, ok := s.batchPeers.get(peer)
	return ok
}

// sendLocked hands o to ZeroMQ and reports a failure to the Handler, or logs it when no Serve
// runs; the caller holds mu.
func (s *Socket) sendLocked(o outgoing) {
	if s.closed {
		return
	}
	var err error
	if s.router {
		err = s.writeMessage(s.sock, o.f.Peer, o.enc)
	} else {
		// A dialling socket speaks in batches only (see maxBatchBytes).
		s.batchBuf = hooteproto.AppendBatchFrame(append(s.batchBuf[:0], hooteproto.BatchProtocol...), o.enc)
		err = s.writeMessage(s.sock, "", s.batchBuf)
	}
	if err != nil {
		s.sendFailedLocked(o.f, err)
	}
}

// sendFailedLocked reports a frame that could not be sent to the Handler, or logs it when no
// Serve runs; the caller holds mu.
func (s *Socket) sendFailedLocked(f hooteproto.Frame, err error) {
	if s.h != nil {
		s.h.SendFailed(f, err)
		return
	}
	s.log.Debug("could not send a frame", "endpoint", s.endpoint, "command", f.Command, "err", err)
}

// flushRounds bounds how often one sender takes the socket again for frames that others queued
// while it held it; the owner sends what is left.
const flushRounds = 2

// lookLocked reports whether the owner must be woken to receive after the caller has used the
// socket; the caller holds mu. Using the socket lets ZeroMQ process its pending commands, which
// may read the ZMQ_FD signal of a message that has just arrived: the owner, asleep on that
// signal, must look. (An owner that is awake receives until the socket is empty before it
// sleeps.)
func (s *Socket) lookLocked() bool {
	if s.idle && !s.closed && s.h != nil && readable(s.sock) {
		s.missed.Store(true)
		return true
	}
	return false
}

// tryFlush sends what is queued if the socket is free. When it is not, its holder sends the
// queue before it lets go or, failing that, wakes the owner to send it: every holder looks at
// the queue again after it has let go of the socket, so no frame is left behind.
func (s *Socket) tryFlush() {
	for range flushRounds {
		if len(s.out) == 0 || !s.mu.TryLock() {
			return
		}
		s.flushLocked()
		look := s.lookLocked()
		s.mu.Unlock()
		if look {
			s.wk.wake()
		}
	}
	if len(s.out) > 0 {
		s.wk.wake()
	}
}

// check returns what is wrong with f itself, before it is queued: what the other side's
// decoder would refuse, and a frame from the router side without a peer.
func (s *Socket) check(f *hooteproto.Frame) error {
	if err := f.Check(s.maxBody); err != nil {
		return fmt.Errorf("zmqtransport: cannot send: %w", err)
	}
	if s.router && f.Peer == "" {
		return errors.New("zmqtransport: a frame sent from the router side needs a Peer")
	}
	return nil
}

// writeMessage hands one message to ZeroMQ, to peer on the listening side; the caller holds mu.
func (s *Socket) writeMessage(sock *zmq.Socket, peer string, msg []byte) error {
	var err error
	if s.router {
		// ZeroMQ routes (or refuses) a message at its first part, the peer's identity; the
		// rest of a message whose first part it took always follows.
		// ZeroMQ copies what it is given, so the identity goes through one buffer kept for
		// the holder of the socket instead of a new slice a frame.
		s.peerBuf = append(s.peerBuf[:0], peer...)
		if _, err = sock.SendBytes(s.peerBuf, zmq.SNDMORE|zmq.DONTWAIT); err == nil {
			_, err = sock.SendBytes(msg, zmq.DONTWAIT)
		}
	} else {
		_, err = sock.SendBytes(msg, zmq.DONTWAIT)
	}
	if err != nil {
		if errors.Is(err, zmq.EHOSTUNREACH) {
			return fmt.Errorf("zmqtransport: peer %x: %w (%w)", peer, hooteproto.ErrPeerGone, err)
		}
		if errors.Is(err, zmq.Errno(syscall.EAGAIN)) {
			return fmt.Errorf("zmqtransport: send queue to the peer is full: %w", err)
		}
		return fmt.Errorf("zmqtransport: send: %w", err)
	}
	return nil
}

// Send encodes f and queues it for the owner goroutine when that is awake; otherwise it hands
// it to ZeroMQ itself, or, when another goroutine holds the socket, leaves it to that one. When the queue is full it waits for the socket and sends the queue and f
// itself; it never waits for the owner goroutine, so a Handler may call it. What is wrong with
// f itself is reported here; a peer that is not connected or a full ZeroMQ queue is reported
// to the Handler of Serve, on the goroutine that sent the frame.
func (s *Socket) Send(ctx context.Context, f hooteproto.Frame) error {
	if err := s.check(&f); err != nil {
		return err
	}
	o := encode(&f)
	o.f.Body = nil // SendFailed reports the frame; its body need not stay alive meanwhile
	select {
	case <-s.done:
		return hooteproto.ErrClosed
	default:
	}
	select {
	case s.out <- o:
		if !s.wk.waiting.Load() {
			// The owner is awake: it sends the queue at the start of its next turn (it
			// looks at the queue after it has announced its sleep), with whatever else was
			// queued meanwhile.
			return nil
		}
		s.tryFlush()
		return nil
	default:
	}
	// The queue is full: wait for the socket and send from here, the queue first (it holds
	// this goroutine's earlier frames). Holders only hand frames to ZeroMQ, so the wait is
	// short, and nobody is left waiting for a queue that no one empties: the owner, whose
	// Handler may be the caller, does not have to come.
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return hooteproto.ErrClosed
	}
	s.flushLocked()
	s.sendLocked(o)
	o.release()
	look := s.lookLocked()
	s.mu.Unlock()
	if look {
		s.wk.wake()
	}
	s.tryFlush()
	return nil
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
	s.wk.wake()
	select {
	case <-a.ack:
		return true
	case <-s.dead:
		return false
	}
}

// Close stops the owner and closes the sockets, waiting up to the linger time for queued frames
// to leave. It is safe to call more than once.
func (s *Socket) Close() error {
	s.once.Do(func() {
		close(s.done)
		s.wk.wake()
	})
	<-s.dead
	return nil
}
