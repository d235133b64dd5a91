package mcp

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/hooteproto"
)

// Requests from a worker's tool to the client (sampling/createMessage, elicitation/create,
// roots/list) go out on the stream of the tools/call they belong to, and the client's response
// comes back as a message without a method, matched here by its id. This is the older
// protocols' way; 2026-07-28 asks in results instead (mrtr.go). How a question and its answer
// read in JSON is package questions'.

// clientCalls are the server's requests to clients that wait for a response.
type clientCalls struct {
	mu      sync.Mutex
	next    uint64
	waiting map[string]chan *message // by session id and request id
}

// add registers a request of session sess and returns its id and the channel of its response.
func (c *clientCalls) add(sess string) (json.RawMessage, string, chan *message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiting == nil {
		c.waiting = make(map[string]chan *message)
	}
	c.next++
	id := json.RawMessage(strconv.Quote("holler-" + strconv.FormatUint(c.next, 10)))
	key := sess + " " + string(id)
	ch := make(chan *message, 1)
	c.waiting[key] = ch
	return id, key, ch
}

func (c *clientCalls) remove(key string) {
	c.mu.Lock()
	delete(c.waiting, key)
	c.mu.Unlock()
}

// deliver hands the client's response msg to the request waiting for it; it reports whether
// one was.
func (c *clientCalls) deliver(sess string, msg *message) bool {
	c.mu.Lock()
	ch, ok := c.waiting[sess+" "+string(msg.ID)]
	delete(c.waiting, sess+" "+string(msg.ID))
	c.mu.Unlock()
	if ok {
		ch <- msg
	}
	return ok
}

// clientAsker returns the ClientAsker of one tools/call: it sends a tool's request to the
// client on out and waits for the response.
func (s *Server) clientAsker(sess *sessions.Session, out sessions.Notifier) hooteproto.ClientAsker {
	return func(ctx context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
		method, params := questions.Params(req)
		if method == "" {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "the request for the client is empty")
		}
		if method == questions.MethodRootsList && !sess.Caps().Roots {
			// Sampling and elicitation are left to the client to refuse, as they always were.
			return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "this client did not declare the roots capability in initialize, so it cannot be asked for its roots")
		}
		msg, err := s.requestClient(ctx, sess, out, method, params)
		if err != nil {
			return nil, hooteproto.AsError(err)
		}
		return questions.Response(req, msg.Result, msg.Error), nil
	}
}

// requestClient sends the request method with params to the client of sess on out, the
// stream of the tools/call it belongs to, and waits for the client's response. When ctx ends
// first, the client is told with notifications/cancelled that no answer is awaited any more.
func (s *Server) requestClient(ctx context.Context, sess *sessions.Session, out sessions.Notifier, method string, params any) (*message, error) {
	id, key, ch := s.clientCalls.add(sess.ID())
	defer s.clientCalls.remove(key)
	out.Notify(&jsonrpc.Notification{JSONRPC: jsonrpc.Version, ID: id, Method: method, Params: params})
	select {
	case msg := <-ch:
		return msg, nil
	case <-ctx.Done():
		out.Notify(&jsonrpc.Notification{JSONRPC: jsonrpc.Version, Method: notifyCancelled, Params: cancelledParams{
			RequestID: id, Reason: "the server no longer waits for an answer",
		}})
		return nil, ctx.Err()
	}
}

// cancelledParams are notifications/cancelled's params.
type cancelledParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason,omitempty"`
}
