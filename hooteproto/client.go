package hooteproto

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/proto"
)

// This file holds what a handler sends to the MCP client through the gateway while it serves a
// request: log messages, which travel in PROGRESS frames, and requests for the client (sampling,
// elicitation, roots), which travel in ASK frames and are answered in ANSWER frames.

type logKey struct{}

func (logKey) String() string { return "hooteproto.log" }

// Log sends a log message at level to the client of the request a handler is serving (MCP
// notifications/message); the client sees it if its log level lets it through. Outside a
// request it does nothing. Log messages share the PROGRESS frames' buffers: a gateway that falls
// behind may drop some.
func Log(ctx context.Context, level hootv1.LogLevel, msg string) {
	if f, ok := ctx.Value(logKey{}).(func(*hootv1.LogEntry)); ok {
		f(&hootv1.LogEntry{Level: level, Message: msg})
	}
}

// A ClientAsker carries a running tool's request to the MCP client and returns its answer. The
// gateway gives one with each call it makes (Call.Ask); the broker runs it when the worker's
// handler calls AskClient. On the worker's side, the handler's context holds the ClientAsker
// that AskClient uses (WithAsk).
type ClientAsker func(ctx context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error)

type askKey struct{}

func (askKey) String() string { return "hooteproto.ask" }

// WithAsk returns a context whose AskClient calls go to f. The worker answers AskClient for
// every request it serves; code that runs a handler's work elsewhere, such as a job runner
// that keeps a job's questions for the client to answer later, or a Backend that runs handlers
// in process with a Call's Ask, sets its own.
func WithAsk(ctx context.Context, f ClientAsker) context.Context {
	return context.WithValue(ctx, askKey{}, f)
}

// askSeqKey finds the counter that names a request's unnamed questions (ask-1, ask-2, ...).
type askSeqKey struct{}

func (askSeqKey) String() string { return "hooteproto.askSeq" }

// MaxAskKeyLen is the longest key a ClientRequest may have.
const MaxAskKeyLen = 64

