// Command load drives an MCP server's echo tool over Streamable HTTP and prints throughput and
// latency. Each of --concurrency sessions keeps one tools/call in flight; every answer is
// checked, and a run with a wrong answer exits with status 1. With --modern the clients open
// no sessions and send every call as a stateless MCP 2026-07-28 request.
//
//	load --url http://127.0.0.1:8080/mcp --concurrency 16 --duration 5s [--modern]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hootenanny/hoot/bench/internal/load"
)

func main() {
	var opts load.Options
	flag.StringVar(&opts.URL, "url", "http://127.0.0.1:8080/mcp", "the MCP `endpoint`")
	flag.IntVar(&opts.Concurrency, "concurrency", 1, "sessions, each with one call in flight")
	flag.BoolVar(&opts.Modern, "modern", false, "send stateless MCP 2026-07-28 requests instead of opening sessions")
	flag.DurationVar(&opts.Warmup, "warmup", time.Second, "unmeasured calls before the measurement")
	flag.DurationVar(&opts.Duration, "duration", 5*time.Second, "how long to measure")
	flag.IntVar(&opts.Requests, "requests", 0, "measure this many calls instead of a duration")
	flag.DurationVar(&opts.Timeout, "timeout", 10*time.Second, "longest one HTTP request may take")
	asJSON := flag.Bool("json", false, "print the result as JSON")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := load.Run(ctx, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	if *asJSON {
		_ = json.NewEncoder(os.Stdout).Encode(r)
	} else {
		fmt.Println(r)
	}
	if r.Failed() {
		fmt.Fprintf(os.Stderr, "load: FAILED: %d of %d calls went wrong\n", r.Errors, r.Requests+r.Errors)
		os.Exit(1)
	}
}
