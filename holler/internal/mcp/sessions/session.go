package sessions

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

// ErrCancelledByClient is the cause of a request context that a notifications/cancelled ended.
var ErrCancelledByClient = errors.New("mcp: the client cancelled the request")

// ErrDuplicateID refuses a request whose id is already in flight in the same session.
var ErrDuplicateID = errors.New("mcp: the request id is already in flight")

// ErrEnded is the cause of a request context whose session ended under it.
var ErrEnded = errors.New("mcp: the session ended")

// A Notifier carries notifications to the client: those of one request on the request's own
// stream, or those that belong to no request on the session's.
type Notifier interface {
	Notify(n *jsonrpc.Notification)
}

// A Session is what the server remembers about one client connection: the lifecycle state,
// the negotiated protocol version, and the requests in flight so that they can be cancelled.
// A stdio connection or a WebSocket is one session; over HTTP, initialize starts one and
// Mcp-Session-Id names it; a request of the 2026-07-28 era has one of its own (NewModern).
type Session struct {
	// id is the Mcp-Session-Id; empty for stdio.
	id string
	// owner is the caller that started the session behind access control; only that caller
	// may use it. Set once, before the session is shared (SetOwner).
	owner string
	// Caller is the owner as calls to workers name it (nil without access control), for the
	// calls the session makes on its own, such as following its tasks. Set with owner.
	Caller *hootv1.Caller
	// Modern marks the session of one request of the 2026-07-28 era, which lives only as long
	// as that request.
	Modern bool
	// Tasks marks a modern request that declares the tasks extension. Set before the session
	// is shared.
	Tasks bool
	// Events buffers the events of an HTTP session's streams; nil for stdio. Set before the
	// session is shared.
	Events *sse.Log
	// DropWarned is set once the log has said that this session's events were dropped for the
	// bound on all sessions' events.
	DropWarned atomic.Bool
	// Out carries the notifications that belong to no request: the GET stream over HTTP, the
	// output over stdio. Set once, before the session is shared.
	Out Notifier

	mu          sync.Mutex
	initialized bool // initialize was answered
	ready       bool // notifications/initialized came
	version     string
	caps        Capabilities
	// legacyTasks, for a 2025-11-25 session whose client declared tasks, holds the tasks it
	// created; nil in any other session.
	legacyTasks *tasks.List
	// inflight holds the requests in flight, by key, but the first: one comes in first and
	// firstCancel while firstIn, so that a session with one request at a time (every session
	// of the 2026-07-28 era, made for one request) needs no map. The map is made when a second
	// request is in flight beside the first.
	inflight    map[string]context.CancelCauseFunc
	first       string
	firstCancel context.CancelCauseFunc
	firstIn     bool
	lastUsed    time.Time
	ended       bool
	// logLevel is the least severity of the log messages the client receives.
	logLevel loglevel.Level
}

// ClientInfo is the initialize request's clientInfo, kept for logs.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Capabilities are what the client declared in initialize (or, in the 2026-07-28 era, in the
// request's _meta) that it can do, as far as the server makes use of it.
type Capabilities struct {
	// ElicitForm: the client puts forms to its user (elicitation/create in form mode).
	ElicitForm bool
	// ElicitURL: the client sends its user to a URL (elicitation/create in url mode).
	ElicitURL bool
	// Sampling: the client samples its model (sampling/createMessage).
	Sampling bool
	// Roots: the client lists its roots (roots/list).
	Roots bool
}

// CanAnswer reports whether a client that declared c can answer a question of method: a form
// needs elicitation in form mode (an empty elicitation object is form), sampling needs sampling
// and roots/list needs roots.
func (c Capabilities) CanAnswer(method string) bool {
	switch method {
	case questions.MethodCreateMessage:
		return c.Sampling
	case questions.MethodRootsList:
		return c.Roots
	case questions.MethodElicit:
		return c.ElicitForm
	}
	return false
}

