package mcp

import (
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/sse"
	"github.com/hootenanny/hoot/holler/internal/mcp/streamable"
)

// newHTTPSession returns an HTTP session named id whose notifications go to its GET stream,
// through an event log of at most limit events and maxBytes bytes.
func newHTTPSession(id string, limit, maxBytes int) *sessions.Session {
	return newHTTPSessionIn(id, limit, maxBytes, nil)
}

// newHTTPSessionIn is newHTTPSession whose events also count against budget, with the
// events of every other session of the budget.
func newHTTPSessionIn(id string, limit, maxBytes int, budget *sse.Budget) *sessions.Session {
	s := sessions.NewSession(id)
	s.Events = sse.NewLogIn(limit, maxBytes, budget, id)
	s.Out = streamable.SessionStream(s.Events)
	return s
}

// newHTTPSession returns a new HTTP session of this server, within its bounds on events.
func (s *Server) newHTTPSession(id string) *sessions.Session {
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
	if ok && !sess.DropWarned.CompareAndSwap(false, true) {
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
