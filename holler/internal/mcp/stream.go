package mcp

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server-sent events.
//
// Every event this server sends carries an id "S-N": S numbers the stream within the session
// (0 is the session's own stream, opened by GET; 1, 2, … are the streams that answer POSTed
// requests) and N counts the events of that stream from 1. The events of a session are kept in
// a bounded buffer, so that a client that lost a stream can GET it again with Last-Event-ID and
// receive what came after that event. A stream opened for protocol version 2025-11-25 or later
// starts with a priming event, an id and empty data, so that the client has an id to resume
// from before the first message arrives.

// getStream is the number of the session's own stream, the one GET opens.
const getStream = 0

// An sseEvent is one buffered event of a session.
type sseEvent struct {
	stream uint64
	n      uint64
	data   []byte
}

// eventID returns the id of event n of stream.
func eventID(stream, n uint64) string {
	return strconv.FormatUint(stream, 10) + "-" + strconv.FormatUint(n, 10)
}

// parseEventID reads an id written by eventID.
func parseEventID(id string) (stream, n uint64, ok bool) {
	a, b, found := strings.Cut(id, "-")
	if !found {
		return 0, 0, false
	}
	stream, err1 := strconv.ParseUint(a, 10, 64)
	n, err2 := strconv.ParseUint(b, 10, 64)
	return stream, n, err1 == nil && err2 == nil
}

// An eventLog holds a session's recent events, at most limit of them and about maxBytes of
// data, oldest first, and wakes the writers that follow a stream.
type eventLog struct {
	limit    int
	maxBytes int

	mu      sync.Mutex
	events  []sseEvent
	bytes   int
	streams uint64            // streams opened; the next POST stream is streams+1
	last    map[uint64]uint64 // the last event number of each stream
	done    map[uint64]bool   // POST streams whose response has been sent
	wake    chan struct{}     // closed and replaced by every append
	// getOwner is the writer that holds the session's GET stream; getSent the last event of
	// stream 0 that a GET writer delivered.
	getOwner *int
	getSent  uint64
	ended    bool
}

// newEventLog returns an empty log.
func newEventLog(limit, maxBytes int) *eventLog {
	return &eventLog{limit: limit, maxBytes: maxBytes, last: make(map[uint64]uint64), done: make(map[uint64]bool), wake: make(chan struct{})}
}

// newStream opens a POST stream and returns its number.
func (l *eventLog) newStream() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.streams++
	return l.streams
}

// append adds data as the next event of stream and returns the event's number.
func (l *eventLog) append(stream uint64, data []byte) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.last[stream] + 1
	l.last[stream] = n
	l.events = append(l.events, sseEvent{stream: stream, n: n, data: data})
	l.bytes += len(data)
	// Evict the oldest, but always keep the newest.
	drop := 0
	for len(l.events)-drop > 1 && (len(l.events)-drop > l.limit || l.bytes > l.maxBytes) {
		l.bytes -= len(l.events[drop].data)
		drop++
	}
	if drop > 0 {
		l.events = append(l.events[:0], l.events[drop:]...)
	}
	close(l.wake)
	l.wake = make(chan struct{})
	return n
}

// finish marks POST stream done: its response is its last event.
func (l *eventLog) finish(stream uint64) {
	l.mu.Lock()
	l.done[stream] = true
	close(l.wake)
	l.wake = make(chan struct{})
	l.mu.Unlock()
}

// end wakes every writer for good: the session is over.
func (l *eventLog) end() {
	l.mu.Lock()
	if !l.ended {
		l.ended = true
		close(l.wake)
		l.wake = make(chan struct{})
	}
	l.mu.Unlock()
}

// resumable reports whether the events of stream after n are all still buffered: the stream
// exists, n is not beyond its last event, and the buffer still holds the event after n.
func (l *eventLog) resumable(stream, n uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if stream > l.streams || n > l.last[stream] {
		return false
	}
	if n == l.last[stream] {
		return true
	}
	for _, e := range l.events {
		if e.stream == stream {
			return e.n <= n+1
		}
	}
	return false
}

// since returns the events of stream after n, whether the stream is complete (a POST stream
// whose response is among them, or an ended session), and the channel that the next change
// closes.
func (l *eventLog) since(stream, n uint64) (out []sseEvent, complete bool, wake <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.events {
		if e.stream == stream && e.n > n {
			out = append(out, e)
		}
	}
	complete = l.ended || (stream != getStream && l.done[stream])
	return out, complete, l.wake
}

// claimGet makes owner the writer of the session's GET stream. A second GET is refused while
// one is open, unless it resumes (replace), which takes the stream over from a connection
// that the server has not yet seen go. It returns the event to start after.
func (l *eventLog) claimGet(owner *int, replace bool) (start uint64, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.getOwner != nil && !replace {
		return 0, false
	}
	if l.getOwner != nil {
		// Wake the old writer so that it sees it has lost the stream.
		close(l.wake)
		l.wake = make(chan struct{})
	}
	l.getOwner = owner
	return l.getSent, true
}

