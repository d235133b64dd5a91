package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/httpcheck"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/sse"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
)

// The HTTP headers of the Streamable HTTP transport.
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
)

// ServeHTTP serves MCP's Streamable HTTP transport at the path the Server is mounted on.
//
// A POST carries one JSON-RPC message. A request is answered with application/json, or with
// text/event-stream when notifications of the request (progress, log messages) come before
// its response; a notification or a response is answered with 202 and no body. initialize
// starts a session and names it in the Mcp-Session-Id response header, which every later
// message must carry; DELETE ends it. GET opens the session's own event stream, which carries
// the notifications that belong to no request (list changes, log messages); one may be open
// at a time. Every event has an id, and a GET with Last-Event-ID resumes a stream, the
// session's own or a request's, after that event. A request for a Host other than loopback
// names and Config.AllowedHosts, or from a browser origin other than loopback, the server's
// own or Config.AllowedOrigins, is refused with 403.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.isClosed() {
		s.httpFail(w, http.StatusServiceUnavailable, jsonrpc.NewError(nil, jsonrpc.CodeInternalError, "the server is shutting down", nil),
			"Try again in a moment, or connect to another instance.")
		return
	}
	if !httpcheck.HostAllowed(r.Host, s.cfg.AllowedHosts) {
		s.httpFail(w, http.StatusForbidden, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "host "+wording.Quote(r.Host)+" is not allowed", nil),
			"This server answers requests for loopback names (localhost, 127.0.0.1, [::1]) and the hosts its operator allows; connect to one of those.")
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !httpcheck.OriginAllowed(origin, r.Host, s.cfg.AllowedOrigins) {
		s.httpFail(w, http.StatusForbidden, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "origin "+wording.Quote(origin)+" is not allowed", nil),
			"This server serves requests from its own origin, loopback origins and the origins its operator allows.")
		return
	}
	switch r.Method {
	case http.MethodPost:
		s.servePost(w, r)
	case http.MethodGet:
		s.serveGet(w, r)
	case http.MethodDelete:
		s.serveDelete(w, r)
	default:
		// RFC 9110 asks a 405 to say what is allowed.
		w.Header().Set("Allow", "GET, POST, DELETE")
		s.httpFail(w, http.StatusMethodNotAllowed,
			jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "method "+r.Method+" is not allowed: this endpoint takes JSON-RPC messages by POST, opens the session's event stream on GET and ends sessions by DELETE", nil),
			"POST each JSON-RPC message to this URL.")
	}
}

