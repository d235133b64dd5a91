// Package sse writes Server-Sent Events for MCP's Streamable HTTP transport and keeps the
// events of a session so that a client can resume a stream it lost. A session's streams are
// numbered (GetStream, 0, is the one a GET opens; every answer that streams gets the next
// number), each event has the id "S-N" (stream S, event N from 1), and the Log holds the
// recent events, bounded in number and in bytes, for a GET with Last-Event-ID to replay. What
// the events say (JSON-RPC messages) is the caller's; the Writer only frames and flushes them.
package sse

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// GetStream is the number of the session's own stream, the one GET opens; the streams that
// answer POSTed requests are numbered from 1 by NewStream.
const GetStream = 0

// An Event is one buffered event of a session.
type Event struct {
	// Stream is the number of the stream the event belongs to, N its number in the stream
	// (from 1), and Data what it carries.
	Stream uint64
	N      uint64
	Data   []byte
	// node is the event's place in its log's Budget, if the log has one.
	node *budgetNode
}

// ID returns the id of event n of stream.
func ID(stream, n uint64) string {
	return strconv.FormatUint(stream, 10) + "-" + strconv.FormatUint(n, 10)
}

// ParseID reads an id written by ID.
func ParseID(id string) (stream, n uint64, ok bool) {
	a, b, found := strings.Cut(id, "-")
	if !found {
		return 0, 0, false
	}
	stream, err1 := strconv.ParseUint(a, 10, 64)
	n, err2 := strconv.ParseUint(b, 10, 64)
	return stream, n, err1 == nil && err2 == nil
}

// A Log holds a session's recent events, at most limit of them and about maxBytes of
// data, oldest first, and wakes the writers that follow a stream.
type Log struct {
	limit    int
	maxBytes int
	// budget, when not nil, bounds the bytes of this log and others together; tag names the
	// log to its drop hook.
	budget *Budget
	tag    string

	mu      sync.Mutex
	events  []Event
	bytes   int
	streams uint64            // streams opened; the next POST stream is streams+1
	last    map[uint64]uint64 // the last event number of each stream
	done    map[uint64]bool   // POST streams whose response has been sent
	wake    chan struct{}     // closed by every change, made again by the next Since
	// getOwner is the writer that holds the session's GET stream; getSent the last event of
	// stream 0 that a GET writer delivered.
	getOwner *int
	getSent  uint64
	ended    bool
}

// NewLog returns an empty log that keeps at most limit events and about maxBytes bytes of
// their data, dropping the oldest first but always keeping the newest.
func NewLog(limit, maxBytes int) *Log {
	return &Log{limit: limit, maxBytes: maxBytes}
}

// Init makes l, a Log that is not in use yet (the zero Log inside a struct of its owner's),
// the empty log of NewLog(limit, maxBytes), so that the owner and its log can be one
// allocation.
func (l *Log) Init(limit, maxBytes int) {
	l.limit, l.maxBytes = limit, maxBytes
}

// wakeLocked wakes the writers that follow the log, if any waits: the channel is made only
// when Since hands it out, so that a log nobody follows (the log of nearly every request of
// the stateless era, made for that request alone) costs no channel, and no maps until it is
// written to.
func (l *Log) wakeLocked() {
	if l.wake != nil {
		close(l.wake)
		l.wake = nil
	}
}

// NewLogIn is NewLog for a log whose bytes count against b too, where the oldest events of all
// its logs are dropped first when they hold more than b allows. tag names the log in b's drop
// hook. End gives the log's bytes back to b.
func NewLogIn(limit, maxBytes int, b *Budget, tag string) *Log {
	l := NewLog(limit, maxBytes)
	l.budget, l.tag = b, tag
	return l
}

// NewStream opens a POST stream and returns its number.
func (l *Log) NewStream() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.streams++
	return l.streams
}

// Append adds data as the next event of stream and returns the event's number.
func (l *Log) Append(stream uint64, data []byte) uint64 {
	l.mu.Lock()
	if l.last == nil {
		l.last = make(map[uint64]uint64)
	}
	n := l.last[stream] + 1
	l.last[stream] = n
	ev := Event{Stream: stream, N: n, Data: data}
	if l.budget != nil && !l.ended {
		ev.node = l.budget.link(l, len(data))
	}
	l.events = append(l.events, ev)
	l.bytes += len(data)
	// Evict the oldest, but always keep the newest.
	drop, dropped := 0, 0
	for len(l.events)-drop > 1 && (len(l.events)-drop > l.limit || l.bytes > l.maxBytes) {
		e := &l.events[drop]
		l.bytes -= len(e.Data)
		dropped += len(e.Data)
		l.budget.unlink(e.node)
		drop++
	}
	if drop > 0 {
		l.events = append(l.events[:0], l.events[drop:]...)
		clear(l.events[len(l.events) : len(l.events)+drop]) // let the dropped data go
	}
	l.wakeLocked()
	l.mu.Unlock()
	if drop > 0 {
		l.budget.dropped(l.tag, DropSession, drop, dropped)
	}
	l.budget.enforce()
	return n
}

