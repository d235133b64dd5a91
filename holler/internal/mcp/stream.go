package mcp

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/sse"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
)

// Server-sent events (package sse).
//
// Every event this server sends on an HTTP session's stream carries an id "S-N" and is kept in
// the session's bounded sse.Log, so that a client that lost a stream can GET it again with
// Last-Event-ID and receive what came after that event. A stream opened for protocol version
// 2025-11-25 or later starts with a priming event, an id and empty data, so that the client
// has an id to resume from before the first message arrives.

// An httpReply is the answer to one POSTed request. It starts out as a plain JSON response
// and turns into an event stream as soon as a notification of the request is to be sent, so
// that a call without progress costs no streaming; the response is then the last event.
// Every event is buffered in the session's log under the stream's number first, so that a
// client that loses the stream can resume it by GET with Last-Event-ID.
type httpReply struct {
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

var (
	_ sessions.Notifier = (*httpReply)(nil)
	_ requestCarrier    = (*httpReply)(nil)
)

// CarriesRequests reports whether a request of the server reaches the client on this answer:
// only as an event stream, which the client must accept.
func (h *httpReply) CarriesRequests() bool { return h.sseOK && !h.sess.Modern }

// notify sends n as an event, switching the response to an event stream first. A client that
// does not take event streams does not get notifications; it still gets the response.
func (h *httpReply) Notify(n *jsonrpc.Notification) {
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

// finish sends the response and ends the reply. Nothing is sent after it.
func (h *httpReply) finish(resp *jsonrpc.Response) { h.finishStatus(resp, http.StatusOK) }

// finishStatus is finish with the HTTP status of a response that is not streamed.
func (h *httpReply) finishStatus(resp *jsonrpc.Response, status int) {
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
func (h *httpReply) startStream() {
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
func (h *httpReply) keepAlives(stop <-chan struct{}) {
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
func (h *httpReply) writeEvent(b []byte) {
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

// A sessionStream carries the notifications of an HTTP session that belong to no request
// (list changes, log messages) to the session's GET stream, through the event log.
type sessionStream struct{ log *sse.Log }

func (ss sessionStream) Notify(n *jsonrpc.Notification) {
	ss.log.Append(sse.GetStream, toolresult.Marshal(n))
}
