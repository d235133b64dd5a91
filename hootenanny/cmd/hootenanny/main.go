// Command hootenanny is a worker: it connects to a holler gateway, announces the services it
// serves and runs the tool calls the gateway sends it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/worker"
	"github.com/hootenanny/hoot/hooteproto/envflag"
)

const usage = `hootenanny: a worker for the holler MCP gateway.

It connects to the gateway's worker endpoint, announces the services it serves
(system: echo; cas: cas_store, cas_get, cas_inspect) and runs the tool calls the
gateway sends it. Start as many as you like, on any machine that reaches the
gateway; each needs its own --data directory or a shared one on one machine.

Usage:
  hootenanny [flags]

Flags (each can also be set in the environment: --log-level as HOOTENANNY_LOG_LEVEL):
`

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hootenanny:", err)
		os.Exit(1)
	}
}

func run() error {
	dataDefault, _ := worker.DefaultDataDir()
	fs := flag.NewFlagSet("hootenanny", flag.ContinueOnError)
	gateway := fs.String("gateway", worker.DefaultGateway, "the gateway's worker `endpoint`")
	data := fs.String("data", dataDefault, "the `directory` for stored content")
	name := fs.String("name", "", "the worker's `name` in the gateway's logs (default host/pid)")
	capacity := fs.Int("capacity", 64, "how many tool calls to run at once")
	heartbeat := fs.Duration("heartbeat", 2500*time.Millisecond, "how often to tell the gateway the worker is alive")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
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
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", *logLevel)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return worker.Run(ctx, worker.Config{
		Gateway:   *gateway,
		DataDir:   *data,
		Name:      *name,
		Capacity:  *capacity,
		Heartbeat: *heartbeat,
		Logger:    logger,
	})
}
