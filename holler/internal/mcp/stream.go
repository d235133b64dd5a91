package mcp

import (
	"net/http"
	"strconv"
	"sync"
)

// An httpReply is the answer to one POSTed request. It starts out as a plain JSON response
// and turns into an event stream as soon as a notification of the request is to be sent, so
// that a call without progress costs no streaming; the response is then the last event.
type httpReply struct {
	w      http.ResponseWriter
	jsonOK bool // the client accepts application/json
	sseOK  bool // the client accepts text/event-stream

	mu        sync.Mutex
	streaming bool
	done      bool
}

var _ notifier = (*httpReply)(nil)

// notify sends n as an event, switching the response to an event stream first. A client that
// does not take event streams does not get notifications; it still gets the response.
func (h *httpReply) notify(n *notification) {
	b := encode(n)
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
func (h *httpReply) finish(resp *response) {
	b := encode(resp)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done = true
	if h.streaming || (!h.jsonOK && h.sseOK) {
		h.startStream()
		h.writeEvent(b)
		return
	}
	h.w.Header().Set("Content-Type", "application/json")
	h.w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	h.w.WriteHeader(http.StatusOK)
	_, _ = h.w.Write(b)
}

// startStream sends the headers of an event stream, once.
func (h *httpReply) startStream() {
	if h.streaming {
		return
	}
	h.streaming = true
	hd := h.w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	// Proxies that buffer would hold progress back until the end.
	hd.Set("X-Accel-Buffering", "no")
	h.w.WriteHeader(http.StatusOK)
}

// writeEvent sends one JSON-RPC message as a server-sent event and flushes it. The events
// carry no id: this server does not resume streams, and an id would invite the client to try.
func (h *httpReply) writeEvent(b []byte) {
	buf := make([]byte, 0, len(b)+32)
	buf = append(buf, "event: message\ndata: "...)
	buf = append(buf, b...)
	buf = append(buf, "\n\n"...)
	if _, err := h.w.Write(buf); err != nil {
		return
	}
	_ = http.NewResponseController(h.w).Flush()
}