// capabilitiesJSON is what ReadCapabilities takes from a client's capabilities when it reads
// them with json.Unmarshal.
type capabilitiesJSON struct {
	Elicitation *struct {
		Form json.RawMessage `json:"form"`
		URL  json.RawMessage `json:"url"`
	} `json:"elicitation"`
	Sampling json.RawMessage `json:"sampling"`
	Roots    json.RawMessage `json:"roots"`
}

// ReadCapabilities reads initialize's capabilities for a session of protocol version v.
// Malformed capabilities declare nothing.
func ReadCapabilities(raw json.RawMessage, v string) Capabilities {
	// Most clients declare none of these ({} above all), and every request of the stateless
	// era carries its capabilities: such text needs no json.Unmarshal. Text the scan does not
	// take (invalid, or a name in another case) is read below.
	named := false
	if rawjson.ScanMembers(raw, capabilityNames, func(int, []byte) { named = true }) && !named {
		return Capabilities{}
	}
	var c capabilitiesJSON
	if len(raw) == 0 || json.Unmarshal(raw, &c) != nil {
		return Capabilities{}
	}
	out := Capabilities{Sampling: rawjson.Kind(c.Sampling) == "object", Roots: rawjson.Kind(c.Roots) == "object"}
	if v < era.V20250618 || c.Elicitation == nil {
		return out
	}
	// 2025-11-25 splits elicitation into form and url modes; an empty object still means form,
	// as it did in 2025-06-18, and only a client that lists url alone cannot fill in forms.
	out.ElicitForm = c.Elicitation.Form != nil || c.Elicitation.URL == nil
	out.ElicitURL = c.Elicitation.URL != nil
	return out
}

// capabilityNames are the members of the client's capabilities that ReadCapabilities reads.
var capabilityNames = []string{"elicitation", "sampling", "roots"}

// NewSession returns a session named id that has not been initialized.
func NewSession(id string) *Session {
	return &Session{id: id, lastUsed: time.Now(), logLevel: loglevel.Default}
}

// NewModern returns the session of one request of the 2026-07-28 era: initialized at the
// request's version, with the capabilities and log level of its _meta, and nothing that a
// later request could rely on. Its event log keeps at most limit events and about maxBytes
// bytes (sse.NewLog); the session and its log are one allocation.
func NewModern(version string, caps Capabilities, level loglevel.Level, limit, maxBytes int) *Session {
	both := &struct {
		s Session
		l sse.Log
	}{s: Session{Modern: true, initialized: true, ready: true, version: version, caps: caps, logLevel: level}}
	both.l.Init(limit, maxBytes)
	both.s.Events = &both.l
	return &both.s
}

// SetOwner names the caller that owns the session: its principal, and the caller as calls to
// workers name it. It is called once, before the session is shared.
func (s *Session) SetOwner(principal string, caller *hootv1.Caller) {
	s.owner, s.Caller = principal, caller
}

// Initialize answers initialize on the session: it takes the negotiated version, the client's
// capabilities and, for a 2025-11-25 session with tasks, its task list. It reports false,
// changing nothing, when the session was initialized already.
func (s *Session) Initialize(version string, caps Capabilities, legacyTasks *tasks.List) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initialized {
		return false
	}
	s.initialized, s.version, s.caps, s.legacyTasks = true, version, caps, legacyTasks
	return true
}

// MarkReady records notifications/initialized, which counts once initialize was answered.
func (s *Session) MarkReady() {
	s.mu.Lock()
	s.ready = s.initialized
	s.mu.Unlock()
}

// Caps returns what the client declared it can do.
func (s *Session) Caps() Capabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// SetLogLevel sets the least severity of the log messages the client receives.
func (s *Session) SetLogLevel(l loglevel.Level) {
	s.mu.Lock()
	s.logLevel = l
	s.mu.Unlock()
}

// Passes reports whether a log message of level l reaches the client.
func (s *Session) Passes(l loglevel.Level) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return l >= s.logLevel
}

// Push sends a notification that belongs to no request, if the session is initialized and
// has somewhere to send it.
func (s *Session) Push(n *jsonrpc.Notification) {
	s.mu.Lock()
	ok := s.initialized && !s.ended && s.Out != nil
	s.mu.Unlock()
	if ok {
		s.Out.Notify(n)
	}
}

