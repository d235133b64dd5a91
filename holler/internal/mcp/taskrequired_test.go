package mcp

import (
	"net/http"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
)

// TestTaskRequiredWithoutExtension: a modern call of a tool that runs only as a task, from a
// client that does not declare the tasks extension, is refused with -32021 and 400 before it
// reaches a worker, on a server whose other tools need no task; a server without such a tool
// lets the same client's calls through.
func TestTaskRequiredWithoutExtension(t *testing.T) {
	t.Parallel()
	b, c := newAskServer(t)
	a := c.modernCall(1, "tools/call", askCall("test_tool_with_task", map[string]any{"name": "x"}, map[string]any{"elicitation": map[string]any{}}, nil), nil)
	if r := a.last(t); r.Error == nil || r.Error.Code != era.CodeMissingCapability || a.status != http.StatusBadRequest ||
		!strings.Contains(r.Error.Message, "runs only as a task") {
		t.Fatalf("a task-required tool without the extension: %d %s", a.status, a.body)
	}
	if n := b.calls.Load(); n != 0 {
		t.Fatalf("the refused call reached the backend (%d calls)", n)
	}

	// The same tools but the task-required one: nothing is refused for want of the extension.
	var tools = askTools(t)
	kept := tools[:0]
	for _, x := range tools {
		if !x.TaskRequired {
			kept = append(kept, x)
		}
	}
	s, err := NewServer(&Config{Backend: newAskBackend(), Tools: kept, MaxTier: hootv1.Tier_TIER_STANDARD})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.taskRequired {
		t.Fatal("a server without a task-required tool says it has one")
	}
	c2 := newMCPHTTP(t, s)
	a = c2.modernCall(2, "tools/call", askCall("echo", map[string]any{"message": "hi"}, map[string]any{}, nil), nil)
	if r := a.last(t); r.Error != nil || a.status != http.StatusOK {
		t.Fatalf("echo without the extension: %d %s", a.status, a.body)
	}
}
