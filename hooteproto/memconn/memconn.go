// Package memconn carries HOOT/2 frames between a router side and its dialling peers inside one
// process, with no sockets: a [hooteproto.Conn] for tests and for a gateway and workers that
// share a process.
//
// It behaves as the ZeroMQ transport does where the broker and the worker can tell: every frame
// is encoded on sending ([hooteproto.Frame.Encode]) and decoded and checked on receipt
// ([hooteproto.DecodeFrame]), so the framing is the wire's own; the router side names each peer
// by an identity of its link; a frame for a peer whose link has closed fails with
// [hooteproto.ErrPeerGone], and the router's [hooteproto.PeerWatcher] hears that a link closed;
// a full queue fails the frame rather than block; frames wait in their queue while no Serve
// runs; and a dialling side whose router went away connects again, under a new identity, to
// the router that listens at the same address next, as a ZeroMQ DEALER reconnects.
//
// It starts no goroutines: Serve runs on its caller's, and Send delivers on the sender's. So a
// broker and workers on a [Network] created inside a testing/synctest bubble run entirely in the
// bubble, and a test of heartbeats and liveness takes no real time.
//
// A [Dealer] can also fail in the ways a test needs: Close drops its link as a crashed process
// does, SetSilent loses every frame both ways while the link stays up, as a hung or partitioned
// peer does, and SendRaw sends bytes that need not be a frame.
package memconn

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hootenanny/hoot/hooteproto"
)

// Options tune a Router or a Dealer. nil means the zero value, which is usable.
type Options struct {
	// MaxBody is the largest frame body sent or received (default hooteproto.DefaultMaxBody).
	MaxBody int
	// QueueLen bounds the frames that wait to be received, as ZeroMQ's high-water mark does
	// (default 10000). A frame sent to a full queue fails.
	QueueLen int
}

// DefaultQueueLen is the default of Options.QueueLen, ZeroMQ's default high-water mark.
const DefaultQueueLen = 10000

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.MaxBody <= 0 {
		c.MaxBody = hooteproto.DefaultMaxBody
	}
	if c.QueueLen <= 0 {
		c.QueueLen = DefaultQueueLen
	}
	return c
}

// A Network is a namespace of addresses where Routers listen and Dealers dial.
type Network struct {
	mu      sync.Mutex
	routers map[string]*Router
	links   atomic.Uint64 // numbers the links, for their identities
}

// NewNetwork returns an empty Network.
func NewNetwork() *Network { return &Network{routers: make(map[string]*Router)} }

// Listen returns the router side at addr. Only one Router listens at an address at a time; once
// it is closed, another may.
func (n *Network) Listen(addr string, opts *Options) (*Router, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, taken := n.routers[addr]; taken {
		return nil, fmt.Errorf("memconn: a router already listens at %q; close it first", addr)
	}
	r := &Router{
		net:   n,
		addr:  addr,
		opts:  opts.withDefaults(),
		links: make(map[string]*link),
		lost:  make(chan struct{}, 1),
	}
	r.init(r.opts.QueueLen)
	n.routers[addr] = r
	return r, nil
}

// Dial returns a dialling side for addr. Like a ZeroMQ DEALER it connects whenever a router
// listens there, now or later, and connects again after that router has gone; until then its
// frames fail.
func (n *Network) Dial(addr string, opts *Options) *Dealer {
	d := &Dealer{net: n, addr: addr, opts: opts.withDefaults()}
	d.init(d.opts.QueueLen)
	return d
}

// A message is one frame's bytes on its way, with the identity of the link it came over.
type message struct {
	peer string
	enc  []byte
}

// An end is what both sides share: the queue of received messages and the Handler of Serve.
type end struct {
	in      chan message
	done    chan struct{}
	once    sync.Once
	serving atomic.Bool

	// hmu guards h: Serve sets it, and a sender reports a failure to it with hmu read-held,
	// so that no failure reaches a Handler after its Serve has returned.
	hmu sync.RWMutex
	h   hooteproto.Handler

	malformed atomic.Uint64
}

func (e *end) init(queue int) {
	e.in = make(chan message, queue)
	e.done = make(chan struct{})
}

func (e *end) isClosed() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// Malformed returns how many messages were received that were not well-formed frames.
func (e *end) Malformed() uint64 { return e.malformed.Load() }

