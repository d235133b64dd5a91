package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The official clients, unmodified, against the whole stack (holler and a real worker that also
// serves the conformance fixtures), each in the eras it speaks: the Go SDK v1.8 in 2026-07-28
// and 2025-11-25, the TypeScript SDK v2 in 2026-07-28 and v1 in 2025-11-25, and the MCP
// Inspector's command line in 2026-07-28. Every client runs the same plan of steps, and one
// function judges what each saw, so the eras are held to the same behaviour.

// A clientStep is one thing a client does; the scripts in clients/ read the same JSON.
type clientStep struct {
	Op      string         `json:"op"`
	Tool    string         `json:"tool,omitempty"`
	Args    map[string]any `json:"args,omitempty"`
	AfterMs int            `json:"afterMs,omitempty"`
	Answer  map[string]any `json:"answer,omitempty"`
}

// A stepReport is what a client saw in one step.
type stepReport struct {
	Op       string           `json:"op"`
	Names    []string         `json:"names"`
	Result   *clientResult    `json:"result"`
	Progress []map[string]any `json:"progress"`
	Asked    []string         `json:"asked"`
	Error    string           `json:"error"`
	Ms       int              `json:"ms"`
}

// clientResult is a tool result as every client reports it.
type clientResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent any `json:"structuredContent"`
}

func (r *clientResult) text() string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// clientPlan is what every client does, in order.
func clientPlan() []clientStep {
	return []clientStep{
		{Op: "list"},
		{Op: "call", Tool: "test_tool_with_progress", Args: map[string]any{}},
		// A call cancelled by the client: it waits for a job of 30 s, and is cancelled after
		// half a second. The job itself goes on; only the wait ends.
		{Op: "call", Tool: "slow_compute", Args: map[string]any{"seconds": 30, "label": "cancel-me"}},
		{Op: "cancel", Tool: "job_await", Args: map[string]any{"ids": []any{"$job"}, "timeout_ms": 60000}, AfterMs: 500},
		// The worker asks the client for a name and an email.
		{Op: "elicit", Tool: "test_elicitation", Args: map[string]any{"message": "Who are you?"},
			Answer: map[string]any{"action": "accept", "content": map[string]any{"username": "ada", "email": "ada@example.org"}}},
		// The gateway asks a person to confirm an admin tool, before anything reaches a worker.
		{Op: "elicit", Tool: "storage_gc", Args: map[string]any{"dry_run": true},
			Answer: map[string]any{"action": "decline"}},
		{Op: "elicit", Tool: "storage_gc", Args: map[string]any{"dry_run": true},
			Answer: map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}},
	}
}

// judge checks what a client saw against the plan.
func judge(t *testing.T, client string, plan []clientStep, got []stepReport) {
	t.Helper()
	if len(got) != len(plan) {
		t.Fatalf("%s reported %d steps of %d: %+v", client, len(got), len(plan), got)
	}
	for i, step := range plan {
		r := got[i]
		where := fmt.Sprintf("%s, step %d (%s %s)", client, i, step.Op, step.Tool)
		if r.Error != "" && step.Op != "cancel" {
			t.Errorf("%s: %s", where, r.Error)
			continue
		}
		switch {
		case step.Op == "list":
			for _, want := range []string{"test_tool_with_progress", "abc_to_midi", "storage_gc", "job_status"} {
				if !slices.Contains(r.Names, want) {
					t.Errorf("%s: %s is not listed in %v", where, want, r.Names)
				}
			}
		case step.Tool == "test_tool_with_progress":
			if r.Result == nil || r.Result.IsError || r.Result.text() != "Progress test completed." {
				t.Errorf("%s: result %+v", where, r.Result)
			}
			var seen []float64
			for _, p := range r.Progress {
				v, _ := p["progress"].(float64)
				seen = append(seen, v)
			}
			if !slices.Equal(seen, []float64{0, 50, 100}) {
				t.Errorf("%s: progress %v, want 0, 50, 100", where, r.Progress)
			}
		case step.Tool == "slow_compute":
			if r.Result == nil || r.Result.IsError || !strings.Contains(r.Result.text(), "job_") {
				t.Errorf("%s: result %+v", where, r.Result)
			}
		case step.Op == "cancel":
			// Cancelled well before the job's 30 s: the client gave up, and the gateway let go.
			if r.Result != nil && !r.Result.IsError {
				t.Errorf("%s: the cancelled call answered %+v", where, r.Result)
			}
			if r.Ms > 10000 {
				t.Errorf("%s: the call ended %d ms after it started, not when it was cancelled", where, r.Ms)
			}
		case step.Tool == "test_elicitation":
			if len(r.Asked) != 1 || r.Asked[0] != "Who are you?" {
				t.Errorf("%s: the client was asked %q", where, r.Asked)
			}
			if r.Result == nil || r.Result.IsError || !strings.Contains(r.Result.text(), `"ada"`) ||
				!strings.Contains(r.Result.text(), "action=accept") {
				t.Errorf("%s: result %+v", where, r.Result)
			}
		case step.Tool == "storage_gc":
			if len(r.Asked) != 1 || !strings.Contains(r.Asked[0], "storage_gc") {
				t.Errorf("%s: the person was asked %q", where, r.Asked)
			}
			accepted := step.Answer["action"] == "accept"
			switch {
			case r.Result == nil:
				t.Errorf("%s: no result", where)
			case accepted && (r.Result.IsError || !strings.Contains(r.Result.text(), "job_")):
				t.Errorf("%s: accepted, but %+v", where, r.Result)
			case !accepted && (!r.Result.IsError || !strings.Contains(r.Result.text(), "declined")):
				t.Errorf("%s: declined, but %+v", where, r.Result)
			}
		}
	}
}

