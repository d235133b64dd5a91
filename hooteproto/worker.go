package hooteproto

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// A Worker is a worker's side of the wire: it announces its services to the gateway, runs each
// request it is sent on its own goroutine through the generated dispatch of the request's
// service, and sends back the typed result or the handler's error as a ToolError.
//
// Requests are checked against the schema's field rules ([Validate]) before a handler sees
// them, so handlers may rely on them.
type Worker struct {
	stats    workerStats
	conn     Conn
	cfg      workerConfig
	services map[string]hootv1hoot.Service
	// ready and drainingReady are the READY bodies announced while taking calls and while
	// draining.
	ready, drainingReady []byte
	draining             atomic.Bool
	// names are the services in the order READY lists them, and announce the READY without its
	// services, for a worker whose Offer decides what it announces (offer.go).
	names    []string
	announce *hootv1.Ready

	slots     chan struct{}
	idle      chan *callContext // unbuffered: a goroutine waiting for its next call takes it
	callers   atomic.Int64      // goroutines of serveCalls
	lastHeard atomic.Int64      // unix nanoseconds of the gateway's last frame

	mu sync.Mutex
	// running holds the calls in flight, to cancel them and to hand them their ANSWERs;
	// stopped is set once Run has cancelled them all, and refuses calls from then on.
	running map[RequestID]*callContext
	stopped bool
	seen    recentIDs
	wg      sync.WaitGroup
}

// NewWorker returns a Worker that serves services over conn.
func NewWorker(conn Conn, services []hootv1hoot.Service, opts ...WorkerOption) (*Worker, error) {
	if len(services) == 0 {
		return nil, errors.New("hooteproto: a worker needs at least one service")
	}
	cfg := newWorkerConfig(opts)
	if cfg.name == "" {
		host, _ := os.Hostname()
		cfg.name = fmt.Sprintf("%s/%d", host, os.Getpid())
	}
	w := &Worker{
		conn:     conn,
		cfg:      cfg,
		services: make(map[string]hootv1hoot.Service, len(services)),
		slots:    make(chan struct{}, cfg.capacity),
		idle:     make(chan *callContext),
		running:  make(map[RequestID]*callContext),
		seen:     newRecentIDs(4096),
	}
	ready := &hootv1.Ready{Capacity: uint32(cfg.capacity), Name: cfg.name, HeartbeatMs: uint32(min(cfg.heartbeat.Milliseconds(), math.MaxUint32))}
	for _, s := range services {
		if _, dup := w.services[s.Name]; dup {
			return nil, fmt.Errorf("hooteproto: service %q given twice", s.Name)
		}
		w.services[s.Name] = s
		ready.Services = append(ready.Services, s.Name)
	}
	if cfg.ledger != nil {
		if _, dup := w.services[LedgerService]; dup {
			return nil, fmt.Errorf("hooteproto: a service named %q clashes with the ledger", LedgerService)
		}
		ready.Services = append(ready.Services, LedgerService)
	}
	w.names = slices.Clone(ready.Services)
	w.announce = proto.Clone(ready).(*hootv1.Ready)
	var err error
	if w.ready, err = proto.Marshal(ready); err != nil {
		return nil, fmt.Errorf("hooteproto: encode READY: %w", err)
	}
	ready.Capacity = 0
	if w.drainingReady, err = proto.Marshal(ready); err != nil {
		return nil, fmt.Errorf("hooteproto: encode READY: %w", err)
	}
	return w, nil
}

