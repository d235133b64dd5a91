// Package config is what an MCP server (package mcp) is made from: its Config, the defaults
// of the Config's zero fields, and the interfaces through which the server reaches what is
// outside it: the workers (Backend, LiveBackend), metrics (Observer) and traces (Tracer).
// Package mcp names each of them as its own, so a caller of mcp need not import this package.
package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
	"github.com/hootenanny/hoot/hooteproto"
)

// Defaults for the zero fields of a [Config].
const (
	// DefaultMaxBodyBytes bounds one JSON-RPC message: room for the largest content a tool
	// takes (8 MiB), even as base64, plus the envelope.
	DefaultMaxBodyBytes int64 = 12 << 20
	// DefaultCallTimeout bounds one tool call, from the backend call to its result.
	DefaultCallTimeout = 60 * time.Second
	// DefaultSessionIdleTimeout is how long an HTTP session lives without requests.
	DefaultSessionIdleTimeout = 30 * time.Minute
	// DefaultPageSize is how many tools one tools/list page holds: all of today's table, the
	// Ethereum wrapper's tools included, with room to grow.
	DefaultPageSize = 250
	// DefaultKeepAlive is how long an event stream stays quiet before a keep-alive comment.
	DefaultKeepAlive = 15 * time.Second
	// DefaultEventBuffer is how many recent events an HTTP session keeps for clients that
	// resume a stream.
	DefaultEventBuffer = 256
	// DefaultEventBufferBytes bounds the data of those events.
	DefaultEventBufferBytes = 4 << 20
	// DefaultEventBufferTotal bounds the data of the events that all HTTP sessions keep
	// together; past it the oldest events of any session go first.
	DefaultEventBufferTotal = 256 << 20
	// DefaultMaxSessions bounds the HTTP sessions (protocol 2025-11-25 and older) alive at
	// once; a new one ends the least recently used.
	DefaultMaxSessions = 4096
	// DefaultMaxListens bounds the subscriptions/listen streams open at once on one server.
	DefaultMaxListens = 256
	// DefaultName is the server's name in initialize's serverInfo.
	DefaultName = "holler"
	// DefaultTitle is the server's title in initialize's serverInfo.
	DefaultTitle = "Hootenanny"
	// DefaultVersion is the server's version when none is configured.
	DefaultVersion = "devel"
	// DefaultWebSocketMaxInFlight bounds the requests of one socket handled at once.
	DefaultWebSocketMaxInFlight = 64
)

// A StateLedger records accepted requestStates for a fleet; see Config.Ledger.
type StateLedger = reqstate.Ledger

