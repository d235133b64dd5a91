// Package streamable is MCP's Streamable HTTP transport for the sessions of protocol
// 2025-11-25 and older: a POST carries one message, initialize starts a session that
// Mcp-Session-Id names, GET opens its event stream and resumes any of its streams after
// Last-Event-ID, DELETE ends it. An answer is plain JSON until a notification of the request
// comes, and an event stream from then on (Reply). A POST of the 2026-07-28 era goes to the
// server's own envelope (Host.ServeModern), which answers with a Reply too. What a message
// means is the server's (Host).
package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"sync"
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
)

// The HTTP headers of the Streamable HTTP transport.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
)

// A Host is the server the transport's messages go to.
type Host interface {
	// Closed reports whether the server was closed; Base is the context its Close cancels.
	Closed() bool
	Base() context.Context
	// Fail is the server's error response, with guidance g unless guidance is off.
	Fail(id json.RawMessage, code int64, msg string, g *guidance.Data) *jsonrpc.Response
	// Malformed answers a message that is not JSON-RPC; modern says that it shows a client of
	// the 2026-07-28 era.
	Malformed(e *jsonrpc.DecodeError, modern bool) *jsonrpc.Response
	// RefuseAboveGrant answers 403 to a tools/call of a tool above the tier of grant g, and
	// reports whether it did.
	RefuseAboveGrant(w http.ResponseWriter, g *access.Grant, msg jsonrpc.Message) bool
	// ServeModern answers a POSTed message of the 2026-07-28 era.
	ServeModern(w http.ResponseWriter, r *http.Request, msg jsonrpc.Message)
	// Sessions are the server's sessions; NewSession makes one named id, not yet kept.
	Sessions() *sessions.Store[*sessions.Session]
	NewSession(id string) *sessions.Session
	// Handle answers msg of sess, or returns nil for a notification or a client's response.
	// Notifications of the running request go to out; own cancels ctx, the request's own.
	Handle(ctx context.Context, sess *sessions.Session, msg jsonrpc.Message, out sessions.Notifier, own context.CancelCauseFunc) *jsonrpc.Response
	// Trace returns ctx in the trace of the request r (tp, its Traceparent header), and the
	// function that ends the request's span, or nil.
	Trace(ctx context.Context, r *http.Request, tp, method string) (context.Context, func())
}

// Options bound and describe the transport.
type Options struct {
	// MaxBodyBytes bounds one POSTed message.
	MaxBodyBytes int64
	// KeepAlive is how long an event stream stays quiet before a keep-alive comment; not
	// positive turns keep-alives off.
	KeepAlive time.Duration
	// AllowedHosts and AllowedOrigins are the Host names and browser origins served besides
	// loopback's (httpcheck).
	AllowedHosts, AllowedOrigins []string
	// MinimalErrors leaves guidance out of the errors about HTTP itself.
	MinimalErrors bool
	// Log receives what the transport has to say.
	Log *slog.Logger
}

// A Transport serves Streamable HTTP for a Host.
type Transport struct {
	h Host
	o Options
}

// New returns the transport of h.
func New(h Host, o Options) *Transport { return &Transport{h: h, o: o} }

// WriteFailure writes resp, an error about the HTTP request itself, with status and, unless
// minimal, a hint.
func WriteFailure(w http.ResponseWriter, status int, resp *jsonrpc.Response, hint string, minimal bool) {
	if !minimal && resp.Error != nil {
		resp.Error.Data = &guidance.Data{Hint: hint}
	}
	WriteJSON(w, status, resp)
}

