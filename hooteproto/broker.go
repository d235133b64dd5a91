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
// When every worker of a service is busy, calls wait in a bounded queue, in order; beyond it they
// fail at once as overloaded, with a retry-after. Nothing waits forever: a call ends with the
// worker's result, its context's end (the worker is told to cancel), or the loss of its worker,
// detected by missed heartbeats or a DISCONNECT. A call lost with its worker is sent to another
// worker when the tool is idempotent or the worker had refused it unstarted; otherwise it fails
// as unavailable and retryable.
type Broker struct {
	conn Conn
	cfg  brokerConfig

	mu      sync.Mutex
	workers map[string]*brokerWorker // by peer identity
	calls   map[RequestID]*brokerCall
	queue   []*waiter // calls waiting for room, oldest first
	stopped bool
	// told is when each unknown peer was last sent DISCONNECT: once per heartbeat interval is
	// enough for a worker to announce itself again, and a peer that floods gets no more.
	told map[string]time.Time

	counters brokerCounters

	changed chan struct{} // closed and replaced whenever the set of live services changes
	// probe asks the heartbeat loop to send a heartbeat to every worker now, so that a
	// worker whose link closed is found at once (its frame fails with ErrPeerGone).
	probe chan struct{}
}

type brokerWorker struct {
	peer     string
	name     string
	services []string
	capacity int // 0 while the worker drains: it takes no new calls
	inflight int
	lastSeen time.Time
	// silence is how long the worker may stay silent before it counts as gone: the liveness
	// count of its own heartbeat interval or of the broker's, whichever is longer.
	silence time.Duration
}

func (w *brokerWorker) serves(service string) bool { return slices.Contains(w.services, service) }

type brokerCall struct {
	worker  *brokerWorker
	service string
	// abandoned is set when the caller stopped waiting; the call keeps its worker's slot until
	// the worker answers, so that the broker never counts a slot free that the worker still uses.
	abandoned bool
	progress  chan *hootv1.Progress // nil when the caller wants no progress
	// ctx and asker are the caller's context and its ClientAsker (nil when it takes no ASKs).
	ctx   context.Context
	asker ClientAsker
	done  chan callOutcome // buffered: the sender never blocks
	// idempotent calls are sent again when their worker is lost (see Call).
	idempotent bool
}

type callOutcome struct {
	res *hootv1.Result
	err error
	// reply is the body of the worker's REPLY, which the caller decodes into res (so that the
	// goroutine that receives frames does not), and draining whether the worker was draining
	// when it answered.
	reply    []byte
	draining bool
	// unstarted is set when the worker is known not to have run the call (it refused it while
	// draining), so sending it elsewhere is safe for any tool.
	unstarted bool
	// lost is set when the worker went away with the call.
	lost bool
	// peer is the worker the attempt went to, and noOther is set when no worker was left
	// that had not failed the call already.
	peer    string
	noOther bool
}

type waiter struct {
	service string
	avoid   []string           // peers that already failed this call
	got     chan *brokerWorker // buffered; receives the worker whose slot was reserved
	err     chan *Error        // buffered; receives why no worker will come
}

// Limits on what a READY may announce, and on how a call may be re-sent.
const (
	maxAnnouncedServices = 64
	maxAnnouncedCapacity = 100000
	progressBuffer       = 64
	maxResends           = 2
)

// NewBroker returns a Broker that serves workers over conn. Run must be running for calls to
// be answered.
func NewBroker(conn Conn, opts ...BrokerOption) *Broker {
	return &Broker{
		conn:    conn,
		cfg:     newBrokerConfig(opts),
		workers: make(map[string]*brokerWorker),
		calls:   make(map[RequestID]*brokerCall),
		told:    make(map[string]time.Time),
		changed: make(chan struct{}),
		probe:   make(chan struct{}, 1),
	}
}

// Run receives frames from workers and sends heartbeats until ctx ends or the connection
// closes. When it returns, every call still waiting fails as unavailable.
func (b *Broker) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { b.heartbeat(ctx) })
	// The heartbeat stops with ctx, which must end here too when the connection closes first.
	defer func() { cancel(); wg.Wait() }()
	defer b.stop()
	err := b.conn.Serve(ctx, brokerHandler{b})
	if ctx.Err() != nil || errors.Is(err, ErrClosed) {
		return nil
	}
	return err
}