// servePost handles one JSON-RPC message sent by POST.
func (s *Server) servePost(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); !httpcheck.IsJSON(ct) {
		got := ct
		if got == "" {
			got = "none"
		}
		s.httpFail(w, http.StatusUnsupportedMediaType,
			jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "unsupported Content-Type "+wording.Quote(got)+": the body must be a JSON-RPC message sent as application/json", nil),
			"Send the body with the header Content-Type: application/json.")
		return
	}
	body, err := httpcheck.ReadBody(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes), r.ContentLength, s.cfg.MaxBodyBytes)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.httpFail(w, http.StatusRequestEntityTooLarge,
				jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "the message is larger than this server's limit of "+strconv.FormatInt(s.cfg.MaxBodyBytes, 10)+" bytes", nil),
				"Send less at once: store large content in parts, or reference content that is already stored.")
			return
		}
		s.log.Debug("mcp: reading a request body failed", "err", err)
		s.httpFail(w, http.StatusBadRequest, jsonrpc.NewError(nil, jsonrpc.CodeParseError, "the request body could not be read", nil), "Send the whole message in the body.")
		return
	}
	msg, bad := decodeMessage(body)
	if bad != nil {
		s.writeJSON(w, http.StatusBadRequest, s.envelopeFailure(bad, era.LooksModern(body) || era.IsModern(r.Header.Get(headerProtocolVersion))))
		return
	}
	// The caller's grant (package access) and the session the message names are looked up
	// once, for the era, the tier and the session's owner.
	grant, _ := access.GrantOf(r.Context())
	if grant != nil && msg.Method == methodToolsCall && s.refuseAboveGrant(w, grant, msg) {
		return
	}
	sid := r.Header.Get(headerSessionID)
	var sess *sessions.Session
	live := false
	if sid != "" {
		sess, live = s.sessions.Get(sid)
	}
	if era.Of(live, r.Header.Get(headerProtocolVersion), msg.Params) == era.Modern {
		s.servePostModern(w, r, msg)
		return
	}
	id := msg.ID
	if pv := r.Header.Get(headerProtocolVersion); pv != "" && !era.IsLegacy(pv) {
		s.writeJSON(w, http.StatusBadRequest, s.badVersion(id, pv))
		return
	}

	isInit := msg.IsRequest() && msg.Method == methodInitialize
	switch {
	case sid == "" && isInit:
		// The session exists once initialize succeeds; until then nobody can name it.
		sess = s.newHTTPSession(sessions.NewID())
		sess.SetOwner(grant.Principal(), grant.Caller())
	case sid == "":
		s.writeJSON(w, http.StatusBadRequest, s.fail(id, jsonrpc.CodeInvalidRequest, "missing "+headerSessionID+" header: send initialize first, then send its session id with every message", &guidance.Data{
			Hint: "POST the initialize request in try, then send the " + headerSessionID + " header from its response with every later message.",
			Try:  guidance.TryInitialize(era.Latest),
		}))
		return
	case !live || sess.Owner() != grant.Principal():
		// A session of another caller is answered as unknown (sessionFor).
		s.writeJSON(w, http.StatusNotFound, s.fail(id, jsonrpc.CodeInvalidRequest, "unknown or expired session "+wording.Quote(sid), &guidance.Data{
			Hint: "Start a new session: POST initialize without the " + headerSessionID + " header.",
			Try:  guidance.TryInitialize(era.Latest),
		}))
		return
	}

	// A dropped connection does not cancel the request (MCP 2025-11-25: disconnection SHOULD NOT
	// be read as cancellation): the call runs on, its events stay in the session's buffer, and a
	// client that comes back with Last-Event-ID gets them and the response. A call still ends on
	// notifications/cancelled, the session's end, the server's Close and the call timeout.
	// The context is the request's own: handle registers cancel for notifications/cancelled
	// rather than deriving one more context from it.
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(r.Context()))
	defer cancel(nil)
	// A W3C trace context from the client continues into the worker's logs.
	// Header keys are spelled canonically: Get then has nothing to rewrite (and allocate).
	ctx, endTrace := s.traceRequest(ctx, r, r.Header.Get("Traceparent"), msg.Method)
	if endTrace != nil {
		defer endTrace()
	}
	// Close ends the calls in flight too, not only the client going away.
	stop := context.AfterFunc(s.base, func() { cancel(nil) })
	defer stop()

	if !msg.IsRequest() {
		s.handle(ctx, sess, msg, nil, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	jsonOK, sseOK := httpcheck.Accepts(r.Header.Values("Accept"))
	reply := &httpReply{w: w, sw: sse.NewWriter(w), sess: sess, jsonOK: jsonOK, sseOK: sseOK, keepAlive: s.cfg.KeepAlive}
	resp := s.handle(ctx, sess, msg, reply, cancel)
	if isInit && resp.Error == nil {
		s.sessions.Add(sess)
		w.Header().Set(headerSessionID, sess.ID())
	}
	reply.finish(resp)
}

// serveDelete ends the session the request names.
func (s *Server) serveDelete(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		s.httpFail(w, http.StatusBadRequest, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "missing "+headerSessionID+" header: DELETE ends the session it names", nil),
			"Send DELETE with the "+headerSessionID+" header of the session to end.")
		return
	}
	if pv := r.Header.Get(headerProtocolVersion); pv != "" && !era.IsLegacy(pv) {
		s.writeJSON(w, http.StatusBadRequest, s.badVersion(nil, pv))
		return
	}
	if _, ok := s.sessionFor(r, sid); !ok || !s.sessions.Remove(sid) {
		s.httpFail(w, http.StatusNotFound, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "unknown or expired session "+wording.Quote(sid), nil),
			"The session is already gone; nothing to end.")
		return
	}
	s.log.Info("mcp: session ended by the client", "session", sid)
	w.WriteHeader(http.StatusNoContent)
}

