// Package stdio serves MCP over a connection that carries one JSON-RPC message per line: the
// process's stdin and stdout (Serve), and, through package ws, a WebSocket's text frames. It
// frames the messages, runs requests side by side, registers the 2026-07-28 era's requests in
// the connection's session so that notifications/cancelled finds them, and writes the answers;
// what a message means is the server's (Host).
//
// A connection speaks the era its client opens with, as over HTTP but for the whole process
// once it is legacy: initialize makes it legacy, as it always did; before that, a request whose
// params._meta names a protocol version is served as 2026-07-28 on its own (its _meta, its
// version, its log level, nothing remembered), with the same checks as over HTTP but for the
// headers, which a line does not have. notifications/cancelled cancels a request of either era,
// and ends a subscriptions/listen stream.
package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/lines"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
)

// A Host is the server a connection's messages go to.
type Host interface {
	// Closed reports whether the server was closed; Base is the context its Close cancels.
	Closed() bool
	Base() context.Context
	// Attach keeps sess among the server's sessions, so that what belongs to no request (list
	// changes, log messages) reaches it, until detach is called.
	Attach(sess *sessions.Session) (detach func())
	// Fail is the server's error response, with guidance g unless guidance is off.
	Fail(id json.RawMessage, code int64, msg string, g *guidance.Data) *jsonrpc.Response
	// Malformed answers a message that is not JSON-RPC; modern says that it shows a client of
	// the 2026-07-28 era.
	Malformed(e *jsonrpc.DecodeError, modern bool) *jsonrpc.Response
	// Handle answers msg of sess, or returns nil for a notification or a client's response.
	// Notifications of a running request go to out.
	Handle(ctx context.Context, sess *sessions.Session, msg jsonrpc.Message, out sessions.Notifier) *jsonrpc.Response
	// Modern checks msg, a request of the 2026-07-28 era, as a transport without headers
	// does. fail is its refusal; otherwise serve answers it in ctx, writing what comes before
	// the answer to w, and returns the answer (nil when there is none to write).
	Modern(msg jsonrpc.Message) (serve func(ctx context.Context, w *Writer) *jsonrpc.Response, fail *jsonrpc.Response)
}

// Options bound a connection.
type Options struct {
	// MaxBodyBytes bounds one message.
	MaxBodyBytes int64
	// Closed is the error Serve returns after the server closes.
	Closed error
}

