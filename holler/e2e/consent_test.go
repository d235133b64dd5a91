package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/hootenanny/hoot/hooteproto"
)

// waitServices waits until g's workers serve services.
func waitServices(t *testing.T, g *servedGateway, services ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := g.g.WaitForServices(ctx, services...); err != nil {
		t.Fatal(err)
	}
}

// TestAttackRequestStateReplayAcrossGateways accepts one confirmation of storage_gc (an admin
// tool) in a 2026-07-28 round on one gateway, then replays the accepted retry on a second
// gateway of the same fleet (same state key, same worker and database) and on the first
// gateway after a restart: both refuse it as already used, and the tool ran once.
func TestAttackRequestStateReplayAcrossGateways(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := []byte("the state key this fleet's gateways share")
	cfg := gateway.Config{DataDir: dir, StateKey: key, MaxTier: hootv1.Tier_TIER_ADMIN}
	a, b := serveGatewayWith(t, cfg), serveGatewayWith(t, cfg)
	endpointA := a.g.WorkerEndpoint()
	services := []string{hootv1hoot.ArtifactServiceName, hootv1hoot.JobServiceName, hooteproto.LedgerService}
	startSharedWorker(t, []*servedGateway{a, b}, []string{"--data", dir, "--heartbeat", "500ms", "--log-level", "warn"}, services...)

	caps := map[string]any{"elicitation": map[string]any{}}
	gc := func(g *servedGateway, extra map[string]any) map[string]any {
		p := map[string]any{"name": "storage_gc", "arguments": map[string]any{"dry_run": true}}
		for k, v := range extra {
			p[k] = v
		}
		_, r := modernCall(t, g.base+"/mcp", "tools/call", "storage_gc", caps, p)
		return r
	}
	first := gc(a, nil)
	res, _ := first["result"].(map[string]any)
	asked, _ := res["inputRequests"].(map[string]any)
	state, _ := res["requestState"].(string)
	var q string
	for k := range asked {
		q = k
	}
	if res["resultType"] != "input_required" || len(asked) != 1 || !strings.HasPrefix(q, "confirm-") || state == "" {
		t.Fatalf("storage_gc without a confirmation = %v, want the question", first)
	}
	retry := map[string]any{"requestState": state,
		"inputResponses": map[string]any{q: map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}}
	ran := gc(a, retry)
	if r, _ := ran["result"].(map[string]any); r == nil || r["isError"] == true || toString(obj(r["structuredContent"])["job_id"]) == "" {
		t.Fatalf("the confirmed storage_gc = %v, want a job", ran)
	}

	refused := func(where string, r map[string]any) {
		t.Helper()
		e, _ := r["error"].(map[string]any)
		data, _ := e["data"].(map[string]any)
		if e["code"] != float64(-32602) || !strings.Contains(toString(e["message"]), "already used") ||
			!strings.Contains(toString(data["hint"]), "Call storage_gc again") {
			t.Errorf("the accepted retry replayed %s = %v; want -32602 saying it was already used and to call again", where, r)
		}
	}
	refused("on another gateway of the fleet", gc(b, retry))

	// The first gateway restarts on the same worker endpoint, with nothing in memory.
	a.stop()
	a2 := serveGatewayWith(t, gateway.Config{DataDir: dir, StateKey: key, MaxTier: hootv1.Tier_TIER_ADMIN, WorkerEndpoint: endpointA})
	waitServices(t, a2, services...)
	refused("on the first gateway after a restart", gc(a2, retry))

	// storage_gc ran once: one job, whichever gateway lists them.
	_, list := modernCall(t, a2.base+"/mcp", "tools/call", "job_list", caps,
		map[string]any{"name": "job_list", "arguments": map[string]any{"tool": "storage_gc"}})
	lr, _ := list["result"].(map[string]any)
	if jobs := obj(lr["structuredContent"])["jobs"]; len(jobs.([]any)) != 1 {
		t.Fatalf("storage_gc jobs after one confirmation and two replays = %v, want 1", jobs)
	}
}