// NewReply returns the answer to the POSTed request r of sess, written to w: plain JSON or an
// event stream, as r's Accept header allows. noIDs leaves event ids and the priming event out,
// for an era without resumption.
func NewReply(w http.ResponseWriter, r *http.Request, sess *sessions.Session, keepAlive time.Duration, noIDs bool) *Reply {
	jsonOK, sseOK := httpcheck.Accepts(r.Header.Values("Accept"))
	return &Reply{w: w, sw: sse.NewWriter(w), sess: sess, jsonOK: jsonOK, sseOK: sseOK, keepAlive: keepAlive, noIDs: noIDs}
}

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
// names and Options.AllowedHosts, or from a browser origin other than loopback, the server's
// own or Options.AllowedOrigins, is refused with 403.
func (t *Transport) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if t.h.Closed() {
		t.httpFail(w, http.StatusServiceUnavailable, jsonrpc.NewError(nil, jsonrpc.CodeInternalError, "the server is shutting down", nil),
			"Try again in a moment, or connect to another instance.")
		return
	}
	if !httpcheck.HostAllowed(r.Host, t.o.AllowedHosts) {
		t.httpFail(w, http.StatusForbidden, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "host "+wording.Quote(r.Host)+" is not allowed", nil),
			"This server answers requests for loopback names (localhost, 127.0.0.1, [::1]) and the hosts its operator allows; connect to one of those.")
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !httpcheck.OriginAllowed(origin, r.Host, t.o.AllowedOrigins) {
		t.httpFail(w, http.StatusForbidden, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "origin "+wording.Quote(origin)+" is not allowed", nil),
			"This server serves requests from its own origin, loopback origins and the origins its operator allows.")
		return
	}
	switch r.Method {
	case http.MethodPost:
		t.servePost(w, r)
	case http.MethodGet:
		t.serveGet(w, r)
	case http.MethodDelete:
		t.serveDelete(w, r)
	default:
		// RFC 9110 asks a 405 to say what is allowed.
		w.Header().Set("Allow", "GET, POST, DELETE")
		t.httpFail(w, http.StatusMethodNotAllowed,
			jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "method "+r.Method+" is not allowed: this endpoint takes JSON-RPC messages by POST, opens the session's event stream on GET and ends sessions by DELETE", nil),
			"POST each JSON-RPC message to this URL.")
	}
}