// failed reports f to the Handler of Serve, if one runs.
func (e *end) failed(f hooteproto.Frame, err error) {
	f.Body = nil // as the ZeroMQ transport, which does not keep it
	e.hmu.RLock()
	defer e.hmu.RUnlock()
	if e.h != nil {
		e.h.SendFailed(f, err)
	}
}

// deliver puts m in e's queue, or reports why it could not.
func (e *end) deliver(m message) error {
	if e.isClosed() {
		return hooteproto.ErrPeerGone
	}
	select {
	case e.in <- m:
		return nil
	default:
		return errQueueFull
	}
}

var errQueueFull = errors.New("memconn: the receiver's queue is full")

// serve hands e's messages to h until ctx ends or e closes. lost, if not nil, signals that a
// link closed, for a PeerWatcher.
func (e *end) serve(ctx context.Context, h hooteproto.Handler, maxBody int, lost <-chan struct{}) error {
	if h == nil {
		return errors.New("memconn: Serve needs a Handler")
	}
	if !e.serving.CompareAndSwap(false, true) {
		return errors.New("memconn: Serve is already running on this connection")
	}
	defer e.serving.Store(false)
	if e.isClosed() {
		return hooteproto.ErrClosed
	}
	e.hmu.Lock()
	e.h = h
	e.hmu.Unlock()
	defer func() {
		e.hmu.Lock()
		e.h = nil
		e.hmu.Unlock()
	}()
	pw, _ := h.(hooteproto.PeerWatcher)
	for {
		// An ended context or a closed connection wins over what is queued.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-e.done:
			return hooteproto.ErrClosed
		default:
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-e.done:
			return hooteproto.ErrClosed
		case <-lost:
			if pw != nil {
				pw.PeerLost()
			}
		case m := <-e.in:
			f, err := hooteproto.DecodeFrame([][]byte{m.enc}, maxBody)
			if err != nil {
				e.malformed.Add(1)
				continue
			}
			f.Peer = m.peer
			h.HandleFrame(f)
		}
	}
}

// A link joins one Dealer to one Router, from the dial that made it until either side closes.
type link struct {
	id     string
	router *Router
	dealer *Dealer
	closed atomic.Bool
}

// A Router is the listening side of a Network address: a hooteproto.Conn whose frames name
// their peer.
type Router struct {
	end
	net  *Network
	addr string
	opts Options

	mu    sync.Mutex
	links map[string]*link // by identity
	lost  chan struct{}    // holds one signal when a link has closed since Serve last looked
}

var _ hooteproto.Conn = (*Router)(nil)

// Addr returns the address the router listens at.
func (r *Router) Addr() string { return r.addr }

// Peers returns how many links are up.
func (r *Router) Peers() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.links)
}

// Send hands f to the peer it names. A peer whose link is gone, or whose queue is full, fails
// the frame through the Handler's SendFailed, on the caller's goroutine.
func (r *Router) Send(ctx context.Context, f hooteproto.Frame) error {
	if err := f.Check(r.opts.MaxBody); err != nil {
		return fmt.Errorf("memconn: cannot send: %w", err)
	}
	if f.Peer == "" {
		return errors.New("memconn: a frame sent from the router side needs a Peer")
	}
	if r.isClosed() {
		return hooteproto.ErrClosed
	}
	r.mu.Lock()
	l := r.links[f.Peer]
	r.mu.Unlock()
	if l == nil || l.closed.Load() {
		r.failed(f, fmt.Errorf("memconn: peer %x: %w", f.Peer, hooteproto.ErrPeerGone))
		return nil
	}
	if l.dealer.silent.Load() {
		return nil // lost on the way
	}
	if err := l.dealer.deliver(message{enc: f.Encode()}); err != nil {
		if errors.Is(err, hooteproto.ErrPeerGone) {
			err = fmt.Errorf("memconn: peer %x: %w", f.Peer, err)
		}
		r.failed(f, err)
	}
	return nil
}

// Serve hands every well-formed frame to h, with Peer naming the link it came over, until ctx
// ends (it returns ctx's error) or the router closes (ErrClosed). A PeerWatcher hears when a link
// has closed.
func (r *Router) Serve(ctx context.Context, h hooteproto.Handler) error {
	return r.serve(ctx, h, r.opts.MaxBody, r.lost)
}