// ownsGet reports whether owner still holds the GET stream.
func (l *eventLog) ownsGet(owner *int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.getOwner == owner
}

// delivered records that event n of the GET stream reached a client.
func (l *eventLog) delivered(owner *int, n uint64) {
	l.mu.Lock()
	if l.getOwner == owner && n > l.getSent {
		l.getSent = n
	}
	l.mu.Unlock()
}

// releaseGet gives the GET stream up, if owner still holds it.
func (l *eventLog) releaseGet(owner *int) {
	l.mu.Lock()
	if l.getOwner == owner {
		l.getOwner = nil
	}
	l.mu.Unlock()
}

// sseWriter writes events to one HTTP response.
type sseWriter struct {
	w   http.ResponseWriter
	err error
}

// start sends the headers of an event stream.
func (sw *sseWriter) start() {
	hd := sw.w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	// Proxies that buffer would hold progress back until the end.
	hd.Set("X-Accel-Buffering", "no")
	sw.w.WriteHeader(http.StatusOK)
	sw.flush()
}

// event sends one event with id and data (a JSON-RPC message, or nothing for a priming
// event) and flushes it.
func (sw *sseWriter) event(id string, data []byte) {
	buf := make([]byte, 0, len(data)+len(id)+32)
	if id != "" {
		buf = append(buf, "id: "...)
		buf = append(buf, id...)
		buf = append(buf, '\n')
	}
	if len(data) == 0 {
		buf = append(buf, "data: \n\n"...)
	} else {
		buf = append(buf, "event: message\ndata: "...)
		buf = append(buf, data...)
		buf = append(buf, "\n\n"...)
	}
	sw.write(buf)
}

// keepAlive sends a comment, which clients ignore and proxies see as traffic.
func (sw *sseWriter) keepAlive() { sw.write([]byte(": keep-alive\n\n")) }

func (sw *sseWriter) write(b []byte) {
	if sw.err != nil {
		return
	}
	if _, err := sw.w.Write(b); err != nil {
		sw.err = err
		return
	}
	sw.flush()
}

func (sw *sseWriter) flush() {
	if err := http.NewResponseController(sw.w).Flush(); err != nil && sw.err == nil {
		sw.err = err
	}
}

// An httpReply is the answer to one POSTed request. It starts out as a plain JSON response
// and turns into an event stream as soon as a notification of the request is to be sent, so
// that a call without progress costs no streaming; the response is then the last event.
// Every event is buffered in the session's log under the stream's number first, so that a
// client that loses the stream can resume it by GET with Last-Event-ID.
type httpReply struct {
	sw        sseWriter
	sess      *session
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
	_ notifier       = (*httpReply)(nil)
	_ requestCarrier = (*httpReply)(nil)
)

// carriesRequests reports whether a request of the server reaches the client on this answer:
// only as an event stream, which the client must accept.
func (h *httpReply) carriesRequests() bool { return h.sseOK && !h.sess.modern }

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
func (h *httpReply) finish(resp *response) { h.finishStatus(resp, http.StatusOK) }

// finishStatus is finish with the HTTP status of a response that is not streamed.
func (h *httpReply) finishStatus(resp *response, status int) {
	b := encode(resp)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done = true
	if h.stopKeep != nil {
		close(h.stopKeep)
	}
	if h.streaming || (!h.jsonOK && h.sseOK) {
		h.startStream()
		h.writeEvent(b)
		h.sess.events.finish(h.stream)
		return
	}
	h.sw.w.Header().Set("Content-Type", "application/json")
	h.sw.w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	h.sw.w.WriteHeader(status)
	_, _ = h.sw.w.Write(b)
}

// startStream sends the headers of an event stream and, for clients that resume, the
// priming event, once.
func (h *httpReply) startStream() {
	if h.streaming {
		return
	}
	h.streaming = true
	h.stream = h.sess.events.newStream()
	h.sw.start()
	if !h.noIDs && primes(h.sess.protocolVersion()) {
		h.sw.event(eventID(h.stream, 0), nil)
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
				h.sw.keepAlive()
			}
			h.mu.Unlock()
		}
	}
}

// writeEvent buffers one JSON-RPC message as the stream's next event and sends it. A failed
// write only stops sending: the event stays buffered for a client that resumes.
func (h *httpReply) writeEvent(b []byte) {
	n := h.sess.events.append(h.stream, b)
	if h.noIDs {
		h.sw.event("", b)
		return
	}
	h.sw.event(eventID(h.stream, n), b)
}

// primes reports whether streams of protocol version v start with a priming event. Clients
// before 2025-11-25 may not accept an event without data.
func primes(v string) bool { return v >= protocolVersion20251125 }

// A sessionStream carries the notifications of an HTTP session that belong to no request
// (list changes, log messages) to the session's GET stream, through the event log.
type sessionStream struct{ log *eventLog }

func (ss sessionStream) notify(n *notification) { ss.log.append(getStream, encode(n)) }
