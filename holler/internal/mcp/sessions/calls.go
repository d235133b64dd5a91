package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"

	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
)

// Calls are the server's requests to clients that wait for a response: a worker's questions
// (sampling/createMessage, elicitation/create, roots/list) and the gateway's own, sent on the
// stream of the request they belong to. The client's response comes back as a message without
// a method, matched by its session and id (Deliver). The zero value is ready to use.
type Calls struct {
	mu      sync.Mutex
	next    uint64
	waiting map[string]chan *jsonrpc.Message // by session id and request id
}

// add registers a request of session sess and returns its id and the channel of its response.
func (c *Calls) add(sess string) (json.RawMessage, string, chan *jsonrpc.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiting == nil {
		c.waiting = make(map[string]chan *jsonrpc.Message)
	}
	c.next++
	id := json.RawMessage(strconv.Quote("holler-" + strconv.FormatUint(c.next, 10)))
	key := sess + " " + string(id)
	ch := make(chan *jsonrpc.Message, 1)
	c.waiting[key] = ch
	return id, key, ch
}

func (c *Calls) remove(key string) {
	c.mu.Lock()
	delete(c.waiting, key)
	c.mu.Unlock()
}

// Deliver hands the client's response msg, from the session named sess, to the request waiting
// for it; it reports whether one was.
func (c *Calls) Deliver(sess string, msg *jsonrpc.Message) bool {
	c.mu.Lock()
	ch, ok := c.waiting[sess+" "+string(msg.ID)]
	delete(c.waiting, sess+" "+string(msg.ID))
	c.mu.Unlock()
	if ok {
		ch <- msg
	}
	return ok
}

// Ask sends the request method with params to the client of sess on out, the stream of the
// request it belongs to, and waits for the client's response. When ctx ends first, the client is
// told with notifications/cancelled that no answer is awaited any more.
func (c *Calls) Ask(ctx context.Context, sess *Session, out Notifier, method string, params any) (*jsonrpc.Message, error) {
	id, key, ch := c.add(sess.ID())
	defer c.remove(key)
	out.Notify(&jsonrpc.Notification{JSONRPC: jsonrpc.Version, ID: id, Method: method, Params: params})
	select {
	case msg := <-ch:
		return msg, nil
	case <-ctx.Done():
		withdraw := &jsonrpc.Notification{JSONRPC: jsonrpc.Version, Method: "notifications/cancelled", Params: cancelledParams{
			RequestID: id, Reason: "the server no longer waits for an answer",
		}}
		out.Notify(withdraw)
		// A client that cancelled the request itself has most often stopped reading the
		// request's own stream (the Go SDK ends the call's POST when its caller cancels), so
		// the notice goes on the session's stream as well: else its model or form would go
		// on answering a question no one waits for. Where the request's stream is the
		// session's (stdio, WebSocket) the one notice is enough.
		if _, apart := out.(RequestStream); apart && errors.Is(context.Cause(ctx), ErrCancelledByClient) {
			sess.Push(withdraw)
		}
		return nil, ctx.Err()
	}
}

// A RequestStream is a Notifier that is one request's own stream, apart from its session's:
// the answer to an HTTP POST.
type RequestStream interface {
	Notifier
	// RequestStream marks the type; it does nothing.
	RequestStream()
}

// cancelledParams are notifications/cancelled's params.
type cancelledParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason,omitempty"`
}
