package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/hootenanny/hoot/hootenanny/pgtest"
)

// modernClient speaks MCP 2026-07-28 to one gateway over HTTP: no session, every request with
// its _meta and routing headers, the tasks extension declared unless plain.
type modernClient struct {
	t    *testing.T
	url  string
	next int
	// token, when set, is sent as the bearer token of every request.
	token string
}

type modernAnswer struct {
	status int
	result map[string]any
	err    *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	}
}

func (c *modernClient) request(method string, params map[string]any, name string, plain bool) modernAnswer {
	c.t.Helper()
	c.next++
	caps := map[string]any{}
	if !plain {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// The response is the stream's last message.
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "" {
				raw = []byte(data)
			}
		}
	}
	var msg struct {
		Result map[string]any `json:"result"`
		Error  *struct {
			Code    int            `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		c.t.Fatalf("%s: not JSON-RPC (status %d): %q", method, resp.StatusCode, raw)
	}
	return modernAnswer{status: resp.StatusCode, result: msg.Result, err: msg.Error}
}

// ok returns the result of a request that must succeed.
func (c *modernClient) ok(method string, params map[string]any, name string) map[string]any {
	c.t.Helper()
	a := c.request(method, params, name, false)
	if a.err != nil || a.status != http.StatusOK {
		c.t.Fatalf("%s: status %d, error %+v", method, a.status, a.err)
	}
	return a.result
}

func (c *modernClient) callTool(tool string, args map[string]any) map[string]any {
	c.t.Helper()
	return c.ok("tools/call", map[string]any{"name": tool, "arguments": args}, tool)
}

func (c *modernClient) task(method, taskID string) map[string]any {
	c.t.Helper()
	p := map[string]any{"taskId": taskID}
	if method == "tasks/update" {
		p["inputResponses"] = map[string]any{}
	}
	return c.ok(method, p, taskID)
}

// awaitTask polls tasks/get until the task is terminal or a deadline passes.
func (c *modernClient) awaitTask(taskID string, within time.Duration) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := c.task("tasks/get", taskID)
		switch got["status"] {
		case "completed", "failed", "cancelled":
			return got
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("task %s still %v after %v", taskID, got["status"], within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// structured returns the structuredContent of a tool's result.
func structured(t *testing.T, res map[string]any) map[string]any {
	t.Helper()
	sc, ok := res["structuredContent"].(map[string]any)
	if !ok {
		t.Fatalf("no structuredContent in %v", res)
	}
	return sc
}

// TestTasksTwoGateways runs MCP tasks over the real wire on each database engine: one
// conformance worker behind two gateways that share a state key. A task made through one
// gateway is read and cancelled through the other, its job is the one job_status and job_list
// show, and cancelling it stops its work.
func TestTasksTwoGateways(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := []string{"--conformance", "--data", dir, "--heartbeat", "500ms", "--log-level", "warn"}
			if engine == "postgres" {
				args = append(args, "--database", pgtest.Database(t))
			}
			key := []byte("the state key the two gateways share")
			a := serveGatewayWith(t, gateway.Config{DataDir: dir, StateKey: key, Conformance: true})
			b := serveGatewayWith(t, gateway.Config{DataDir: dir, StateKey: key, Conformance: true})
			startSharedWorker(t, []*servedGateway{a, b}, args, conformancev1hoot.ConformanceTasksServiceName, hootv1hoot.JobServiceName)
			ca := &modernClient{t: t, url: a.base + "/mcp"}
			cb := &modernClient{t: t, url: b.base + "/mcp"}

			// A short task made through A completes, read through B, with the tool's result.
			short := ca.callTool("slow_compute", map[string]any{"seconds": 1, "label": "short"})
			if short["resultType"] != "task" || short["status"] != "working" {
				t.Fatalf("slow_compute as a task = %v", short)
			}
			// The task exists as soon as its CreateTaskResult is out, at the other gateway too.
			if got := cb.task("tasks/get", short["taskId"].(string)); got["taskId"] != short["taskId"] {
				t.Fatalf("immediate tasks/get through B = %v", got)
			}
			done := cb.awaitTask(short["taskId"].(string), 20*time.Second)
			res, _ := done["result"].(map[string]any)
			if done["status"] != "completed" || !strings.Contains(fmt.Sprint(res["content"]), `slow_compute "short" done`) {
				t.Fatalf("finished task = %v", done)
			}

			// A long task made through B is its job: job_status and job_list show it.
			long := cb.callTool("slow_compute", map[string]any{"seconds": 120, "label": "long"})
			taskID := long["taskId"].(string)
			jobID, _, _ := strings.Cut(taskID, ".")
			status := structured(t, ca.callTool("job_status", map[string]any{"id": jobID}))["job"].(map[string]any)
			if status["tool"] != "slow_compute" || status["status"] == "JOB_STATUS_CANCELLED" {
				t.Fatalf("job_status of the task's job = %v", status)
			}
			listed := false
			for _, j := range structured(t, ca.callTool("job_list", map[string]any{"tool": "slow_compute"}))["jobs"].([]any) {
				listed = listed || j.(map[string]any)["id"] == jobID
			}
			if !listed {
				t.Errorf("job_list does not show the task's job %s", jobID)
			}
			// Its progress moves while it runs.
			var before any
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				before = structured(t, cb.callTool("job_status", map[string]any{"id": jobID}))["job"].(map[string]any)["progress"]
				if p, ok := before.(float64); ok && p > 0 {
					break
				}
			}

			// Cancelled through A, it stops: its work returns, and its progress moves no more.
			start := time.Now()
			if ack := ca.task("tasks/cancel", taskID); ack["resultType"] != "complete" || ack["status"] != nil {
				t.Fatalf("tasks/cancel = %v", ack)
			}
			got := cb.awaitTask(taskID, 10*time.Second)
			if got["status"] != "cancelled" || time.Since(start) > 10*time.Second {
				t.Fatalf("task after tasks/cancel = %v", got)
			}
			job := structured(t, cb.callTool("job_status", map[string]any{"id": jobID}))["job"].(map[string]any)
			if job["status"] != "JOB_STATUS_CANCELLED" || job["finished_at"] == nil {
				t.Fatalf("job after tasks/cancel = %v", job)
			}
			if p, ok := before.(float64); !ok || p <= 0 {
				t.Errorf("the job made no progress before it was cancelled: %v", before)
			}
			time.Sleep(400 * time.Millisecond)
			after := structured(t, cb.callTool("job_status", map[string]any{"id": jobID}))["job"].(map[string]any)
			if after["progress"] != job["progress"] {
				t.Errorf("the job's progress moved after it was cancelled: %v then %v", job["progress"], after["progress"])
			}
			// A second cancel of the ended task is the same ack.
			if ack := cb.task("tasks/cancel", taskID); ack["resultType"] != "complete" {
				t.Errorf("second tasks/cancel = %v", ack)
			}

			// A job of the job tools is a task too: its tool's failure completes with isError,
			// a failure inside the worker is failed.
			failing := cb.awaitTask(ca.callTool("failing_job", map[string]any{})["taskId"].(string), 20*time.Second)
			if r, _ := failing["result"].(map[string]any); failing["status"] != "completed" || r["isError"] != true {
				t.Errorf("failing_job's task = %v", failing)
			}
			broken := ca.awaitTask(cb.callTool("protocol_error_job", map[string]any{})["taskId"].(string), 20*time.Second)
			if e, _ := broken["error"].(map[string]any); broken["status"] != "failed" || broken["result"] != nil || e["code"] != float64(-32603) {
				t.Errorf("protocol_error_job's task = %v", broken)
			}

			// A job that asks waits for its answers (input_required), which the other gateway
			// takes; answered in part it waits on the rest, answered in full it completes.
			multi := ca.callTool("multi_input", map[string]any{})["taskId"].(string)
			var waiting map[string]any
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				waiting = cb.task("tasks/get", multi)
				if reqs, _ := waiting["inputRequests"].(map[string]any); waiting["status"] == "input_required" && len(reqs) == 2 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("multi_input's task = %v, want input_required with two inputRequests", waiting)
				}
			}
			var keys []string
			for k := range waiting["inputRequests"].(map[string]any) {
				keys = append(keys, k)
			}
			answer := func(c *modernClient, key, name string) {
				c.ok("tasks/update", map[string]any{"taskId": multi, "inputResponses": map[string]any{
					key: map[string]any{"action": "accept", "content": map[string]any{"name": name, "confirm": true}}}}, multi)
			}
			answer(cb, keys[0], "first")
			if got := ca.task("tasks/get", multi); got["status"] != "input_required" || len(got["inputRequests"].(map[string]any)) != 1 ||
				got["inputRequests"].(map[string]any)[keys[1]] == nil {
				t.Fatalf("multi_input after one answer = %v", got)
			}
			answer(ca, keys[1], "second")
			finished := cb.awaitTask(multi, 20*time.Second)
			if text := fmt.Sprint(finished["result"]); finished["status"] != "completed" || !strings.Contains(text, "first") || !strings.Contains(text, "second") {
				t.Errorf("multi_input answered = %v", finished)
			}
			// Cancelled while it waits, a task ends cancelled at once.
			confirm := cb.callTool("confirm_delete", map[string]any{"filename": "x.txt"})["taskId"].(string)
			for deadline := time.Now().Add(10 * time.Second); ca.task("tasks/get", confirm)["status"] != "input_required"; time.Sleep(100 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("confirm_delete never waited for its answer")
				}
			}
			ca.task("tasks/cancel", confirm)
			if got := cb.task("tasks/get", confirm); got["status"] != "cancelled" {
				t.Errorf("confirm_delete cancelled while it waited = %v", got)
			}

			// A 2025-11-25 session that declares tasks runs even a tool that answers inline as a
			// task when it asks for one: a job on the worker, whose result tasks/result returns.
			ls := legacySession(t, b.base+"/mcp")
			created := ls.call("tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "inline"}, "task": map[string]any{}})
			inlineTask, _ := created["task"].(map[string]any)
			if inlineTask == nil {
				t.Fatalf("greet with params.task = %v", created)
			}
			if res := ls.call("tasks/result", map[string]any{"taskId": inlineTask["taskId"]}); !strings.Contains(fmt.Sprint(res["content"]), "Hello, inline!") {
				t.Errorf("tasks/result of greet = %v", res)
			}
			inlineJob, _, _ := strings.Cut(inlineTask["taskId"].(string), ".")
			if job := structured(t, ca.callTool("job_status", map[string]any{"id": inlineJob}))["job"].(map[string]any); job["tool"] != "greet" || job["status"] != "JOB_STATUS_SUCCEEDED" {
				t.Errorf("job_status of greet's task = %v", job)
			}

			// Without the extension: tasks/get is refused, a job answers with its job id.
			if r := ca.request("tasks/get", map[string]any{"taskId": taskID}, taskID, true); r.status != http.StatusBadRequest || r.err == nil || r.err.Code != -32021 {
				t.Errorf("tasks/get without the extension = %d %+v", r.status, r.err)
			}
			plain := ca.request("tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0}}, "slow_compute", true)
			if plain.err != nil || plain.result["resultType"] != "complete" || structured(t, plain.result)["job_id"] == nil {
				t.Errorf("slow_compute without the extension = %+v", plain)
			}
		})
	}
}

// legacyClient speaks MCP 2025-11-25 over HTTP in a session that declares tasks.
type legacyClient struct {
	t       *testing.T
	url     string
	session string
	next    int
}

func legacySession(t *testing.T, url string) *legacyClient {
	t.Helper()
	c := &legacyClient{t: t, url: url}
	c.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tasks": map[string]any{}},
		"clientInfo": map[string]any{"name": "e2e", "version": "0"}})
	c.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

func (c *legacyClient) post(msg map[string]any) (*http.Response, []byte) {
	c.t.Helper()
	body, _ := json.Marshal(msg)
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, raw
}

// call sends a request and returns its result, failing the test on an error.
func (c *legacyClient) call(method string, params map[string]any) map[string]any {
	c.t.Helper()
	c.next++
	resp, raw := c.post(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.session = sid
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(data, `"id":`) {
				raw = []byte(data)
			}
		}
	}
	var msg struct {
		Result map[string]any `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil || msg.Error != nil {
		c.t.Fatalf("%s: %s", method, raw)
	}
	return msg.Result
}
