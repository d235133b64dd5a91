package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startShellStack serves a gateway at --max-tier operator behind a token file with an operator
// and an admin token, over a worker started with --shell, and returns the URL and the tokens.
func startShellStack(t *testing.T) (url, operator, admin string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tokens")
	operator, err := access.AddToken(file, "op", hootv1.Tier_TIER_OPERATOR)
	if err != nil {
		t.Fatal(err)
	}
	admin, err = access.AddToken(file, "root", hootv1.Tier_TIER_ADMIN)
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := access.LoadTokens(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	guard, err := access.NewGuard(access.Config{Tokens: tokens})
	if err != nil {
		t.Fatal(err)
	}
	// The worker announces the shell with its other services, which startStackWith waits for.
	url = startStackWith(t, func(cfg *gateway.Config) {
		cfg.Access = guard
		cfg.MaxTier = hootv1.Tier_TIER_OPERATOR
		cfg.WorkerCommand = append(cfg.WorkerCommand, "--shell")
	})
	return url, operator, admin
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// operatorCall posts one 2026-07-28 request with a bearer token and the client capabilities
// caps, and returns the status and the message.
func operatorCall(t *testing.T, url, token, method, name string, caps, params map[string]any) (int, map[string]any) {
	t.Helper()
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s answered %d %q", method, resp.StatusCode, b)
	}
	return resp.StatusCode, out
}

// TestShellExecConfirmed2025 runs shell_exec through the real gateway and a worker started
// with --shell, from the Go SDK's client in 2025-11-25 with an operator token: each call is put
// to the person with its exact command and limits, the lines come as progress notifications,
// and the result has the exit status and output; a declined call does not run; the job form
// runs in the background and job_await returns the same result. An admin token neither sees
// nor calls the tool.
func TestShellExecConfirmed2025(t *testing.T) {
	t.Parallel()
	url, operator, admin := startShellStack(t)

	var mu sync.Mutex
	var questions []string
	// The client may handle a notification after the call's answer: the lines are awaited.
	progress := make(chan string, 64)
	answer := "accept"
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			questions = append(questions, req.Params.Message)
			if answer == "accept" {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
			}
			return &mcp.ElicitResult{Action: answer}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params.Message:
			default:
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{operator, http.DefaultTransport}}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	command := "echo one; echo two >&2; exit 3"
	params := &mcp.CallToolParams{Name: "shell_exec", Arguments: map[string]any{"command": command, "timeout_seconds": 20}}
	params.SetProgressToken("shell-1")
	res, err := s.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("confirmed shell_exec: %s", text(res))
	}
	out := obj(res.StructuredContent)
	if out["stopped"] != "SHELL_STOP_EXITED" || out["exit_code"] != float64(3) || obj(out, "stdout")["head"] != "one\n" ||
		obj(out, "stderr")["head"] != "two\n" || obj(out, "limits")["timeout_seconds"] != float64(20) {
		t.Fatalf("shell_exec result = %v", out)
	}
	mu.Lock()
	if len(questions) != 1 || !strings.Contains(questions[0], `command: "`+command+`"`) || !strings.Contains(questions[0], "timeout_seconds: 20") ||
		!strings.Contains(questions[0], "memory_mib: the worker's default") || !strings.Contains(questions[0], "operator tool") {
		t.Errorf("questions = %q", questions)
	}
	answer = "decline"
	mu.Unlock()
	var lines []string
	timeout := time.After(20 * time.Second)
	for len(lines) < 2 {
		select {
		case l := <-progress:
			lines = append(lines, l)
		case <-timeout:
			t.Fatalf("progress = %q, want the command's two lines", lines)
		}
	}
	if got := strings.Join(lines, "|"); got != "stdout: one|stderr: two" && got != "stderr: two|stdout: one" {
		t.Errorf("progress = %q, want the command's lines", got)
	}

	res, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "shell_exec", Arguments: map[string]any{"command": "echo should-not-run"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "declined") || strings.Contains(text(res), "should-not-run\n") {
		t.Errorf("declined shell_exec = %s", text(res))
	}

	mu.Lock()
	answer = "accept"
	mu.Unlock()
	c := newCaller(t, s)
	started := c.call("shell_exec_job", map[string]any{"command": "seq 1 5000"})
	jobID := toString(started["job_id"])
	if jobID == "" {
		t.Fatalf("shell_exec_job = %v, want a job", started)
	}
	jobs := list(c.call("job_await", map[string]any{"ids": []any{jobID}, "timeout_ms": 50000})["jobs"])
	if len(jobs) != 1 || obj(jobs[0])["status"] != "JOB_STATUS_SUCCEEDED" {
		t.Fatalf("shell_exec_job's job = %v", jobs)
	}
	result := obj(jobs[0], "result", "shell_exec")
	if result["exit_code"] != nil && result["exit_code"] != float64(0) ||
		!strings.HasSuffix(toString(obj(result, "stdout")["tail"]), "4999\n5000\n") || toString(obj(result, "stdout")["artifact_id"]) == "" {
		t.Fatalf("shell_exec_job's result = %v", result)
	}

	// An admin token is below the operator tier: the tool is not listed, and a call is refused.
	as := connectHTTPToken(t, url, admin)
	tools, err := as.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if strings.HasPrefix(tool.Name, "shell_exec") {
			t.Fatalf("an admin token sees %s", tool.Name)
		}
	}
	if _, err := as.CallTool(ctx, &mcp.CallToolParams{Name: "shell_exec", Arguments: map[string]any{"command": "true"}}); err == nil ||
		!strings.Contains(err.Error(), "operator") {
		t.Fatalf("shell_exec with an admin token: %v, want it refused", err)
	}
}

