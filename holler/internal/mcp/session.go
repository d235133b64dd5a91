package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/loglevel"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/sse"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
)

// errCancelledByClient is the cause of a request context that a notifications/cancelled ended.
var errCancelledByClient = errors.New("mcp: the client cancelled the request")

// errDuplicateID refuses a request whose id is already in flight in the same session.
var errDuplicateID = errors.New("mcp: the request id is already in flight")

// errSessionEnded is the cause of a request context whose session ended under it.
var errSessionEnded = errors.New("mcp: the session ended")

// A session is what the server remembers about one client connection: the lifecycle state,
// the negotiated protocol version, and the requests in flight so that they can be cancelled.
// A stdio connection is one session; over HTTP, initialize starts one and Mcp-Session-Id
// names it.
type session struct {
	// id is the Mcp-Session-Id; empty for stdio.
	id string
	// modern marks the session of one request of the 2026-07-28 era, which lives only as long
	// as that request (modern.go).
	modern bool
	// owner is the caller that started an HTTP session behind access control (access.go);
	// only that caller may use it. Set once, before the session is shared.
	owner string
	// caller is the owner as calls to workers name it (nil without access control), for the
	// calls the session makes on its own, such as following its tasks. Set with owner.
	caller *hootv1.Caller
	// tasks marks a modern request that declares the tasks extension (tasks.go).
	tasks bool
	// legacyTasks, for a 2025-11-25 session whose client declared tasks, holds the tasks it
	// created (tasks_legacy.go); nil in any other session.
	legacyTasks *tasks.List

	mu          sync.Mutex
	initialized bool // initialize was answered
	ready       bool // notifications/initialized came
	version     string
	client      clientInfo
	caps        clientCapabilities
	inflight    map[string]context.CancelCauseFunc
	lastUsed    time.Time
	ended       bool
	// logLevel is the least severity of the log messages the client receives.
	logLevel loglevel.Level

	// events buffers the events of an HTTP session's streams; nil for stdio.
	events *sse.Log
	// dropWarned is set once the log has said that this session's events were dropped for the
	// bound on all sessions' events.
	dropWarned atomic.Bool
	// out carries the notifications that belong to no request: the GET stream over HTTP, the
	// output over stdio. Set once, before the session is shared.
	out notifier
}

// clientInfo is the initialize request's clientInfo, kept for logs.
type clientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// clientCapabilities are what the client declared in initialize (or, in the 2026-07-28 era,
// in the request's _meta) that it can do, as far as this server makes use of it.
type clientCapabilities struct {
	// elicitForm: the client puts forms to its user (elicitation/create in form mode).
	elicitForm bool
	// elicitURL: the client sends its user to a URL (elicitation/create in url mode).
	elicitURL bool
	// sampling: the client samples its model (sampling/createMessage).
	sampling bool
	// roots: the client lists its roots (roots/list).
	roots bool
}

// canAnswer reports whether a client that declared c can answer a question of method: a form
// needs elicitation in form mode (an empty elicitation object is form), sampling needs sampling
// and roots/list needs roots.
func (c clientCapabilities) canAnswer(method string) bool {
	switch method {
	case questions.MethodCreateMessage:
		return c.sampling
	case questions.MethodRootsList:
		return c.roots
	case questions.MethodElicit:
		return c.elicitForm
	}
	return false
}