// brokerHandler takes the frames of the broker's connection, on the connection's own goroutine.
type brokerHandler struct{ b *Broker }

func (h brokerHandler) HandleFrame(f Frame) { h.b.handle(f) }

// PeerLost asks for every worker to be probed now: the one whose link closed fails its probe.
func (h brokerHandler) PeerLost() {
	select {
	case h.b.probe <- struct{}{}:
	default: // a probe is due already
	}
}

// SendFailed ends a call whose REQUEST could not leave as unstarted, so that it goes to another
// worker. A frame of any kind that failed because its peer is not connected retires that worker
// at once, with the calls it held: the link is gone, and waiting for its heartbeats to stop
// would only send it more calls meanwhile (it holds none, so it looks least loaded). Other
// failures are only logged.
func (h brokerHandler) SendFailed(f Frame, err error) {
	b := h.b
	gone := errors.Is(err, ErrPeerGone)
	if f.Command == CommandRequest {
		b.mu.Lock()
		call, ok := b.calls[f.ID]
		if ok && call.worker.peer == f.Peer {
			delete(b.calls, f.ID)
			call.worker.inflight--
			b.serveQueueLocked()
		}
		b.mu.Unlock()
		if ok && call.worker.peer == f.Peer {
			call.done <- unreachable(call.service, f.Peer, err)
		}
	} else if !gone {
		b.cfg.logger.Debug("send failed", "command", f.Command, "err", err)
	}
	if gone {
		b.drop(f.Peer, whyLinkClosed)
	}
}

// Services returns the names of the services that at least one live worker, not draining,
// serves, sorted.
func (b *Broker) Services() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := b.liveServicesLocked()
	if key == "" {
		return nil
	}
	return strings.Split(key, ",")
}

// Waiting returns how many calls wait in the queue for a busy worker.
func (b *Broker) Waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue)
}

// Changed returns a channel that is closed the next time the set of live services changes.
func (b *Broker) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.changed
}

// Call sends c.Payload to a live worker of c.Service and returns its Result, which holds either
// the tool's result or the worker's ToolError. The request names c.Caller and asks for a job when
// c.AsJob is set; progress reports go to c.Progress on the calling goroutine, and the worker's
// questions for the client to c.Ask. The context's deadline travels with the request, so the
// worker stops too. Errors are *Error values: unavailable when no worker serves the service or
// the worker is lost, overloaded when the queue for busy workers is full, deadline exceeded or
// canceled with the context.
//
// A call that a worker refused unstarted, or could not be given, goes to another worker; so does
// a call of an idempotent tool whose worker was lost. It never goes back to a worker that failed
// it, and when no other worker is left it ends with what the last one did.
func (b *Broker) Call(ctx context.Context, c Call) (*hootv1.Result, error) {
	req := &hootv1.Request{Payload: c.Payload, AsJob: c.AsJob, Caller: c.Caller}
	return b.sendCall(ctx, c.Service, req, isIdempotent(c.Payload), c.Ask, c.Progress)
}

// sendCall sends req to a live worker of service, and again to another one as Call says.
func (b *Broker) sendCall(ctx context.Context, service string, req *hootv1.Request, idempotent bool, asker ClientAsker, onProgress func(*hootv1.Progress)) (*hootv1.Result, error) {
	id := NewRequestID()
	var (
		avoid []string
		last  callOutcome
	)
	for attempt := 0; ; attempt++ {
		o := b.attempt(ctx, id, service, req, idempotent, asker, avoid, onProgress)
		if o.noOther {
			return last.res, last.err
		}
		resend := o.unstarted || (o.lost && idempotent)
		if !resend || attempt >= maxResends || ctx.Err() != nil {
			return o.res, o.err
		}
		avoid, last = append(avoid, o.peer), o
		b.cfg.logger.Info("sending a call to another worker", "request", id, "service", service, "unstarted", o.unstarted)
	}
}

