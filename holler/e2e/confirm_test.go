package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStorageGCConfirmed calls storage_gc on a gateway started with --max-tier admin from the
// Go SDK's client, whose user is asked each time: a declined call starts no job, an accepted
// one starts a job; a client without elicitation is refused with the way to allow it.
func TestStorageGCConfirmed(t *testing.T) {
	t.Parallel()
	url := startStackWith(t, func(cfg *gateway.Config) { cfg.MaxTier = hootv1.Tier_TIER_ADMIN })

	var mu sync.Mutex
	var questions []*mcp.ElicitParams
	answer := "decline"
	s := connectHTTPWith(t, url, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		questions = append(questions, req.Params)
		if answer == "accept" {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		}
		return &mcp.ElicitResult{Action: answer}, nil
	}})
	c := newCaller(t, s)
	gcJobs := func() []any {
		t.Helper()
		return list(c.call("job_list", map[string]any{"tool": "storage_gc"})["jobs"])
	}

	res, err := s.CallTool(c.ctx, &mcp.CallToolParams{Name: "storage_gc", Arguments: map[string]any{"dry_run": true}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "declined") || !strings.Contains(text(res), "outcome declined") {
		t.Errorf("declined storage_gc = %s", text(res))
	}
	g, _ := res.Meta["hootenanny/guidance"].(map[string]any)
	if p := obj(g, "policy"); p["outcome"] != "declined" || p["confirmation"] != "required" || p["tier"] != "admin" || p["max_tier"] != "admin" {
		t.Errorf("declined storage_gc _meta = %v", res.Meta)
	}
	if jobs := gcJobs(); len(jobs) != 0 {
		t.Errorf("a declined storage_gc started jobs: %v", jobs)
	}
	mu.Lock()
	if len(questions) != 1 || !strings.Contains(questions[0].Message, "storage_gc") ||
		!strings.Contains(questions[0].Message, "destructive") || !strings.Contains(questions[0].Message, "dry_run: true") {
		t.Errorf("questions = %+v", questions)
	}
	answer = "accept"
	mu.Unlock()

	started := c.call("storage_gc", map[string]any{"dry_run": true})
	if id := toString(started["job_id"]); id == "" || started["tool"] != "storage_gc" {
		t.Fatalf("accepted storage_gc = %v, want a job", started)
	}
	if jobs := gcJobs(); len(jobs) != 1 {
		t.Errorf("after one accepted storage_gc, jobs = %v", jobs)
	}
	mu.Lock()
	if len(questions) != 2 {
		t.Errorf("%d questions after two calls", len(questions))
	}
	mu.Unlock()

	// A client that cannot ask its user is refused, and told how the call could be allowed.
	plain := newCaller(t, connectHTTP(t, url))
	plain.fail("storage_gc", map[string]any{"dry_run": true}, "permission_denied", "elicitation", "--confirm never", "client_cannot_elicit")
	if jobs := gcJobs(); len(jobs) != 1 {
		t.Errorf("a refused storage_gc started a job: %v", jobs)
	}
}
