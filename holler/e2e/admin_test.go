package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func toolNames(t *testing.T, s *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var names []string
	for tool, err := range s.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// TestAdminToolRefusedByDefault checks that a gateway started without --max-tier neither lists
// nor runs storage_gc, and says how to allow it.
func TestAdminToolRefusedByDefault(t *testing.T) {
	t.Parallel()
	s := connectHTTP(t, startStack(t))
	c := newCaller(t, s)
	if names := toolNames(t, s); slices.Contains(names, "storage_gc") {
		t.Errorf("tools/list on a default gateway shows storage_gc: %v", names)
	}
	c.fail("storage_gc", map[string]any{"dry_run": true}, "permission_denied", "ADMIN", "--max-tier admin")
	// Nothing reached a worker: no job was started.
	if jobs := list(c.call("job_list", map[string]any{"tool": "storage_gc"})["jobs"]); len(jobs) != 0 {
		t.Errorf("a refused storage_gc started jobs: %v", jobs)
	}
}

// TestAdminToolWithTierRaised runs storage_gc through a gateway that allows admin tools, from a
// client whose user confirms every call: a dry run and a real run over a store holding one
// named and one young object, neither of which may go.
func TestAdminToolWithTierRaised(t *testing.T) {
	t.Parallel()
	s := connectHTTPWith(t, startStackWith(t, func(cfg *gateway.Config) { cfg.MaxTier = hootv1.Tier_TIER_ADMIN }),
		&mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		}})
	c := newCaller(t, s)
	if names := toolNames(t, s); !slices.Contains(names, "storage_gc") {
		t.Fatalf("tools/list with --max-tier admin lacks storage_gc: %v", names)
	}
	named := toString(obj(c.call("artifact_create", map[string]any{"content": "X:1\nK:D\nDEFG|"}), "artifact")["hash"])
	young := toString(c.call("cas_store", map[string]any{"content": "stored, not yet named"})["hash"])

	run := func(args map[string]any) map[string]any {
		t.Helper()
		started := c.call("storage_gc", args)
		id := toString(started["job_id"])
		if started["tool"] != "storage_gc" || id == "" {
			t.Fatalf("storage_gc %v = %v, want a job", args, started)
		}
		jobs := list(c.call("job_await", map[string]any{"ids": []any{id}, "timeout_ms": 20000})["jobs"])
		if len(jobs) != 1 || obj(jobs[0])["status"] != "JOB_STATUS_SUCCEEDED" {
			t.Fatalf("storage_gc job = %v", jobs)
		}
		return obj(jobs[0], "result", "storage_gc")
	}
	for _, args := range []map[string]any{{"dry_run": true}, {}} {
		res := run(args)
		if jsonNumber(res["objects_examined"]) != 2 || jsonNumber(res["objects_named"]) != 1 || jsonNumber(res["objects_young"]) != 1 ||
			jsonNumber(res["objects_removed"]) > 0 || jsonNumber(res["min_age_seconds"]) != 86400 {
			t.Errorf("storage_gc %v = %v; want 2 examined, 1 named, 1 young, nothing removed", args, res)
		}
	}
	for _, h := range []string{named, young} {
		if got := c.call("cas_inspect", map[string]any{"hash": h}); got["hash"] != h {
			t.Errorf("cas_inspect %s after storage_gc = %v", h, got)
		}
	}
	// The age floor is enforced by the gateway, before a job starts.
	c.fail("storage_gc", map[string]any{"min_age_seconds": 60}, "min_age_seconds", "600")
}