// attempt sends the call to one worker, none of those in avoid, and waits for what comes of it.
func (b *Broker) attempt(ctx context.Context, id RequestID, service string, req *hootv1.Request, idempotent bool, asker ClientAsker, avoid []string, onProgress func(*hootv1.Progress)) callOutcome {
	fail := func(err error) callOutcome { return callOutcome{err: err} }
	req.TimeoutMs = 0
	if dl, ok := ctx.Deadline(); ok {
		ms := time.Until(dl).Milliseconds()
		if ms <= 0 {
			return fail(AsError(context.DeadlineExceeded))
		}
		req.TimeoutMs = uint32(min(ms, math.MaxUint32))
	}
	body, eerr := encodeRequest(req, b.cfg.maxBody)
	if eerr != nil {
		return fail(eerr)
	}

	w, werr := b.reserve(ctx, service, avoid)
	if werr != nil {
		body.release()
		if werr == errAllAvoided {
			return callOutcome{noOther: true}
		}
		return fail(werr)
	}
	call := &brokerCall{worker: w, service: service, done: make(chan callOutcome, 1), ctx: ctx, asker: asker,
		idempotent: idempotent}
	if onProgress != nil {
		call.progress = make(chan *hootv1.Progress, progressBuffer)
	}
	b.mu.Lock()
	b.calls[id] = call
	b.mu.Unlock()

	// A REQUEST that cannot leave comes back through sendFailed as an unstarted outcome.
	err := b.conn.Send(ctx, Frame{
		Peer:        w.peer,
		Command:     CommandRequest,
		ID:          id,
		Service:     service,
		Traceparent: TraceparentFrom(ctx),
		Body:        body.b,
	})
	body.release() // the connection keeps no frame's body once Send has returned
	if err != nil {
		b.retire(id)
		if ctx.Err() != nil {
			return fail(AsError(ctx.Err()))
		}
		// The frame never left, so the worker cannot have run it.
		return unreachable(service, w.peer, err)
	}

	var o callOutcome
wait:
	for {
		select {
		case o = <-call.done:
			break wait
		case pr := <-call.progress:
			onProgress(pr)
		case <-ctx.Done():
			if b.abandon(id) {
				b.cancelOnWorker(w.peer, id)
				return fail(AsError(ctx.Err()))
			}
			// The answer won the race with the context: take it.
			o = <-call.done
			break wait
		}
	}
	drainProgress(call.progress, onProgress)
	o = o.decode()
	o.peer = w.peer
	return o
}

// unreachable is the outcome of a REQUEST that never left for peer: the worker cannot have run it.
func unreachable(service, peer string, err error) callOutcome {
	return callOutcome{unstarted: true, peer: peer, err: WrapError(CodeUnavailable, fmt.Errorf("could not reach the worker for service %q: %w", service, err)).
		WithRetryable(true).
		WithHint("retry the call; another worker may take it")}
}