// servePost handles one JSON-RPC message sent by POST.
func (t *Transport) servePost(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); !httpcheck.IsJSON(ct) {
		got := ct
		if got == "" {
			got = "none"
		}
		t.httpFail(w, http.StatusUnsupportedMediaType,
			jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "unsupported Content-Type "+wording.Quote(got)+": the body must be a JSON-RPC message sent as application/json", nil),
			"Send the body with the header Content-Type: application/json.")
		return
	}
	body, err := httpcheck.ReadBody(http.MaxBytesReader(w, r.Body, t.o.MaxBodyBytes), r.ContentLength, t.o.MaxBodyBytes)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			t.httpFail(w, http.StatusRequestEntityTooLarge,
				jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "the message is larger than this server's limit of "+strconv.FormatInt(t.o.MaxBodyBytes, 10)+" bytes", nil),
				"Send less at once: store large content in parts, or reference content that is already stored.")
			return
		}
		t.o.Log.Debug("mcp: reading a request body failed", "err", err)
		t.httpFail(w, http.StatusBadRequest, jsonrpc.NewError(nil, jsonrpc.CodeParseError, "the request body could not be read", nil), "Send the whole message in the body.")
		return
	}
	msg, bad := jsonrpc.Decode(body)
	if bad != nil {
		WriteJSON(w, http.StatusBadRequest, t.h.Malformed(bad, era.LooksModern(body) || era.IsModern(r.Header.Get(HeaderProtocolVersion))))
		return
	}
	// The caller's grant (package access) and the session the message names are looked up
	// once, for the era, the tier and the session's owner.
	grant, _ := access.GrantOf(r.Context())
	if grant != nil && msg.Method == "tools/call" && t.h.RefuseAboveGrant(w, grant, msg) {
		return
	}
	sid := r.Header.Get(HeaderSessionID)
	var sess *sessions.Session
	live := false
	if sid != "" {
		sess, live = t.h.Sessions().Get(sid)
	}
	if era.Of(live, r.Header.Get(HeaderProtocolVersion), msg.Params) == era.Modern {
		t.h.ServeModern(w, r, msg)
		return
	}
	id := msg.ID
	if pv := r.Header.Get(HeaderProtocolVersion); pv != "" && !era.IsLegacy(pv) {
		WriteJSON(w, http.StatusBadRequest, t.badVersion(id, pv))
		return
	}

	isInit := msg.IsRequest() && msg.Method == "initialize"
	switch {
	case sid == "" && isInit:
		// The session exists once initialize succeeds; until then nobody can name it.
		sess = t.h.NewSession(sessions.NewID())
		sess.SetOwner(grant.Principal(), grant.Caller())
	case sid == "":
		WriteJSON(w, http.StatusBadRequest, t.h.Fail(id, jsonrpc.CodeInvalidRequest, "missing "+HeaderSessionID+" header: send initialize first, then send its session id with every message", &guidance.Data{
			Hint: "POST the initialize request in try, then send the " + HeaderSessionID + " header from its response with every later message.",
			Try:  guidance.TryInitialize(era.Latest),
		}))
		return
	case !live || sess.Owner() != grant.Principal():
		// A session of another caller is answered as unknown (sessionFor).
		WriteJSON(w, http.StatusNotFound, t.h.Fail(id, jsonrpc.CodeInvalidRequest, "unknown or expired session "+wording.Quote(sid), &guidance.Data{
			Hint: "Start a new session: POST initialize without the " + HeaderSessionID + " header.",
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
	ctx, endTrace := t.h.Trace(ctx, r, r.Header.Get("Traceparent"), msg.Method)
	if endTrace != nil {
		defer endTrace()
	}
	// Close ends the calls in flight too, not only the client going away.
	stop := context.AfterFunc(t.h.Base(), func() { cancel(nil) })
	defer stop()

	if !msg.IsRequest() {
		t.h.Handle(ctx, sess, msg, nil, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	jsonOK, sseOK := httpcheck.Accepts(r.Header.Values("Accept"))
	reply := &Reply{w: w, sw: sse.NewWriter(w), sess: sess, jsonOK: jsonOK, sseOK: sseOK, keepAlive: t.o.KeepAlive}
	resp := t.h.Handle(ctx, sess, msg, reply, cancel)
	if isInit && resp.Error == nil {
		t.h.Sessions().Add(sess)
		w.Header().Set(HeaderSessionID, sess.ID())
	}
	reply.Finish(resp)
}

// serveDelete ends the session the request names.
func (t *Transport) serveDelete(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get(HeaderSessionID)
	if sid == "" {
		t.httpFail(w, http.StatusBadRequest, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "missing "+HeaderSessionID+" header: DELETE ends the session it names", nil),
			"Send DELETE with the "+HeaderSessionID+" header of the session to end.")
		return
	}
	if pv := r.Header.Get(HeaderProtocolVersion); pv != "" && !era.IsLegacy(pv) {
		WriteJSON(w, http.StatusBadRequest, t.badVersion(nil, pv))
		return
	}
	if _, ok := t.sessionFor(r, sid); !ok || !t.h.Sessions().Remove(sid) {
		t.httpFail(w, http.StatusNotFound, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "unknown or expired session "+wording.Quote(sid), nil),
			"The session is already gone; nothing to end.")
		return
	}
	t.o.Log.Info("mcp: session ended by the client", "session", sid)
	w.WriteHeader(http.StatusNoContent)
}

// serveGet opens the session's own event stream, or resumes a stream after the event that
// Last-Event-ID names.
func (t *Transport) serveGet(w http.ResponseWriter, r *http.Request) {
	if _, sseOK := httpcheck.Accepts(r.Header.Values("Accept")); !sseOK {
		t.httpFail(w, http.StatusNotAcceptable, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "GET opens an event stream: the Accept header must allow text/event-stream", nil),
			"Send GET with the header Accept: text/event-stream, or POST JSON-RPC messages.")
		return
	}
	sid := r.Header.Get(HeaderSessionID)
	if sid == "" {
		t.httpFail(w, http.StatusBadRequest, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "missing "+HeaderSessionID+" header: GET opens the event stream of the session it names", nil),
			"Start a session with initialize by POST, then GET with its "+HeaderSessionID+" header.")
		return
	}
	if pv := r.Header.Get(HeaderProtocolVersion); pv != "" && !era.IsLegacy(pv) {
		WriteJSON(w, http.StatusBadRequest, t.badVersion(nil, pv))
		return
	}
	sess, ok := t.sessionFor(r, sid)
	if !ok {
		WriteJSON(w, http.StatusNotFound, t.h.Fail(nil, jsonrpc.CodeInvalidRequest, "unknown or expired session "+wording.Quote(sid), &guidance.Data{
			Hint: "Start a new session: POST initialize without the " + HeaderSessionID + " header.",
			Try:  guidance.TryInitialize(era.Latest),
		}))
		return
	}
	stream, after, resume := uint64(sse.GetStream), uint64(0), false
	if lid := r.Header.Get("Last-Event-ID"); lid != "" {
		st, n, ok := sse.ParseID(lid)
		if !ok || !sess.Events.Resumable(st, n) {
			t.httpFail(w, http.StatusBadRequest, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "Last-Event-ID "+wording.Quote(lid)+" names no event this session can resume after", nil),
				"Send the id of the last event received on this session, unchanged; events are kept for a while only. Without Last-Event-ID, GET opens the session's stream afresh.")
			return
		}
		stream, after, resume = st, n, true
	}
	ctx, done, err := sess.Begin(r.Context(), "stream:"+sessions.NewID(), nil)
	if err != nil {
		t.httpFail(w, http.StatusNotFound, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "the session has ended", nil),
			"Start a new session: POST initialize without the "+HeaderSessionID+" header.")
		return
	}
	defer done()
	owner := new(int)
	if stream == sse.GetStream {
		start, ok := sess.Events.ClaimGet(owner, resume)
		if !ok {
			t.httpFail(w, http.StatusConflict, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, "this session's event stream is already open", nil),
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
	if t.o.KeepAlive > 0 {
		t := time.NewTicker(t.o.KeepAlive)
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
		case <-t.h.Base().Done():
			return
		case <-wake:
		case <-tick:
			sw.KeepAlive()
		}
	}
}

