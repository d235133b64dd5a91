package e2e

import (
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMetricsEndpoint scrapes /metrics after calls through the whole stack: the calls by tool,
// era and outcome, the live worker of each service, and the content routes' bytes.
func TestMetricsEndpoint(t *testing.T) {
	t.Parallel()
	url := startStack(t)
	s := connectHTTP(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for range 3 {
		if res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}}); err != nil || res.IsError {
			t.Fatalf("echo: %v %+v", err, res)
		}
	}
	if res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "cas_get", Arguments: map[string]any{"hash": strings.Repeat("0", 64)}}); err != nil || !res.IsError {
		t.Fatalf("cas_get of nothing: %v %+v", err, res)
	}
	stored, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "cas_store", Arguments: map[string]any{"content": "twelve bytes"}})
	if err != nil || stored.IsError {
		t.Fatalf("cas_store: %v %+v", err, stored)
	}
	hash, _ := stored.StructuredContent.(map[string]any)["hash"].(string)
	base := strings.TrimSuffix(url, "/mcp")
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	if got := get("/cas/" + hash); got != "twelve bytes" {
		t.Fatalf("content %q", got)
	}
	out := get("/metrics")
	for _, want := range []string{
		`holler_tool_calls_total{era="2026-07-28",outcome="ok",tool="echo"} 3`,
		`holler_tool_calls_total{era="2026-07-28",outcome="tool_error",tool="cas_get"} 1`,
		`holler_tool_call_duration_seconds_count{tool="echo"} 3`,
		`holler_tool_calls_in_flight 0`,
		`holler_workers{service="music"} 1`,
		`holler_queue_depth{service="system"} 0`,
		`holler_content_bytes_total{direction="out"} 12`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestWorkerMetrics scrapes a worker's own /metrics (--metrics-addr): its calls by service and
// the jobs by status.
func TestWorkerMetrics(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	url := startStackWith(t, func(cfg *gateway.Config) {
		cfg.WorkerCommand = append(cfg.WorkerCommand, "--metrics-addr", addr)
	})
	s := connectHTTP(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}}); err != nil || res.IsError {
		t.Fatalf("echo: %v %+v", err, res)
	}
	book := "X:1\nT:A\nM:4/4\nL:1/4\nK:C\nCDEF|]\n\nX:2\nT:B\nM:4/4\nL:1/4\nK:C\nGFED|]\n"
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "abc_book_to_midi", Arguments: map[string]any{"abc": book}})
	if err != nil || res.IsError {
		t.Fatalf("abc_book_to_midi: %v %+v", err, res)
	}
	id, _ := res.StructuredContent.(map[string]any)["job_id"].(string)
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "job_await", Arguments: map[string]any{"ids": []any{id}}}); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := string(b)
	for _, want := range []string{
		`hootenanny_calls_total{outcome="ok",service="system"} 1`,
		`hootenanny_jobs{status="succeeded"} 1`,
		`hootenanny_jobs{status="running"} 0`,
		`hootenanny_jobs_here 0`,
		`hootenanny_jobs_query_ok 1`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the worker's /metrics lacks %s", want)
		}
	}
	if !regexp.MustCompile(`hootenanny_calls_total\{outcome="ok",service="job"\} [1-9]`).MatchString(out) {
		t.Errorf("no job service calls counted:\n%s", out)
	}
}