// A Config describes an MCP server (mcp.Server). The zero value of every field but Backend is
// a sensible default; mcp.NewServer copies the Config, so changing it later has no effect.
type Config struct {
	// Tools is the tool table. Nil means hootv1hoot.Tools, the product's generated table
	// (without the test fixtures, conformancev1hoot.Fixtures).
	Tools []hootv1hoot.Tool
	// Backend carries tool calls to the workers. It is required.
	Backend Backend
	// ContentBaseURL returns the base URL (such as "http://127.0.0.1:8080") of the gateway's
	// content routes, or "" when there are none. Results whose fields name an artifact or a
	// stored object then carry resource links to them. Nil means no links.
	ContentBaseURL func() string
	// MaxTier is the highest tier of tool the server lists and calls; tools above it are hidden
	// and refused. Zero means TIER_STANDARD.
	MaxTier hootv1.Tier
	// NoConfirm runs the tools that need a person's confirmation (every tool of tier ADMIN,
	// and the destructive tools whose schema asks for it) without asking anyone. Dangerous: a
	// model may then destroy data on its own. Set it only for trusted clients that cannot ask
	// their user. False means ask, and refuse the call when the client cannot ask.
	NoConfirm bool
	// StateKey signs the requestState of the questions the 2026-07-28 era asks in input_required
	// results, so that the retry that answers one can be trusted. Gateways that serve the same
	// clients share it, so that a retry may reach any of them. Empty means a random key of this
	// Server's own: a retry must then reach this Server. A key needs at least 16 bytes.
	StateKey []byte
	// Ledger records each accepted confirmation of the 2026-07-28 era (a requestState) where
	// every gateway of the fleet sees it, before the confirmed call runs, so that one is taken
	// once in the fleet and across restarts; a confirmation it cannot record is refused. The
	// gateway's broker is one (hooteproto.Broker.UseState: the workers' database). Nil keeps the
	// record in this Server's memory alone, which holds for one process that never restarts.
	Ledger StateLedger
	// Name, Title and Version describe the server in initialize's serverInfo. Zero values mean
	// DefaultName, DefaultTitle and DefaultVersion.
	Name, Title, Version string
	// Instructions tell a model what this server is, in initialize's result. Empty means a
	// short default paragraph.
	Instructions string
	// Logger receives the server's logs. Nil discards them.
	Logger *slog.Logger
	// MinimalErrors turns guidance off: errors carry only a code and a message, with no data,
	// no usage and no examples. Guidance is on by default.
	MinimalErrors bool
	// MaxBodyBytes bounds one incoming JSON-RPC message (an HTTP body or a stdio line). Zero
	// means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// WebSocketMaxInFlight bounds the requests of one WebSocket (/ws) handled at once; one
	// more is refused with an error until one ends. Zero means DefaultWebSocketMaxInFlight.
	WebSocketMaxInFlight int
	// CallTimeout bounds one tool call. Zero means DefaultCallTimeout.
	CallTimeout time.Duration
	// SessionIdleTimeout ends HTTP sessions without requests for this long. Zero means
	// DefaultSessionIdleTimeout.
	SessionIdleTimeout time.Duration
	// AllowedOrigins are the browser origins (such as "https://app.example.com") whose HTTP
	// requests are served besides loopback origins and the server's own. A request with any
	// other Origin header is refused with 403, which keeps web pages from reaching a local
	// server through DNS rebinding. Requests without an Origin header are not affected.
	AllowedOrigins []string
	// AllowedHosts are the names (such as "holler.example.com", or with a port,
	// "holler.example.com:8080") that HTTP requests may name in their Host header besides
	// the loopback names localhost, 127.0.0.1 and [::1], which are allowed with any port. A
	// request for any other host is refused with 403, which keeps a page of a rebound domain
	// from reaching a local server. "*" allows every host.
	AllowedHosts []string
	// PageSize is how many tools one tools/list page holds. Zero means DefaultPageSize.
	PageSize int
	// KeepAlive is how long an HTTP event stream stays quiet before the server sends a
	// keep-alive comment. Zero means DefaultKeepAlive; negative turns keep-alives off.
	KeepAlive time.Duration
	// EventBuffer and EventBufferBytes bound the recent events each HTTP session keeps, so
	// that a client that loses a stream can resume it with Last-Event-ID. Zero means
	// DefaultEventBuffer and DefaultEventBufferBytes.
	EventBuffer      int
	EventBufferBytes int
	// EventBufferTotal bounds the data of the events that all HTTP sessions keep together: past
	// it, the oldest events of any session are dropped first (a client that resumes after them
	// is told it cannot). Zero means DefaultEventBufferTotal.
	EventBufferTotal int64
	// MaxSessions bounds the HTTP sessions (protocol 2025-11-25 and older, named by
	// Mcp-Session-Id) alive at once. A new session beyond it ends the least recently used one
	// (preferring one without requests in flight), whose client is then answered 404 and
	// initializes again, as the transport prescribes. Behind access control one caller may
	// hold a quarter of them: past that, its own least recently used session makes room. Zero
	// means DefaultMaxSessions.
	MaxSessions int
	// Observer, if not nil, is told of every tools/call as it starts and ends, for metrics.
	Observer Observer
	// MaxListens bounds the subscriptions/listen streams (2026-07-28) open at once; one more
	// is refused with advice to close one. Zero means DefaultMaxListens.
	MaxListens int
	// Tracer, if not nil, makes the spans of HTTP requests, tool calls and calls to the
	// backend, for traces. Nil means no spans, and calls carry a traceparent of their own.
	Tracer Tracer
}

// DefaultInstructions is what a model reads first about this server.
const DefaultInstructions = "This server is holler, the gateway to Hootenanny: every tool it " +
	"lists runs on a worker behind it. Start with tools/list; each tool has a description, a JSON " +
	"Schema for its arguments and an example. When a call fails, the answer says which argument " +
	"was wrong, what was expected and how to call the tool correctly: fix that and call again."

