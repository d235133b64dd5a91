package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/stdio"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolcall"
	"github.com/hootenanny/hoot/holler/internal/mcp/ws"
)

// The transports of a connection: stdio (package stdio) and WebSocket (package ws). They frame
// messages and run them; the server answers them through connHost.

// ServeStdio serves one MCP session over newline-delimited JSON-RPC: it reads messages from
// in, one per line, and writes responses and notifications to out, one per line. Nothing else
// is ever written to out; logs go to the Config's Logger. At the end of in it waits for the
// requests in flight and returns nil; when ctx ends it cancels them and returns ctx's error;
// after Close it returns ErrServerClosed (stdio.Serve says the rest).
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	return stdio.Serve(ctx, connHost{s}, stdio.Options{MaxBodyBytes: s.cfg.MaxBodyBytes, Closed: ErrServerClosed}, in, out)
}

// ServeWebSocket upgrades r to a WebSocket and serves MCP on it until the client closes it,
// it stays idle (no message and no request in flight) for the session idle timeout, or the
// server closes. Messages are bounded by MaxBodyBytes: a larger one closes the socket with
// status 1009 (message too big).
func (s *Server) ServeWebSocket(w http.ResponseWriter, r *http.Request) {
	maxInFlight := s.cfg.WebSocketMaxInFlight
	if maxInFlight <= 0 {
		maxInFlight = DefaultWebSocketMaxInFlight
	}
	ws.Serve(w, r, connHost{s}, ws.Options{
		MaxBodyBytes: s.cfg.MaxBodyBytes,
		IdleTimeout:  s.cfg.SessionIdleTimeout,
		MaxInFlight:  maxInFlight,
		Closed:       ErrServerClosed,
		Log:          s.log,
	})
}

// connHost is the server as the connection transports see it (ws.Host, and so stdio.Host).
type connHost struct{ s *Server }

var (
	_ ws.Host = connHost{}
	// A connection carries the server's requests to the client (package toolcall asks a person on it).
	_ toolcall.RequestCarrier = (*stdio.Writer)(nil)
)

func (h connHost) Closed() bool          { return h.s.isClosed() }
func (h connHost) Base() context.Context { return h.s.base }

func (h connHost) Attach(sess *sessions.Session) func() { return h.s.sessions.Attach(sess) }

func (h connHost) Fail(id json.RawMessage, code int64, msg string, g *guidance.Data) *jsonrpc.Response {
	return h.s.fail(id, code, msg, g)
}

func (h connHost) Malformed(e *jsonrpc.DecodeError, modern bool) *jsonrpc.Response {
	return h.s.envelopeFailure(e, modern)
}

func (h connHost) Handle(ctx context.Context, sess *sessions.Session, msg jsonrpc.Message, out sessions.Notifier) *jsonrpc.Response {
	return h.s.handle(ctx, sess, &message{Message: msg}, out, nil)
}

// Modern makes the checks of a 2026-07-28 request without headers, and serves it:
// subscriptions/listen as a stream of lines, every other method through the method table in a
// session of its own, its answer dressed for the era.
func (h connHost) Modern(m jsonrpc.Message) (func(context.Context, *stdio.Writer) *jsonrpc.Response, *jsonrpc.Response) {
	s, msg := h.s, &message{Message: m}
	meta, fail := s.checkModern(nil, msg)
	if fail != nil {
		return nil, fail.resp
	}
	return func(ctx context.Context, w *stdio.Writer) *jsonrpc.Response {
		var resp *jsonrpc.Response
		if msg.Method == methodListen {
			resp = s.listening.ServeLines(ctx, w, &msg.Message)
		} else {
			sess := s.modernSession(meta)
			sess.Tasks = tasks.Declares(meta.caps)
			resp = s.handle(ctx, sess, msg, w.Requestless(), nil)
		}
		if resp == nil {
			return nil
		}
		return s.modernResponse(msg.Method, resp)
	}, nil
}

func (h connHost) Welcome(ctx context.Context) any { return h.s.welcome(ctx) }

// welcomeParams is the notification a socket opens with.
type welcomeParams struct {
	SupportedVersions []string `json:"supportedVersions"`
	SchemaHash        string   `json:"schemaHash"`
	Hint              string   `json:"hint"`
}

// welcome returns the greeting of a socket whose caller ctx carries.
func (s *Server) welcome(ctx context.Context) welcomeParams {
	return welcomeParams{
		SupportedVersions: era.AllVersions,
		SchemaHash:        s.schemaHash(ctx),
		Hint: "Send initialize to open a session on this socket, or requests with params._meta." + era.MetaProtocolVersion +
			" (2026-07-28); server/discover lists the services and their tools. The schema hash changes when any tool does: a client that kept a tool list under the same hash may use it.",
	}
}