// decode turns the body of a REPLY into the call's result.
func (o callOutcome) decode() callOutcome {
	if o.reply == nil {
		return o
	}
	res := new(hootv1.Result)
	if err := proto.Unmarshal(o.reply, res); err != nil {
		return callOutcome{err: WrapError(CodeInternal, fmt.Errorf("the worker sent a malformed reply: %w", err))}
	}
	// A worker refuses calls without running them when it drains (as unavailable) or is full
	// (as overloaded, when its own count and ours briefly disagree).
	category := res.GetError().GetCategory()
	unstarted := category == hootv1.ErrorCategory_ERROR_CATEGORY_OVERLOADED ||
		o.draining && category == hootv1.ErrorCategory_ERROR_CATEGORY_UNAVAILABLE
	return callOutcome{res: res, unstarted: unstarted}
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

// errAllAvoided is reserve's answer when the only live workers of a service are those that
// already failed the call.
var errAllAvoided = NewError(CodeUnavailable, "every live worker of the service already failed this call")

// reserve takes a slot on the least loaded live worker of service that is not in avoid, waiting
// in the bounded queue while all of them are busy.
func (b *Broker) reserve(ctx context.Context, service string, avoid []string) (*brokerWorker, *Error) {
	b.mu.Lock()
	w, serving := b.pickLocked(service, avoid)
	waiting, backlog := b.backlogLocked(service)
	switch {
	case b.stopped:
		b.mu.Unlock()
		return nil, NewError(CodeUnavailable, "the gateway is shutting down").WithRetryable(true)
	case w != nil:
		w.inflight++
		b.mu.Unlock()
		return w, nil
	case serving == 0 && len(avoid) > 0:
		b.mu.Unlock()
		return nil, errAllAvoided
	case serving == 0:
		b.mu.Unlock()
		return nil, errNoWorker(service)
	case waiting >= backlog:
		b.mu.Unlock()
		return nil, NewError(CodeOverloaded, fmt.Sprintf("all %d workers of the %q service are busy and %d calls are already waiting", serving, service, waiting)).
			WithRetryAfter(b.retryAfter()).
			WithHint("retry after the pause in retry_after_ms")
	}
	wt := &waiter{service: service, avoid: avoid, got: make(chan *brokerWorker, 1), err: make(chan *Error, 1)}
	b.queue = append(b.queue, wt)
	b.mu.Unlock()

	select {
	case w := <-wt.got:
		return w, nil
	case e := <-wt.err:
		return nil, e
	case <-ctx.Done():
		b.mu.Lock()
		if i := slices.Index(b.queue, wt); i >= 0 {
			b.queue = slices.Delete(b.queue, i, i+1)
			b.mu.Unlock()
			return nil, AsError(ctx.Err())
		}
		b.mu.Unlock()
		// A slot was handed over just as the context ended: give it back.
		select {
		case w := <-wt.got:
			b.mu.Lock()
			w.inflight--
			b.serveQueueLocked()
			b.mu.Unlock()
		default:
		}
		return nil, AsError(ctx.Err())
	}
}

// backlogLocked returns how many calls wait for service and how many may: no more than its live
// workers run at once, so that a waiting call starts within about one call's time (a longer
// queue only turns a fast "retry after" into a long wait), and never more than the broker's
// queue bound in all; b.mu is held.
func (b *Broker) backlogLocked(service string) (waiting, limit int) {
	for _, wt := range b.queue {
		if wt.service == service {
			waiting++
		}
	}
	for _, w := range b.workers {
		if w.serves(service) {
			limit += w.capacity
		}
	}
	limit = min(limit, b.cfg.queue-(len(b.queue)-waiting))
	return waiting, max(limit, 0)
}

// retryAfter suggests how long an overloaded caller should wait: one heartbeat interval, a
// time in which some calls usually finish, within sensible bounds.
func (b *Broker) retryAfter() time.Duration {
	return min(max(b.cfg.heartbeat/10, 50*time.Millisecond), time.Second)
}

func errNoWorker(service string) *Error {
	return NewError(CodeUnavailable, fmt.Sprintf("no worker serves the %q service right now", service)).
		WithRetryable(true).
		WithHint("start a hootenanny worker connected to this gateway; the call works as soon as one announces itself")
}

// pickLocked returns the least loaded live worker of service with room, not one of those in
// avoid, or nil, and how many such live workers serve it at all; b.mu is held.
func (b *Broker) pickLocked(service string, avoid []string) (best *brokerWorker, serving int) {
	for _, w := range b.workers {
		if w.capacity == 0 || !w.serves(service) || slices.Contains(avoid, w.peer) {
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
	return best, serving
}

// serveQueueLocked hands free slots to waiting calls, oldest first, and fails the waiting calls
// of services that no live worker serves any more; b.mu is held.
func (b *Broker) serveQueueLocked() {
	kept := b.queue[:0]
	for _, wt := range b.queue {
		w, serving := b.pickLocked(wt.service, wt.avoid)
		switch {
		case w != nil:
			w.inflight++
			wt.got <- w
		case serving == 0 && len(wt.avoid) > 0:
			wt.err <- errAllAvoided
		case serving == 0:
			wt.err <- errNoWorker(wt.service)
		default:
			kept = append(kept, wt)
		}
	}
	clear(b.queue[len(kept):])
	b.queue = kept
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
	b.serveQueueLocked()
	return true
}

// abandon marks a call whose caller stopped waiting, and reports whether it was still waiting.
func (b *Broker) abandon(id RequestID) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	call, ok := b.calls[id]
	if !ok || call.abandoned {
		return false
	}
	call.abandoned = true
	return true
}

func (b *Broker) cancelOnWorker(peer string, id RequestID) {
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.heartbeat)
	defer cancel()
	if err := b.conn.Send(ctx, Frame{Peer: peer, Command: CommandCancel, ID: id}); err != nil {
		b.cfg.logger.Debug("could not send CANCEL", "request", id, "err", err)
	}
}

// handle takes one frame from a worker, on the connection's goroutine.
func (b *Broker) handle(f Frame) {
	b.mu.Lock()
	w := b.workers[f.Peer]
	now := time.Now()
	tell := false
	if w != nil {
		w.lastSeen = now
	} else if f.Command != CommandReady && f.Command != CommandDisconnect {
		tell = b.tellLocked(f.Peer, now)
	}
	b.mu.Unlock()

	if f.Command == CommandReady {
		b.register(f)
		return
	}
	if w == nil {
		// A worker we do not know (we restarted, or it was given up for dead) must announce
		// itself again before it gets work.
		if tell {
			b.send(context.Background(), Frame{Peer: f.Peer, Command: CommandDisconnect})
		}
		return
	}
	switch f.Command {
	case CommandReply:
		b.reply(f)
	case CommandProgress:
		b.progress(f)
	case CommandAsk:
		b.ask(f)
	case CommandHeartbeat:
	case CommandDisconnect:
		b.drop(f.Peer, whyDisconnected)
	default:
		b.counters.framesRefused.Add(1)
		b.cfg.logger.Warn("worker sent a frame only the gateway may send", "worker", w.name, "command", f.Command)
	}
}

func (b *Broker) register(f Frame) {
	var ready hootv1.Ready
	if err := proto.Unmarshal(f.Body, &ready); err != nil {
		b.counters.framesRefused.Add(1)
		b.cfg.logger.Warn("dropped a malformed READY", "peer", fmt.Sprintf("%x", f.Peer), "err", err)
		return
	}
	services := ready.GetServices()
	if len(services) == 0 || len(services) > maxAnnouncedServices {
		b.counters.framesRefused.Add(1)
		b.cfg.logger.Warn("dropped a READY with a bad service count", "count", len(services))
		return
	}
	for _, s := range services {
		if s == "" || checkService(s) != nil {
			b.counters.framesRefused.Add(1)
			b.cfg.logger.Warn("dropped a READY with a bad service name", "service", s)
			return
		}
	}
	// Capacity 0 announces a worker that drains: it finishes what it has and takes nothing new.
	capacity := int(min(ready.GetCapacity(), maxAnnouncedCapacity))
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
		delete(b.told, f.Peer)
	}
	draining := known && w.capacity > 0 && capacity == 0
	w.name, w.services, w.capacity, w.lastSeen = name, slices.Clone(services), capacity, time.Now()
	// A worker's interval counts up to a minute; beyond that it would hide a dead worker.
	interval := min(time.Duration(ready.GetHeartbeatMs())*time.Millisecond, time.Minute)
	w.silence = max(b.cfg.heartbeat, interval) * time.Duration(b.cfg.liveness)
	b.noteChangeLocked(before)
	b.serveQueueLocked()
	b.mu.Unlock()
	switch {
	case !known:
		b.cfg.logger.Info("worker ready", "worker", name, "services", services, "capacity", capacity)
	case draining:
		b.cfg.logger.Info("worker draining", "worker", name)
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
	draining := call.worker.capacity == 0
	b.serveQueueLocked()
	b.mu.Unlock()
	body := f.Body
	if body == nil {
		body = []byte{} // an empty Result is still a reply
	}
	call.done <- callOutcome{reply: body, draining: draining}
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

// drop forgets a worker and ends its calls as lost. It returns the ids of those that will not
// be sent again (the calls of tools that are not idempotent).
func (b *Broker) drop(peer, why string) []RequestID {
	b.mu.Lock()
	w, ok := b.workers[peer]
	if !ok {
		b.mu.Unlock()
		return nil
	}
	b.counters.countLost(why)
	before := b.liveServicesLocked()
	delete(b.workers, peer)
	var (
		lost []*brokerCall
		ids  []RequestID
	)
	for id, call := range b.calls {
		if call.worker == w {
			delete(b.calls, id)
			lost = append(lost, call)
			if !call.idempotent {
				ids = append(ids, id)
			}
		}
	}
	b.noteChangeLocked(before)
	b.serveQueueLocked()
	b.mu.Unlock()

	b.cfg.logger.Warn("worker gone", "worker", w.name, "why", why, "calls_lost", len(lost))
	for _, call := range lost {
		call.done <- callOutcome{lost: true, peer: peer, err: NewError(CodeUnavailable, "the worker serving this call was lost ("+why+"); the call may or may not have run").
			WithRetryable(true).
			WithHint("retry the call; it goes to another worker if one is live")}
	}
	return ids
}

func (b *Broker) heartbeat(ctx context.Context) {
	t := time.NewTicker(b.cfg.heartbeat)
	defer t.Stop()
	// A link that just closed may not be known as closed to the sending side for a moment:
	// a probe is sent again after a short pause. Probes come at most once per pause, however
	// many links close (a flood of peers that connect and hang up gets no more).
	var (
		again     <-chan time.Time
		lastProbe time.Time
	)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-b.probe:
			if again != nil {
				continue // a probe is due already
			}
			if time.Since(lastProbe) >= probeAgain {
				b.probeAll(ctx)
				lastProbe = time.Now()
			}
			again = time.After(probeAgain)
			continue
		case <-again:
			again = nil
			b.probeAll(ctx)
			lastProbe = time.Now()
			continue
		}
		now := time.Now()
		var alive, dead []string
		b.mu.Lock()
		b.missedHeartbeatsLocked(now)
		for peer, w := range b.workers {
			if now.Sub(w.lastSeen) > w.silence {
				dead = append(dead, peer)
			} else {
				alive = append(alive, peer)
			}
		}
		b.mu.Unlock()
		for _, peer := range dead {
			// A silent worker may only be slow. Its calls that failed for good are told to
			// stop, should it still hear. Idempotent ones are sent again under the same id,
			// maybe to this worker once it is back, where the run still going answers them.
			for _, id := range b.drop(peer, whySilent) {
				b.send(ctx, Frame{Peer: peer, Command: CommandCancel, ID: id})
			}
		}
		for _, peer := range alive {
			b.send(ctx, Frame{Peer: peer, Command: CommandHeartbeat})
		}
	}
}