// Run announces the worker and serves requests until ctx ends or the connection closes.
//
// When ctx ends the worker drains: it tells the gateway to send it nothing new, lets running
// calls finish for up to the drain timeout (WithDrainTimeout), cancels what still runs after
// that, and says goodbye with DISCONNECT. Calls that arrive while it drains are refused unstarted,
// so the gateway sends them to another worker.
func (w *Worker) Run(ctx context.Context) error {
	loopCtx, stopLoop := context.WithCancel(context.Background())
	defer stopLoop()
	// workCtx stops the goroutines that wait for calls; the calls themselves, which do not
	// derive from it (see start), are cancelled by stopCalls.
	workCtx, stopWork := context.WithCancel(context.Background())
	defer stopWork()
	stopCalls := func() { stopWork(); w.cancelRunning() }

	w.lastHeard.Store(time.Now().UnixNano())
	var offered <-chan struct{}
	if w.cfg.offer != nil {
		// Taken before the first READY, so that no change after it goes unannounced.
		offered = w.cfg.offer.Changed()
	}
	w.send(loopCtx, Frame{Command: CommandReady, Body: w.readyBody()})
	var loops sync.WaitGroup
	loops.Go(func() { w.heartbeat(loopCtx) })
	if offered != nil {
		loops.Go(func() { w.followOffer(loopCtx, offered) })
	}
	errc := make(chan error, 1)
	loops.Go(func() { errc <- w.receive(loopCtx, workCtx) })

	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
		// The connection is gone: there is nobody to drain towards.
		stopCalls()
	}
	// Under the lock, so that a call start admits is added to wg before Wait below begins.
	w.mu.Lock()
	w.draining.Store(true)
	w.mu.Unlock()
	if err == nil {
		w.send(loopCtx, Frame{Command: CommandReady, Body: w.readyBody()})
	}
	running := make(chan struct{})
	go func() { w.wg.Wait(); close(running) }()
	select {
	case <-running:
	case <-time.After(w.cfg.drain):
		w.cfg.logger.Warn("drain timeout: cancelling the calls still running", "timeout", w.cfg.drain)
		stopCalls()
		<-running
	}
	stopLoop()
	loops.Wait()
	if err == nil {
		bye, cancel := context.WithTimeout(context.Background(), w.cfg.heartbeat)
		defer cancel()
		_ = w.conn.Send(bye, Frame{Command: CommandDisconnect})
	}
	return err
}

// cancelRunning cancels every call in flight and every call that would start after it.
func (w *Worker) cancelRunning() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	for _, c := range w.running {
		c.cancel()
	}
}

// readyBody returns the READY body to announce: capacity 0 while draining, and with an Offer
// only the services it offers now. An Offer that withdraws every service announces them all
// (a gateway takes no READY without services); each of them refuses calls all the same.
func (w *Worker) readyBody() []byte {
	if w.cfg.offer != nil {
		if names := w.cfg.offer.filter(w.names); len(names) > 0 {
			r := proto.Clone(w.announce).(*hootv1.Ready)
			r.Services = names
			if w.draining.Load() {
				r.Capacity = 0
			}
			if b, err := proto.Marshal(r); err == nil {
				return b
			}
		}
	}
	if w.draining.Load() {
		return w.drainingReady
	}
	return w.ready
}

// followOffer announces READY again each time the worker's Offer changes, until ctx ends,
// starting with the change channel taken before the first READY.
func (w *Worker) followOffer(ctx context.Context, changed <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
		// The next channel first, then the READY: a change in between is announced again.
		changed = w.cfg.offer.Changed()
		w.send(ctx, Frame{Command: CommandReady, Body: w.readyBody()})
	}
}

// receive handles frames from the gateway until loopCtx ends; calls run under workCtx.
func (w *Worker) receive(loopCtx, workCtx context.Context) error {
	err := w.conn.Serve(loopCtx, workerHandler{w, loopCtx, workCtx})
	if loopCtx.Err() != nil {
		return nil
	}
	return err
}

// workerHandler takes the frames of the worker's connection, on the connection's own
// goroutine, so what it sends, it sends from a goroutine of its own (Send may wait for the
// connection's goroutine).
type workerHandler struct {
	w                *Worker
	loopCtx, workCtx context.Context
}

func (h workerHandler) HandleFrame(f Frame) {
	w := h.w
	w.lastHeard.Store(time.Now().UnixNano())
	switch f.Command {
	case CommandRequest:
		w.start(h.workCtx, f)
	case CommandCancel:
		w.mu.Lock()
		if c, ok := w.running[f.ID]; ok {
			c.cancel()
		}
		w.mu.Unlock()
	case CommandAnswer:
		w.answer(f)
	case CommandDisconnect:
		// The gateway does not know us (it restarted): announce again.
		w.send(h.loopCtx, Frame{Command: CommandReady, Body: w.readyBody()})
	case CommandHeartbeat:
	default:
		w.cfg.logger.Warn("gateway sent a frame only a worker may send", "command", f.Command)
	}
}

func (h workerHandler) SendFailed(f Frame, err error) {
	if f.Command == CommandReply {
		h.w.cfg.logger.Warn("could not send a reply", "request", f.ID, "err", err)
		return
	}
	h.w.cfg.logger.Debug("send failed", "command", f.Command, "err", err)
}

