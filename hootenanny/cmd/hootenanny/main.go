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
abc_book_to_midi, midi_info, midi_analyze, midi_to_abc and the compose_abc prompt; audio: midi_render,
soundfont_inspect, audio_info) and runs the tool calls the gateway sends it. Start as many as you
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
	conformanceFixtures := fs.Bool("conformance", false, "also serve the fixtures of the official MCP conformance suite (for tests)")
	curveSecret := fs.String("curve-secret", "", "this worker's secret key `file` (NAME.key_secret from hootenanny keygen); turns on CURVE")
	curveServer := envflag.NewList()
	fs.Var(curveServer, "curve-server", "the gateway's public key `file` (the .key file from holler keygen); with several gateways, once for all or once for each, in the order of --gateway")
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
		MetricsAddr:    *metricsAddr,
		SoundFont:      *soundFont,

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
