package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/hootenanny/hoot/holler/internal/gateway"
)

// startLocal starts, for the command line's --local, a gateway of its own with a hootenanny
// worker on the default data directory (the one make run uses, so what it makes is kept), on
// loopback ports of its own, and returns its MCP endpoint and how to stop both.
func startLocal(ctx context.Context, logs io.Writer) (string, func(), error) {
	worker, err := findWorker()
	if err != nil {
		return "", nil, err
	}
	dataDir := defaultDataDir()
	if dataDir == "" {
		return "", nil, errors.New("no home directory for the data; set XDG_STATE_HOME")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	g, err := gateway.Start(gateway.Config{
		WorkerEndpoint: "tcp://127.0.0.1:*",
		WorkerCommand:  []string{worker, "--data", dataDir, "--log-level", "warn"},
		DataDir:        dataDir,
		Version:        version,
		Logger:         logger,
	})
	if err != nil {
		l.Close()
		return "", nil, err
	}
	sctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.ServeHTTP(sctx, l) }()
	stop := func() {
		cancel()
		<-done
		_ = g.Close()
	}
	wctx, wcancel := context.WithTimeout(ctx, ownWorkerWait)
	defer wcancel()
	if !g.WaitForWorker(wctx) {
		stop()
		if ctx.Err() != nil {
			return "", nil, ctx.Err()
		}
		return "", nil, fmt.Errorf("the worker %s did not start within %s", worker, ownWorkerWait)
	}
	// Let the gateway learn the worker's services before the first tools/list.
	time.Sleep(50 * time.Millisecond)
	return "http://" + l.Addr().String() + "/mcp", stop, nil
}

// findWorker finds the hootenanny binary: beside this holler, then on PATH.
func findWorker() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "hootenanny")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath("hootenanny")
	if err != nil {
		return "", errors.New("--local needs the hootenanny worker beside holler or on PATH (make build puts both in bin/)")
	}
	return p, nil
}