// badVersion answers an MCP-Protocol-Version header that names no version this server speaks.
func (t *Transport) badVersion(id json.RawMessage, pv string) *jsonrpc.Response {
	return t.h.Fail(id, jsonrpc.CodeInvalidRequest, "unsupported "+HeaderProtocolVersion+" "+wording.Quote(pv), &guidance.Data{
		Hint: "Send the protocol version that initialize negotiated, one of supported; or speak " + era.ModernVersions[0] +
			", which needs no initialize: every request carries its version in params._meta[\"" + era.MetaProtocolVersion + "\"].",
		Supported: append(slices.Clone(era.LegacyVersions), era.ModernVersions...),
	})
}

// httpFail writes resp, an error about the HTTP request itself, with status and, when
// guidance is on, a hint.
func (t *Transport) httpFail(w http.ResponseWriter, status int, resp *jsonrpc.Response, hint string) {
	WriteFailure(w, status, resp, hint, t.o.MinimalErrors)
}

// WriteJSON writes resp as a JSON body with status.
func WriteJSON(w http.ResponseWriter, status int, resp *jsonrpc.Response) {
	b := toolresult.Marshal(resp)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// sessionFor returns the session sid names if the request's caller owns it. A session of
// another caller is answered as unknown, so that a session id seen by someone else (in a log,
// on the wire of a proxy) is of no use without its owner's token.
func (t *Transport) sessionFor(r *http.Request, sid string) (*sessions.Session, bool) {
	sess, ok := t.h.Sessions().Get(sid)
	g, _ := access.GrantOf(r.Context())
	if !ok || sess.Owner() != g.Principal() {
		return nil, false
	}
	return sess, true
}

// Server-sent events (package sse).
//
// Every event this server sends on an HTTP session's stream carries an id "S-N" and is kept in
// the session's bounded sse.Log, so that a client that lost a stream can GET it again with
// Last-Event-ID and receive what came after that event. A stream opened for protocol version
// 2025-11-25 or later starts with a priming event, an id and empty data, so that the client
// has an id to resume from before the first message arrives.

// An Reply is the answer to one POSTed request. It starts out as a plain JSON response
// and turns into an event stream as soon as a notification of the request is to be sent, so
// that a call without progress costs no streaming; the response is then the last event.
// Every event is buffered in the session's log under the stream's number first, so that a
// client that loses the stream can resume it by GET with Last-Event-ID.
type Reply struct {
	// w is the response; sw writes events to it once the reply streams.
	w         http.ResponseWriter
	sw        sse.Writer
	sess      *sessions.Session
	jsonOK    bool // the client accepts application/json
	sseOK     bool // the client accepts text/event-stream
	keepAlive time.Duration
	// noIDs leaves event ids and the priming event out: the 2026-07-28 era has no resumption.
	noIDs bool

	mu        sync.Mutex
	streaming bool
	stream    uint64
	done      bool
	stopKeep  chan struct{}
}

var _ sessions.RequestStream = (*Reply)(nil)

// RequestStream marks a Reply as a request's own stream, apart from the session's.
func (h *Reply) RequestStream() {}

// CarriesRequests reports whether a request of the server reaches the client on this answer:
// only as an event stream, which the client must accept.
func (h *Reply) CarriesRequests() bool { return h.sseOK && !h.sess.Modern }

// Notify sends n as an event, switching the response to an event stream first. A client that
// does not take event streams does not get notifications; it still gets the response.
func (h *Reply) Notify(n *jsonrpc.Notification) {
	b := toolresult.Marshal(n)
	h.mu.Lock()
	defer h.mu.Unlock()
	// After finish the handler has returned, and the ResponseWriter must not be used.
	if h.done || !h.sseOK {
		return
	}
	h.startStream()
	h.writeEvent(b)
}

// Finish sends the response and ends the reply. Nothing is sent after it.
func (h *Reply) Finish(resp *jsonrpc.Response) { h.FinishStatus(resp, http.StatusOK) }

// FinishStatus is Finish with the HTTP status of a response that is not streamed.
func (h *Reply) FinishStatus(resp *jsonrpc.Response, status int) {
	b := toolresult.Marshal(resp)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done = true
	if h.stopKeep != nil {
		close(h.stopKeep)
	}
	if h.streaming || (!h.jsonOK && h.sseOK) {
		h.startStream()
		h.writeEvent(b)
		h.sess.Events.Finish(h.stream)
		return
	}
	h.w.Header().Set("Content-Type", "application/json")
	h.w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	h.w.WriteHeader(status)
	_, _ = h.w.Write(b)
}

// startStream sends the headers of an event stream and, for clients that resume, the
// priming event, once.
func (h *Reply) startStream() {
	if h.streaming {
		return
	}
	h.streaming = true
	h.stream = h.sess.Events.NewStream()
	h.sw.Start()
	if !h.noIDs && primes(h.sess.ProtocolVersion()) {
		h.sw.Event(sse.ID(h.stream, 0), nil)
	}
	if h.keepAlive > 0 && !h.done {
		h.stopKeep = make(chan struct{})
		go h.keepAlives(h.stopKeep)
	}
}

// keepAlives sends a comment whenever the stream has been quiet for the keep-alive interval,
// until stop is closed.
func (h *Reply) keepAlives(stop <-chan struct{}) {
	t := time.NewTicker(h.keepAlive)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			h.mu.Lock()
			if !h.done {
				h.sw.KeepAlive()
			}
			h.mu.Unlock()
		}
	}
}

// writeEvent buffers one JSON-RPC message as the stream's next event and sends it. A failed
// write only stops sending: the event stays buffered for a client that resumes.
func (h *Reply) writeEvent(b []byte) {
	n := h.sess.Events.Append(h.stream, b)
	if h.noIDs {
		h.sw.Event("", b)
		return
	}
	h.sw.Event(sse.ID(h.stream, n), b)
}

// primes reports whether streams of protocol version v start with a priming event. Clients
// before 2025-11-25 may not accept an event without data.
func primes(v string) bool { return v >= era.V20251125 }

// SessionStream carries the notifications of an HTTP session that belong to no request (list
// changes, log messages) to the session's GET stream, through its event log.
func SessionStream(log *sse.Log) sessions.Notifier { return sessionStream{log: log} }

type sessionStream struct{ log *sse.Log }

func (ss sessionStream) Notify(n *jsonrpc.Notification) {
	ss.log.Append(sse.GetStream, toolresult.Marshal(n))
}