// ValidAskKey reports whether key may name a question: 1 to MaxAskKeyLen letters, digits, "_",
// "-" and ".".
func ValidAskKey(key string) bool {
	if key == "" || len(key) > MaxAskKeyLen {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// AskClient asks the MCP client of the request a handler is serving to sample a model, to ask
// the user, or to list its roots, and waits for the answer or for ctx to end. An answer that is
// a refusal or a failure comes back as a ClientResponse holding a ToolError, not as an error;
// the error is for when nobody could be asked: outside a request, or when the call ends first.
//
// req.Key names the question within the call; left empty, it is "ask-" and the question's
// number in the call, counted from 1 in the order of the AskClient calls (and of AskClientAll's
// requests). A handler that asks the same questions in the same order on every run gets the
// same names; one that asks in an order that varies should name its questions.
//
// How the question reaches the client depends on the client's protocol version. Up to MCP
// 2025-11-25 the gateway sends it to the client as a request and the answer comes back while
// the handler waits. MCP 2026-07-28 has no requests of a server to its client: there the
// gateway answers the call with the questions (an input_required result), and the client calls
// again with the answers. The handler is then run again from the start, on any worker, and this
// time AskClient answers at once every question the client has answered; the first question
// without an answer comes back as a ClientResponse whose ToolError says that the answer is
// awaited, and whatever the handler then returns, the client gets the questions instead. So in
// 2026-07-28 a handler may run more than once for one call: it should ask everything it needs
// before it changes anything (or change things idempotently), and ask questions it can ask
// together with AskClientAll, so that the client answers them in one round. An answer is matched
// to its question by key and by content: a question whose text changes from run to run (a
// timestamp in its message, say) is asked anew every time, and never answered.
func AskClient(ctx context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
	f, ok := ctx.Value(askKey{}).(ClientAsker)
	if !ok {
		return nil, NewError(CodeUnavailable, "there is no client to ask: AskClient works only while serving a request")
	}
	req, err := namedQuestion(ctx, req)
	if err != nil {
		return nil, err
	}
	return f(ctx, req)
}

// namedQuestion returns req with its key, naming it by its number in the call if it has none.
func namedQuestion(ctx context.Context, req *hootv1.ClientRequest) (*hootv1.ClientRequest, error) {
	if req.GetKey() != "" {
		if !ValidAskKey(req.GetKey()) {
			return nil, NewError(CodeInvalidArgument, fmt.Sprintf("the question's key %q is not a valid key: use 1 to %d letters, digits, '_', '-' and '.'", req.GetKey(), MaxAskKeyLen))
		}
		return req, nil
	}
	seq, ok := ctx.Value(askSeqKey{}).(*atomic.Uint32)
	if !ok {
		return req, nil // the ClientAsker names it
	}
	named := proto.Clone(req).(*hootv1.ClientRequest)
	named.Key = "ask-" + strconv.FormatUint(uint64(seq.Add(1)), 10)
	return named, nil
}

// AskClientAll asks the client the questions reqs at once, and returns the answers in the same
// order. In MCP 2026-07-28 they reach the client together, in one round; before, as one request
// each, sent concurrently. Unnamed questions are numbered in the order of reqs. The error is
// AskClient's: the first of them, when some question could not be asked.
func AskClientAll(ctx context.Context, reqs ...*hootv1.ClientRequest) ([]*hootv1.ClientResponse, error) {
	named := make([]*hootv1.ClientRequest, len(reqs))
	seen := make(map[string]bool, len(reqs))
	for i, r := range reqs {
		n, err := namedQuestion(ctx, r)
		if err != nil {
			return nil, err
		}
		if k := n.GetKey(); k != "" {
			if seen[k] {
				return nil, NewError(CodeInvalidArgument, fmt.Sprintf("two questions have the key %q: each question of a call needs its own", k))
			}
			seen[k] = true
		}
		named[i] = n
	}
	out := make([]*hootv1.ClientResponse, len(named))
	errs := make([]error, len(named))
	var wg sync.WaitGroup
	for i, r := range named {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = AskClient(ctx, r)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// clientAnswer makes a ClientResponse that reports err.
func clientAnswer(err error) *hootv1.ClientResponse {
	return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Error{Error: ToolErrorOf(err)}}
}

// asks are the ASKs of one request in flight on a worker, waiting for their ANSWERs.
type asks struct {
	mu      sync.Mutex
	next    uint32
	waiting map[uint32]chan *hootv1.ClientResponse // nil until the first ASK
	// keys numbers the request's unnamed questions.
	keys atomic.Uint32
}

// ask sends req as an ASK frame of the request id and waits for the ANSWER.
func (w *Worker) ask(ctx context.Context, id RequestID, a *asks, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
	ch := make(chan *hootv1.ClientResponse, 1)
	a.mu.Lock()
	if a.waiting == nil { // made on the first question: most calls ask none
		a.waiting = make(map[uint32]chan *hootv1.ClientResponse)
	}
	a.next++
	sub := a.next
	a.waiting[sub] = ch
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.waiting, sub)
		a.mu.Unlock()
	}()
	body, err := proto.Marshal(&hootv1.ClientCall{SubId: sub, Request: req})
	if err != nil {
		return nil, WrapError(CodeInternal, fmt.Errorf("encode the request for the client: %w", err))
	}
	if len(body) > w.cfg.maxBody {
		return nil, NewError(CodeInvalidArgument, fmt.Sprintf("the request for the client is %d bytes, over the wire limit of %d bytes", len(body), w.cfg.maxBody))
	}
	w.send(ctx, Frame{Command: CommandAsk, ID: id, Body: body})
	select {
	case res := <-ch:
		return res, nil
	case <-ctx.Done():
		return nil, AsError(ctx.Err())
	}
}

// answer hands an ANSWER frame to the ASK waiting for it.
func (w *Worker) answer(f Frame) {
	var ans hootv1.ClientAnswer
	if err := proto.Unmarshal(f.Body, &ans); err != nil {
		w.cfg.logger.Warn("gateway sent a malformed ANSWER", "err", err)
		return
	}
	w.mu.Lock()
	c := w.running[f.ID]
	w.mu.Unlock()
	if c == nil {
		return
	}
	a := &c.pending
	a.mu.Lock()
	ch := a.waiting[ans.GetSubId()]
	a.mu.Unlock()
	if ch != nil {
		select {
		case ch <- ans.GetResponse():
		default:
		}
	}
}

// ask runs an ASK frame of a call in flight: it hands the request to the caller's ClientAsker and
// sends the answer back to the worker.
func (b *Broker) ask(f Frame) {
	b.mu.Lock()
	call, ok := b.calls[f.ID]
	b.mu.Unlock()
	if !ok || call.worker.peer != f.Peer {
		return
	}
	var c hootv1.ClientCall
	if err := proto.Unmarshal(f.Body, &c); err != nil {
		b.counters.framesRefused.Add(1)
		b.cfg.logger.Warn("worker sent a malformed ASK", "worker", call.worker.name, "err", err)
		return
	}
	ctx, asker := call.ctx, call.asker
	go func() {
		var res *hootv1.ClientResponse
		if asker == nil {
			res = clientAnswer(NewError(CodeUnavailable, "this call's client cannot be asked anything"))
		} else if r, err := asker(ctx, c.GetRequest()); err != nil {
			res = clientAnswer(err)
		} else {
			res = r
		}
		body, err := proto.Marshal(&hootv1.ClientAnswer{SubId: c.GetSubId(), Response: res})
		if err != nil {
			b.cfg.logger.Error("encode an ANSWER", "err", err)
			return
		}
		if err := b.conn.Send(ctx, Frame{Peer: f.Peer, Command: CommandAnswer, ID: f.ID, Body: body}); err != nil {
			b.cfg.logger.Debug("send failed", "command", CommandAnswer, "err", err)
		}
	}()
}