func (w *Worker) heartbeat(ctx context.Context) {
	t := time.NewTicker(w.cfg.heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		silent := time.Since(time.Unix(0, w.lastHeard.Load()))
		if silent > w.cfg.silence() {
			// The gateway may be gone or new; announcing again costs nothing if it is neither.
			w.send(ctx, Frame{Command: CommandReady, Body: w.readyBody()})
			continue
		}
		w.send(ctx, Frame{Command: CommandHeartbeat})
	}
}

// start begins a REQUEST on a goroutine of its own. It runs on the connection's goroutine, so
// it leaves decoding the request, and any answer, to that goroutine.
func (w *Worker) start(ctx context.Context, f Frame) {
	id := f.ID
	fail := func(err *Error) { go w.reply(id, errorResult(err)) }
	if w.draining.Load() {
		fail(NewError(CodeUnavailable, "this worker is stopping and takes no new calls").WithRetryable(true))
		return
	}
	svc, ok := w.services[f.Service]
	if f.Service == LedgerService && w.cfg.ledger != nil {
		ok = true
	}
	if !ok || !w.cfg.offer.Offered(f.Service) {
		fail(NewError(CodeUnavailable, fmt.Sprintf("this worker does not serve the %q service", f.Service)))
		return
	}
	select {
	case w.slots <- struct{}{}:
	default:
		// Refused unstarted, so not remembered: the gateway may send it here again.
		fail(NewError(CodeOverloaded, fmt.Sprintf("the worker is running %d requests, its capacity", cap(w.slots))).
			WithRetryAfter(50 * time.Millisecond))
		return
	}
	// The call can be cancelled from now on: a CANCEL that follows is handled after this. Its
	// context is its own, with the caller's deadline read from the request: one context a call,
	// registered with no parent (cancelRunning stands in for one).
	c := &callContext{w: w, id: id, service: f.Service, traceparent: f.Traceparent, svc: svc, body: f.Body}
	if ms := requestTimeout(f.Body); ms > 0 {
		c.Context, c.cancel = context.WithTimeout(context.Background(), time.Duration(ms)*time.Millisecond)
	} else {
		c.Context, c.cancel = context.WithCancel(context.Background())
	}
	w.mu.Lock()
	switch {
	case w.draining.Load() || w.stopped:
		// Run began to drain after the check above; it may be waiting on wg already.
		w.mu.Unlock()
		c.cancel()
		<-w.slots
		fail(NewError(CodeUnavailable, "this worker is stopping and takes no new calls").WithRetryable(true))
		return
	case !w.seen.add(id):
		// A re-sent request that this worker has taken already: it runs at most once, and the
		// run answers under the same id.
		w.mu.Unlock()
		c.cancel()
		<-w.slots
		return
	}
	w.running[id] = c
	w.wg.Add(1)
	w.mu.Unlock()

	select {
	case w.idle <- c:
	default:
		w.callers.Add(1)
		go w.serveCalls(c, ctx.Done())
	}
}

// requestTimeout reads the timeout_ms of an encoded hoot.v1.Request, as proto.Unmarshal would
// (the last occurrence counts, one of another wire type is not it), without decoding the rest:
// the worker sets a call's deadline as the call arrives, in the same context as its
// cancellation. A malformed request gives 0 here and its error when the call decodes it.
func requestTimeout(b []byte) uint32 {
	var ms uint32
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0
		}
		b = b[n:]
		if num == requestTimeoutField && typ == protowire.VarintType {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return 0
			}
			ms, b = uint32(v), b[n:]
			continue
		}
		if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
			return 0
		}
		b = b[n:]
	}
	return ms
}

// requestTimeoutField is the field number of hoot.v1.Request.timeout_ms.
var requestTimeoutField = (&hootv1.Request{}).ProtoReflect().Descriptor().Fields().ByName("timeout_ms").Number()

// serveCalls runs c and then, on the same goroutine, the calls that start hands it while it
// waits idle, until stopped is closed. A goroutine that has run a call has the stack for the
// next one, where a new goroutine grows (copies) its stack again on every call; at most about
// the worker's capacity of them wait.
func (w *Worker) serveCalls(c *callContext, stopped <-chan struct{}) {
	for {
		w.call(c)
		if w.callers.Load() > int64(cap(w.slots)) {
			w.callers.Add(-1)
			return
		}
		select {
		case c = <-w.idle:
		case <-stopped:
			w.callers.Add(-1)
			return
		}
	}
}