// dropOldest drops the log's oldest event if nd is its place in the budget, and reports
// whether it did; it unlinks nd in any case, so that the budget always makes progress.
func (l *Log) dropOldest(nd *budgetNode) (bytes int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.events) == 0 || l.events[0].node != nd {
		l.budget.unlink(nd)
		return 0, false
	}
	e := l.events[0]
	l.budget.unlink(nd)
	l.bytes -= len(e.Data)
	l.events[0] = Event{}
	l.events = l.events[1:]
	return len(e.Data), true
}

// Finish marks POST stream done: its response is its last event.
func (l *Log) Finish(stream uint64) {
	l.mu.Lock()
	if l.done == nil {
		l.done = make(map[uint64]bool)
	}
	l.done[stream] = true
	l.wakeLocked()
	l.mu.Unlock()
}

// End wakes every writer for good: the session is over.
func (l *Log) End() {
	l.mu.Lock()
	if !l.ended {
		l.ended = true
		l.wakeLocked()
		// Nobody can resume a stream of an ended session: its events go.
		for i := range l.events {
			l.budget.unlink(l.events[i].node)
		}
		l.events, l.bytes = nil, 0
	}
	l.mu.Unlock()
}

// Bytes returns the bytes of data the log holds.
func (l *Log) Bytes() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bytes
}

// Resumable reports whether the events of stream after n are all still buffered: the stream
// exists, n is not beyond its last event, and the buffer still holds the event after n.
func (l *Log) Resumable(stream, n uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if stream > l.streams || n > l.last[stream] {
		return false
	}
	if n == l.last[stream] {
		return true
	}
	for _, e := range l.events {
		if e.Stream == stream {
			return e.N <= n+1
		}
	}
	return false
}

// Since returns the events of stream after n, whether the stream is complete (a POST stream
// whose response is among them, or an ended session), and the channel that the next change
// closes.
func (l *Log) Since(stream, n uint64) (out []Event, complete bool, wake <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.events {
		if e.Stream == stream && e.N > n {
			out = append(out, e)
		}
	}
	complete = l.ended || (stream != GetStream && l.done[stream])
	if l.wake == nil {
		l.wake = make(chan struct{})
	}
	return out, complete, l.wake
}

// ClaimGet makes owner the writer of the session's GET stream. A second GET is refused while
// one is open, unless it resumes (replace), which takes the stream over from a connection
// that the server has not yet seen go. It returns the event to start after.
func (l *Log) ClaimGet(owner *int, replace bool) (start uint64, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.getOwner != nil && !replace {
		return 0, false
	}
	if l.getOwner != nil {
		// Wake the old writer so that it sees it has lost the stream.
		l.wakeLocked()
	}
	l.getOwner = owner
	return l.getSent, true
}

// OwnsGet reports whether owner still holds the GET stream; OwnsGet(nil) reports whether
// no writer holds it.
func (l *Log) OwnsGet(owner *int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.getOwner == owner
}

// Delivered records that event n of the GET stream reached a client.
func (l *Log) Delivered(owner *int, n uint64) {
	l.mu.Lock()
	if l.getOwner == owner && n > l.getSent {
		l.getSent = n
	}
	l.mu.Unlock()
}

// ReleaseGet gives the GET stream up, if owner still holds it.
func (l *Log) ReleaseGet(owner *int) {
	l.mu.Lock()
	if l.getOwner == owner {
		l.getOwner = nil
	}
	l.mu.Unlock()
}

// A Writer writes events to one HTTP response. After a write fails it writes nothing more,
// and Err says why.
type Writer struct {
	w   http.ResponseWriter
	err error
}

// NewWriter returns a Writer of events to w.
func NewWriter(w http.ResponseWriter) Writer { return Writer{w: w} }

// Err returns the first error of a write or a flush, or nil.
func (sw *Writer) Err() error { return sw.err }

// Start sends the headers of an event stream.
func (sw *Writer) Start() {
	hd := sw.w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	// Proxies that buffer would hold progress back until the end.
	hd.Set("X-Accel-Buffering", "no")
	sw.w.WriteHeader(http.StatusOK)
	sw.flush()
}

// Event sends one event with id and data (a JSON-RPC message, or nothing for a priming
// event) and flushes it.
func (sw *Writer) Event(id string, data []byte) {
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

// KeepAlive sends a comment, which clients ignore and proxies see as traffic.
func (sw *Writer) KeepAlive() { sw.write([]byte(": keep-alive\n\n")) }

func (sw *Writer) write(b []byte) {
	if sw.err != nil {
		return
	}
	if _, err := sw.w.Write(b); err != nil {
		sw.err = err
		return
	}
	sw.flush()
}

func (sw *Writer) flush() {
	if err := http.NewResponseController(sw.w).Flush(); err != nil && sw.err == nil {
		sw.err = err
	}
}
