package hooteproto

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/proto"
)

// A Broker is the gateway's side of the wire. Workers connect to its router socket and announce
// the services they serve; Call sends a typed request to a live worker of the right service with
// room for it, least loaded first, and waits for the typed result.
//
// Nothing waits forever: a call ends with the worker's result, its context's end (the worker is
// told to cancel), or the loss of its worker, detected by missed heartbeats or a DISCONNECT.
type Broker struct {
	conn Conn
	cfg  config

	mu      sync.Mutex
	workers map[string]*brokerWorker // by peer identity
	calls   map[RequestID]*brokerCall
	stopped bool

	changed chan struct{} // closed and replaced whenever the set of live services changes
}

type brokerWorker struct {
	peer     string
	name     string
	services []string
	capacity int
	inflight int
	lastSeen time.Time
}

type brokerCall struct {
	worker   *brokerWorker
	progress chan *hootv1.Progress // nil when the caller wants no progress
	done     chan callOutcome      // buffered: the sender never blocks
}

type callOutcome struct {
	res *hootv1.Result
	err error
}

// Limits on what a READY may announce.
const (
	maxAnnouncedServices = 64
	maxAnnouncedCapacity = 100000
	progressBuffer       = 64
)

// NewBroker returns a Broker that serves workers over conn. Run must be running for calls to
// be answered.
func NewBroker(conn Conn, opts ...Option) *Broker {
	return &Broker{
		conn:    conn,
		cfg:     newConfig(opts),
		workers: make(map[string]*brokerWorker),
		calls:   make(map[RequestID]*brokerCall),
		changed: make(chan struct{}),
	}
}

// Run receives frames from workers and sends heartbeats until ctx ends or the connection
// closes. When it returns, every call still waiting fails as unavailable.
func (b *Broker) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { b.heartbeat(ctx) })
	defer wg.Wait()
	defer b.stop()
	for {
		f, err := b.conn.Recv(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, ErrClosed) {
				return nil
			}
			return err
		}
		b.handle(ctx, f)
	}
}

// Services returns the names of the services that at least one live worker serves, sorted.
func (b *Broker) Services() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := b.liveServicesLocked()
	if key == "" {
		return nil
	}
	return strings.Split(key, ",")
}

// Changed returns a channel that is closed the next time the set of live services changes.
func (b *Broker) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.changed
}

// Call sends p to a live worker of service and returns its Result, which holds either the
// tool's result or the worker's ToolError. Progress reports go to onProgress, if not nil, on the
// calling goroutine. The context's deadline travels with the request, so the worker stops too.
// Errors are *Error values: unavailable when no worker serves the service or the worker is lost,
// overloaded when every worker is at capacity, deadline exceeded or canceled with the context.
func (b *Broker) Call(ctx context.Context, service string, p *hootv1.Payload, onProgress func(*hootv1.Progress)) (*hootv1.Result, error) {
	req := &hootv1.Request{Payload: p}
	if dl, ok := ctx.Deadline(); ok {
		ms := time.Until(dl).Milliseconds()
		if ms <= 0 {
			return nil, AsError(context.DeadlineExceeded)
		}
		req.TimeoutMs = uint32(min(ms, math.MaxUint32))
	}
	body, err := proto.Marshal(req)
	if err != nil {
		return nil, WrapError(CodeInternal, fmt.Errorf("encode request: %w", err))
	}
	if len(body) > b.cfg.maxBody {
		return nil, NewError(CodeInvalidArgument, fmt.Sprintf("the request is %d bytes, over the wire limit of %d bytes", len(body), b.cfg.maxBody)).
			WithHint("send less content in one call")
	}

	id := NewRequestID()
	call := &brokerCall{done: make(chan callOutcome, 1)}
	if onProgress != nil {
		call.progress = make(chan *hootv1.Progress, progressBuffer)
	}
	b.mu.Lock()
	w, perr := b.pick(service)
	if perr != nil {
		b.mu.Unlock()
		return nil, perr
	}
	w.inflight++
	call.worker = w
	b.calls[id] = call
	b.mu.Unlock()

	err = b.conn.Send(ctx, Frame{
		Peer:        w.peer,
		Command:     CommandRequest,
		ID:          id,
		Service:     service,
		Traceparent: TraceparentFrom(ctx),
		Body:        body,
	})
	if err != nil {
		b.retire(id)
		if ctx.Err() != nil {
			return nil, AsError(ctx.Err())
		}
		return nil, WrapError(CodeUnavailable, fmt.Errorf("could not reach the worker for service %q: %w", service, err)).
			WithHint("retry the call; another worker may take it")
	}

	for {
		select {
		case o := <-call.done:
			drainProgress(call.progress, onProgress)
			return o.res, o.err
		case pr := <-call.progress:
			onProgress(pr)
		case <-ctx.Done():
			if b.retire(id) {
				b.cancelOnWorker(w.peer, id)
				return nil, AsError(ctx.Err())
			}
			// The answer won the race with the context: take it.
			o := <-call.done
			drainProgress(call.progress, onProgress)
			return o.res, o.err
		}
	}
}

