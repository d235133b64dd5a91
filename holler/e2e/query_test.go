package e2e

import (
	"slices"
	"strings"
	"testing"
)

func TestQueryOverHTTP(t *testing.T) {
	t.Parallel()
	c := newCaller(t, connectHTTP(t, startStack(t)))
	// Five generations, each made from the one before, and a side branch from the first.
	var chain []string
	for i := range 5 {
		args := map[string]any{"content": strings.Repeat("v", i+1), "creator": "composer", "tags": []any{"gen"}}
		if i > 0 {
			args["parent_ids"] = []any{chain[i-1]}
		}
		chain = append(chain, toString(obj(c.call("artifact_create", args), "artifact")["id"]))
	}
	branch := toString(obj(c.call("artifact_create", map[string]any{"content": "branch", "parent_ids": []any{chain[0]}, "creator": "other"}), "artifact")["id"])
	c.call("artifact_annotate", map[string]any{"artifact_id": chain[4], "message": "final", "vibe": "proud"})

	field := func(res map[string]any, i int) map[string]any { return obj(list(res["data"])[i]) }

	// Ancestors over several generations, with the id and the depth as variables.
	res := c.call("artifact_query", map[string]any{
		"query":     `query Lineage($id: ID!, $depth: Int) { artifact(id: $id) { id ancestors(depth: $depth) { id creator } annotations { message vibe } } }`,
		"variables": map[string]any{"id": chain[4], "depth": 3},
	})
	art := obj(field(res, 0), "artifact")
	if got, want := idsIn(obj(art, "ancestors")["items"]), []string{chain[3], chain[2], chain[1]}; !slices.Equal(got, want) {
		t.Errorf("ancestors(depth: 3) = %v, want %v", got, want)
	}
	if anns := list(obj(art, "annotations")["items"]); len(anns) != 1 || obj(anns[0])["vibe"] != "proud" {
		t.Errorf("annotations = %v", art["annotations"])
	}
	if _, selected := art["tags"]; selected {
		t.Errorf("the answer holds tags, which the query did not select: %v", art)
	}

	// Descendants of the first generation reach all the others; aliases name top-level fields.
	res = c.call("artifact_query", map[string]any{
		"query":     `query Q($root: ID!, $who: String) { root: artifact(id: $root) { descendants(depth: 10) { id } } theirs: artifacts(creator: $who) { id } }`,
		"variables": map[string]any{"root": chain[0], "who": "other"},
	})
	if got := idsIn(obj(field(res, 0), "artifact", "descendants")["items"]); len(got) != 5 || !slices.Contains(got, branch) || !slices.Contains(got, chain[4]) {
		t.Errorf("descendants = %v", got)
	}
	if field(res, 1)["name"] != "theirs" || !slices.Equal(idsIn(obj(field(res, 1), "artifacts")["items"]), []string{branch}) {
		t.Errorf("theirs = %v", field(res, 1))
	}

	// Jobs are in the graph too.
	job := toString(c.call("cas_verify", nil)["job_id"])
	c.call("job_await", map[string]any{"ids": []any{job}})
	res = c.call("artifact_query", map[string]any{
		"query":     `query J($id: ID!) { job(id: $id) { id tool status } }`,
		"variables": map[string]any{"id": job},
	})
	if j := obj(field(res, 0), "job"); j["status"] != "JOB_STATUS_SUCCEEDED" || j["tool"] != "cas_verify" {
		t.Errorf("job = %v", j)
	}

	// Malformed queries get the place of the mistake.
	c.fail("artifact_query", map[string]any{"query": "{\n  artifacts { nope } }"}, "line 2, column 15", `"nope"`)
	c.fail("artifact_query", map[string]any{"query": "{ artifacts { id }"}, "line 1", "query")
	c.fail("artifact_query", map[string]any{"query": `query Q($id: ID!) { artifact(id: $id) { id } }`}, "variables", "id")
	c.fail("artifact_query", map[string]any{"query": `query Q($n: Int) { artifacts(limit: $n) { id } }`, "variables": map[string]any{"n": 100000}}, "1 to 500")
	c.fail("artifact_query", map[string]any{"query": strings.Repeat("{", 20000)}, "query", "16384")
	c.fail("artifact_query", map[string]any{"query": `{ artifacts { id } }`, "variables": "not an object"}, "variables")
}
