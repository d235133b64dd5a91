// Command holler is the MCP gateway of Hootenanny: it serves the Model Context Protocol over
// Streamable HTTP or stdio and sends every tool call, as a typed protobuf payload over ZeroMQ,
// to a hootenanny worker.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/hootenanny/hoot/hooteproto/envflag"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "devel"

const usage = `holler: the MCP gateway of Hootenanny.

Usage:
  holler serve [flags]   serve MCP over Streamable HTTP at http://ADDR/mcp
  holler mcp [flags]     serve MCP over stdin/stdout (for desktop clients); logs go to stderr
  holler version         print the version

Tool calls go to hootenanny workers that connect to the worker endpoint. Start
one with --worker-command (holler then runs it and keeps it running), or run
"hootenanny" yourself, on this machine or another.

Example:
  holler serve --worker-command "hootenanny --data /tmp/hoot"

Flags (each can also be set in the environment: --http-addr as HOLLER_HTTP_ADDR):
`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "holler:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		newFlags(io.Discard).fs.PrintDefaults()
		return errors.New("name a command: serve, mcp or version")
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "version", "--version", "-version":
		fmt.Println("holler", version)
		return nil
	case "help", "--help", "-help", "-h":
		f := newFlags(os.Stdout)
		fmt.Print(usage)
		f.fs.PrintDefaults()
		return nil
	case "serve", "mcp":
	default:
		return fmt.Errorf("unknown command %q; the commands are serve, mcp and version (see holler help)", cmd)
	}

	f := newFlags(os.Stderr)
	if err := envflag.Parse(f.fs, "HOLLER_", args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; see holler help", f.fs.Arg(0))
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if cmd == "serve" {
		// Bind HTTP first: if the address is taken, fail before starting anything else.
		l, err := net.Listen("tcp", f.httpAddr)
		if err != nil {
			return fmt.Errorf("cannot listen on %s: %w (is another holler running? choose another with --http-addr)", f.httpAddr, err)
		}
		g, err := gateway.Start(cfg)
		if err != nil {
			l.Close()
			return err
		}
		defer g.Close()
		cfg.Logger.Info("holler serving MCP", "url", "http://"+l.Addr().String()+"/mcp", "workers", g.WorkerEndpoint(), "version", version)
		return g.ServeHTTP(ctx, l)
	}
	g, err := gateway.Start(cfg)
	if err != nil {
		return err
	}
	defer g.Close()
	cfg.Logger.Info("holler serving MCP on stdio", "workers", g.WorkerEndpoint(), "version", version)
	return g.ServeStdio(ctx, os.Stdin, os.Stdout)
}

type flags struct {
	fs             *flag.FlagSet
	httpAddr       string
	workerEndpoint string
	workerCommand  string
	maxTier        string
	minimalErrors  bool
	callTimeout    time.Duration
	heartbeat      time.Duration
	logLevel       string
}

func newFlags(out io.Writer) *flags {
	f := &flags{fs: flag.NewFlagSet("holler", flag.ContinueOnError)}
	f.fs.SetOutput(out)
	f.fs.StringVar(&f.httpAddr, "http-addr", gateway.DefaultHTTPAddr, "`address` for HTTP (serve only)")
	f.fs.StringVar(&f.workerEndpoint, "worker-endpoint", gateway.DefaultWorkerEndpoint, "ZeroMQ `endpoint` that workers connect to")
	f.fs.StringVar(&f.workerCommand, "worker-command", "", "a worker `command` to start and keep running, such as \"hootenanny\"")
	f.fs.StringVar(&f.maxTier, "max-tier", "standard", "highest tool `tier` to serve: basic, standard or admin")
	f.fs.BoolVar(&f.minimalErrors, "minimal-errors", false, "answer errors with code and message only, without guidance")
	f.fs.DurationVar(&f.callTimeout, "call-timeout", 60*time.Second, "longest a tool call may take")
	f.fs.DurationVar(&f.heartbeat, "heartbeat", 2500*time.Millisecond, "how often to check that workers are alive")
	f.fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	f.fs.Usage = func() {
		fmt.Fprint(f.fs.Output(), usage)
		f.fs.PrintDefaults()
	}
	return f
}

func (f *flags) config() (gateway.Config, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return gateway.Config{}, fmt.Errorf("--log-level %q: want debug, info, warn or error", f.logLevel)
	}
	tier, ok := hootv1.Tier_value["TIER_"+strings.ToUpper(f.maxTier)]
	if !ok || tier == 0 {
		return gateway.Config{}, fmt.Errorf("--max-tier %q: want basic, standard or admin", f.maxTier)
	}
	var command []string
	if f.workerCommand != "" {
		command = strings.Fields(f.workerCommand)
	}
	return gateway.Config{
		WorkerEndpoint: f.workerEndpoint,
		WorkerCommand:  command,
		MaxTier:        hootv1.Tier(tier),
		MinimalErrors:  f.minimalErrors,
		CallTimeout:    f.callTimeout,
		Heartbeat:      f.heartbeat,
		Version:        version,
		Logger:         slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
	}, nil
}