func drainProgress(ch chan *hootv1.Progress, f func(*hootv1.Progress)) {
	for {
		select {
		case p := <-ch:
			f(p)
		default:
			return
		}
	}
}

// pick returns the least loaded live worker of service with room; b.mu is held.
func (b *Broker) pick(service string) (*brokerWorker, *Error) {
	if b.stopped {
		return nil, NewError(CodeUnavailable, "the gateway is shutting down")
	}
	var best *brokerWorker
	serving := 0
	for _, w := range b.workers {
		if !slices.Contains(w.services, service) {
			continue
		}
		serving++
		if w.inflight >= w.capacity {
			continue
		}
		if best == nil || w.inflight < best.inflight {
			best = w
		}
	}
	switch {
	case serving == 0:
		return nil, NewError(CodeUnavailable, fmt.Sprintf("no worker serves the %q service right now", service)).
			WithHint("start a hootenanny worker connected to this gateway; the call works as soon as one announces itself")
	case best == nil:
		return nil, NewError(CodeOverloaded, fmt.Sprintf("all %d workers of the %q service are at capacity", serving, service)).
			WithRetryAfter(100 * time.Millisecond).
			WithHint("retry after a short pause")
	}
	return best, nil
}

// retire forgets a call that is still waiting and reports whether it was.
func (b *Broker) retire(id RequestID) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	call, ok := b.calls[id]
	if !ok {
		return false
	}
	delete(b.calls, id)
	call.worker.inflight--
	return true
}

func (b *Broker) cancelOnWorker(peer string, id RequestID) {
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.heartbeat)
	defer cancel()
	if err := b.conn.Send(ctx, Frame{Peer: peer, Command: CommandCancel, ID: id}); err != nil {
		b.cfg.logger.Debug("could not send CANCEL", "request", id, "err", err)
	}
}

func (b *Broker) handle(ctx context.Context, f Frame) {
	b.mu.Lock()
	w := b.workers[f.Peer]
	if w != nil {
		w.lastSeen = time.Now()
	}
	b.mu.Unlock()

	if f.Command == CommandReady {
		b.register(f)
		return
	}
	if w == nil {
		// A worker we do not know (we restarted, or it was given up for dead) must announce
		// itself again before it gets work.
		if f.Command != CommandDisconnect {
			b.send(ctx, Frame{Peer: f.Peer, Command: CommandDisconnect})
		}
		return
	}
	switch f.Command {
	case CommandReply:
		b.reply(f)
	case CommandProgress:
		b.progress(f)
	case CommandHeartbeat:
	case CommandDisconnect:
		b.drop(f.Peer, "the worker disconnected")
	default:
		b.cfg.logger.Warn("worker sent a frame only the gateway may send", "worker", w.name, "command", f.Command)
	}
}

func (b *Broker) register(f Frame) {
	var ready hootv1.Ready
	if err := proto.Unmarshal(f.Body, &ready); err != nil {
		b.cfg.logger.Warn("dropped a malformed READY", "peer", fmt.Sprintf("%x", f.Peer), "err", err)
		return
	}
	services := ready.GetServices()
	if len(services) == 0 || len(services) > maxAnnouncedServices {
		b.cfg.logger.Warn("dropped a READY with a bad service count", "count", len(services))
		return
	}
	for _, s := range services {
		if s == "" || checkService([]byte(s)) != nil {
			b.cfg.logger.Warn("dropped a READY with a bad service name", "service", s)
			return
		}
	}
	capacity := int(ready.GetCapacity())
	if capacity <= 0 || capacity > maxAnnouncedCapacity {
		capacity = DefaultCapacity
	}
	name := ready.GetName()
	if len(name) > 128 {
		name = name[:128]
	}

	b.mu.Lock()
	before := b.liveServicesLocked()
	w, known := b.workers[f.Peer]
	if !known {
		w = &brokerWorker{peer: f.Peer}
		b.workers[f.Peer] = w
	}
	w.name, w.services, w.capacity, w.lastSeen = name, slices.Clone(services), capacity, time.Now()
	b.noteChangeLocked(before)
	b.mu.Unlock()
	if !known {
		b.cfg.logger.Info("worker ready", "worker", name, "services", services, "capacity", capacity)
	}
}