// call runs one call and answers it.
func (w *Worker) call(c *callContext) {
	defer w.wg.Done()
	res := w.run(c)
	w.stats.record(c.service, res.GetError() != nil)
	// Free the slot before answering: the gateway sends the next call as soon as it has the
	// answer, and it must find room.
	w.mu.Lock()
	delete(w.running, c.id)
	w.mu.Unlock()
	c.cancel()
	<-w.slots
	w.reply(c.id, res)
}

// run decodes the request of c and serves it under c.
func (w *Worker) run(c *callContext) *hootv1.Result {
	var req hootv1.Request
	err := proto.Unmarshal(c.body, &req)
	c.body = nil // decoded: the frame's bytes may go
	if err != nil {
		return errorResult(NewError(CodeInvalidArgument, "the request is not a valid hoot.v1.Request: "+err.Error()))
	}
	if c.service == LedgerService || req.GetStateUse() != nil {
		if c.service != LedgerService {
			return errorResult(NewError(CodeInvalidArgument, "a state use goes to the "+LedgerService+" service, not to "+c.service))
		}
		return serveStateUse(c, w.cfg.ledger, &req)
	}
	c.caller = req.GetCaller()
	if req.GetAsJob() {
		return serveAsJob(c, w.cfg.jobs, c.svc, req.GetPayload(), w.cfg.logger)
	}
	if w.cfg.serveHook != nil {
		return w.serveHooked(c, c.svc, req.GetPayload())
	}
	return Serve(c, c.svc, req.GetPayload(), w.cfg.logger)
}

// A callContext is one call in flight on the worker and the context of its handler: it is
// cancelled by the gateway's CANCEL, by the caller's deadline or when the worker stops its work,
// carries the request's traceparent and takes the handler's progress reports, log messages and
// questions for the client. It is one value where a context for the cancellation, one for the
// deadline, four context layers and three closures were made for every call.
type callContext struct {
	context.Context
	cancel      context.CancelFunc
	w           *Worker
	id          RequestID
	service     string
	traceparent string
	svc         hootv1hoot.Service
	body        []byte // the encoded request, until run decodes it
	pending     asks   // the questions for the client that wait for their ANSWERs
	caller      *hootv1.Caller
}

func (c *callContext) Value(key any) any {
	switch key.(type) {
	case traceparentKey:
		if c.traceparent != "" {
			return c.traceparent
		}
	case progressKey:
		return ProgressFunc(c.progress)
	case logKey:
		return c.log
	case askKey:
		return ClientAsker(c.ask)
	case askSeqKey:
		return &c.pending.keys
	case callerKey:
		if c.caller != nil {
			return c.caller
		}
	}
	return c.Context.Value(key)
}

func (c *callContext) progress(p *hootv1.Progress) {
	if body, err := proto.Marshal(p); err == nil {
		c.w.send(c, Frame{Command: CommandProgress, ID: c.id, Body: body})
	}
}

func (c *callContext) log(e *hootv1.LogEntry) {
	if e.GetLogger() == "" {
		e.Logger = c.service
	}
	c.progress(&hootv1.Progress{Log: e})
}

func (c *callContext) ask(ctx context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
	return c.w.ask(ctx, c.id, &c.pending, req)
}

