package mcp

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/streamable"
	"github.com/hootenanny/hoot/hooteproto"
)

// The Streamable HTTP transport (package streamable) and the server as it sees it (httpHost).

// The HTTP headers of the Streamable HTTP transport.
const (
	headerSessionID       = streamable.HeaderSessionID
	headerProtocolVersion = streamable.HeaderProtocolVersion
)

// ServeHTTP serves MCP's Streamable HTTP transport at the path the Server is mounted on: a
// POST carries one JSON-RPC message, initialize starts a session named by Mcp-Session-Id, GET
// opens (or with Last-Event-ID resumes) the session's event stream, DELETE ends it; a POST of
// the 2026-07-28 era needs no session (package streamable says the rest). A request for a Host
// other than loopback names and Config.AllowedHosts, or from a browser origin other than
// loopback, the server's own or Config.AllowedOrigins, is refused with 403.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.http.ServeHTTP(w, r) }

// httpHost is the server as the HTTP transport sees it (streamable.Host).
type httpHost struct{ s *Server }

var _ streamable.Host = httpHost{}

func (h httpHost) Closed() bool          { return h.s.isClosed() }
func (h httpHost) Base() context.Context { return h.s.base }

func (h httpHost) Fail(id json.RawMessage, code int64, msg string, g *guidance.Data) *jsonrpc.Response {
	return h.s.fail(id, code, msg, g)
}

func (h httpHost) Malformed(e *jsonrpc.DecodeError, modern bool) *jsonrpc.Response {
	return h.s.envelopeFailure(e, modern)
}

func (h httpHost) RefuseAboveGrant(w http.ResponseWriter, g *access.Grant, msg jsonrpc.Message) bool {
	return h.s.refuseAboveGrant(w, g, &message{Message: msg})
}

func (h httpHost) ServeModern(w http.ResponseWriter, r *http.Request, msg jsonrpc.Message) {
	h.s.servePostModern(w, r, &message{Message: msg})
}

func (h httpHost) Sessions() *sessions.Store[*sessions.Session] { return h.s.sessions }

func (h httpHost) NewSession(id string) *sessions.Session { return h.s.newHTTPSession(id) }

func (h httpHost) Handle(ctx context.Context, sess *sessions.Session, msg jsonrpc.Message, out sessions.Notifier, own context.CancelCauseFunc) *jsonrpc.Response {
	return h.s.handle(ctx, sess, &message{Message: msg}, out, own)
}

func (h httpHost) Trace(ctx context.Context, r *http.Request, tp, method string) (context.Context, func()) {
	return h.s.traceRequest(ctx, r, tp, method)
}

// traceRequest returns ctx with the client's traceparent tp, when it is valid, and with a
// Tracer, inside the span of the request r, which end ends; end is nil without a Tracer.
func (s *Server) traceRequest(ctx context.Context, r *http.Request, tp, method string) (_ context.Context, end func()) {
	if hooteproto.ValidTraceparent(tp) {
		ctx = hooteproto.WithTraceparent(ctx, tp)
	}
	if s.cfg.Tracer == nil {
		return ctx, nil
	}
	return s.cfg.Tracer.StartRequest(ctx, r, method)
}
