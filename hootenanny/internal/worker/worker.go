// Package worker assembles a hootenanny worker process: the domain services over their storage,
// served over the HOOT/2 wire to a gateway.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/cas/castrace"
	"github.com/hootenanny/hoot/hootenanny/internal/arbor"
	"github.com/hootenanny/hoot/hootenanny/internal/arborservice"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/artifactservice"
	"github.com/hootenanny/hoot/hootenanny/internal/audioservice"
	"github.com/hootenanny/hoot/hootenanny/internal/casservice"
	"github.com/hootenanny/hoot/hootenanny/internal/conformance"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/graph"
	"github.com/hootenanny/hoot/hootenanny/internal/jobs"
	"github.com/hootenanny/hoot/hootenanny/internal/jobservice"
	"github.com/hootenanny/hoot/hootenanny/internal/ledger"
	"github.com/hootenanny/hoot/hootenanny/internal/membudget"
	"github.com/hootenanny/hoot/hootenanny/internal/musicservice"
	"github.com/hootenanny/hoot/hootenanny/internal/queryservice"
	"github.com/hootenanny/hoot/hootenanny/internal/sandbox"
	"github.com/hootenanny/hoot/hootenanny/internal/scoreservice"
	"github.com/hootenanny/hoot/hootenanny/internal/shellservice"
	"github.com/hootenanny/hoot/hootenanny/internal/systemservice"
	"github.com/hootenanny/hoot/hootenanny/internal/upstream"
	"github.com/hootenanny/hoot/hootenanny/internal/workermetrics"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/hoottrace"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
	"go.opentelemetry.io/otel/trace"
)

// DefaultGateway is the gateway's worker endpoint that a worker connects to by default.
const DefaultGateway = "tcp://127.0.0.1:5580"

// Config says where a worker connects, where it keeps its data and how much it takes on.
// Zero fields take their defaults.
type Config struct {
	// Gateways are the worker endpoints of the gateways to serve (default DefaultGateway). The
	// worker connects to each and takes calls from all of them; its Capacity holds for each.
	Gateways []string
	// DataDir holds the worker's storage (default: DefaultDataDir()).
	DataDir string
	// CAS is the content store, as cas.OpenURL takes it: a directory or s3://bucket/prefix
	// (default: DataDir's cas/).
	CAS string
	// Database names the database of artifacts and jobs: a SQLite file path or a PostgreSQL URL
	// (see database.Forms; default: the file database.FileName in DataDir).
	Database string
	// Name names the worker in the gateway's logs (default: host/pid).
	Name string
	// Capacity is how many requests the worker runs at once (default hooteproto.DefaultCapacity).
	Capacity int
	// MemoryBudget is the memory, in bytes, that the worker's heavy calls (midi_render,
	// midi_info, midi_analyze, midi_to_abc, midi_piano_roll, abc_render, soundfont_inspect,
	// audio_info) may hold at once; each reserves its estimate before it starts, and one that
	// does not fit is refused as busy (default: membudget.DefaultTotal(), half the machine's or
	// the cgroup's memory).
	MemoryBudget int64
	// Heartbeat and Liveness set how soon a silent gateway counts as gone.
	Heartbeat time.Duration
	Liveness  int
	// JobConcurrency is how many jobs run at once (default jobs.DefaultConcurrency).
	JobConcurrency int
	// JobRetention is how long finished jobs and their results are kept (default
	// jobs.DefaultRetention).
	JobRetention time.Duration
	// JobLease is how long a job's claim holds without renewal before another worker may take
	// the job up (default jobs.DefaultLeaseTTL).
	JobLease time.Duration
	// Logger receives the worker's logs (default: discard).
	Logger *slog.Logger
	// SoundFont is the path of the SF2 SoundFont that midi_render plays with when a call names
	// none (default: the first of audioservice.SoundFontPaths that exists).
	SoundFont string
	// Upstreams are the URLs of the upstream wrappers' JSON-RPC APIs, by name (see
	// ParseUpstreams); a wrapper without one answers each call with how to give it.
	Upstreams map[string]string
	// UpstreamTimeout bounds a call to an upstream, retries included (default 20 s).
	UpstreamTimeout time.Duration
	// UpstreamManifests replace upstreams' built-in manifests (see ParseUpstreamManifests).
	UpstreamManifests map[string]*upstream.Manifest
	// Conformance adds the "conformance" service: the fixtures of the official MCP
	// conformance suite. Off by default.
	Conformance bool

	// CurveSecretFile and CurveServerFile turn on CURVE for the connection to the gateway: this
	// worker's secret key file and the gateway's public key file. Both or neither; see package
	// hooteproto/curvekey.
	CurveSecretFile string
	// CurveServerFiles are the gateways' public key files: one for all gateways, or one for
	// each, in the order of Gateways.
	CurveServerFiles []string
	// MetricsAddr, when set, is the address (such as 127.0.0.1:9464) where the worker serves
	// its Prometheus metrics at /metrics.
	MetricsAddr string
	// Shell turns on the operator's shell tools (shell_exec, shell_exec_job). Off by default.
	Shell Shell
	// TracerProvider receives the spans of the requests the worker serves and of their
	// database statements and content store calls. Nil means no tracing.
	TracerProvider trace.TracerProvider
}