// probeAgain is the pause before a worker probe is sent a second time.
const probeAgain = 100 * time.Millisecond

// probeAll sends a heartbeat to every worker; one whose link is gone fails it and is retired.
func (b *Broker) probeAll(ctx context.Context) {
	b.mu.Lock()
	peers := make([]string, 0, len(b.workers))
	for peer := range b.workers {
		peers = append(peers, peer)
	}
	b.mu.Unlock()
	for _, peer := range peers {
		b.send(ctx, Frame{Peer: peer, Command: CommandHeartbeat})
	}
}

func (b *Broker) send(ctx context.Context, f Frame) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.heartbeat)
	defer cancel()
	if err := b.conn.Send(ctx, f); err != nil {
		b.cfg.logger.Debug("send failed", "command", f.Command, "err", err)
	}
}

// maxTold bounds the unknown peers whose last DISCONNECT the broker remembers.
const maxTold = 1024

// tellLocked reports whether an unknown peer is due a DISCONNECT now, and records it if so.
func (b *Broker) tellLocked(peer string, now time.Time) bool {
	if last, ok := b.told[peer]; ok && now.Sub(last) < b.cfg.heartbeat {
		return false
	}
	if len(b.told) >= maxTold {
		for p, last := range b.told {
			if now.Sub(last) >= b.cfg.heartbeat {
				delete(b.told, p)
			}
		}
		if len(b.told) >= maxTold {
			return false // a flood of new identities: those already told will announce themselves
		}
	}
	b.told[peer] = now
	return true
}

// stop fails every waiting call; later calls fail at once.
func (b *Broker) stop() {
	b.mu.Lock()
	b.stopped = true
	calls, queue := b.calls, b.queue
	b.calls, b.queue = make(map[RequestID]*brokerCall), nil
	b.mu.Unlock()
	shutdown := NewError(CodeUnavailable, "the gateway is shutting down").WithRetryable(true)
	for _, call := range calls {
		call.done <- callOutcome{err: shutdown}
	}
	for _, wt := range queue {
		wt.err <- shutdown
	}
}

// liveServicesLocked returns the services of live workers that take calls, as one sorted key;
// b.mu is held.
func (b *Broker) liveServicesLocked() string {
	var all []string
	for _, w := range b.workers {
		if w.capacity > 0 {
			all = append(all, w.services...)
		}
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