// serveGet opens the session's own event stream, or resumes a stream after the event that
// Last-Event-ID names.
func (s *Server) serveGet(w http.ResponseWriter, r *http.Request) {
	if _, sseOK := httpcheck.Accepts(r.Header.Values("Accept")); !sseOK {
		s.httpFail(w, http.StatusNotAcceptable, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "GET opens an event stream: the Accept header must allow text/event-stream", nil),
			"Send GET with the header Accept: text/event-stream, or POST JSON-RPC messages.")
		return
	}
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		s.httpFail(w, http.StatusBadRequest, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "missing "+headerSessionID+" header: GET opens the event stream of the session it names", nil),
			"Start a session with initialize by POST, then GET with its "+headerSessionID+" header.")
		return
	}
	if pv := r.Header.Get(headerProtocolVersion); pv != "" && !era.IsLegacy(pv) {
		s.writeJSON(w, http.StatusBadRequest, s.badVersion(nil, pv))
		return
	}
	sess, ok := s.sessionFor(r, sid)
	if !ok {
		s.writeJSON(w, http.StatusNotFound, s.fail(nil, jsonrpc.CodeInvalidRequest, "unknown or expired session "+wording.Quote(sid), &guidance.Data{
			Hint: "Start a new session: POST initialize without the " + headerSessionID + " header.",
			Try:  guidance.TryInitialize(era.Latest),
		}))
		return
	}
	stream, after, resume := uint64(sse.GetStream), uint64(0), false
	if lid := r.Header.Get("Last-Event-ID"); lid != "" {
		st, n, ok := sse.ParseID(lid)
		if !ok || !sess.Events.Resumable(st, n) {
			s.httpFail(w, http.StatusBadRequest, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "Last-Event-ID "+wording.Quote(lid)+" names no event this session can resume after", nil),
				"Send the id of the last event received on this session, unchanged; events are kept for a while only. Without Last-Event-ID, GET opens the session's stream afresh.")
			return
		}
		stream, after, resume = st, n, true
	}
	ctx, done, err := sess.Begin(r.Context(), "stream:"+sessions.NewID(), nil)
	if err != nil {
		s.httpFail(w, http.StatusNotFound, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "the session has ended", nil),
			"Start a new session: POST initialize without the "+headerSessionID+" header.")
		return
	}
	defer done()
	owner := new(int)
	if stream == sse.GetStream {
		start, ok := sess.Events.ClaimGet(owner, resume)
		if !ok {
			s.httpFail(w, http.StatusConflict, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "this session's event stream is already open", nil),
				"Keep one GET stream per session; to take it over after a lost connection, send GET with Last-Event-ID.")
			return
		}
		defer sess.Events.ReleaseGet(owner)
		if !resume {
			after = start
		}
	}
	sw := sse.NewWriter(w)
	sw.Start()
	if primes(sess.ProtocolVersion()) {
		sw.Event(sse.ID(stream, after), nil)
	}
	var tick <-chan time.Time
	if s.cfg.KeepAlive > 0 {
		t := time.NewTicker(s.cfg.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	for sw.Err() == nil {
		if stream == sse.GetStream && !sess.Events.OwnsGet(owner) {
			return
		}
		events, complete, wake := sess.Events.Since(stream, after)
		for _, e := range events {
			sw.Event(sse.ID(e.Stream, e.N), e.Data)
			if sw.Err() != nil {
				return
			}
			after = e.N
			if stream == sse.GetStream {
				sess.Events.Delivered(owner, e.N)
			}
		}
		if complete {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-s.closed:
			return
		case <-wake:
		case <-tick:
			sw.KeepAlive()
		}
	}
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

// badVersion answers an MCP-Protocol-Version header that names no version this server speaks.
func (s *Server) badVersion(id json.RawMessage, pv string) *jsonrpc.Response {
	return s.fail(id, jsonrpc.CodeInvalidRequest, "unsupported "+headerProtocolVersion+" "+wording.Quote(pv), &guidance.Data{
		Hint: "Send the protocol version that initialize negotiated, one of supported; or speak " + era.ModernVersions[0] +
			", which needs no initialize: every request carries its version in params._meta[\"" + era.MetaProtocolVersion + "\"].",
		Supported: append(slices.Clone(era.LegacyVersions), era.ModernVersions...),
	})
}

// httpFail writes resp, an error about the HTTP request itself, with status and, when
// guidance is on, a hint.
func (s *Server) httpFail(w http.ResponseWriter, status int, resp *jsonrpc.Response, hint string) {
	if !s.cfg.MinimalErrors && resp.Error != nil {
		resp.Error.Data = &guidance.Data{Hint: hint}
	}
	s.writeJSON(w, status, resp)
}

// writeJSON writes resp as a JSON body with status.
func (s *Server) writeJSON(w http.ResponseWriter, status int, resp *jsonrpc.Response) {
	b := toolresult.Marshal(resp)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