func (b *Broker) reply(f Frame) {
	b.mu.Lock()
	call, ok := b.calls[f.ID]
	if !ok || call.worker.peer != f.Peer {
		b.mu.Unlock()
		return // cancelled, timed out, or not this worker's to answer
	}
	delete(b.calls, f.ID)
	call.worker.inflight--
	b.mu.Unlock()

	res := new(hootv1.Result)
	if err := proto.Unmarshal(f.Body, res); err != nil {
		call.done <- callOutcome{err: WrapError(CodeInternal, fmt.Errorf("the worker sent a malformed reply: %w", err))}
		return
	}
	call.done <- callOutcome{res: res}
}

func (b *Broker) progress(f Frame) {
	b.mu.Lock()
	call, ok := b.calls[f.ID]
	b.mu.Unlock()
	if !ok || call.worker.peer != f.Peer || call.progress == nil {
		return
	}
	p := new(hootv1.Progress)
	if err := proto.Unmarshal(f.Body, p); err != nil {
		return
	}
	select {
	case call.progress <- p:
	default:
		// The caller is behind; a later report supersedes this one.
	}
}

// drop forgets a worker and fails its calls as unavailable.
func (b *Broker) drop(peer, why string) {
	b.mu.Lock()
	w, ok := b.workers[peer]
	if !ok {
		b.mu.Unlock()
		return
	}
	before := b.liveServicesLocked()
	delete(b.workers, peer)
	var lost []*brokerCall
	for id, call := range b.calls {
		if call.worker == w {
			delete(b.calls, id)
			lost = append(lost, call)
		}
	}
	b.noteChangeLocked(before)
	b.mu.Unlock()

	b.cfg.logger.Warn("worker gone", "worker", w.name, "why", why, "calls_failed", len(lost))
	for _, call := range lost {
		call.done <- callOutcome{err: NewError(CodeUnavailable, "the worker serving this call was lost ("+why+"); the call may or may not have run").
			WithRetryable(true).
			WithHint("retry the call; it goes to another worker if one is live")}
	}
}

func (b *Broker) heartbeat(ctx context.Context) {
	t := time.NewTicker(b.cfg.heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		var alive, dead []string
		b.mu.Lock()
		for peer, w := range b.workers {
			if now.Sub(w.lastSeen) > b.cfg.silence() {
				dead = append(dead, peer)
			} else {
				alive = append(alive, peer)
			}
		}
		b.mu.Unlock()
		for _, peer := range dead {
			b.drop(peer, fmt.Sprintf("silent for more than %s", b.cfg.silence()))
		}
		for _, peer := range alive {
			b.send(ctx, Frame{Peer: peer, Command: CommandHeartbeat})
		}
	}
}

func (b *Broker) send(ctx context.Context, f Frame) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.heartbeat)
	defer cancel()
	if err := b.conn.Send(ctx, f); err != nil {
		b.cfg.logger.Debug("send failed", "command", f.Command, "err", err)
	}
}

// stop fails every waiting call; later calls fail at once.
func (b *Broker) stop() {
	b.mu.Lock()
	b.stopped = true
	calls := b.calls
	b.calls = make(map[RequestID]*brokerCall)
	b.mu.Unlock()
	for _, call := range calls {
		call.done <- callOutcome{err: NewError(CodeUnavailable, "the gateway is shutting down").WithRetryable(true)}
	}
}

// liveServicesLocked returns the live services as one sorted key; b.mu is held.
func (b *Broker) liveServicesLocked() string {
	var all []string
	for _, w := range b.workers {
		all = append(all, w.services...)
	}
	slices.Sort(all)
	return strings.Join(slices.Compact(all), ",")
}

func (b *Broker) noteChangeLocked(before string) {
	if b.liveServicesLocked() != before {
		close(b.changed)
		b.changed = make(chan struct{})
	}
}
