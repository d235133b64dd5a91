package mcp

import (
	"context"
	"io"
	"strconv"
	"sync"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/lines"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
)

// ServeStdio serves one MCP session over newline-delimited JSON-RPC: it reads messages from
// in, one per line, and writes responses and notifications to out, one per line. Nothing else
// is ever written to out; logs go to the Config's Logger.
//
// Requests run concurrently, so that a long tool call can be cancelled or a ping answered
// while it runs; initialize and notifications are handled in order as they come. At the end
// of in, ServeStdio waits for the requests in flight and returns nil. When ctx ends it
// cancels them and returns ctx's error; after Close it returns ErrServerClosed. A read or
// write error ends the session and is returned. A read from in that is under way when
// ServeStdio returns is left to finish on its own; closing in ends it.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	if s.isClosed() {
		return ErrServerClosed
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(s.base, func() { cancel(ErrServerClosed) })
	defer stop()

	sess := sessions.NewSession("")
	w := &lineWriter{Writer: lines.NewWriter(out, func(err error) { cancel(err) }), inputEnded: make(chan struct{})}
	// Notifications that belong to no request (list changes, log messages) go out as lines too.
	sess.Out = w
	defer s.sessions.Attach(sess)()
	input := make(chan lines.Line)
	go lines.Read(ctx, in, s.cfg.MaxBodyBytes, input)

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
				close(w.inputEnded)
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
			s.serveLine(ctx, sess, w, &wg, l)
		}
	}
}

// serveLine handles one line read from stdin.
func (s *Server) serveLine(ctx context.Context, sess *sessions.Session, w *lineWriter, wg *sync.WaitGroup, l lines.Line) {
	if l.TooLong {
		w.send(s.fail(jsonrpc.NullID, jsonrpc.CodeInvalidRequest, "the message is larger than this server's limit of "+strconv.FormatInt(s.cfg.MaxBodyBytes, 10)+" bytes", &guidance.Data{
			Hint: "Send less at once: store large content in parts, or reference content that is already stored.",
		}))
		return
	}
	msg, bad := decodeMessage(l.Data)
	if bad != nil {
		w.send(s.envelopeFailure(bad, era.LooksModern(l.Data)))
		return
	}
	if s.serveLineModern(ctx, sess, w, wg, msg) {
		return
	}
	if !msg.IsRequest() || msg.Method == methodInitialize {
		// In order: a request right after initialize must find the session initialized, and a
		// cancellation must reach the request it names.
		if resp := s.handle(ctx, sess, msg, w, nil); resp != nil {
			w.send(resp)
		}
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		resp := s.handle(ctx, sess, msg, w, nil)
		// MCP asks that a cancelled request gets no response.
		if resp != nil && !resp.Abandoned {
			w.send(resp)
		}
	}()
}

// A lineWriter writes JSON-RPC messages, one per line, from any goroutine (lines.Writer).
type lineWriter struct {
	*lines.Writer
	// inputEnded is closed when the connection's input ends (nil when it never does).
	inputEnded chan struct{}
}

var (
	_ sessions.Notifier = (*lineWriter)(nil)
	_ requestCarrier    = (*lineWriter)(nil)
)

// notify writes a notification.
func (lw *lineWriter) Notify(n *jsonrpc.Notification) { lw.WriteLine(encode(n)) }

// carriesRequests reports that a request of the server reaches the client over stdio.
func (lw *lineWriter) carriesRequests() bool { return true }

// send writes a response.
func (lw *lineWriter) send(r *jsonrpc.Response) { lw.WriteLine(encode(r)) }
