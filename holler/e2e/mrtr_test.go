package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/holler/internal/gateway"
)

// startConformanceWorker starts a hootenanny process that serves the conformance fixtures to
// the gateway at endpoint, and returns it; the test's cleanup stops it if it still runs.
func startConformanceWorker(t *testing.T, endpoint, name string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin(t, "hootenanny"), "--conformance", "--gateway", endpoint, "--name", name,
		"--data", t.TempDir(), "--heartbeat", "500ms", "--log-level", "warn")
	cmd.Stderr = testWriter{t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
		}
	})
	return cmd
}

// modernPost sends a 2026-07-28 request with the headers its body implies and returns the
// HTTP status and the JSON-RPC response.
func modernCall(t *testing.T, url, method, name string, caps, params map[string]any) (int, map[string]any) {
	t.Helper()
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
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

// TestQuestionsAcrossWorkersAndGateways asks a handler's questions in 2026-07-28 rounds over the
// real wire: round 1 runs on a worker behind one gateway, that worker dies, and the retries go
// to another gateway with the same state key, whose own worker runs the call again from the
// start with the answers.
func TestQuestionsAcrossWorkersAndGateways(t *testing.T) {
	t.Parallel()
	key := []byte("a state key the two gateways share")
	a := serveGatewayWith(t, gateway.Config{DataDir: t.TempDir(), StateKey: key, Conformance: true})
	b := serveGatewayWith(t, gateway.Config{DataDir: t.TempDir(), StateKey: key, Conformance: true})
	w1 := startConformanceWorker(t, a.g.WorkerEndpoint(), "first")
	startConformanceWorker(t, b.g.WorkerEndpoint(), "second")
	for _, g := range []*servedGateway{a, b} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := g.g.WaitForServices(ctx, "conformance")
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	const tool = "test_input_required_result_multi_round"
	allCaps := map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}}
	call := func(g *servedGateway, extra map[string]any) (int, map[string]any) {
		p := map[string]any{"name": tool, "arguments": map[string]any{}}
		for k, v := range extra {
			p[k] = v
		}
		return modernCall(t, g.base+"/mcp", "tools/call", tool, allCaps, p)
	}
	result := func(r map[string]any) map[string]any {
		t.Helper()
		res, ok := r["result"].(map[string]any)
		if !ok {
			t.Fatalf("want a result, got %v", r)
		}
		return res
	}
	asked := func(r map[string]any, key string) string {
		t.Helper()
		res := result(r)
		reqs, _ := res["inputRequests"].(map[string]any)
		state, _ := res["requestState"].(string)
		if res["resultType"] != "input_required" || reqs[key] == nil || len(reqs) != 1 || state == "" {
			t.Fatalf("want input_required asking %s, got %v", key, res)
		}
		return state
	}

	_, r1 := call(a, nil)
	state := asked(r1, "step1")
	// The worker that ran round 1 goes away: nothing of the call lives on it.
	w1.Process.Kill()
	w1.Wait()

	_, r2 := call(b, map[string]any{"requestState": state,
		"inputResponses": map[string]any{"step1": map[string]any{"action": "accept", "content": map[string]any{"name": "Ann"}}}})
	state2 := asked(r2, "step2")
	_, r3 := call(b, map[string]any{"requestState": state2,
		"inputResponses": map[string]any{"step2": map[string]any{"action": "accept", "content": map[string]any{"color": "green"}}}})
	res := result(r3)
	content, _ := res["content"].([]any)
	first, _ := content[0].(map[string]any)
	if res["resultType"] != "complete" || first["text"] != "Ann likes green." {
		t.Fatalf("round 3 = %v", res)
	}

	// A state altered on the way is refused, with the way out.
	_, bad := call(b, map[string]any{"requestState": state2 + "x",
		"inputResponses": map[string]any{"step2": map[string]any{"action": "accept", "content": map[string]any{"color": "green"}}}})
	e, _ := bad["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	if e["code"] != float64(-32602) || !strings.Contains(toString(data["hint"]), "without requestState") {
		t.Fatalf("altered state = %v", bad)
	}

	// A client that cannot sample gets -32021 and HTTP 400 from the fixture that needs it.
	status, missing := modernCall(t, b.base+"/mcp", "tools/call", "test_missing_capability", map[string]any{},
		map[string]any{"name": "test_missing_capability", "arguments": map[string]any{}})
	e, _ = missing["error"].(map[string]any)
	data, _ = e["data"].(map[string]any)
	required, _ := data["requiredCapabilities"].(map[string]any)
	if status != http.StatusBadRequest || e["code"] != float64(-32021) || required["sampling"] == nil {
		t.Fatalf("test_missing_capability without sampling: HTTP %d %v", status, missing)
	}
}
