package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// caller calls tools on one session and decodes their structured results.
type caller struct {
	t   *testing.T
	s   *mcp.ClientSession
	ctx context.Context
}

func newCaller(t *testing.T, s *mcp.ClientSession) *caller {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return &caller{t: t, s: s, ctx: ctx}
}

// call calls a tool that must succeed and returns its structured result.
func (c *caller) call(name string, args map[string]any) map[string]any {
	c.t.Helper()
	res, err := c.s.CallTool(c.ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		c.t.Fatalf("%s %v: tool error: %s", name, args, text(res))
	}
	m, ok := res.StructuredContent.(map[string]any)
	if !ok {
		c.t.Fatalf("%s: structured content %T", name, res.StructuredContent)
	}
	return m
}

// fail calls a tool that must fail and returns the error's text.
func (c *caller) fail(name string, args map[string]any, want ...string) string {
	c.t.Helper()
	res, err := c.s.CallTool(c.ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError {
		c.t.Errorf("%s %v: want a tool error, got %s", name, args, text(res))
		return ""
	}
	for _, w := range want {
		if !strings.Contains(text(res), w) {
			c.t.Errorf("%s %v: error %q does not mention %q", name, truncateArgs(args), text(res), w)
		}
	}
	return text(res)
}

func truncateArgs(args map[string]any) string {
	s := fmt.Sprint(args)
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// obj and list walk decoded JSON.
func obj(v any, path ...string) map[string]any {
	m, _ := v.(map[string]any)
	for _, p := range path {
		m, _ = m[p].(map[string]any)
	}
	return m
}

func list(v any) []any { l, _ := v.([]any); return l }

func idsIn(v any) []string {
	var out []string
	for _, a := range list(v) {
		out = append(out, toString(obj(a)["id"]))
	}
	return out
}

func TestArtifactsOverHTTP(t *testing.T) {
	t.Parallel()
	c := newCaller(t, connectHTTP(t, startStack(t)))

	// Four generations: seed -> arrangement -> two takes (a variation set) -> mix of both.
	seed := obj(c.call("artifact_create", map[string]any{
		"content": "X:1\nK:C\nCDEF|", "mime_type": "text/vnd.abc", "tags": []any{"seed", "abc"}, "creator": "composer",
	}), "artifact")
	seedID := toString(seed["id"])
	if !strings.HasPrefix(seedID, "art_") || len(toString(seed["hash"])) != 64 || seed["mime_type"] != "text/vnd.abc" {
		t.Fatalf("seed = %v", seed)
	}
	// An artifact is also a resource: its content, read through the wire.
	rr, err := c.s.ReadResource(c.ctx, &mcp.ReadResourceParams{URI: "hoot://artifact/" + seedID})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "X:1\nK:C\nCDEF|" {
		t.Errorf("resources/read hoot://artifact/%s = %+v, %v", seedID, rr, err)
	}
	if _, err := c.s.ReadResource(c.ctx, &mcp.ReadResourceParams{URI: "hoot://artifact/art_00000000000000000000000000"}); err == nil {
		t.Error("resources/read of an unknown artifact succeeded")
	}
	stored := c.call("cas_store", map[string]any{"content_base64": base64.StdEncoding.EncodeToString([]byte("MThd\x00\x00\x00\x06")), "mime_type": "audio/midi"})
	arr := obj(c.call("artifact_create", map[string]any{
		"hash": stored["hash"], "parent_ids": []any{seedID}, "creator": "arranger",
		"metadata": map[string]any{"midi": map[string]any{"format": 1, "tracks": 2, "ticks_per_quarter": 480}},
	}), "artifact")
	arrID := toString(arr["id"])
	if arr["mime_type"] != "audio/midi" || obj(arr, "metadata", "midi")["tracks"] != float64(2) {
		t.Errorf("arrangement = %v", arr)
	}
	var takes []string
	for i := range 2 {
		take := obj(c.call("artifact_create", map[string]any{
			"content_base64": base64.StdEncoding.EncodeToString([]byte{byte(i), 0xff}), "mime_type": "audio/wav",
			"parent_ids": []any{arrID}, "variation_set": "takes", "tags": []any{"take"},
			"metadata": map[string]any{"audio": map[string]any{"sample_rate": 44100, "channels": 2}},
		}), "artifact")
		if take["variation_index"] != float64(i+1) {
			t.Errorf("take %d = %v", i, take)
		}
		takes = append(takes, toString(take["id"]))
	}
	mix := obj(c.call("artifact_create", map[string]any{"content": "mix", "parent_ids": []any{takes[0], takes[1]}, "tags": []any{"mix"}}), "artifact")
	mixID := toString(mix["id"])

	got := c.call("artifact_get", map[string]any{"id": arrID})
	if !slices.Equal(idsIn(got["parents"]), []string{seedID}) || !slices.Equal(idsIn(got["children"]), takes) {
		t.Errorf("artifact_get(arrangement) = %v", got)
	}
	got = c.call("artifact_get", map[string]any{"id": mixID})
	if !slices.Equal(idsIn(got["parents"]), takes) || len(list(got["children"])) != 0 {
		t.Errorf("artifact_get(mix) = %v", got)
	}

	c.call("artifact_annotate", map[string]any{"artifact_id": takes[1], "message": "the keeper", "vibe": "bright", "source": "listener"})
	tagged := obj(c.call("artifact_tag", map[string]any{"artifact_id": takes[1], "add": []any{"keeper"}, "remove": []any{"take"}}), "artifact")
	if !slices.Equal(toStrings(tagged["tags"]), []string{"keeper"}) {
		t.Errorf("artifact_tag = %v", tagged)
	}
	got = c.call("artifact_get", map[string]any{"id": takes[1]})
	if anns := list(got["annotations"]); len(anns) != 1 || obj(anns[0])["vibe"] != "bright" {
		t.Errorf("annotations = %v", got["annotations"])
	}

	for _, tc := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"tag": "take"}, []string{takes[0]}},
		{map[string]any{"parent_id": arrID}, []string{takes[1], takes[0]}},
		{map[string]any{"creator": "composer"}, []string{seedID}},
		{map[string]any{"variation_set": "takes"}, []string{takes[1], takes[0]}},
		{map[string]any{"since": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}, nil},
	} {
		if got := idsIn(c.call("artifact_list", tc.args)["artifacts"]); !slices.Equal(got, tc.want) {
			t.Errorf("artifact_list %v = %v, want %v", tc.args, got, tc.want)
		}
	}
	// Pages of two, newest first, cover all five.
	var paged []string
	cursor := ""
	for range 5 {
		args := map[string]any{"limit": 2}
		if cursor != "" {
			args["cursor"] = cursor
		}
		page := c.call("artifact_list", args)
		paged = append(paged, idsIn(page["artifacts"])...)
		if cursor = toString(page["next_cursor"]); cursor == "" {
			break
		}
	}
	if want := []string{mixID, takes[1], takes[0], arrID, seedID}; !slices.Equal(paged, want) {
		t.Errorf("pages = %v, want %v", paged, want)
	}

	stats := c.call("storage_stats", nil)
	if jsonNumber(stats["artifacts"]) != 5 || jsonNumber(stats["annotations"]) != 1 || jsonNumber(stats["objects"]) != 5 {
		t.Errorf("storage_stats = %v", stats)
	}

	// Bad input everywhere is a specific error and changes nothing.
	missing := "art_00000000000000000000000000"
	c.fail("artifact_get", map[string]any{"id": missing}, "not_found", missing, "artifact_list")
	c.fail("artifact_get", map[string]any{"id": "nope"}, "id", "art_")
	c.fail("artifact_create", map[string]any{"hash": strings.Repeat("ab", 32)}, "not_found", "cas_store")
	c.fail("artifact_create", map[string]any{"hash": "ABC"}, "hash")
	c.fail("artifact_create", map[string]any{"content": "x", "parent_ids": []any{seedID, missing}}, "parent_ids[1]", missing)
	c.fail("artifact_create", map[string]any{"content": strings.Repeat("x", 8<<20+1)}, "content", "8388608")
	c.fail("artifact_create", map[string]any{"content": "x", "tags": []any{"Not A Tag"}}, "tags[0]")
	c.fail("artifact_annotate", map[string]any{"artifact_id": missing, "message": "hi"}, "not_found", "artifact_id")
	c.fail("artifact_tag", map[string]any{"artifact_id": missing, "add": []any{"x"}}, "not_found")
	c.fail("artifact_list", map[string]any{"cursor": "zzz"}, "cursor")
	if again := c.call("storage_stats", nil); jsonNumber(again["artifacts"]) != 5 || jsonNumber(again["objects"]) != 5 || jsonNumber(again["annotations"]) != 1 {
		t.Errorf("bad calls changed the store: %v", again)
	}
}

