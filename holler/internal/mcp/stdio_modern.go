package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
)

// The 2026-07-28 era over stdio.
//
// A stdio connection speaks the era its client opens with, as over HTTP but for the whole
// process once it is legacy: initialize makes it legacy, as it always did; before that, a request
// whose params._meta names a protocol version is served as 2026-07-28 on its own (its _meta, its
// version, its log level, nothing remembered), with the same checks as over HTTP but for the
// headers, which stdio does not have. notifications/cancelled cancels a request of either era,
// and ends a subscriptions/listen stream.

// serveLineModern serves msg as a request of the 2026-07-28 era if it is one, and reports
// whether it did; conn is the connection's session, in which the request is registered so that
// notifications/cancelled finds it.
func (s *Server) serveLineModern(ctx context.Context, conn *sessions.Session, w *lineWriter, wg *sync.WaitGroup, msg *message) bool {
	// Only a request can be modern over stdio: a notification goes to the legacy path, which
	// knows notifications/cancelled.
	if !msg.IsRequest() || era.Of(conn.IsInitialized(), "", msg.Params) != era.Modern {
		return false
	}
	// The same checks as over HTTP, without the headers.
	m, fail := s.checkModern(nil, msg)
	if fail != nil {
		w.send(fail.resp)
		return true
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		rctx, done, err := conn.Begin(ctx, jsonrpc.IDKey(msg.ID), nil)
		if err != nil {
			if !errors.Is(err, sessions.ErrEnded) {
				w.send(s.fail(msg.ID, jsonrpc.CodeInvalidRequest, "invalid request: id "+string(msg.ID)+" is already in use by a request in flight", &guidance.Data{
					Hint: "Give every request its own id.",
				}))
			}
			return
		}
		defer done()
		// subscriptions/listen is served by the transport, its answer being a stream of its
		// own; every other method goes through the method table.
		var resp *jsonrpc.Response
		if msg.Method == methodListen {
			resp = s.serveListenLines(rctx, w, msg)
		} else {
			sess := s.modernSession(m)
			sess.Tasks = tasks.Declares(m.caps)
			resp = s.handle(rctx, sess, msg, modernLines{w}, nil)
		}
		// MCP asks that a cancelled request gets no response.
		if resp == nil || resp.Abandoned || errors.Is(context.Cause(rctx), sessions.ErrCancelledByClient) {
			return
		}
		w.send(s.modernResponse(msg.Method, resp))
	}()
	return true
}

// discover answers server/discover: with the services the caller of ctx may call, their
// tools, and the hash of that schema (schema.go).
func (s *Server) discover(ctx context.Context, id json.RawMessage) *jsonrpc.Response {
	listed := s.capListing(ctx, s.listedNow())
	return jsonrpc.NewResult(id, discoverResult{
		SupportedVersions: era.AllVersions,
		Capabilities:      s.modernCapabilities(),
		Instructions:      s.cfg.Instructions,
		Services:          s.hasher.Services(listed),
		SchemaHash:        s.hasher.Hash(listed),
	})
}

// modernLines carries a modern request's notifications (progress, log messages) over stdio.
// The era has no requests of the server to the client, so it carries none.
type modernLines struct{ w *lineWriter }

var (
	_ sessions.Notifier = modernLines{}
	_ requestCarrier    = modernLines{}
)

func (m modernLines) Notify(n *jsonrpc.Notification) { m.w.Notify(n) }

func (modernLines) carriesRequests() bool { return false }
