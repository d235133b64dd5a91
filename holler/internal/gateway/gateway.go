// Package gateway assembles a holler process: the broker on the worker endpoint, the MCP server
// over the generated tool table, its HTTP router and stdio loop, and optionally a worker process
// it starts and keeps running.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/httpapi"
	"github.com/hootenanny/hoot/holler/internal/mcp"
	"github.com/hootenanny/hoot/holler/internal/metrics"
	"github.com/hootenanny/hoot/holler/internal/netlimit"
	"github.com/hootenanny/hoot/holler/internal/studio"
	"github.com/hootenanny/hoot/holler/internal/tracing"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
	"go.opentelemetry.io/otel/trace"
)

// Defaults of a Config's zero fields.
const (
	DefaultHTTPAddr       = "127.0.0.1:8080"
	DefaultWorkerEndpoint = "tcp://127.0.0.1:5580"
	DefaultMaxUpload      = 4 << 30
	// DefaultIdleTimeout is how long a keep-alive connection may wait for its next request.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultWriteTimeout is how long one write to a client may block before the connection is
	// cut: a client that stops reading its response or event stream for this long is gone.
	DefaultWriteTimeout = 60 * time.Second
	// DefaultMinUploadRate is the slowest a request body may arrive, in bytes a second.
	DefaultMinUploadRate = 1024
	// readHeaderTimeout bounds the wait for a request's headers.
	readHeaderTimeout = 10 * time.Second
)