func TestJobsOverHTTP(t *testing.T) {
	t.Parallel()
	c := newCaller(t, connectHTTP(t, startStack(t)))
	var hashes []any
	for i := range 5 {
		hashes = append(hashes, c.call("cas_store", map[string]any{"content": fmt.Sprintf("object %d", i)})["hash"])
	}
	// A tool of kind JOB answers at once with the job; job_await returns its typed result.
	started := c.call("cas_verify", nil)
	jobID := toString(started["job_id"])
	if !strings.HasPrefix(jobID, "job_") || started["tool"] != "cas_verify" {
		t.Fatalf("cas_verify = %v", started)
	}
	one := toString(c.call("cas_verify", map[string]any{"hashes": []any{hashes[0], strings.Repeat("0", 64)}})["job_id"])
	awaited := c.call("job_await", map[string]any{"ids": []any{jobID, one}, "timeout_ms": 20000})
	jobs := list(awaited["jobs"])
	if awaited["timed_out"] != false || len(jobs) != 2 {
		t.Fatalf("job_await = %v", awaited)
	}
	all := obj(jobs[0])
	if all["status"] != "JOB_STATUS_SUCCEEDED" || jsonNumber(obj(all, "result", "cas_verify")["checked"]) != 5 || all["progress"] != float64(5) {
		t.Errorf("job of cas_verify over all = %v", all)
	}
	if problems := list(obj(jobs[1], "result", "cas_verify")["problems"]); len(problems) != 1 || !strings.HasPrefix(toString(obj(problems[0])["problem"]), "missing") {
		t.Errorf("job of cas_verify over two = %v", jobs[1])
	}
	status := obj(c.call("job_status", map[string]any{"id": jobID}), "job")
	if status["status"] != "JOB_STATUS_SUCCEEDED" || obj(status, "result", "cas_verify") == nil {
		t.Errorf("job_status = %v", status)
	}
	listed := c.call("job_list", map[string]any{"tool": "cas_verify"})
	if got := idsIn(listed["jobs"]); !slices.Equal(got, []string{one, jobID}) {
		t.Errorf("job_list = %v, want the two jobs newest first", got)
	}
	// Cancelling a finished job changes nothing.
	if j := obj(c.call("job_cancel", map[string]any{"id": jobID}), "job"); j["status"] != "JOB_STATUS_SUCCEEDED" {
		t.Errorf("job_cancel(finished) = %v", j)
	}
	// Await any: one job is enough.
	quick := toString(c.call("cas_verify", map[string]any{"hashes": []any{hashes[1]}})["job_id"])
	if j := obj(list(c.call("job_await", map[string]any{"ids": []any{quick}, "mode": "AWAIT_MODE_ANY"})["jobs"])[0]); j["status"] != "JOB_STATUS_SUCCEEDED" {
		t.Errorf("job = %v", j)
	}

	missing := "job_00000000000000000000000000"
	c.fail("job_status", map[string]any{"id": missing}, "not_found", "job_list")
	c.fail("job_cancel", map[string]any{"id": missing}, "not_found")
	c.fail("job_await", map[string]any{"ids": []any{jobID, missing}}, "not_found", "ids[1]")
	c.fail("job_await", map[string]any{"ids": []any{}}, "ids")
	c.fail("job_await", map[string]any{"ids": []any{jobID}, "timeout_ms": 60000}, "timeout_ms", "50000")
	c.fail("job_list", map[string]any{"status": "JOB_STATUS_WHATEVER"}, "status")
	c.fail("cas_verify", map[string]any{"hashes": []any{"xyz"}}, "hashes[0]")
}

func toStrings(v any) []string {
	var out []string
	for _, x := range list(v) {
		out = append(out, toString(x))
	}
	return out
}