// TestAttackJobsOfAnotherToken serves a gateway behind tokens: an admin starts a task that
// waits for an answer, and another standard token tries every way to reach it (the job tools
// and the tasks methods); each answers as for a job that does not exist, and job_list leaves
// it out. The admin may do all of it, and a standard token keeps its own jobs.
func TestAttackJobsOfAnotherToken(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "tokens")
	rootToken, err := access.AddToken(file, "root", hootv1.Tier_TIER_ADMIN)
	if err != nil {
		t.Fatal(err)
	}
	annToken, _ := access.AddToken(file, "ann", hootv1.Tier_TIER_STANDARD)
	bobToken, _ := access.AddToken(file, "bob", hootv1.Tier_TIER_STANDARD)
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
		cfg.MaxTier = hootv1.Tier_TIER_ADMIN
		cfg.WorkerCommand = append(cfg.WorkerCommand, "--conformance")
		cfg.Conformance = true
	})
	root := &modernClient{t: t, url: url, token: rootToken}
	ann := &modernClient{t: t, url: url, token: annToken}
	bob := &modernClient{t: t, url: url, token: bobToken}

	// The admin's task asks for a confirmation and waits for it.
	taskID := toString(root.callTool("confirm_delete", map[string]any{"filename": "x.txt"})["taskId"])
	jobID, _, _ := strings.Cut(taskID, ".")
	var waiting map[string]any
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if waiting = root.task("tasks/get", taskID); waiting["status"] == "input_required" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the admin's task never waited for input: %v", waiting)
		}
	}
	answers := map[string]any{}
	for k := range waiting["inputRequests"].(map[string]any) {
		answers[k] = map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}
	}

	// Another standard token: the tasks methods answer as for an unknown task.
	for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
		p := map[string]any{"taskId": taskID}
		if m == "tasks/update" {
			p["inputResponses"] = answers
		}
		a := ann.request(m, p, taskID, false)
		if a.err == nil || a.err.Code != -32602 || !strings.Contains(a.err.Message, "unknown task") || strings.Contains(a.err.Message, "root") {
			t.Errorf("%s of the admin's task by another token = %+v, %v; want an unknown task, naming no owner", m, a.err, a.result)
		}
	}
	// ... and so do the job tools, each the same as for a job that does not exist.
	missing := "job_01jd8x2k3m4n5p6q7r8s9t0vwx"
	toolFails := func(c *modernClient, tool string, args map[string]any) string {
		t.Helper()
		r := c.request("tools/call", map[string]any{"name": tool, "arguments": args}, tool, false).result
		text := fmt.Sprint(r["content"])
		if r["isError"] != true || !strings.Contains(text, "no such job") || strings.Contains(text, "root") {
			t.Errorf("%s of the admin's job by another token = %v; want not found, naming no owner", tool, r)
		}
		return text
	}
	other := toolFails(ann, "job_status", map[string]any{"id": jobID})
	none := toolFails(ann, "job_status", map[string]any{"id": missing})
	if strings.ReplaceAll(other, jobID, "ID") != strings.ReplaceAll(none, missing, "ID") {
		t.Errorf("another's job (%s) is told apart from a missing one (%s)", other, none)
	}
	toolFails(ann, "job_await", map[string]any{"ids": []any{jobID}, "timeout_ms": 10})
	toolFails(ann, "job_answer", map[string]any{"id": jobID, "answers": map[string]any{}})
	toolFails(bob, "job_cancel", map[string]any{"id": jobID})
	listed := func(c *modernClient) []any {
		t.Helper()
		r := c.callTool("job_list", map[string]any{})
		jobs, _ := obj(r["structuredContent"])["jobs"].([]any)
		return jobs
	}
	if jobs := listed(ann); len(jobs) != 0 {
		t.Errorf("job_list of another token = %v, want none of the admin's", jobs)
	}
	// The query graph reads jobs as the job tools do.
	q := ann.callTool("artifact_query", map[string]any{"query": fmt.Sprintf(`{ job(id: %q) { id } jobs { id } }`, jobID)})
	if s := fmt.Sprint(q["structuredContent"]); q["isError"] == true || !strings.Contains(s, "jobs") || strings.Contains(s, jobID) {
		t.Errorf("artifact_query of another token shows the admin's job: %s", s)
	}
	if got := root.task("tasks/get", taskID); got["status"] != "input_required" {
		t.Fatalf("after the attempts the admin's task = %v, want it still waiting", got)
	}

	// Ann's own task is hers, and not bob's.
	mine := toString(ann.callTool("slow_compute", map[string]any{"seconds": 1, "label": "ann"})["taskId"])
	if got := ann.task("tasks/get", mine); got["taskId"] != mine {
		t.Errorf("tasks/get of her own task = %v", got)
	}
	if a := bob.request("tasks/get", map[string]any{"taskId": mine}, mine, false); a.err == nil || !strings.Contains(a.err.Message, "unknown task") {
		t.Errorf("tasks/get of ann's task by bob = %+v", a.err)
	}

	// The admin reads every job and answers its own task.
	if jobs := listed(root); len(jobs) != 2 {
		t.Errorf("job_list of the admin = %v, want both jobs", jobs)
	}
	if r := root.callTool("job_status", map[string]any{"id": jobID}); obj(obj(r["structuredContent"])["job"])["id"] != jobID {
		t.Errorf("job_status by the admin = %v", r)
	}
	root.ok("tasks/update", map[string]any{"taskId": taskID, "inputResponses": answers}, taskID)
	if got := root.awaitTask(taskID, 20*time.Second); got["status"] != "completed" {
		t.Errorf("the admin's answered task = %v, want completed", got)
	}
}