// Config describes a gateway. Zero fields take their defaults.
type Config struct {
	// WorkerEndpoint is where workers connect (default DefaultWorkerEndpoint).
	WorkerEndpoint string
	// WorkerCommand, when set, is a worker program (and its arguments) that the gateway starts,
	// points at its worker endpoint, restarts if it dies, and stops on the way out.
	WorkerCommand []string
	// MaxTier is the highest tool tier served (default TIER_STANDARD).
	MaxTier hootv1.Tier
	// NoConfirm runs the tools that need a person's confirmation without asking (see
	// mcp.Config.NoConfirm). Dangerous: a model may then destroy data on its own.
	NoConfirm bool
	// StateKey signs the requestState of the questions of protocol 2026-07-28 (confirmations, and
	// the questions workers ask the client; see mcp.Config.StateKey): the gateways of a fleet
	// share it. Empty means a random key per process.
	StateKey []byte
	// MinimalErrors turns off guidance in errors.
	MinimalErrors bool
	// Conformance serves the test fixtures (conformancev1hoot.Fixtures, which the MCP conformance suite
	// calls) beside the product's tools, for a worker started with --conformance. Off, the
	// gateway knows only the product's tools, whatever services its workers offer.
	Conformance bool
	// CallTimeout bounds one tool call (default mcp.DefaultCallTimeout).
	CallTimeout time.Duration
	// Heartbeat and Liveness set how soon a silent worker counts as gone.
	Heartbeat time.Duration
	Liveness  int
	// DataDir is the workers' data directory on this machine. The gateway reads stored bytes
	// from its content store (cas/) for GET /cas/{hash} and GET /artifacts/{id}/content, and
	// writes uploads of PUT /cas there. A worker command started by the gateway is pointed at it
	// (HOOTENANNY_DATA) unless its own flags say otherwise. Empty, with CAS empty too, leaves
	// the content routes answering 503.
	DataDir string
	// CAS is the workers' content store, as cas.OpenURL takes it: a directory or
	// s3://bucket/prefix. Empty means DataDir's cas/. A worker command started by the gateway
	// is pointed at it (HOOTENANNY_CAS).
	CAS string
	// MaxUpload is the largest body PUT /cas takes (default DefaultMaxUpload).
	MaxUpload int64
	// MaxUploads and MaxUploadsPerClient bound the PUT /cas that run at once, in all and from
	// one client (defaults httpapi.DefaultMaxUploads and httpapi.DefaultMaxUploadsPerClient).
	MaxUploads, MaxUploadsPerClient int
	// MetricsToken, when set, is the bearer token /metrics takes (and the only one it takes);
	// empty serves /metrics to loopback peers only.
	MetricsToken string
	// Access, when set, guards every HTTP route but /healthz, the protected resource
	// metadata and the studio's static page: a request needs a valid bearer token, and the token's tier caps the tools its
	// caller may list and call (see package access).
	Access *access.Guard
	// InsecureHTTP lets an HTTP endpoint that other machines can reach go without Access.
	InsecureHTTP bool
	// AllowedHosts and AllowedOrigins extend the loopback names that HTTP requests may name in
	// their Host and Origin headers (DNS rebinding protection); "*" allows any.
	AllowedHosts, AllowedOrigins []string
	// MaxConns and MaxConnsPerClient cap the HTTP connections open at once, in all and from one
	// client address; connections beyond them are answered 503 with Retry-After, once the idle
	// keep-alive connections that could make room are closed (see package netlimit). Zero means
	// sized from the limit of open files (netlimit.DefaultLimits); a negative MaxConnsPerClient
	// turns the per-client cap off (for a gateway behind a proxy).
	MaxConns, MaxConnsPerClient int
	// IdleTimeout closes keep-alive connections idle this long (default DefaultIdleTimeout).
	IdleTimeout time.Duration
	// WriteTimeout bounds one write to a client (default DefaultWriteTimeout); event streams
	// live on as long as each write gets through.
	WriteTimeout time.Duration
	// MinUploadRate is the slowest, in bytes a second, that a request body may arrive after a
	// grace period: a slower one is answered 408 (default DefaultMinUploadRate; negative turns
	// it off).
	MinUploadRate int64
	// MaxSessions, SessionBuffer and SessionBufferTotal bound the MCP sessions of protocol
	// 2025-11-25 and older and the events they keep for resumption (see mcp.Config's
	// MaxSessions, EventBufferBytes and EventBufferTotal); zero means the mcp defaults.
	MaxSessions        int
	SessionBuffer      int
	SessionBufferTotal int64
	// WSMaxInFlight bounds the requests of one WebSocket (/ws) handled at once (see mcp.Config's
	// WebSocketMaxInFlight); zero means the mcp default.
	WSMaxInFlight int
	// Version is reported to MCP clients.
	Version string
	// Logger receives the gateway's logs (default: discard).
	Logger *slog.Logger
	// TracerProvider receives the spans of HTTP requests, tool calls and calls to workers
	// (see package tracing). Nil means no tracing.
	TracerProvider trace.TracerProvider

	// CurveSecretFile and CurveAllow turn on CURVE on the worker endpoint: the gateway's secret
	// key file, and the public key files of the workers it lets in (one file or a directory of
	// *.key files). Both or neither; see package hooteproto/curvekey.
	CurveSecretFile string
	CurveAllow      string
	// InsecureWorkers lets a worker endpoint that other machines can reach go without CURVE.
	InsecureWorkers bool

	// uploadWindow, when set, replaces the window and the grace of the minimum upload rate,
	// so that tests need not wait for the default ten seconds.
	uploadWindow time.Duration

	// backend, when set, takes the MCP server's tool calls instead of the broker: the package's
	// benchmark server answers echo in process with it, to measure what the hop costs.
	backend mcp.Backend
}