// Serve serves one MCP session over newline-delimited JSON-RPC: it reads messages from in,
// one per line, and writes responses and notifications to out, one per line. Nothing else is
// ever written to out.
//
// Requests run concurrently, so that a long tool call can be cancelled or a ping answered while
// it runs; initialize and notifications are handled in order as they come. At the end of in,
// Serve waits for the requests in flight and returns nil. When ctx ends it cancels them and
// returns ctx's error; after the server closes it returns o.Closed. A read or write error ends
// the session and is returned. A read from in that is under way when Serve returns is left to
// finish on its own; closing in ends it.
func Serve(ctx context.Context, h Host, o Options, in io.Reader, out io.Writer) error {
	if h.Closed() {
		return o.Closed
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(h.Base(), func() { cancel(o.Closed) })
	defer stop()

	sess := sessions.NewSession("")
	w := NewWriter(out, func(err error) { cancel(err) })
	// Notifications that belong to no request (list changes, log messages) go out as lines too.
	sess.Out = w
	defer h.Attach(sess)()
	input := make(chan lines.Line)
	go lines.Read(ctx, in, o.MaxBodyBytes, input)

	var wg sync.WaitGroup
	for {
		select {
		case <-ctx.Done():
			sess.End()
			wg.Wait()
			return context.Cause(ctx)
		case l, ok := <-input:
			if !ok {
				// The client closed its end: let what it asked for finish, then stop. A listen
				// stream finishes only on the client's word, which can no longer come.
				w.EndInput()
				wg.Wait()
				sess.End()
				if err := w.Err(); err != nil {
					return err
				}
				return nil
			}
			if l.Err != nil {
				sess.End()
				wg.Wait()
				return l.Err
			}
			serveLine(ctx, h, o, sess, w, &wg, l)
		}
	}
}

// serveLine handles one line read from the input.
func serveLine(ctx context.Context, h Host, o Options, sess *sessions.Session, w *Writer, wg *sync.WaitGroup, l lines.Line) {
	if l.TooLong {
		w.Send(h.Fail(jsonrpc.NullID, jsonrpc.CodeInvalidRequest, "the message is larger than this server's limit of "+strconv.FormatInt(o.MaxBodyBytes, 10)+" bytes", &guidance.Data{
			Hint: "Send less at once: store large content in parts, or reference content that is already stored.",
		}))
		return
	}
	msg, bad := jsonrpc.Decode(l.Data)
	if bad != nil {
		w.Send(h.Malformed(bad, era.LooksModern(l.Data)))
		return
	}
	if ServeModern(ctx, h, sess, w, wg, msg) {
		return
	}
	if !msg.IsRequest() || msg.Method == "initialize" {
		// In order: a request right after initialize must find the session initialized, and a
		// cancellation must reach the request it names.
		if resp := h.Handle(ctx, sess, msg, w); resp != nil {
			w.Send(resp)
		}
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		resp := h.Handle(ctx, sess, msg, w)
		// MCP asks that a cancelled request gets no response.
		if resp != nil && !resp.Abandoned {
			w.Send(resp)
		}
	}()
}

// ServeModern serves msg as a request of the 2026-07-28 era if it is one, and reports whether
// it did; conn is the connection's session, in which the request is registered so that
// notifications/cancelled finds it. The request runs on a goroutine that wg counts.
func ServeModern(ctx context.Context, h Host, conn *sessions.Session, w *Writer, wg *sync.WaitGroup, msg jsonrpc.Message) bool {
	// Only a request can be modern on a connection: a notification goes to the legacy path,
	// which knows notifications/cancelled.
	if !msg.IsRequest() || era.Of(conn.IsInitialized(), "", msg.Params) != era.Modern {
		return false
	}
	serve, fail := h.Modern(msg)
	if fail != nil {
		w.Send(fail)
		return true
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		rctx, done, err := conn.Begin(ctx, jsonrpc.IDKey(msg.ID), nil)
		if err != nil {
			if !errors.Is(err, sessions.ErrEnded) {
				w.Send(h.Fail(msg.ID, jsonrpc.CodeInvalidRequest, "invalid request: id "+string(msg.ID)+" is already in use by a request in flight", &guidance.Data{
					Hint: "Give every request its own id.",
				}))
			}
			return
		}
		defer done()
		resp := serve(rctx, w)
		// MCP asks that a cancelled request gets no response.
		if resp == nil || resp.Abandoned || errors.Is(context.Cause(rctx), sessions.ErrCancelledByClient) {
			return
		}
		w.Send(resp)
	}()
	return true
}

// A Writer writes JSON-RPC messages, one per line, from any goroutine (lines.Writer).
type Writer struct {
	*lines.Writer
	// inputEnded is closed when the connection's input ends.
	inputEnded chan struct{}
	endOnce    sync.Once
}

// NewWriter returns a Writer of lines to out; a failed write is given to fail, and ends
// writing.
func NewWriter(out io.Writer, fail func(error)) *Writer {
	return &Writer{Writer: lines.NewWriter(out, fail), inputEnded: make(chan struct{})}
}

// Notify writes a notification.
func (w *Writer) Notify(n *jsonrpc.Notification) { w.WriteLine(toolresult.Marshal(n)) }

// CarriesRequests reports that a request of the server reaches the client on the connection.
func (w *Writer) CarriesRequests() bool { return true }

// Send writes a response.
func (w *Writer) Send(r *jsonrpc.Response) { w.WriteLine(toolresult.Marshal(r)) }

// EndInput tells that the connection's input ended: nobody can cancel a request any more.
func (w *Writer) EndInput() { w.endOnce.Do(func() { close(w.inputEnded) }) }

// InputEnded is closed when the connection's input has ended.
func (w *Writer) InputEnded() <-chan struct{} { return w.inputEnded }

// Requestless carries a 2026-07-28 request's notifications (progress, log messages) on w. The
// era has no requests of the server to the client, so it carries none.
func (w *Writer) Requestless() sessions.Notifier { return requestless{w} }

type requestless struct{ w *Writer }

func (r requestless) Notify(n *jsonrpc.Notification) { r.w.Notify(n) }

func (requestless) CarriesRequests() bool { return false }
