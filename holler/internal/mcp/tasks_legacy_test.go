package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
)

// legacyCall sends a request of the session and returns its one answer.
func (c *mcpHTTP) legacyCall(id int, method string, params map[string]any) rpcResponse {
	c.t.Helper()
	return c.post(request(id, method, params), nil).last(c.t)
}

func legacyResult(t *testing.T, what string, r rpcResponse) map[string]any {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("%s: error %d %s", what, r.Error.Code, r.Error.Message)
	}
	var out map[string]any
	if err := json.Unmarshal(r.Result, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func legacyError(t *testing.T, what string, r rpcResponse, code int) {
	t.Helper()
	if r.Error == nil || r.Error.Code != code {
		t.Errorf("%s: %s / %v, want error %d", what, r.Result, r.Error, code)
	}
}

func TestLegacyTasks(t *testing.T) {
	t.Parallel()
	jt := newJobTable()

	// A client that does not declare tasks sees none.
	plain := newTasksClient(t, jt, nil)
	a := plain.post(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`, nil)
	if strings.Contains(string(a.last(t).Result), `"tasks"`) {
		t.Errorf("initialize without tasks declared: %s", a.body)
	}

	c := newTasksClient(t, jt, nil)
	a = c.post(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{}},"clientInfo":{"name":"t","version":"0"}}}`, nil)
	c.session = a.header.Get(headerSessionID)
	if !strings.Contains(string(a.last(t).Result), `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`) {
		t.Fatalf("initialize with tasks declared: %s", a.body)
	}
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	events := c.openGet("")

	// tools/list says which tools run as tasks.
	support := map[string]string{}
	for _, tool := range legacyResult(t, "tools/list", c.legacyCall(1, "tools/list", map[string]any{}))["tools"].([]any) {
		m := tool.(map[string]any)
		if e, ok := m["execution"].(map[string]any); ok {
			support[m["name"].(string)] = e["taskSupport"].(string)
		}
	}
	if support["slow_compute"] != "optional" || support["failing_job"] != "required" || support["greet"] != "optional" {
		t.Errorf("taskSupport = %v", support)
	}

	// A call with params.task answers the nested task, with ttl and pollInterval.
	created := legacyResult(t, "tools/call", c.legacyCall(2, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 60}, "task": map[string]any{"ttl": 60000}}))
	task, _ := created["task"].(map[string]any)
	if task == nil || task["status"] != "working" || task["ttl"] == nil || task["pollInterval"] == nil || task["ttlMs"] != nil {
		t.Fatalf("CreateTaskResult = %v", created)
	}
	taskID := task["taskId"].(string)
	if got := legacyResult(t, "tasks/get", c.legacyCall(3, "tasks/get", map[string]any{"taskId": taskID})); got["status"] != "working" || got["taskId"] != taskID {
		t.Errorf("tasks/get = %v", got)
	}
	listed := legacyResult(t, "tasks/list", c.legacyCall(4, "tasks/list", map[string]any{}))["tasks"].([]any)
	if len(listed) != 1 || listed[0].(map[string]any)["taskId"] != taskID {
		t.Errorf("tasks/list = %v", listed)
	}
	// tasks/cancel returns the cancelled task; a second one is refused.
	if got := legacyResult(t, "tasks/cancel", c.legacyCall(5, "tasks/cancel", map[string]any{"taskId": taskID})); got["status"] != "cancelled" {
		t.Errorf("tasks/cancel = %v", got)
	}
	legacyError(t, "second tasks/cancel", c.legacyCall(6, "tasks/cancel", map[string]any{"taskId": taskID}), jsonrpc.CodeInvalidParams)
	legacyError(t, "tasks/result of a cancelled task", c.legacyCall(7, "tasks/result", map[string]any{"taskId": taskID}), jsonrpc.CodeInvalidParams)

	// The status change reached the session's stream.
	deadline := time.Now().Add(5 * time.Second)
	for seen := false; !seen; {
		if time.Now().After(deadline) {
			t.Fatal("no notifications/tasks/status on the session's stream")
		}
		ev, err := events.next()
		if err != nil {
			t.Fatal(err)
		}
		seen = strings.Contains(ev.data, `"method":"notifications/tasks/status"`) && strings.Contains(ev.data, `"status":"cancelled"`) && strings.Contains(ev.data, taskID)
	}

	// tasks/result: the tool's result with the related task; a tool's error fails the task
	// in 2025-11-25 and tasks/result returns its isError result; a failure without a result is
	// the JSON-RPC error.
	done := legacyResult(t, "tools/call", c.legacyCall(8, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0, "label": "z"}, "task": map[string]any{}}))["task"].(map[string]any)["taskId"].(string)
	res := legacyResult(t, "tasks/result", c.legacyCall(9, "tasks/result", map[string]any{"taskId": done}))
	if meta, _ := res["_meta"].(map[string]any); !strings.Contains(fmt.Sprint(res["content"]), "computed z") || fmt.Sprint(meta[tasks.MetaRelatedTask]) != "map[taskId:"+done+"]" {
		t.Errorf("tasks/result = %v", res)
	}
	failing := legacyResult(t, "failing_job", c.legacyCall(10, "tools/call", map[string]any{"name": "failing_job", "task": map[string]any{}}))["task"].(map[string]any)["taskId"].(string)
	if got := legacyResult(t, "tasks/get", c.legacyCall(11, "tasks/get", map[string]any{"taskId": failing})); got["status"] != "failed" {
		t.Errorf("tasks/get of a tool's error = %v", got)
	}
	if res := legacyResult(t, "tasks/result", c.legacyCall(12, "tasks/result", map[string]any{"taskId": failing})); res["isError"] != true {
		t.Errorf("tasks/result of a tool's error = %v", res)
	}
	broken := legacyResult(t, "protocol_error_job", c.legacyCall(13, "tools/call", map[string]any{"name": "protocol_error_job", "task": map[string]any{}}))["task"].(map[string]any)["taskId"].(string)
	legacyError(t, "tasks/result of a failed job", c.legacyCall(14, "tasks/result", map[string]any{"taskId": broken}), jsonrpc.CodeInternalError)

	// A tool that answers inline runs as a task when asked; plainly, it answers inline.
	greet := legacyResult(t, "greet as a task", c.legacyCall(15, "tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "x"}, "task": map[string]any{}}))
	if task, _ := greet["task"].(map[string]any); task == nil {
		t.Errorf("greet as a task = %v", greet)
	} else if res := legacyResult(t, "tasks/result", c.legacyCall(20, "tasks/result", map[string]any{"taskId": task["taskId"]})); !strings.Contains(fmt.Sprint(res["content"]), "Hello, x!") {
		t.Errorf("tasks/result of greet = %v", res)
	}
	if res := legacyResult(t, "greet", c.legacyCall(21, "tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "y"}})); res["task"] != nil {
		t.Errorf("greet without a task = %v", res)
	}
	// A task-only tool called plainly: -32601.
	legacyError(t, "failing_job plainly", c.legacyCall(16, "tools/call", map[string]any{"name": "failing_job"}), jsonrpc.CodeMethodNotFound)
	// Unknown tasks and cursors: -32602.
	legacyError(t, "unknown task", c.legacyCall(17, "tasks/get", map[string]any{"taskId": "nope"}), jsonrpc.CodeInvalidParams)
	legacyError(t, "bad cursor", c.legacyCall(18, "tasks/list", map[string]any{"cursor": "x"}), jsonrpc.CodeInvalidParams)
	// The 2026-07-28 extension's method is not one of 2025-11-25.
	legacyError(t, "tasks/update", c.legacyCall(19, "tasks/update", map[string]any{"taskId": taskID}), jsonrpc.CodeMethodNotFound)
}