// A Gateway is a running holler: its worker endpoint is bound and its broker runs.
type Gateway struct {
	cfg    Config
	sock   *zmqtransport.Socket
	broker *hooteproto.Broker
	store  cas.Store
	// contentBase is the base URL of the content routes once HTTP is served, for the resource
	// links of tool results.
	contentBase *atomic.Value
	// listener is the HTTP listener once ServeHTTP runs, for metrics.
	listener atomic.Pointer[netlimit.Listener]
	mcp      *mcp.Server
	metrics  *metrics.Metrics
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// Start binds the worker endpoint, starts the broker (and the worker command, if any) and
// builds the MCP server. Close stops them.
func Start(cfg Config) (*Gateway, error) {
	if cfg.WorkerEndpoint == "" {
		cfg.WorkerEndpoint = DefaultWorkerEndpoint
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxUpload <= 0 {
		cfg.MaxUpload = DefaultMaxUpload
	}
	var store cas.Store
	if where := cfg.CAS; where != "" || cfg.DataDir != "" {
		if where == "" {
			where = filepath.Join(cfg.DataDir, "cas")
		}
		var err error
		store, err = cas.OpenURL(context.Background(), where, &cas.Options{MaxObjectSize: cfg.MaxUpload, Logger: cfg.Logger})
		if err != nil {
			return nil, fmt.Errorf("open the content store %s: %w", where, err)
		}
	}
	opts, err := listenOptions(cfg)
	if err != nil {
		return nil, err
	}
	sock, err := zmqtransport.Listen(cfg.WorkerEndpoint, opts)
	if err != nil {
		return nil, err
	}
	broker := hooteproto.NewBroker(sock,
		hooteproto.WithHeartbeat(cfg.Heartbeat, cfg.Liveness),
		hooteproto.WithLogger(cfg.Logger),
	)
	var backend mcp.Backend = broker
	if cfg.backend != nil {
		backend = cfg.backend
	}
	contentBase := new(atomic.Value)
	contentBase.Store("")
	g := &Gateway{cfg: cfg, sock: sock, broker: broker, store: store, contentBase: contentBase}
	var server *mcp.Server
	m := metrics.New(metrics.Sources{Broker: broker.Stats, Malformed: sock.Malformed, Banned: sock.Banned,
		Sessions: func() mcp.SessionStats { return server.SessionStats() },
		Conns: func() (netlimit.Stats, bool) {
			if l := g.listener.Load(); l != nil {
				return l.Stats(), true
			}
			return netlimit.Stats{}, false
		},
	})
	var tracer mcp.Tracer
	if cfg.TracerProvider != nil {
		tracer = tracing.New(cfg.TracerProvider)
	}
	server, err = mcp.NewServer(&mcp.Config{
		Observer:       m,
		Tracer:         tracer,
		ContentBaseURL: func() string { return contentBase.Load().(string) },
		Tools:          toolTable(cfg.Conformance),
		Backend:        backend,
		MaxTier:        cfg.MaxTier,
		NoConfirm:      cfg.NoConfirm,
		StateKey:       cfg.StateKey,
		Ledger:         broker,
		MinimalErrors:  cfg.MinimalErrors,
		CallTimeout:    cfg.CallTimeout,
		AllowedHosts:   cfg.AllowedHosts,
		AllowedOrigins: cfg.AllowedOrigins,
		Version:        cfg.Version,
		Logger:         cfg.Logger,

		MaxSessions:      cfg.MaxSessions,
		EventBufferBytes: cfg.SessionBuffer,
		EventBufferTotal: cfg.SessionBufferTotal,

		WebSocketMaxInFlight: cfg.WSMaxInFlight,
	})
	if err != nil {
		sock.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	g.mcp, g.metrics, g.cancel = server, m, cancel
	g.wg.Go(func() {
		if err := broker.Run(ctx); err != nil {
			cfg.Logger.Error("broker stopped", "err", err)
		}
	})
	if len(cfg.WorkerCommand) > 0 {
		g.wg.Go(func() { superviseWorker(ctx, cfg.WorkerCommand, sock.Endpoint(), cfg.DataDir, cfg.CAS, cfg.Logger) })
	}
	cfg.Logger.Info("worker endpoint bound", "endpoint", sock.Endpoint())
	return g, nil
}

// WorkerEndpoint returns the bound worker endpoint.
func (g *Gateway) WorkerEndpoint() string { return g.sock.Endpoint() }

// Services returns the services live workers serve now.
func (g *Gateway) Services() []string { return g.broker.Services() }

// WaitForWorker waits until some live worker serves at least one service, or ctx ends. It
// reports whether one did.
func (g *Gateway) WaitForWorker(ctx context.Context) bool {
	for {
		changed := g.broker.Changed()
		if len(g.broker.Services()) > 0 {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

// WaitForServices waits until live workers serve every one of the services, or ctx ends.
func (g *Gateway) WaitForServices(ctx context.Context, services ...string) error {
	for {
		changed := g.broker.Changed()
		live := g.broker.Services()
		missing := ""
		for _, s := range services {
			found := false
			for _, l := range live {
				found = found || l == s
			}
			if !found {
				missing = s
				break
			}
		}
		if missing == "" {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("no worker serves %q yet: %w", missing, ctx.Err())
		}
	}
}

// Handler returns the gateway's HTTP handler: MCP at /mcp and over WebSocket at /ws, /healthz, /metrics (Prometheus), the
// studio page at /studio/ (and /), and the content routes (/cas, /artifacts/{id}/content).
func (g *Gateway) Handler() http.Handler {
	return httpapi.NewRouter(httpapi.Deps{
		AllowedHosts:   g.cfg.AllowedHosts,
		AllowedOrigins: g.cfg.AllowedOrigins,
		Access:         g.cfg.Access,
		MCPDeny:        g.mcp.WriteAccessFailure,
		MCP:            g.mcp,
		WS:             http.HandlerFunc(g.mcp.ServeWebSocket),
		Services:       g.broker.Services,
		Content: &httpapi.Content{Backend: g.broker, Store: g.store, Count: g.metrics.ContentBytes,
			MaxUploads: g.cfg.MaxUploads, MaxUploadsPerClient: g.cfg.MaxUploadsPerClient},
		Metrics:      g.metrics.Handler(),
		MetricsToken: g.cfg.MetricsToken,
		Studio:       studio.Handler(),
	})
}

// ServeHTTP serves the HTTP handler on l until ctx ends, then shuts the server down gracefully.
// It refuses a listener that other machines can reach when the Config has no access control
// (see CheckHTTPListener).
func (g *Gateway) ServeHTTP(ctx context.Context, l net.Listener) error {
	if err := CheckHTTPListener(l.Addr(), g.cfg); err != nil {
		return err
	}
	if g.store != nil {
		// Results that name artifacts and stored objects link to them here.
		g.contentBase.Store("http://" + l.Addr().String())
	}
	nl := netlimit.NewListener(l, netlimit.Limits{MaxConns: g.cfg.MaxConns, MaxConnsPerClient: g.cfg.MaxConnsPerClient},
		netlimit.OpenFileLimit(), func(msg string, args ...any) { g.cfg.Logger.Warn(msg, args...) })
	g.listener.Store(nl)
	lim := nl.Limits()
	g.cfg.Logger.Info("HTTP connection limits", "max_conns", lim.MaxConns, "max_conns_per_client", lim.MaxConnsPerClient,
		"idle_timeout", orDefault(g.cfg.IdleTimeout, DefaultIdleTimeout), "write_timeout", orDefault(g.cfg.WriteTimeout, DefaultWriteTimeout))
	srv := &http.Server{
		Handler: netlimit.Handler(g.Handler(), g.handlerOptions()),
		// No ReadTimeout or WriteTimeout: they would bound a whole upload of gigabytes and a
		// whole event stream. The headers have a deadline, bodies a minimum rate and each
		// write a deadline of its own (netlimit.Handler).
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       orDefault(g.cfg.IdleTimeout, DefaultIdleTimeout),
		// Header bytes are bounded; bodies are bounded by the MCP server itself.
		MaxHeaderBytes: 64 << 10,
		ConnState:      nl.ConnState,
		ErrorLog:       slog.NewLogLogger(g.cfg.Logger.Handler(), slog.LevelWarn),
	}
	// Open subscriptions/listen streams end with their result when shutdown begins, rather
	// than hold it until its deadline.
	srv.RegisterOnShutdown(g.mcp.EndSubscriptions)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(nl) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(shutdown)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}

// handlerOptions are the write deadline and the minimum upload rate of the HTTP handler.
func (g *Gateway) handlerOptions() netlimit.HandlerOptions {
	rate := g.cfg.MinUploadRate
	if rate == 0 {
		rate = DefaultMinUploadRate
	}
	return netlimit.HandlerOptions{
		WriteTimeout:  orDefault(g.cfg.WriteTimeout, DefaultWriteTimeout),
		MinUploadRate: rate,
		UploadWindow:  g.cfg.uploadWindow,
		UploadGrace:   g.cfg.uploadWindow,
		OnSlowBody: func(r *http.Request) {
			g.metrics.SlowBody()
			g.cfg.Logger.Warn("a request body arrived slower than the minimum upload rate; answered 408",
				"client", r.RemoteAddr, "method", r.Method, "path", r.URL.Path, "min_upload_rate", rate)
		},
	}
}

// orDefault is d, or def when d is zero.
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// ServeStdio serves MCP over in and out until in ends or ctx ends.
func (g *Gateway) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	return g.mcp.ServeStdio(ctx, in, out)
}

// Close stops the MCP server, the broker, the worker command and the worker endpoint.
func (g *Gateway) Close() error {
	err := g.mcp.Close()
	g.cancel()
	g.wg.Wait()
	return errors.Join(err, g.sock.Close())
}