// ProtocolVersion returns the negotiated protocol version, or the latest before initialize.
func (s *Session) ProtocolVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version == "" {
		return era.Latest
	}
	return s.version
}

// IsInitialized reports whether initialize was answered on this session.
func (s *Session) IsInitialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized
}

// Begin registers a request in flight under key and returns its context and the function
// that ends it. It fails with ErrEnded on an ended session and with ErrDuplicateID when a
// request with the same id is already in flight. When own is not nil, ctx is the request's
// own context already and own cancels it: Begin then uses both instead of deriving another.
func (s *Session) Begin(ctx context.Context, key string, own context.CancelCauseFunc) (_ context.Context, done func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return ctx, nil, ErrEnded
	}
	if _, dup := s.inflight[key]; dup || s.firstIn && s.first == key {
		return ctx, nil, ErrDuplicateID
	}
	cancel := own
	if cancel == nil {
		ctx, cancel = context.WithCancelCause(ctx)
	}
	switch {
	case !s.firstIn:
		s.first, s.firstCancel, s.firstIn = key, cancel, true
	case s.inflight == nil:
		s.inflight = map[string]context.CancelCauseFunc{key: cancel}
	default:
		s.inflight[key] = cancel
	}
	if !s.Modern {
		// A modern session is never idle-collected: it ends with its request.
		s.lastUsed = time.Now()
	}
	return ctx, func() {
		s.mu.Lock()
		if s.firstIn && s.first == key {
			s.first, s.firstCancel, s.firstIn = "", nil, false
		} else {
			delete(s.inflight, key)
		}
		if !s.Modern {
			s.lastUsed = time.Now()
		}
		s.mu.Unlock()
		cancel(nil)
	}, nil
}

// Cancel ends the request in flight under key, if there is one.
func (s *Session) Cancel(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.inflight[key]
	if s.firstIn && s.first == key {
		c, ok = s.firstCancel, true
	}
	if ok {
		c(ErrCancelledByClient)
	}
	return ok
}

// TaskList returns the session's tasks, or nil when it is not a 2025-11-25 session with tasks.
func (s *Session) TaskList() *tasks.List {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.legacyTasks
}

// HasEnded reports whether the session has ended.
func (s *Session) HasEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// The store's view of a session (Member).

// ID is the session's id: the Mcp-Session-Id, or one of the socket's own; empty for stdio.
func (s *Session) ID() string { return s.id }

// Owner is the caller that started the session behind access control, or "".
func (s *Session) Owner() string { return s.owner }

// IdleSince reports when the session was last used, and whether it is idle at all: a session
// with requests in flight is never idle.
func (s *Session) IdleSince() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastUsed, !s.firstIn && len(s.inflight) == 0
}

// Touch records that the session was just used.
func (s *Session) Touch() {
	s.mu.Lock()
	s.lastUsed = time.Now()
	s.mu.Unlock()
}

// End marks the session ended and cancels every request in flight.
func (s *Session) End() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	if s.firstIn {
		s.firstCancel(ErrEnded)
	}
	for _, c := range s.inflight {
		c(ErrEnded)
	}
	if s.Events != nil {
		s.Events.End()
	}
}

// Log sends a log message to the client if the session's level lets it through: on out, the
// stream of the request it concerns, if not nil; otherwise on the session's own stream (GET
// over HTTP). logger names the message's source; data is any value that encodes as JSON. A nil
// session logs nothing.
func (s *Session) Log(out Notifier, level loglevel.Level, logger string, data any) {
	if s == nil || !s.Passes(level) {
		return
	}
	n := &jsonrpc.Notification{
		JSONRPC: jsonrpc.Version,
		Method:  "notifications/message",
		Params:  logMessageParams{Level: level.String(), Logger: logger, Data: data},
	}
	if out != nil {
		out.Notify(n)
		return
	}
	s.Push(n)
}

// logMessageParams are notifications/message's params.
type logMessageParams struct {
	Level  string `json:"level"`
	Logger string `json:"logger,omitempty"`
	Data   any    `json:"data"`
}