// WithDefaults returns a copy of c with its zero fields filled in, Tools with tools when it is
// nil, or an error for a Config that cannot work.
func (c *Config) WithDefaults(tools []hootv1hoot.Tool) (*Config, error) {
	if c == nil {
		return nil, errors.New("mcp: nil Config")
	}
	cfg := *c
	if cfg.Backend == nil {
		return nil, errors.New("mcp: Config.Backend is required")
	}
	if cfg.Tools == nil {
		cfg.Tools = tools
	}
	// The caller keeps its slices; the server keeps its own.
	cfg.Tools = append([]hootv1hoot.Tool(nil), cfg.Tools...)
	cfg.AllowedOrigins = append([]string(nil), cfg.AllowedOrigins...)
	cfg.AllowedHosts = append([]string(nil), cfg.AllowedHosts...)
	switch {
	case cfg.PageSize == 0:
		cfg.PageSize = DefaultPageSize
	case cfg.PageSize < 0:
		return nil, fmt.Errorf("mcp: Config.PageSize %d is negative", cfg.PageSize)
	}
	if cfg.KeepAlive == 0 {
		cfg.KeepAlive = DefaultKeepAlive
	}
	switch {
	case cfg.EventBuffer == 0:
		cfg.EventBuffer = DefaultEventBuffer
	case cfg.EventBuffer < 0:
		return nil, fmt.Errorf("mcp: Config.EventBuffer %d is negative", cfg.EventBuffer)
	}
	switch {
	case cfg.EventBufferBytes == 0:
		cfg.EventBufferBytes = DefaultEventBufferBytes
	case cfg.EventBufferBytes < 0:
		return nil, fmt.Errorf("mcp: Config.EventBufferBytes %d is negative", cfg.EventBufferBytes)
	}
	switch {
	case cfg.EventBufferTotal == 0:
		cfg.EventBufferTotal = DefaultEventBufferTotal
	case cfg.EventBufferTotal < 0:
		return nil, fmt.Errorf("mcp: Config.EventBufferTotal %d is negative", cfg.EventBufferTotal)
	}
	switch {
	case cfg.MaxSessions == 0:
		cfg.MaxSessions = DefaultMaxSessions
	case cfg.MaxSessions < 0:
		return nil, fmt.Errorf("mcp: Config.MaxSessions %d is negative", cfg.MaxSessions)
	}
	switch {
	case cfg.MaxListens == 0:
		cfg.MaxListens = DefaultMaxListens
	case cfg.MaxListens < 0:
		return nil, fmt.Errorf("mcp: Config.MaxListens %d is negative", cfg.MaxListens)
	}
	if cfg.MaxTier == hootv1.Tier_TIER_UNSPECIFIED {
		cfg.MaxTier = hootv1.Tier_TIER_STANDARD
	}
	if !knownTier(cfg.MaxTier) {
		return nil, fmt.Errorf("mcp: Config.MaxTier %d is not a known tier", cfg.MaxTier)
	}
	if cfg.Name == "" {
		cfg.Name = DefaultName
	}
	if cfg.Title == "" {
		cfg.Title = DefaultTitle
	}
	if cfg.Version == "" {
		cfg.Version = DefaultVersion
	}
	if cfg.Instructions == "" {
		cfg.Instructions = DefaultInstructions
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case cfg.MaxBodyBytes == 0:
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	case cfg.MaxBodyBytes < 0:
		return nil, fmt.Errorf("mcp: Config.MaxBodyBytes %d is negative", cfg.MaxBodyBytes)
	}
	switch {
	case cfg.CallTimeout == 0:
		cfg.CallTimeout = DefaultCallTimeout
	case cfg.CallTimeout < 0:
		return nil, fmt.Errorf("mcp: Config.CallTimeout %v is negative", cfg.CallTimeout)
	}
	switch {
	case cfg.SessionIdleTimeout == 0:
		cfg.SessionIdleTimeout = DefaultSessionIdleTimeout
	case cfg.SessionIdleTimeout < 0:
		return nil, fmt.Errorf("mcp: Config.SessionIdleTimeout %v is negative", cfg.SessionIdleTimeout)
	}
	seen := make(map[string]bool, len(cfg.Tools))
	for i := range cfg.Tools {
		t := &cfg.Tools[i]
		if err := checkTool(t); err != nil {
			return nil, err
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("mcp: tool %q appears twice in Config.Tools", t.Name)
		}
		seen[t.Name] = true
	}
	return &cfg, nil
}

