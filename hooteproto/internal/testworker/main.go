// Command testworker is a worker for the fault tests: it serves the system service, whose echo
// sleeps for the time a message asks ("sleep:500ms", or "sleep:500ms/tag" to tell calls apart)
// and answers every other message at once. It prints "started MESSAGE" on stdout when a call
// starts, so that a test knows which worker runs what before it kills one.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/curvekey"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "testworker:", err)
		os.Exit(1)
	}
}

func run() error {
	gateway := flag.String("gateway", "tcp://127.0.0.1:5580", "the gateway's worker endpoint")
	name := flag.String("name", "testworker", "the worker's name, returned in every echo")
	capacity := flag.Int("capacity", 0, "calls run at once (0: the default)")
	heartbeat := flag.Duration("heartbeat", 0, "heartbeat interval (0: the default)")
	liveness := flag.Int("liveness", 0, "missed heartbeats before the gateway counts as gone (0: the default)")
	curveSecret := flag.String("curve-secret", "", "this worker's secret key file")
	curveServer := flag.String("curve-server", "", "the gateway's public key file")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts := &zmqtransport.Options{Logger: logger}
	if *curveSecret != "" {
		keys, err := curvekey.ReadSecret(*curveSecret)
		if err != nil {
			return err
		}
		server, err := curvekey.ReadPublic(*curveServer)
		if err != nil {
			return err
		}
		opts.Curve = &zmqtransport.Curve{SecretKey: keys.Secret, ServerKey: server}
	}
	conn, err := zmqtransport.Dial(*gateway, opts)
	if err != nil {
		return err
	}
	defer conn.Close()
	w, err := hooteproto.NewWorker(conn, []hootv1hoot.Service{hootv1hoot.NewSystemService(&sleeper{name: *name})},
		hooteproto.WithName(*name), hooteproto.WithCapacity(*capacity),
		hooteproto.WithHeartbeat(*heartbeat, *liveness), hooteproto.WithLogger(logger))
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return w.Run(ctx)
}

type sleeper struct {
	name string
	mu   sync.Mutex // one line at a time on stdout
}

func (s *sleeper) Echo(ctx context.Context, req *hootv1.EchoRequest) (*hootv1.EchoResult, error) {
	msg := req.GetMessage()
	s.mu.Lock()
	fmt.Printf("started %s\n", msg)
	s.mu.Unlock()
	if rest, ok := strings.CutPrefix(msg, "sleep:"); ok {
		spec, _, _ := strings.Cut(rest, "/")
		d, err := time.ParseDuration(spec)
		if err != nil {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "sleep: "+err.Error()).WithField("message")
		}
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &hootv1.EchoResult{Message: msg, Worker: s.name}, nil
}