// Close stops listening and closes every link; the address is free again.
func (r *Router) Close() error {
	r.once.Do(func() {
		close(r.done)
		r.net.mu.Lock()
		if r.net.routers[r.addr] == r {
			delete(r.net.routers, r.addr)
		}
		r.net.mu.Unlock()
		r.mu.Lock()
		for _, l := range r.links {
			l.closed.Store(true)
		}
		clear(r.links)
		r.mu.Unlock()
	})
	return nil
}

// attach makes a link for d, or returns nil when the router has closed.
func (r *Router) attach(d *Dealer) *link {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.isClosed() {
		return nil
	}
	l := &link{id: fmt.Sprintf("mem-%d", r.net.links.Add(1)), router: r, dealer: d}
	r.links[l.id] = l
	return l
}

// detach closes l and tells the router's Serve that a link closed.
func (r *Router) detach(l *link) {
	if l.closed.Swap(true) {
		return
	}
	r.mu.Lock()
	delete(r.links, l.id)
	r.mu.Unlock()
	select {
	case r.lost <- struct{}{}:
	default: // a signal waits already
	}
}

// A Dealer is the dialling side of a Network address: a hooteproto.Conn whose frames go to the
// router listening there.
type Dealer struct {
	end
	net    *Network
	addr   string
	opts   Options
	silent atomic.Bool

	mu   sync.Mutex
	link *link
}

var _ hooteproto.Conn = (*Dealer)(nil)

// current returns the dealer's live link, connecting to the router at its address if the last
// link is gone, or nil when no router listens there.
func (d *Dealer) current() *link {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.link != nil && !d.link.closed.Load() {
		return d.link
	}
	d.link = nil
	d.net.mu.Lock()
	r := d.net.routers[d.addr]
	d.net.mu.Unlock()
	if r == nil {
		return nil
	}
	d.link = r.attach(d)
	return d.link
}

// Identity returns the identity under which the router knows the dealer's current link, or ""
// when it has none.
func (d *Dealer) Identity() string {
	if l := d.current(); l != nil {
		return l.id
	}
	return ""
}

// Send hands f to the router. With no router listening, or with the router's queue full, the
// frame fails through the Handler's SendFailed, on the caller's goroutine.
func (d *Dealer) Send(ctx context.Context, f hooteproto.Frame) error {
	if err := f.Check(d.opts.MaxBody); err != nil {
		return fmt.Errorf("memconn: cannot send: %w", err)
	}
	f.Peer = ""
	return d.send(f, f.Encode())
}

// SendRaw sends b to the router as one message, whether or not it is a well-formed frame, as a
// peer with a broken or hostile sender would.
func (d *Dealer) SendRaw(b []byte) error {
	return d.send(hooteproto.Frame{}, b)
}

func (d *Dealer) send(f hooteproto.Frame, enc []byte) error {
	if d.isClosed() {
		return hooteproto.ErrClosed
	}
	l := d.current()
	if l == nil {
		d.failed(f, fmt.Errorf("memconn: no router listens at %q", d.addr))
		return nil
	}
	if d.silent.Load() {
		return nil
	}
	if err := l.router.deliver(message{peer: l.id, enc: enc}); err != nil {
		d.failed(f, err)
	}
	return nil
}

// Serve hands every well-formed frame from the router to h until ctx ends (it returns ctx's
// error) or the dealer closes (ErrClosed).
func (d *Dealer) Serve(ctx context.Context, h hooteproto.Handler) error {
	return d.serve(ctx, h, d.opts.MaxBody, nil)
}

// Close closes the dealer and its link, without a word to the router, as a process that dies
// does: the router's frames to it fail with ErrPeerGone from now on.
func (d *Dealer) Close() error {
	d.once.Do(func() {
		close(d.done)
		d.mu.Lock()
		l := d.link
		d.link = nil
		d.mu.Unlock()
		if l != nil {
			l.router.detach(l)
		}
	})
	return nil
}

// SetSilent makes every frame between the dealer and its router, either way, lost on the way
// while silent is true, with the link still up, as a hung or cut-off peer's are: only missed
// heartbeats tell.
func (d *Dealer) SetSilent(silent bool) { d.silent.Store(silent) }