// checkTool reports a tool table entry that the server could not serve.
func checkTool(t *hootv1hoot.Tool) error {
	switch {
	case t.Name == "":
		return errors.New("mcp: a tool in Config.Tools has no name")
	case t.CheckFields() != nil:
		return fmt.Errorf("mcp: %w", t.CheckFields())
	case t.Service == "":
		return fmt.Errorf("mcp: tool %q has no service", t.Name)
	case !knownTier(t.Tier):
		// A tool without a tier cannot be placed against MaxTier; refusing it here fails closed.
		return fmt.Errorf("mcp: tool %q has no known tier", t.Name)
	case !json.Valid([]byte(t.InputSchema)):
		return fmt.Errorf("mcp: tool %q has an input schema that is not JSON", t.Name)
	case t.OutputSchema != "" && !json.Valid([]byte(t.OutputSchema)):
		return fmt.Errorf("mcp: tool %q has an output schema that is not JSON", t.Name)
	case t.Example != "" && !json.Valid([]byte(t.Example)):
		return fmt.Errorf("mcp: tool %q has an example that is not JSON", t.Name)
	}
	return nil
}

// knownTier reports whether t is one of the tiers a tool or a server can have.
func knownTier(t hootv1.Tier) bool {
	return t >= hootv1.Tier_TIER_BASIC && t <= hootv1.Tier_TIER_OPERATOR
}

// A Backend carries typed payloads to the workers. The server calls it once per tools/call,
// after the arguments have been decoded and validated.
type Backend interface {
	// Call sends c.Payload to a worker serving c.Service and waits for its Result. Everything
	// the call needs is in c: its caller, whom the request's access control let in (nil without
	// access control; the worker keeps jobs to their caller), where its progress reports go,
	// who answers its questions for the client, and whether it runs as a job. An error that is
	// a *hooteproto.Error reaches the client with its code, field, hint and retry advice; ctx
	// ends when the client goes away, cancels the request, or the call times out.
	Call(ctx context.Context, c hooteproto.Call) (*hootv1.Result, error)
}

// A LiveBackend is a Backend that knows which services have a live worker, such as
// hooteproto.Broker. With one, tools/list shows only the tools whose service is live, and
// every session hears notifications/tools/list_changed when that set changes. A call to a tool
// whose service is down still goes to the Backend, whose error names the service.
type LiveBackend interface {
	Backend
	// Services returns the services that at least one live worker serves.
	Services() []string
	// Changed returns a channel that is closed the next time Services changes.
	Changed() <-chan struct{}
}

// An Observer is told of tool calls, for an operator's metrics. Its methods run on the
// request's goroutine, so they must be quick and safe for concurrent use.
type Observer interface {
	// CallStarted is called when a tools/call starts.
	CallStarted()
	// CallEnded is called when it has its answer.
	CallEnded(CallRecord)
}

// A CallRecord describes one tools/call that ended.
type CallRecord struct {
	// Tool is the tool called, or "" when the call named no tool of the table.
	Tool string
	// Era is the protocol the call came in: "2026-07-28" or "2025" (every older version).
	Era string
	// Outcome is "ok", "tool_error" (a result with isError: the tool failed, or the gateway
	// refused it before any worker), "input_required" (the client must answer a question
	// first) or "rejected" (a JSON-RPC error: unknown tool, malformed params).
	Outcome  string
	Duration time.Duration
	// Code names the failure when Outcome is "tool_error" (a hooteproto code, such as
	// "invalid_argument") or "rejected" (the JSON-RPC error's code, such as "-32602"). It is
	// set only for a Tracer.
	Code string
}

// A Tracer makes the spans of a trace for the server's work: the HTTP request, the tools/call
// in it, and the call to the backend in that. Each Start method takes the context whose
// traceparent ([hooteproto.TraceparentFrom]) is the parent, and returns the context for the
// work inside the new span, whose traceparent is the new span's own, with the function that
// ends the span. The methods run on the request's goroutine and must be safe for concurrent
// use. The server knows nothing of a tracing library: holler's tracing package implements
// this with OpenTelemetry.
type Tracer interface {
	// StartRequest starts the span of the HTTP request r, which carries the JSON-RPC method
	// method. Its parent is the traceparent the client sent, if any.
	StartRequest(ctx context.Context, r *http.Request, method string) (context.Context, func())
	// StartCall starts the span of a tools/call; end is given its record.
	StartCall(ctx context.Context) (context.Context, func(CallRecord))
	// StartBackendCall starts the span of the call of p to a worker of service. The
	// traceparent of the returned context is what the call carries to the worker; end is given
	// the call's result and error.
	StartBackendCall(ctx context.Context, service string, p *hootv1.Payload) (context.Context, func(*hootv1.Result, error))
}