// startClientStack starts the stack with the fixtures and the admin tier, for the plan.
func startClientStack(t *testing.T) string {
	return startStackWith(t, func(cfg *gateway.Config) {
		cfg.MaxTier = hootv1.Tier_TIER_ADMIN
		cfg.WorkerCommand = append(cfg.WorkerCommand, "--conformance")
		cfg.Conformance = true
	})
}

func TestRealClients(t *testing.T) {
	t.Parallel()
	url := startClientStack(t)
	plan := clientPlan()
	root := repoRoot(t)
	node := filepath.Join(root, "node_modules", "node", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("the pinned node is missing (%v): run npm ci", err)
	}
	for _, era := range []string{"2026-07-28", "2025-11-25"} {
		t.Run("go-sdk "+era, func(t *testing.T) {
			t.Parallel()
			judge(t, "go-sdk "+era, plan, runGoSDK(t, url, era, plan))
		})
	}
	for _, c := range []struct{ name, script, era string }{
		{"ts-sdk v2 2026-07-28", "ts2.mjs", "modern"},
		{"ts-sdk v2 2025-11-25", "ts2.mjs", "legacy"},
		{"ts-sdk v1 2025-11-25", "ts1.mjs", "legacy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			judge(t, c.name, plan, runScript(t, node, root, filepath.Join(root, "holler", "e2e", "clients", c.script), url, c.era, plan))
		})
	}
	// A task: the TypeScript SDK v1 speaks 2025-11-25's experimental tasks (the Go SDK has no
	// tasks, and the v2 SDK leaves them to the ext-tasks package).
	t.Run("ts-sdk v1 2025-11-25 task", func(t *testing.T) {
		t.Parallel()
		task := []clientStep{{Op: "task", Tool: "slow_compute", Args: map[string]any{"seconds": 1, "label": "as a task"}}}
		got := runScript(t, node, root, filepath.Join(root, "holler", "e2e", "clients", "ts1.mjs"), url, "legacy", task)
		if len(got) != 1 || got[0].Error != "" || got[0].Result == nil {
			t.Fatalf("task: %+v", got)
		}
		r := got[0]
		if len(r.Asked) == 0 || !strings.HasPrefix(r.Asked[0], "created ") {
			t.Errorf("the task's events: %q, want it created first", r.Asked)
		}
		if r.Result.IsError || !strings.Contains(r.Result.text(), `slow_compute "as a task" done after 1 s`) {
			t.Errorf("the task's result: %+v", r.Result)
		}
	})
	// And a task of the 2026-07-28 extension through its own client package (ext-tasks) on the
	// TypeScript SDK v2.
	t.Run("ts-sdk v2 2026-07-28 task", func(t *testing.T) {
		t.Parallel()
		task := []clientStep{{Op: "task", Tool: "slow_compute", Args: map[string]any{"seconds": 1, "label": "as a task"}}}
		got := runScript(t, node, root, filepath.Join(root, "holler", "e2e", "clients", "ts2.mjs"), url, "modern", task)
		if len(got) != 1 || got[0].Error != "" || got[0].Result == nil {
			t.Fatalf("task: %+v", got)
		}
		if r := got[0]; r.Result.IsError || !strings.Contains(r.Result.text(), `slow_compute "as a task" done after 1 s`) || len(r.Asked) != 1 || r.Asked[0] != "completed" {
			t.Errorf("the task: %+v", r)
		}
	})
	t.Run("inspector 2026-07-28", func(t *testing.T) {
		t.Parallel()
		testInspector(t, node, root, url)
	})
}

// runScript runs a client script with the plan and returns its reports.
func runScript(t *testing.T, node, root, script, url, era string, plan []clientStep) []stepReport {
	t.Helper()
	planJSON, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, url, era, string(planJSON))
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(script), err, stderr.String())
	}
	var reports []stepReport
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var r stepReport
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s printed %q: %v", filepath.Base(script), sc.Text(), err)
		}
		reports = append(reports, r)
	}
	return reports
}

