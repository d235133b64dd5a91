// Command hootenanny is a worker: it connects to a holler gateway, announces the services it
// serves and runs the tool calls the gateway sends it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/membudget"
	"github.com/hootenanny/hoot/hootenanny/internal/sandbox"
	"github.com/hootenanny/hoot/hootenanny/internal/shellservice"
	"github.com/hootenanny/hoot/hootenanny/internal/worker"
	"github.com/hootenanny/hoot/hooteproto/curvekey"
	"github.com/hootenanny/hoot/hooteproto/envflag"
	"github.com/hootenanny/hoot/hooteproto/hoottrace"
)

const usage = `hootenanny: a worker for the holler MCP gateway.

It connects to the gateway's worker endpoint (to each of them, when --gateway is
given more than once), announces the services it serves
(system: echo; cas: cas_store, cas_get, cas_inspect, cas_verify; artifact:
artifact_create, artifact_get, artifact_list, artifact_annotate, artifact_tag,
storage_stats; job: job_status, job_await, job_list, job_cancel; query:
artifact_query; music: abc_parse, abc_validate, abc_transpose, abc_to_midi,
abc_book_to_midi, midi_info, midi_analyze, midi_to_abc, abc_to_musicxml and the compose_abc prompt; audio: midi_render,
soundfont_inspect, audio_info; with --shell only, shell: shell_exec, shell_exec_job) and runs the tool calls the gateway sends it. Start as many as you
like, on any machine that reaches the gateway; each needs its own --data
directory or a shared one on one machine. Workers on several machines share
artifacts and jobs through one PostgreSQL database (--database postgres://...)
and their content through S3-compatible object storage: --cas s3://bucket/prefix,
with the server and keys in AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY (and AWS_REGION, default us-east-1).

Usage:
  hootenanny [flags]
  hootenanny keygen --out DIR/NAME   make a CURVE key pair, for a gateway on another machine

Flags (each can also be set in the environment: --log-level as HOOTENANNY_LOG_LEVEL):
`

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hootenanny:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) > 1 && os.Args[1] == "keygen" {
		return keygen(os.Args[2:])
	}
	dataDefault, _ := worker.DefaultDataDir()
	fs := flag.NewFlagSet("hootenanny", flag.ContinueOnError)
	gateways := envflag.NewList(worker.DefaultGateway)
	fs.Var(gateways, "gateway", "the gateway's worker `endpoint`; give it once per gateway to serve several (HOOTENANNY_GATEWAY: separated by commas)")
	data := fs.String("data", dataDefault, "the `directory` for the database and the content store, unless --database and --cas say otherwise")
	casURL := fs.String("cas", "", "the content `store`: "+cas.URLForms+" (default: the data directory's cas/)")
	databaseTarget := fs.String("database", "", "where artifacts and jobs are kept, a `path-or-URL`: a SQLite file, or postgres://USER:PASSWORD@HOST:PORT/DBNAME\n"+
		"(also postgresql://) for workers on several machines sharing one PostgreSQL database (default: hoot.db in --data)")
	name := fs.String("name", "", "the worker's `name` in the gateway's logs (default host/pid)")
	capacity := fs.Int("capacity", 64, "how many tool calls to run at once")
	memoryBudget := fs.String("memory-budget", "", "the `size` of memory the heavy calls (midi_render, midi_info, midi_analyze, midi_to_abc, midi_piano_roll,\n"+
		"abc_render, soundfont_inspect, audio_info) may hold at once, such as 4G or 512M; each reserves its estimate before it starts,\n"+
		"and one that does not fit now is refused as busy, to retry (default: half the machine's or the cgroup's memory)")
	heartbeat := fs.Duration("heartbeat", 2500*time.Millisecond, "how often to tell the gateway the worker is alive")
	jobConcurrency := fs.Int("job-concurrency", 4, "how many background jobs to run at once")
	jobRetention := fs.Duration("job-retention", 24*time.Hour, "how long to keep finished jobs and their results")
	jobLease := fs.Duration("job-lease", 15*time.Second, "how long a running job's claim holds unless renewed (three times per lease);\n"+
		"when it lapses, as when this worker freezes or loses the database, another worker takes the job up.\n"+
		"All workers on one database should use the same lease")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus metrics at http://`ADDR`/metrics, such as 127.0.0.1:9464 (default: none)")
	soundFont := fs.String("soundfont", "", "the SF2 `file` midi_render plays with when a call names no SoundFont\n"+
		"(default: /usr/share/sounds/sf2/TimGM6mb.sf2 from Debian's timgm6mb-soundfont, or another General MIDI SoundFont there)")
	upstreamList := envflag.NewList()
	fs.Var(upstreamList, "upstream", "an upstream JSON-RPC API's `NAME=URL`, such as eth=http://127.0.0.1:8545 for an Ethereum node; once per upstream\n"+
		"(HOOTENANNY_UPSTREAM: separated by commas). Without it the upstream's tools answer with how to give it; no public endpoint is ever picked")
	upstreamManifest := envflag.NewList()
	fs.Var(upstreamManifest, "upstream-manifest", "an operator's copy of an upstream's manifest, as `NAME=FILE` (CSV, one row per method), whose policy the worker follows;\n"+
		"it may only turn methods off (HOOTENANNY_UPSTREAM_MANIFEST: separated by commas)")
	upstreamTimeout := fs.Duration("upstream-timeout", 20*time.Second, "how long a call to an upstream may take, its retries included")
	conformanceFixtures := fs.Bool("conformance", false, "also serve the fixtures of the official MCP conformance suite (for tests)")
	curveSecret := fs.String("curve-secret", "", "this worker's secret key `file` (NAME.key_secret from hootenanny keygen); turns on CURVE")
	curveServer := envflag.NewList()
	fs.Var(curveServer, "curve-server", "the gateway's public key `file` (the .key file from holler keygen); with several gateways, once for all or once for each, in the order of --gateway")
	shell := fs.Bool("shell", false, "serve the operator's shell tools (shell_exec, shell_exec_job): commands run in a bubblewrap sandbox,\n"+
		"and only for a gateway started with --max-tier operator, by callers with an operator token, each call confirmed by a person")
	shellNetwork := fs.Bool("shell-network", false, "let the shell's commands reach the network (default: none)")
	shellHide := envflag.NewList()
	fs.Var(shellHide, "shell-hide", "a `path` the shell's commands must never read, such as a token file under /etc; give it once for each\n"+
		"(the worker's data directory, content store, database and CURVE key are always hidden)")
	shellMaxTimeout := fs.Duration("shell-max-timeout", shellservice.DefaultMaxima.Timeout, "the longest time limit a shell call may ask for")
	shellMaxOutput := fs.String("shell-max-output", "64M", "the largest output limit a shell call may ask for, such as 64M (at most 1G)")
	shellMaxMemory := fs.String("shell-max-memory", "4G", "the largest memory limit (address space per process) a shell call may ask for")
	shellMaxProcesses := fs.Int("shell-max-processes", shellservice.DefaultMaxima.Processes, "the largest process limit a shell call may ask for")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	if err := envflag.Parse(fs, "HOOTENANNY_", os.Args[1:]); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; see hootenanny --help", fs.Arg(0))
	}
	if *databaseTarget != "" {
		if _, err := database.EngineOf(*databaseTarget); err != nil {
			return fmt.Errorf("--database: %s", strings.TrimPrefix(err.Error(), "database: "))
		}
	}
	var memory int64
	if *memoryBudget != "" {
		var err error
		if memory, err = membudget.ParseSize(*memoryBudget); err != nil {
			return fmt.Errorf("--memory-budget: %v", err)
		}
		if memory < membudget.MinBudget {
			return fmt.Errorf("--memory-budget %s: give at least %s, or leave it out for half the machine's memory", *memoryBudget, cas.FormatSize(membudget.MinBudget))
		}
	}
	maxima := sandbox.Limits{Timeout: *shellMaxTimeout, Processes: *shellMaxProcesses}
	for _, f := range []struct {
		flag, value string
		to          *int64
	}{{"--shell-max-output", *shellMaxOutput, &maxima.MaxOutput}, {"--shell-max-memory", *shellMaxMemory, &maxima.Memory}} {
		n, err := membudget.ParseSize(f.value)
		if err != nil {
			return fmt.Errorf("%s: %v", f.flag, err)
		}
		*f.to = n
	}
	switch {
	case maxima.Timeout < time.Second:
		return fmt.Errorf("--shell-max-timeout %v: give at least 1s", maxima.Timeout)
	case maxima.MaxOutput < 1 || maxima.MaxOutput > 1<<30:
		return fmt.Errorf("--shell-max-output %s: give from 1 byte to 1G", *shellMaxOutput)
	case maxima.Memory < 16<<20:
		return fmt.Errorf("--shell-max-memory %s: give at least 16M", *shellMaxMemory)
	case maxima.Processes < 1:
		return fmt.Errorf("--shell-max-processes %d: give at least 1", maxima.Processes)
	}
	upstreams, err := worker.ParseUpstreams(upstreamList.Values())
	if err != nil {
		return err
	}
	manifests, err := worker.ParseUpstreamManifests(upstreamManifest.Values())
	if err != nil {
		return err
	}
	if *upstreamTimeout <= 0 {
		return fmt.Errorf("--upstream-timeout %s: give a positive duration, such as 20s", *upstreamTimeout)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", *logLevel)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tp, shutdownTraces, err := hoottrace.Setup(ctx, "hootenanny")
	if err != nil {
		return fmt.Errorf("traces: %w (check OTEL_EXPORTER_OTLP_ENDPOINT and the other OTEL_EXPORTER_OTLP_* variables)", err)
	}
	defer hoottrace.Shutdown(ctx, shutdownTraces, logger)
	return worker.Run(ctx, worker.Config{
		TracerProvider: tp,
		Gateways:       gateways.Values(),
		DataDir:        *data,
		CAS:            *casURL,
		Database:       *databaseTarget,
		Name:           *name,
		Capacity:       *capacity,
		MemoryBudget:   memory,
		Heartbeat:      *heartbeat,
		JobConcurrency: *jobConcurrency,
		JobRetention:   *jobRetention,
		JobLease:       *jobLease,
		Logger:         logger,
		Conformance:    *conformanceFixtures,

		Upstreams:         upstreams,
		UpstreamTimeout:   *upstreamTimeout,
		UpstreamManifests: manifests,
		MetricsAddr:       *metricsAddr,
		SoundFont:         *soundFont,

		Shell: worker.Shell{
			Enabled: *shell,
			Network: *shellNetwork,
			Hidden:  shellHide.Values(),
			Maxima:  maxima,
		},

		CurveSecretFile:  *curveSecret,
		CurveServerFiles: curveServer.Values(),
	})
}

func keygen(args []string) error {
	err := curvekey.Keygen("hootenanny", args, os.Stdout, func(publicPath, secretPath string) string {
		return fmt.Sprintf("Copy %s into the gateway's --curve-allow directory, and start this worker with\n"+
			"--curve-secret %s --curve-server GATEWAY.key (the gateway's public key file).", publicPath, secretPath)
	})
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}
