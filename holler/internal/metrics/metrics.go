// Package metrics is holler's Prometheus metrics: tool calls by tool, era and outcome with their
// latency, calls in flight, the broker's queues, live workers, missed heartbeats, lost workers
// and refused frames, the content routes' bytes, HTTP connections and MCP sessions with what
// their bounds refused or dropped. The MCP server and the HTTP routes report
// through small hooks (mcp.Observer, a byte counter); the wire's counts are read at scrape time.
package metrics

import (
	"net/http"

	"github.com/hootenanny/hoot/holler/internal/mcp"
	"github.com/hootenanny/hoot/holler/internal/netlimit"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Sources are where the counts kept elsewhere are read at each scrape.
type Sources struct {
	// Broker returns the broker's counts.
	Broker func() hooteproto.BrokerStats
	// Malformed and Banned return the worker socket's malformed frames and banned peers.
	Malformed, Banned func() uint64
	// Sessions returns the counts of the MCP server's HTTP sessions and their buffers.
	Sessions func() mcp.SessionStats
	// Conns returns the counts of the HTTP listener, and false while nothing listens.
	Conns func() (netlimit.Stats, bool)
}

// Metrics holds holler's collectors, registered on a registry of their own.
type Metrics struct {
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	inFlight prometheus.Gauge
	content  *prometheus.CounterVec
	slow     prometheus.Counter
}

// New makes the metrics, with the Go runtime's and the process's beside them.
func New(src Sources) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "holler_tool_calls_total",
			Help: "Tool calls that ended, by tool, protocol era and outcome (ok, tool_error, input_required, rejected).",
		}, []string{"tool", "era", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "holler_tool_call_duration_seconds",
			Help: "How long tool calls took at the gateway, by tool.",
			// From a fast echo (~100 µs) to the call timeout (60 s by default).
			Buckets: prometheus.ExponentialBucketsRange(0.0001, 60, 16),
		}, []string{"tool"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "holler_tool_calls_in_flight",
			Help: "Tool calls started and not yet answered.",
		}),
		content: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "holler_content_bytes_total",
			Help: "Bytes of stored content through the content routes: in (PUT /cas) and out (GET).",
		}, []string{"direction"}),
		slow: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "holler_http_slow_bodies_total",
			Help: "Request bodies cut off and answered 408 for arriving slower than the minimum upload rate.",
		}),
	}
	m.reg.MustRegister(m.calls, m.latency, m.inFlight, m.content, m.slow,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&wireCollector{src: src})
	return m
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// CallStarted implements mcp.Observer.
func (m *Metrics) CallStarted() { m.inFlight.Inc() }

// CallEnded implements mcp.Observer.
func (m *Metrics) CallEnded(r mcp.CallRecord) {
	m.inFlight.Dec()
	tool := r.Tool
	if tool == "" {
		tool = "unknown" // names outside the table are not labels: a client could mint any number
	}
	m.calls.WithLabelValues(tool, r.Era, r.Outcome).Inc()
	m.latency.WithLabelValues(tool).Observe(r.Duration.Seconds())
}

// ContentBytes counts bytes of content in or out.
func (m *Metrics) ContentBytes(in, out int64) {
	if in > 0 {
		m.content.WithLabelValues("in").Add(float64(in))
	}
	if out > 0 {
		m.content.WithLabelValues("out").Add(float64(out))
	}
}

// SlowBody counts a request body cut off for arriving too slowly.
func (m *Metrics) SlowBody() { m.slow.Inc() }

var _ mcp.Observer = (*Metrics)(nil)

// wireCollector reads the broker's and the worker socket's counts at each scrape.
type wireCollector struct{ src Sources }

var (
	descWorkers  = prometheus.NewDesc("holler_workers", "Live workers by service (a worker counts for each service it serves).", []string{"service"}, nil)
	descDraining = prometheus.NewDesc("holler_workers_draining", "Live workers finishing their calls before they stop, by service.", []string{"service"}, nil)
	descCapacity = prometheus.NewDesc("holler_worker_capacity", "Calls the live workers of a service take at once, together.", []string{"service"}, nil)
	descBusy     = prometheus.NewDesc("holler_worker_calls_in_flight", "Calls the live workers of a service hold now.", []string{"service"}, nil)
	descQueued   = prometheus.NewDesc("holler_queue_depth", "Calls waiting for a free worker, by service.", []string{"service"}, nil)
	descLost     = prometheus.NewDesc("holler_workers_lost_total", "Workers forgotten, by why: heartbeats, connection, disconnected.", []string{"why"}, nil)
	descMissed   = prometheus.NewDesc("holler_heartbeats_missed_total", "Heartbeat intervals a live worker let pass without a frame.", nil, nil)
	descRefused  = prometheus.NewDesc("holler_frames_refused_total", "Frames refused from workers, by why: malformed (undecodable), refused (well-formed but not acceptable).", []string{"why"}, nil)
	descBanned   = prometheus.NewDesc("holler_peers_banned_total", "Peers banned from the worker endpoint for malformed or oversized frames.", nil, nil)
)

