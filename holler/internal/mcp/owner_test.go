package mcp

import (
	"context"
	"strings"
	"sync"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/hooteproto"
)

// ownedJobs wraps the backend of jt with what a worker does with the caller of each call: a job
// records the caller that started it, and the job tools answer another caller below the admin
// tier as for a job that does not exist.
func ownedJobs(jt *jobTable) *fakeBackend {
	b := jt.backend()
	inner := b.override
	var mu sync.Mutex
	owners := map[string]string{}
	b.override = func(ctx context.Context, service string, p *hootv1.Payload) (*hootv1.Result, error) {
		c := hooteproto.CallerFrom(ctx)
		var id string
		switch x := p.GetRequest().(type) {
		case *hootv1.Payload_JobStatus:
			id = x.JobStatus.GetId()
		case *hootv1.Payload_JobCancel:
			id = x.JobCancel.GetId()
		case *hootv1.Payload_JobAnswer:
			id = x.JobAnswer.GetId()
		}
		mu.Lock()
		owner := owners[id]
		mu.Unlock()
		if id != "" && c != nil && c.GetTier() < hootv1.Tier_TIER_ADMIN && owner != c.GetPrincipal() {
			return nil, hooteproto.NewError(hooteproto.CodeNotFound, "no such job: "+id)
		}
		res, err := inner(ctx, service, p)
		if js := res.GetJobStarted(); js != nil {
			mu.Lock()
			owners[js.GetJobId()] = c.GetPrincipal()
			mu.Unlock()
		}
		return res, err
	}
	return b
}

// TestAttackLegacyTasksOfAnotherToken has an admin start a task in a 2025-11-25 session and
// another token, in a session of its own, try tasks/get, tasks/result and tasks/cancel on it:
// each answers as for an unknown task, because the gateway names the caller on every call of
// the job tools and the worker keeps jobs to their caller. The admin reads and cancels it.
func TestAttackLegacyTasksOfAnotherToken(t *testing.T) {
	t.Parallel()
	jt := newJobTable()
	s, err := NewServer(&Config{Backend: ownedJobs(jt), MaxTier: hootv1.Tier_TIER_STANDARD})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	client, standard, admin := guardedServer(t, s)
	open := func(token string) *mcpHTTP {
		c := client(token)
		a := c.post(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{}},"clientInfo":{"name":"t","version":"0"}}}`, nil)
		c.session = a.header.Get(headerSessionID)
		c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
		return c
	}
	root, alice := open(admin), open(standard)

	created := legacyResult(t, "tools/call", root.legacyCall(1, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 60}, "task": map[string]any{}}))
	taskID := created["task"].(map[string]any)["taskId"].(string)

	for i, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		r := alice.legacyCall(10+i, m, map[string]any{"taskId": taskID})
		legacyError(t, m+" of the admin's task by another token", r, jsonrpc.CodeInvalidParams)
		if r.Error != nil && (!strings.Contains(r.Error.Message, "unknown task") || strings.Contains(r.Error.Message, "root")) {
			t.Errorf("%s: %q, want an unknown task naming no owner", m, r.Error.Message)
		}
	}
	if got := legacyResult(t, "tasks/list", alice.legacyCall(20, "tasks/list", map[string]any{}))["tasks"].([]any); len(got) != 0 {
		t.Errorf("tasks/list of another token = %v", got)
	}
	jt.mu.Lock()
	cancelled := len(jt.cancelled)
	jt.mu.Unlock()
	if cancelled != 0 {
		t.Fatalf("another token cancelled the admin's task")
	}

	if got := legacyResult(t, "tasks/get", root.legacyCall(30, "tasks/get", map[string]any{"taskId": taskID})); got["status"] != "working" {
		t.Errorf("tasks/get by the admin = %v", got)
	}
	if got := legacyResult(t, "tasks/list", root.legacyCall(31, "tasks/list", map[string]any{}))["tasks"].([]any); len(got) != 1 {
		t.Errorf("tasks/list by the admin = %v", got)
	}
	if got := legacyResult(t, "tasks/cancel", root.legacyCall(32, "tasks/cancel", map[string]any{"taskId": taskID})); got["status"] != "cancelled" {
		t.Errorf("tasks/cancel by the admin = %v", got)
	}
}
