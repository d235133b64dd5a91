package mcp

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// TestAttackSessionFlood reproduces the session flood: many clients of protocol 2025-11-25
// each start a session and read a large result over an event stream, which the session keeps
// for resumption. Sessions stay within their count (the least recently used ended, said in the
// log and counted) and their events within the total bytes (the oldest dropped first); a client
// whose session was ended is answered 404 and can initialize again.
func TestAttackSessionFlood(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	const maxSessions, total = 20, 256 << 10
	s, _ := newTestServer(t, func(c *Config) {
		c.MaxSessions = maxSessions
		c.EventBufferBytes = 64 << 10
		c.EventBufferTotal = total
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	victim := newMCPHTTP(t, s)
	victim.initialize("2025-11-25")
	first := victim.session

	big := strings.Repeat("m", 16<<10)
	for i := range 200 {
		c := &mcpHTTP{t: t, url: victim.url, client: victim.client, accept: "text/event-stream"}
		c.initialize("2025-11-25")
		a := c.post(request(i, methodToolsCall, map[string]any{"name": "echo", "arguments": map[string]any{"message": big}}), nil)
		if a.status != http.StatusOK || !strings.HasPrefix(a.header.Get("Content-Type"), "text/event-stream") || !strings.Contains(string(a.body), big) {
			t.Fatalf("flooding session %d: %d %.200s", i, a.status, a.body)
		}
		if st := s.SessionStats(); st.Live > maxSessions || st.BufferedBytes > total {
			t.Fatalf("after %d sessions: %d live (bound %d), %d bytes buffered (bound %d)", i+1, st.Live, maxSessions, st.BufferedBytes, total)
		}
	}
	st := s.SessionStats()
	if st.Live != maxSessions || st.Evicted != 201-maxSessions {
		t.Fatalf("sessions: %d live, %d evicted; want %d and %d", st.Live, st.Evicted, maxSessions, 201-maxSessions)
	}
	// Twenty sessions of 16 KiB and more each do not fit in 256 KiB: the oldest went.
	if st.DroppedEvents["total"] == 0 || st.DroppedBytes["total"] < 16<<10 {
		t.Fatalf("no event dropped for the total bound: %+v", st)
	}
	if !strings.Contains(logs.String(), "ended the least recently used session") || !strings.Contains(logs.String(), "session="+first) {
		t.Errorf("the log does not say that session %s was ended:\n%.2000s", first, logs.String())
	}
	if !strings.Contains(logs.String(), "to keep all sessions within their total bound") {
		t.Errorf("the log does not say events were dropped for the total bound")
	}

	// The victim's session is gone: every request naming it is answered 404, which tells the
	// client to initialize again.
	a := victim.post(request(1, methodPing, nil), nil)
	if a.status != http.StatusNotFound || !strings.Contains(string(a.body), "unknown or expired session") {
		t.Fatalf("POST to an ended session: %d %s", a.status, a.body)
	}
	get := victim.openGet("")
	if get.resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET of an ended session: %d %s", get.resp.StatusCode, get.body())
	}
	victim.session = ""
	victim.initialize("2025-11-25")
	if r := victim.call(2, methodPing, nil); r.Error != nil {
		t.Fatalf("ping after initializing again: %+v", r.Error)
	}
}

// TestSessionEvictionSparesBusySessions: a session with a request in flight (here its open GET
// stream) is not ended for room while an idle one can be, even when it is older.
func TestSessionEvictionSparesBusySessions(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, func(c *Config) { c.MaxSessions = 3 })
	busy := newMCPHTTP(t, s)
	busy.initialize("2025-11-25")
	stream := busy.openGet("")
	if stream.resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d %s", stream.resp.StatusCode, stream.body())
	}
	if _, err := stream.next(); err != nil { // the priming event: the stream is open
		t.Fatal(err)
	}
	for range 5 {
		c := &mcpHTTP{t: t, url: busy.url, client: busy.client}
		c.initialize("2025-11-25")
	}
	if st := s.SessionStats(); st.Live != 3 || st.Evicted != 3 {
		t.Fatalf("sessions: %+v", st)
	}
	if _, ok := s.sessions.Peek(busy.session); !ok {
		t.Fatal("the session with an open stream was ended while idle ones were there")
	}
	stream.close()
}

// TestEndedSessionStreamEnds: the GET stream of a session ended for room ends, so that its
// client comes back, is answered 404 and initializes again.
func TestEndedSessionStreamEnds(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, func(c *Config) { c.MaxSessions = 1 })
	c := newMCPHTTP(t, s)
	c.initialize("2025-11-25")
	stream := c.openGet("")
	if _, err := stream.next(); err != nil {
		t.Fatal(err)
	}
	// A second session with the stream's session busy: it is ended all the same, as the only
	// one there is.
	other := &mcpHTTP{t: t, url: c.url, client: c.client}
	other.initialize("2025-11-25")
	if _, err := io.ReadAll(stream.br); err != nil {
		t.Fatalf("the ended session's stream: %v", err)
	}
	if a := c.post(request(1, methodPing, nil), nil); a.status != http.StatusNotFound {
		t.Fatalf("POST after the stream ended: %d", a.status)
	}
}
