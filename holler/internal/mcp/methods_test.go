package mcp

import (
	"encoding/json"
	"slices"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
)

// TestTasksOverStdio runs a task of the 2026-07-28 era over stdio as over HTTP: the tasks
// methods go through the same method table, so the transport makes no difference.
func TestTasksOverStdio(t *testing.T) {
	t.Parallel()
	jt := newJobTable()
	s, err := NewServer(&Config{Backend: jt.backend(), MaxTier: hootv1.Tier_TIER_STANDARD})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := newMCPStdio(t, s)

	c.send(modernLine(1, methodToolsCall, withTasks(map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 60}})))
	var created map[string]any
	if r := c.recv(); r.Error != nil || json.Unmarshal(r.Result, &created) != nil || created["resultType"] != "task" {
		t.Fatalf("tools/call with a task over stdio = %s %+v", r.Result, r.Error)
	}
	taskID, _ := created["taskId"].(string)

	c.send(modernLine(2, methodTasksGet, withTasks(map[string]any{"taskId": taskID})))
	var got map[string]any
	if r := c.recv(); r.Error != nil || json.Unmarshal(r.Result, &got) != nil || got["taskId"] != taskID || got["status"] != tasks.Working {
		t.Fatalf("tasks/get over stdio = %s %+v", r.Result, r.Error)
	}
	c.send(modernLine(3, methodTasksGet, withTasks(map[string]any{})))
	if r := c.recv(); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("tasks/get without a taskId over stdio = %s %+v, want -32602", r.Result, r.Error)
	}
	// A request that does not declare the extension is refused it, as over HTTP.
	c.send(modernLine(4, methodTasksGet, map[string]any{"taskId": taskID}))
	if r := c.recv(); r.Error == nil || r.Error.Code != era.CodeMissingCapability {
		t.Fatalf("tasks/get without the extension over stdio = %s %+v, want %d", r.Result, r.Error, era.CodeMissingCapability)
	}
}

// TestMethodTable checks the table against what the server says of itself: every method that
// server/discover's capabilities imply is answered in the modern era, the legacy-only methods are
// not, and the methods errors name in the legacy era are the ones it answers.
func TestMethodTable(t *testing.T) {
	t.Parallel()
	s, err := NewServer(&Config{Backend: fixtureBackend()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	modern := s.modernMethods()
	for _, m := range []string{era.MethodDiscover, methodListen, methodToolsList, methodToolsCall, methodPromptsList, methodPromptsGet,
		methodResourcesList, methodResourcesRead, methodResourceTemplates, methodComplete} {
		if !slices.Contains(modern, m) || !s.modernMethod(m) {
			t.Errorf("the modern era lacks %s: %v", m, modern)
		}
	}
	for _, m := range []string{methodInitialize, methodPing, methodSetLevel, methodSubscribe, methodUnsubscribe, methodTasksResult, methodTasksList, notifyCancelled} {
		if slices.Contains(modern, m) || s.modernMethod(m) {
			t.Errorf("the modern era answers %s, a method of the legacy era only", m)
		}
	}
	// The tasks methods are offered with the tools of jobs, as discover declares the extension.
	for _, m := range []string{methodTasksGet, methodTasksUpdate, methodTasksCancel} {
		if s.modernMethod(m) != s.tasksSupported() || s.modernMethod(m) != (s.tasks.Extensions() != nil) {
			t.Errorf("%s offered %v, tasks supported %v", m, s.modernMethod(m), s.tasksSupported())
		}
	}
	for _, m := range methodList {
		row := methodByName[m]
		if row == nil || (row.legacy == nil && row.notify == nil) {
			t.Errorf("methodList names %s, which the legacy era does not answer", m)
		}
	}
	seen := map[string]bool{}
	for _, row := range methodTable {
		if seen[row.name] {
			t.Errorf("%s has two rows", row.name)
		}
		seen[row.name] = true
		if row.legacy == nil && row.modern == nil && row.notify == nil && !row.byTransport {
			t.Errorf("%s is served by nothing", row.name)
		}
	}
}