// runGoSDK runs the plan with the Go SDK's client at version era.
func runGoSDK(t *testing.T, url, era string, plan []clientStep) []stepReport {
	t.Helper()
	var mu sync.Mutex
	var answer map[string]any
	var asked []string
	var progress []map[string]any
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-e2e", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, req.Params.Message)
			res := &mcp.ElicitResult{}
			b, _ := json.Marshal(answer)
			if err := json.Unmarshal(b, res); err != nil {
				return nil, err
			}
			return res, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, map[string]any{"progress": req.Params.Progress, "total": req.Params.Total})
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.InitializeResult().ProtocolVersion; got != era {
		t.Errorf("go-sdk speaks %s, want %s", got, era)
	}
	asResult := func(res *mcp.CallToolResult) *clientResult {
		b, _ := json.Marshal(res)
		var r clientResult
		_ = json.Unmarshal(b, &r)
		return &r
	}
	var reports []stepReport
	lastJob := ""
	for _, step := range plan {
		r := stepReport{Op: step.Op}
		step.Args = bindJob(step.Args, lastJob)
		mu.Lock()
		answer, asked, progress = step.Answer, nil, nil
		mu.Unlock()
		switch step.Op {
		case "list":
			for tool, err := range s.Tools(ctx, nil) {
				if err != nil {
					r.Error = err.Error()
					break
				}
				r.Names = append(r.Names, tool.Name)
			}
		case "cancel":
			cctx, cancelCall := context.WithTimeout(ctx, time.Duration(step.AfterMs)*time.Millisecond)
			start := time.Now()
			res, err := s.CallTool(cctx, &mcp.CallToolParams{Name: step.Tool, Arguments: step.Args})
			cancelCall()
			r.Ms = int(time.Since(start).Milliseconds())
			if err != nil {
				r.Error = err.Error()
			} else {
				r.Result = asResult(res)
			}
		default:
			params := &mcp.CallToolParams{Name: step.Tool, Arguments: step.Args}
			params.SetProgressToken("p-" + step.Tool)
			res, err := s.CallTool(ctx, params)
			if err != nil {
				r.Error = err.Error()
				break
			}
			r.Result = asResult(res)
			if m, ok := res.StructuredContent.(map[string]any); ok {
				if id, ok := m["job_id"].(string); ok {
					lastJob = id
				}
			}
		}
		// Progress notifications may trail the result by a moment on another stream.
		if step.Tool == "test_tool_with_progress" {
			for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				mu.Lock()
				n := len(progress)
				mu.Unlock()
				if n >= 3 {
					break
				}
			}
		}
		mu.Lock()
		r.Asked, r.Progress = slices.Clone(asked), slices.Clone(progress)
		mu.Unlock()
		reports = append(reports, r)
	}
	return reports
}

// bindJob replaces the argument values "$job" with the job id the last call named.
func bindJob(args map[string]any, job string) map[string]any {
	var bind func(v any) any
	bind = func(v any) any {
		switch x := v.(type) {
		case string:
			if x == "$job" {
				return job
			}
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = bind(e)
			}
			return out
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				out[k] = bind(e)
			}
			return out
		}
		return v
	}
	out, _ := bind(args).(map[string]any)
	return out
}

// testInspector runs the MCP Inspector's command line in the 2026-07-28 era: tools/list, with
// its schema portability check, and tools/call.
func testInspector(t *testing.T, node, root, url string) {
	inspector := filepath.Join(root, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	run := func(args ...string) (stdout, stderr string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, append([]string{inspector, "--cli", url, "--protocol-era", "modern"}, args...)...)
		cmd.Dir = t.TempDir()
		// The inspector keeps a catalog and client state under the home directory: a fresh one.
		cmd.Env = append(os.Environ(), "HOME="+cmd.Dir)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}

	out, warnings := run("--method", "tools/list", "--strict")
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("tools/list printed %q: %v", out, err)
	}
	if len(list.Tools) < 20 {
		t.Errorf("the inspector lists %d tools", len(list.Tools))
	}
	if strings.Contains(warnings, "Warning") {
		t.Errorf("the inspector finds the schemas less than portable:\n%s", warnings)
	}

	out, _ = run("--method", "tools/call", "--tool-name", "abc_to_midi", "--tool-arg", "abc=X:1\nT:Scale\nM:4/4\nL:1/4\nK:C\nCDEF|GABc|]\n")
	var res clientResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("tools/call printed %q: %v", out, err)
	}
	if res.IsError || !strings.Contains(res.text(), "art_") {
		t.Errorf("abc_to_midi through the inspector: %+v", res)
	}
}

// repoRoot returns the directory of the repository's package.json.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no package.json above the test's directory")
		}
		dir = parent
	}
}