// readClientCapabilities reads initialize's capabilities for a session of protocol version v.
// Malformed capabilities declare nothing.
func readClientCapabilities(raw json.RawMessage, v string) clientCapabilities {
	var c struct {
		Elicitation *struct {
			Form json.RawMessage `json:"form"`
			URL  json.RawMessage `json:"url"`
		} `json:"elicitation"`
		Sampling json.RawMessage `json:"sampling"`
		Roots    json.RawMessage `json:"roots"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &c) != nil {
		return clientCapabilities{}
	}
	out := clientCapabilities{sampling: rawjson.Kind(c.Sampling) == "object", roots: rawjson.Kind(c.Roots) == "object"}
	if v < era.V20250618 || c.Elicitation == nil {
		return out
	}
	// 2025-11-25 splits elicitation into form and url modes; an empty object still means form,
	// as it did in 2025-06-18, and only a client that lists url alone cannot fill in forms.
	out.elicitForm = c.Elicitation.Form != nil || c.Elicitation.URL == nil
	out.elicitURL = c.Elicitation.URL != nil
	return out
}

// canElicitForm reports whether the client declared that it puts forms to its user.
func (s *session) canElicitForm() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps.elicitForm
}

// newSession returns a session named id that has not been initialized.
func newSession(id string) *session {
	return &session{id: id, inflight: make(map[string]context.CancelCauseFunc), lastUsed: time.Now(), logLevel: loglevel.Default}
}

// newHTTPSession returns an HTTP session named id whose notifications go to its GET stream,
// through an event log of at most limit events and maxBytes bytes.
func newHTTPSession(id string, limit, maxBytes int) *session {
	return newHTTPSessionIn(id, limit, maxBytes, nil)
}

// newHTTPSessionIn is newHTTPSession whose events also count against budget, with the
// events of every other session of the budget.
func newHTTPSessionIn(id string, limit, maxBytes int, budget *sse.Budget) *session {
	s := newSession(id)
	s.events = sse.NewLogIn(limit, maxBytes, budget, id)
	s.out = sessionStream{log: s.events}
	return s
}

// newHTTPSession returns a new HTTP session of this server, within its bounds on events.
func (s *Server) newHTTPSession(id string) *session {
	return newHTTPSessionIn(id, s.cfg.EventBuffer, s.cfg.EventBufferBytes, s.eventBudget)
}

// eventsDropped hears of the events dropped from a session's buffer. A session's own bounds
// dropping its oldest events is its buffer working as meant, said at debug level; the bound on
// all sessions dropping them means the gateway is short of room, which is said once a session
// as a warning. Both are counted (SessionStats).
func (s *Server) eventsDropped(id, why string, events, bytes int) {
	if why != sse.DropTotal {
		s.log.Debug("mcp: a session's oldest buffered events were dropped to keep within its own bound",
			"session", id, "events", events, "bytes", bytes, "session_buffer", s.cfg.EventBufferBytes)
		return
	}
	sess, ok := s.sessions.Peek(id)
	if ok && !sess.dropWarned.CompareAndSwap(false, true) {
		return
	}
	s.log.Warn("mcp: buffered events of a session were dropped to keep all sessions within their total bound; "+
		"its client cannot resume its streams from before them (later drops of this session are only counted)",
		"session", id, "events", events, "bytes", bytes, "session_buffer_total", s.cfg.EventBufferTotal)
}

// SessionStats are counts of the HTTP sessions of protocol 2025-11-25 and older.
type SessionStats struct {
	// Live is the sessions alive now, Max their bound.
	Live, Max int
	// Evicted counts the sessions ended to make room for new ones; Expired those ended after
	// their idle timeout.
	Evicted, Expired uint64
	// BufferedBytes is the data of the events all sessions keep now, BufferMax its bound.
	BufferedBytes, BufferMax int64
	// DroppedEvents and DroppedBytes count the buffered events dropped, by why: "session" (a
	// session's own bound) and "total" (the bound on all sessions).
	DroppedEvents, DroppedBytes map[string]uint64
}

// SessionStats returns the counts of the HTTP sessions, for metrics.
func (s *Server) SessionStats() SessionStats {
	st := SessionStats{Max: s.cfg.MaxSessions, BufferedBytes: s.eventBudget.Bytes(), BufferMax: s.cfg.EventBufferTotal,
		DroppedEvents: map[string]uint64{}, DroppedBytes: map[string]uint64{}}
	st.Live, st.Evicted, st.Expired = s.sessions.Stats()
	for _, why := range []string{sse.DropSession, sse.DropTotal} {
		st.DroppedEvents[why], st.DroppedBytes[why] = s.eventBudget.Dropped(why)
	}
	return st
}

// push sends a notification that belongs to no request, if the session is initialized and
// has somewhere to send it.
func (s *session) push(n *jsonrpc.Notification) {
	s.mu.Lock()
	ok := s.initialized && !s.ended && s.out != nil
	s.mu.Unlock()
	if ok {
		s.out.notify(n)
	}
}

// protocolVersion returns the negotiated protocol version, or the latest before initialize.
func (s *session) protocolVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version == "" {
		return era.Latest
	}
	return s.version
}

// isInitialized reports whether initialize was answered on this session.
func (s *session) isInitialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized
}

// begin registers a request in flight under key and returns its context and the function
// that ends it. It fails with errSessionEnded on an ended session and with errDuplicateID when
// a request with the same id is already in flight. When own is not nil, ctx is the request's
// own context already and own cancels it: begin then uses both instead of deriving another.
func (s *session) begin(ctx context.Context, key string, own context.CancelCauseFunc) (_ context.Context, done func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return ctx, nil, errSessionEnded
	}
	if _, dup := s.inflight[key]; dup {
		return ctx, nil, errDuplicateID
	}
	cancel := own
	if cancel == nil {
		ctx, cancel = context.WithCancelCause(ctx)
	}
	s.inflight[key] = cancel
	s.lastUsed = time.Now()
	return ctx, func() {
		s.mu.Lock()
		delete(s.inflight, key)
		s.lastUsed = time.Now()
		s.mu.Unlock()
		cancel(nil)
	}, nil
}

// cancel ends the request in flight under key, if there is one.
func (s *session) cancel(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.inflight[key]
	if ok {
		c(errCancelledByClient)
	}
	return ok
}

// end marks the session ended and cancels every request in flight.
func (s *session) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	for _, c := range s.inflight {
		c(errSessionEnded)
	}
	if s.events != nil {
		s.events.End()
	}
}

// touch records that the session was just used.
func (s *session) touch() {
	s.mu.Lock()
	s.lastUsed = time.Now()
	s.mu.Unlock()
}

// idleSince reports when the session was last used, and whether it is idle at all: a session
// with requests in flight is never idle.
func (s *session) idleSince() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastUsed, len(s.inflight) == 0
}

// taskList returns the session's tasks, or nil when it is not a 2025-11-25 session with tasks.
func (s *session) taskList() *tasks.List {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.legacyTasks
}

// hasEnded reports whether the session has ended.
func (s *session) hasEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// The store's view of a session (package sessions).

func (s *session) ID() string    { return s.id }
func (s *session) Owner() string { return s.owner }
func (s *session) IdleSince() (time.Time, bool) {
	return s.idleSince()
}
func (s *session) Touch() { s.touch() }
func (s *session) End()   { s.end() }