// TestShellExecConfirmed2026 runs shell_exec in 2026-07-28 rounds with an operator token: the
// first call answers input_required with the confirmation, whose message has the command; the
// retry accepted runs it; a client without elicitation is refused, and nothing ran for it.
func TestShellExecConfirmed2026(t *testing.T) {
	t.Parallel()
	url, operator, admin := startShellStack(t)
	caps := map[string]any{"elicitation": map[string]any{}}
	command := "printf 'confirmed %s\\n' yes; ls /"
	call := func(token string, caps map[string]any, extra map[string]any) (int, map[string]any) {
		p := map[string]any{"name": "shell_exec", "arguments": map[string]any{"command": command, "working_dir": "w"}}
		for k, v := range extra {
			p[k] = v
		}
		return operatorCall(t, url, token, "tools/call", "shell_exec", caps, p)
	}
	_, first := call(operator, caps, nil)
	res := obj(first, "result")
	asked := obj(res, "inputRequests")
	state := toString(res["requestState"])
	var key string
	var question map[string]any
	for k, v := range asked {
		key, question = k, obj(v)
	}
	msg := toString(obj(question, "params")["message"])
	if res["resultType"] != "input_required" || len(asked) != 1 || state == "" || !strings.Contains(msg, "command: ") ||
		!strings.Contains(msg, `working_dir: "w"`) || !strings.Contains(msg, "confirmed %s") {
		t.Fatalf("shell_exec without a confirmation = %v, want the question with the command", first)
	}
	_, ran := call(operator, caps, map[string]any{"requestState": state,
		"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	out := obj(obj(ran, "result")["structuredContent"])
	stdout := toString(obj(out, "stdout")["head"])
	if out["stopped"] != "SHELL_STOP_EXITED" || !strings.HasPrefix(stdout, "confirmed yes\n") || !strings.Contains(stdout, "scratch") ||
		strings.Contains(stdout, "work\n") || strings.Contains(stdout, "root\n") {
		t.Fatalf("the confirmed shell_exec = %v", ran)
	}

	_, plain := call(operator, map[string]any{}, nil)
	if r := obj(plain, "result"); r["isError"] != true || !strings.Contains(mustJSON(t, r), "client_cannot_elicit") {
		t.Fatalf("shell_exec from a client that cannot ask = %v", plain)
	}
	status, low := call(admin, caps, nil)
	if status != http.StatusForbidden || !strings.Contains(mustJSON(t, low), "--tier operator") {
		t.Fatalf("shell_exec with an admin token: %d %v", status, low)
	}
}

// TestShellExecRefusedWithoutWorkerShell serves the operator tier over a worker started without
// --shell: the gateway allows the call and a person confirms it, and still nothing runs, since
// no worker serves the shell.
func TestShellExecRefusedWithoutWorkerShell(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "tokens")
	operator, err := access.AddToken(file, "op", hootv1.Tier_TIER_OPERATOR)
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := access.LoadTokens(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	guard, err := access.NewGuard(access.Config{Tokens: tokens})
	if err != nil {
		t.Fatal(err)
	}
	url := startStackWith(t, func(cfg *gateway.Config) {
		cfg.Access = guard
		cfg.MaxTier = hootv1.Tier_TIER_OPERATOR
	})
	caps := map[string]any{"elicitation": map[string]any{}}
	p := func() map[string]any {
		return map[string]any{"name": "shell_exec", "arguments": map[string]any{"command": "true"}}
	}
	_, first := operatorCall(t, url, operator, "tools/call", "shell_exec", caps, p())
	res := obj(first, "result")
	var key string
	for k := range obj(res, "inputRequests") {
		key = k
	}
	retry := p()
	retry["requestState"] = res["requestState"]
	retry["inputResponses"] = map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}
	_, ran := operatorCall(t, url, operator, "tools/call", "shell_exec", caps, retry)
	if r := obj(ran, "result"); r["isError"] != true || !strings.Contains(mustJSON(t, r), hootv1hoot.ShellServiceName) {
		t.Fatalf("shell_exec with no worker serving the shell = %v, want it refused as unavailable", ran)
	}
}