// Shell says whether and how the worker runs commands for the operator's shell tools.
type Shell struct {
	// Enabled serves the "shell" service. Off, the worker runs no command, whatever a gateway
	// allows.
	Enabled bool
	// Network lets commands reach the network; off, they have none.
	Network bool
	// Hidden are more paths commands must never read, such as token files or keys kept under
	// /etc; the worker's data directory, content store, database file and CURVE secret key are
	// always hidden.
	Hidden []string
	// Maxima bound the limits a call may ask for (zero fields: shellservice.DefaultMaxima's).
	Maxima sandbox.Limits
}

// DefaultDataDir returns the per-user state directory for hootenanny's data:
// $XDG_STATE_HOME/hootenanny, or ~/.local/state/hootenanny.
func DefaultDataDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "hootenanny"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory to keep data in (set --data): %w", err)
	}
	return filepath.Join(home, ".local", "state", "hootenanny"), nil
}

// Run opens the storage, connects to the gateway and serves until ctx ends. The data directory
// holds the database (hoot.db) and the content store (cas/), unless cfg.Database and cfg.CAS
// name others.
func Run(ctx context.Context, cfg Config) error {
	if len(cfg.Gateways) == 0 {
		cfg.Gateways = []string{DefaultGateway}
	}
	if n := len(cfg.CurveServerFiles); n > 1 && n != len(cfg.Gateways) {
		return fmt.Errorf("%d gateways and %d gateway keys (--curve-server): give one key for all gateways, or one for each, in the order of --gateway", len(cfg.Gateways), n)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.DataDir == "" {
		d, err := DefaultDataDir()
		if err != nil {
			return err
		}
		cfg.DataDir = d
	}
	if cfg.Name == "" {
		host, _ := os.Hostname()
		cfg.Name = fmt.Sprintf("%s/%d", host, os.Getpid())
	}
	if cfg.CAS == "" {
		cfg.CAS = filepath.Join(cfg.DataDir, "cas")
	}
	if cfg.Database == "" {
		cfg.Database = filepath.Join(cfg.DataDir, database.FileName)
	}
	engine, err := database.EngineOf(cfg.Database)
	if err != nil {
		return err
	}
	store, err := cas.OpenURL(ctx, cfg.CAS, &cas.Options{Logger: cfg.Logger})
	if err != nil {
		return fmt.Errorf("open the content store: %w", err)
	}
	db, err := database.Open(ctx, cfg.Database)
	if err != nil {
		return fmt.Errorf("open the %v database: %w", engine, err)
	}
	defer db.Close()
	tracer := hoottrace.New(cfg.TracerProvider)
	if tracer != nil {
		store = castrace.Wrap(store, tracer)
		db.SetQueryHook(queryHook(tracer, engine))
	}
	runner, err := jobs.NewRunner(ctx, jobs.NewStore(db), jobs.Config{
		Concurrency: cfg.JobConcurrency,
		Retention:   cfg.JobRetention,
		LeaseTTL:    cfg.JobLease,
		Logger:      cfg.Logger,
	})
	if err != nil {
		return err
	}
	// Jobs stop (and are recorded as failed) before the database closes.
	defer func() {
		if err := runner.Close(); err != nil {
			cfg.Logger.Warn("stopping jobs", "err", err)
		}
	}()
	jobHandler := jobservice.New(runner, cfg.Logger)
	// The gateways record here the requestStates they accept, so that each is taken once in
	// the fleet (package ledger).
	states := ledger.NewStore(db)
	casHandler := casservice.New(store)
	casHandler.Logger = cfg.Logger
	artifactStore := artifacts.NewStore(db)

	memory := cfg.MemoryBudget
	if memory <= 0 {
		memory = membudget.DefaultTotal()
	}
	budget := membudget.New(memory)
	if os.Getenv("GOMEMLIMIT") == "" {
		// The budget counts what calls hold; the collector works harder as the heap nears
		// twice that, rather than letting garbage take the machine's memory.
		debug.SetMemoryLimit(2*budget.Total() + 256<<20)
	}
	cfg.Logger.Info("memory budget for heavy calls", "bytes", budget.Total())
	trees := arborservice.New(arbor.NewStore(db), cfg.Logger)
	services := []hootv1hoot.Service{
		hootv1hoot.NewSystemService(systemservice.New(cfg.Name)),
		hootv1hoot.NewCasService(casHandler, jobHandler),
		hootv1hoot.NewArtifactService(artifactservice.New(artifactservice.Config{
			Artifacts:    artifactStore,
			CAS:          store,
			CountJobs:    runner.Store().Count,
			DatabaseSize: db.Size,
			Logger:       cfg.Logger,
		}), jobHandler),
		hootv1hoot.NewJobService(jobHandler),
		hootv1hoot.NewArborService(trees),
		hootv1hoot.NewConeService(arborservice.NewCone(trees, store, artifactStore)),
		hootv1hoot.NewQueryService(queryservice.New(graph.New(artifactStore, jobservice.NewReader(runner)).WithTrees(arbor.NewStore(db)), cfg.Logger)),
		hootv1hoot.NewMusicService(musicservice.New(musicservice.Config{
			CAS:       store,
			Artifacts: artifactStore,
			Logger:    cfg.Logger,
			Budget:    budget,
		}), jobHandler),
		hootv1hoot.NewAudioService(audioservice.New(audioservice.Config{
			CAS:       store,
			Artifacts: artifactStore,
			SoundFont: cfg.SoundFont,
			Logger:    cfg.Logger,
			Budget:    budget,
		}), jobHandler),
		hootv1hoot.NewScoreService(scoreservice.New(scoreservice.Config{
			CAS:       store,
			Artifacts: artifactStore,
			Logger:    cfg.Logger,
			Budget:    budget,
		})),
	}
	if cfg.Shell.Enabled {
		services = append(services, hootv1hoot.NewShellService(shellHandler(ctx, cfg, store, artifactStore, budget), jobHandler))
	}
	upstreams, err := upstreamServices(cfg)
	if err != nil {
		return err
	}
	services = append(services, upstreams...)
	// The Offer lets the conformance fixtures withdraw and offer services, as a fleet's
	// services come and go; without the fixtures nothing changes it.
	offer := hooteproto.NewOffer()
	if cfg.Conformance {
		services = append(services, conformance.Services(offer)...)
		services = append(services, conformance.NewTasks(jobHandler))
	}
	// One connection and one worker loop per gateway, all over the same services.
	var loops []*hooteproto.Worker
	for i, gw := range cfg.Gateways {
		dialOpts, err := dialOptions(cfg, i)
		if err != nil {
			return err
		}
		conn, err := zmqtransport.Dial(gw, dialOpts)
		if err != nil {
			return fmt.Errorf("gateway %s: %w", gw, err)
		}
		defer conn.Close()
		w, err := hooteproto.NewWorker(conn, services,
			hooteproto.WithName(cfg.Name),
			hooteproto.WithJobStarter(jobHandler),
			hooteproto.WithStateLedger(states),
			hooteproto.WithCapacity(cfg.Capacity),
			hooteproto.WithHeartbeat(cfg.Heartbeat, cfg.Liveness),
			hooteproto.WithLogger(cfg.Logger.With("gateway", gw)),
			hooteproto.WithOffer(offer),
			hooteproto.WithServeHook(serveHook(tracer)),
		)
		if err != nil {
			return err
		}
		loops = append(loops, w)
	}
	// Jobs whose worker died are taken up (resumable tools) or ended, now and from now on; only
	// once everything else is set up, so that a worker that cannot start claims nothing.
	if err := runner.TakeUp(ctx, jobHandler.Resumer(services)); err != nil {
		return err
	}
	cfg.Logger.Info("hootenanny worker starting", "gateways", cfg.Gateways, "data", cfg.DataDir, "database", engine, "cas", store.String(), "name", cfg.Name)
	// A loop that fails stops the others: the worker exits, and whoever runs it sees why.
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	if cfg.MetricsAddr != "" {
		l, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr %s: %w", cfg.MetricsAddr, err)
		}
		h := workermetrics.Handler(workermetrics.Sources{Workers: loops, Runner: runner, Budget: budget}, cfg.Logger)
		metricsDone := make(chan struct{})
		go func() {
			defer close(metricsDone)
			if err := workermetrics.Serve(lctx, l, h); err != nil {
				cfg.Logger.Warn("metrics server stopped", "err", err)
			}
		}()
		defer func() { stop(); <-metricsDone }()
		cfg.Logger.Info("serving metrics", "url", "http://"+l.Addr().String()+"/metrics")
	}
	errs := make(chan error, len(loops))
	for _, w := range loops {
		go func() {
			err := w.Run(lctx)
			if err != nil && !errors.Is(err, context.Canceled) {
				stop()
			}
			errs <- err
		}()
	}
	var first error
	for range loops {
		if err := <-errs; err != nil && !errors.Is(err, context.Canceled) && first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	cfg.Logger.Info("hootenanny worker stopped")
	return nil
}

// shellHandler sets the sandbox up for the shell tools. When it cannot be set up, the handler
// refuses every call with the reason, which is logged now: commands never run unconfined.
func shellHandler(ctx context.Context, cfg Config, store cas.Store, arts *artifacts.Store, budget *membudget.Budget) *shellservice.Handler {
	hidden := append([]string{cfg.DataDir, cfg.CurveSecretFile}, cfg.Shell.Hidden...)
	if _, err := database.EngineOf(cfg.Database); err == nil && !strings.Contains(cfg.Database, "://") {
		hidden = append(hidden, cfg.Database)
	}
	if !strings.Contains(cfg.CAS, "://") {
		hidden = append(hidden, cfg.CAS)
	}
	sb, err := sandbox.New(ctx, sandbox.Config{Network: cfg.Shell.Network, Hidden: hidden})
	if err != nil {
		cfg.Logger.Error("shell: the sandbox cannot be set up; shell_exec will refuse every call", "err", err)
	} else {
		cfg.Logger.Info("shell: commands run confined", "sandbox", sb.Version(), "network", cfg.Shell.Network)
	}
	return shellservice.New(shellservice.Config{
		Enabled:     true,
		Sandbox:     sb,
		Unavailable: err,
		Maxima:      cfg.Shell.Maxima,
		CAS:         store,
		Artifacts:   arts,
		Budget:      budget,
		Worker:      cfg.Name,
		Logger:      cfg.Logger,
	})
}