var (
	descConns         = prometheus.NewDesc("holler_http_connections", "HTTP connections open now, by state: idle (between requests) or busy.", []string{"state"}, nil)
	descConnsMax      = prometheus.NewDesc("holler_http_connections_max", "The bound on HTTP connections open at once (--max-conns).", nil, nil)
	descConnsRefused  = prometheus.NewDesc("holler_http_connections_refused_total", "HTTP connections answered 503 and closed, by why: total (every connection busy) or client (the client had its share).", []string{"why"}, nil)
	descConnsClosed   = prometheus.NewDesc("holler_http_connections_closed_idle_total", "Idle keep-alive connections closed early to make room for new ones.", nil, nil)
	descSessions      = prometheus.NewDesc("holler_sessions", "MCP sessions (protocol 2025-11-25 and older) alive now.", nil, nil)
	descSessionsMax   = prometheus.NewDesc("holler_sessions_max", "The bound on MCP sessions alive at once (--max-sessions).", nil, nil)
	descSessionsEnded = prometheus.NewDesc("holler_sessions_ended_total", "MCP sessions the gateway ended, by why: evicted (to make room for a new one) or expired (idle too long).", []string{"why"}, nil)
	descBuffered      = prometheus.NewDesc("holler_session_buffer_bytes", "Bytes of events all MCP sessions keep for clients that resume a stream.", nil, nil)
	descBufferMax     = prometheus.NewDesc("holler_session_buffer_max_bytes", "The bound on those bytes (--session-buffer-total).", nil, nil)
	descDropped       = prometheus.NewDesc("holler_session_events_dropped_total", "Buffered events dropped, by why: session (a session's own bound) or total (the bound on all sessions).", []string{"why"}, nil)
	descDroppedBytes  = prometheus.NewDesc("holler_session_event_bytes_dropped_total", "Bytes of the buffered events dropped, by why.", []string{"why"}, nil)
)

func (c *wireCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descWorkers, descDraining, descCapacity, descBusy, descQueued, descLost, descMissed, descRefused, descBanned,
		descConns, descConnsMax, descConnsRefused, descConnsClosed, descSessions, descSessionsMax, descSessionsEnded, descBuffered, descBufferMax, descDropped, descDroppedBytes} {
		ch <- d
	}
}

func (c *wireCollector) Collect(ch chan<- prometheus.Metric) {
	if c.src.Broker != nil {
		st := c.src.Broker()
		for _, s := range st.Services {
			ch <- prometheus.MustNewConstMetric(descWorkers, prometheus.GaugeValue, float64(s.Workers), s.Name)
			ch <- prometheus.MustNewConstMetric(descDraining, prometheus.GaugeValue, float64(s.Draining), s.Name)
			ch <- prometheus.MustNewConstMetric(descCapacity, prometheus.GaugeValue, float64(s.Capacity), s.Name)
			ch <- prometheus.MustNewConstMetric(descBusy, prometheus.GaugeValue, float64(s.InFlight), s.Name)
			ch <- prometheus.MustNewConstMetric(descQueued, prometheus.GaugeValue, float64(s.Queued), s.Name)
		}
		for why, n := range st.WorkersLost {
			ch <- prometheus.MustNewConstMetric(descLost, prometheus.CounterValue, float64(n), why)
		}
		ch <- prometheus.MustNewConstMetric(descMissed, prometheus.CounterValue, float64(st.HeartbeatsMissed))
		ch <- prometheus.MustNewConstMetric(descRefused, prometheus.CounterValue, float64(st.FramesRefused), "refused")
	}
	if c.src.Malformed != nil {
		ch <- prometheus.MustNewConstMetric(descRefused, prometheus.CounterValue, float64(c.src.Malformed()), "malformed")
	}
	if c.src.Banned != nil {
		ch <- prometheus.MustNewConstMetric(descBanned, prometheus.CounterValue, float64(c.src.Banned()))
	}
	if c.src.Conns != nil {
		if st, ok := c.src.Conns(); ok {
			ch <- prometheus.MustNewConstMetric(descConns, prometheus.GaugeValue, float64(st.Idle), "idle")
			ch <- prometheus.MustNewConstMetric(descConns, prometheus.GaugeValue, float64(st.Open-st.Idle), "busy")
			ch <- prometheus.MustNewConstMetric(descConnsMax, prometheus.GaugeValue, float64(st.Max))
			ch <- prometheus.MustNewConstMetric(descConnsRefused, prometheus.CounterValue, float64(st.RefusedTotal), "total")
			ch <- prometheus.MustNewConstMetric(descConnsRefused, prometheus.CounterValue, float64(st.RefusedClient), "client")
			ch <- prometheus.MustNewConstMetric(descConnsClosed, prometheus.CounterValue, float64(st.ClosedIdle))
		}
	}
	if c.src.Sessions != nil {
		st := c.src.Sessions()
		ch <- prometheus.MustNewConstMetric(descSessions, prometheus.GaugeValue, float64(st.Live))
		ch <- prometheus.MustNewConstMetric(descSessionsMax, prometheus.GaugeValue, float64(st.Max))
		ch <- prometheus.MustNewConstMetric(descSessionsEnded, prometheus.CounterValue, float64(st.Evicted), "evicted")
		ch <- prometheus.MustNewConstMetric(descSessionsEnded, prometheus.CounterValue, float64(st.Expired), "expired")
		ch <- prometheus.MustNewConstMetric(descBuffered, prometheus.GaugeValue, float64(st.BufferedBytes))
		ch <- prometheus.MustNewConstMetric(descBufferMax, prometheus.GaugeValue, float64(st.BufferMax))
		for why, n := range st.DroppedEvents {
			ch <- prometheus.MustNewConstMetric(descDropped, prometheus.CounterValue, float64(n), why)
		}
		for why, n := range st.DroppedBytes {
			ch <- prometheus.MustNewConstMetric(descDroppedBytes, prometheus.CounterValue, float64(n), why)
		}
	}
}
