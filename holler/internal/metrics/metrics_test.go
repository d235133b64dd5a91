package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/holler/internal/mcp"
	"github.com/hootenanny/hoot/holler/internal/netlimit"
	"github.com/hootenanny/hoot/hooteproto"
)

func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	if rec.Code != 200 {
		t.Fatalf("scrape: %d %s", rec.Code, b)
	}
	return string(b)
}

func TestMetrics(t *testing.T) {
	m := New(Sources{
		Broker: func() hooteproto.BrokerStats {
			return hooteproto.BrokerStats{
				Services:         []hooteproto.ServiceStats{{Name: "music", Workers: 2, Draining: 1, Capacity: 64, InFlight: 3, Queued: 5}},
				WorkersLost:      map[string]uint64{"heartbeats": 4, "connection": 1, "disconnected": 0},
				HeartbeatsMissed: 9,
				FramesRefused:    2,
			}
		},
		Malformed: func() uint64 { return 7 },
		Banned:    func() uint64 { return 1 },
		Sessions: func() mcp.SessionStats {
			return mcp.SessionStats{Live: 12, Max: 4096, Evicted: 3, Expired: 4, BufferedBytes: 5000, BufferMax: 1 << 20,
				DroppedEvents: map[string]uint64{"session": 6, "total": 2}, DroppedBytes: map[string]uint64{"session": 600, "total": 200}}
		},
		Conns: func() (netlimit.Stats, bool) {
			return netlimit.Stats{Open: 10, Idle: 4, Max: 900, RefusedTotal: 5, RefusedClient: 8, ClosedIdle: 11}, true
		},
	})
	m.SlowBody()
	m.CallStarted()
	m.CallStarted()
	m.CallEnded(mcp.CallRecord{Tool: "abc_to_midi", Era: "2026-07-28", Outcome: "ok", Duration: 20 * time.Millisecond})
	m.CallStarted()
	m.CallEnded(mcp.CallRecord{Tool: "", Era: "2025", Outcome: "rejected", Duration: time.Millisecond})
	m.ContentBytes(100, 0)
	m.ContentBytes(0, 2500)

	out := scrape(t, m)
	for _, want := range []string{
		`holler_tool_calls_total{era="2026-07-28",outcome="ok",tool="abc_to_midi"} 1`,
		`holler_tool_calls_total{era="2025",outcome="rejected",tool="unknown"} 1`,
		`holler_tool_calls_in_flight 1`,
		`holler_tool_call_duration_seconds_count{tool="abc_to_midi"} 1`,
		`holler_content_bytes_total{direction="in"} 100`,
		`holler_content_bytes_total{direction="out"} 2500`,
		`holler_workers{service="music"} 2`,
		`holler_workers_draining{service="music"} 1`,
		`holler_worker_capacity{service="music"} 64`,
		`holler_worker_calls_in_flight{service="music"} 3`,
		`holler_queue_depth{service="music"} 5`,
		`holler_workers_lost_total{why="heartbeats"} 4`,
		`holler_heartbeats_missed_total 9`,
		`holler_frames_refused_total{why="malformed"} 7`,
		`holler_frames_refused_total{why="refused"} 2`,
		`holler_peers_banned_total 1`,
		`holler_http_connections{state="idle"} 4`,
		`holler_http_connections{state="busy"} 6`,
		`holler_http_connections_max 900`,
		`holler_http_connections_refused_total{why="total"} 5`,
		`holler_http_connections_refused_total{why="client"} 8`,
		`holler_http_connections_closed_idle_total 11`,
		`holler_http_slow_bodies_total 1`,
		`holler_sessions 12`,
		`holler_sessions_max 4096`,
		`holler_sessions_ended_total{why="evicted"} 3`,
		`holler_sessions_ended_total{why="expired"} 4`,
		`holler_session_buffer_bytes 5000`,
		`holler_session_buffer_max_bytes 1.048576e+06`,
		`holler_session_events_dropped_total{why="total"} 2`,
		`holler_session_event_bytes_dropped_total{why="session"} 600`,
		`go_goroutines `,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the scrape lacks %s", want)
		}
	}
}