// Serve does with one call what a worker does once the call has reached it: it checks the
// request against the schema's rules, dispatches it to svc and returns the Result, always one:
// a failure (a broken rule, a handler's error or panic, a request svc does not serve) is the
// Result's error. Failures of the tool itself go to logger, with the traceparent of ctx. A
// Worker serves every call with it; a process that answers calls itself, without the wire, can
// too.
func Serve(ctx context.Context, svc hootv1hoot.Service, p *hootv1.Payload, logger *slog.Logger) (res *hootv1.Result) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	started := time.Now()
	defer func() {
		if r := recover(); r != nil {
			logger.Error("handler panicked", "service", svc.Name, "panic", r, "stack", string(debug.Stack()))
			res = errorResult(NewError(CodeInternal, "the tool failed unexpectedly; the worker's log has the details"))
		}
	}()
	msg := RequestOf(p)
	if msg == nil {
		return errorResult(NewError(CodeInvalidArgument, "the request holds no tool call"))
	}
	if err := Validate(msg); err != nil {
		return errorResult(err)
	}
	res, err := svc.Dispatch(ctx, p)
	if err == nil && res == nil {
		err = NewError(CodeInternal, "the tool returned no result")
	}
	if err != nil {
		if errors.Is(err, hootv1hoot.ErrNotServed) {
			err = NewError(CodeUnavailable, fmt.Sprintf("the %q service of this worker does not serve %s", svc.Name, msg.ProtoReflect().Descriptor().Name()))
		}
		e := AsError(err)
		if e.Code() == CodeInternal {
			logger.Error("tool failed", "service", svc.Name, "request", msg.ProtoReflect().Descriptor().Name(), "err", err, "traceparent", TraceparentFrom(ctx))
		}
		return errorResult(e)
	}
	// Checked first: the arguments alone cost allocations on every call.
	if logger.Enabled(ctx, slog.LevelDebug) {
		logger.Debug("served", "service", svc.Name, "request", msg.ProtoReflect().Descriptor().Name(), "took", time.Since(started), "traceparent", TraceparentFrom(ctx))
	}
	return res
}

func errorResult(err error) *hootv1.Result {
	return &hootv1.Result{Result: &hootv1.Result_Error{Error: ToolErrorOf(err)}}
}

// RequestOf returns the tool request that p holds, or nil when it holds none. A call of a
// carried schema (the conformance fixtures) is looked for in the Payload that p carries, whose
// type must be linked into the program.
func RequestOf(p *hootv1.Payload) proto.Message {
	pm, ok := memberOf(p)
	if !ok {
		return nil
	}
	if c := p.GetCarried(); c != nil {
		in, err := c.UnmarshalNew()
		if err != nil {
			return nil
		}
		r := in.ProtoReflect()
		o := r.Descriptor().Oneofs().ByName("request")
		if o == nil || r.WhichOneof(o) == nil {
			return nil
		}
		return r.Get(r.WhichOneof(o)).Message().Interface()
	}
	return p.ProtoReflect().Get(pm.field).Message().Interface()
}

// requestOneof is the oneof of Payload that holds a tool's request.
var requestOneof = (&hootv1.Payload{}).ProtoReflect().Descriptor().Oneofs().ByName("request")

func (w *Worker) reply(id RequestID, res *hootv1.Result) {
	b, err := marshalBody(res)
	if err == nil && len(b.b) > w.cfg.maxBody {
		n := len(b.b)
		b.release()
		b, err = marshalBody(errorResult(NewError(CodeInvalidArgument,
			fmt.Sprintf("the result is %d bytes, over the wire limit of %d bytes", n, w.cfg.maxBody)).
			WithHint("ask for less at once, for example a smaller range")))
	}
	if err != nil {
		b.release()
		b, _ = marshalBody(errorResult(WrapError(CodeInternal, fmt.Errorf("encode result: %w", err))))
	}
	// The reply goes out even when the request's own context has ended. Send waits only while
	// its queue is full (and returns when the connection closes); a reply that fails later is
	// logged by workerHandler.SendFailed.
	if err := w.conn.Send(context.Background(), Frame{Command: CommandReply, ID: id, Body: b.b}); err != nil {
		w.cfg.logger.Warn("could not send a reply", "request", id, "err", err)
	}
	b.release() // the connection keeps no frame's body once Send has returned
}

func (w *Worker) send(ctx context.Context, f Frame) {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.heartbeat)
	defer cancel()
	if err := w.conn.Send(ctx, f); err != nil && ctx.Err() == nil {
		w.cfg.logger.Debug("send failed", "command", f.Command, "err", err)
	}
}

// recentIDs remembers the last n request ids, so that a request sent twice runs once.
type recentIDs struct {
	set  map[RequestID]struct{}
	ring []RequestID
	next int
}

func newRecentIDs(n int) recentIDs {
	return recentIDs{set: make(map[RequestID]struct{}, n), ring: make([]RequestID, n)}
}

// add records id and reports whether it is new.
func (r *recentIDs) add(id RequestID) bool {
	if _, ok := r.set[id]; ok {
		return false
	}
	if old := r.ring[r.next]; !old.IsZero() {
		delete(r.set, old)
	}
	r.ring[r.next] = id
	r.next = (r.next + 1) % len(r.ring)
	r.set[id] = struct{}{}
	return true
}
