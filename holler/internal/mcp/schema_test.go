package mcp

import (
	"context"
	"slices"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

// TestSchemaHash: the hash is the same for the same tools on any server, and changes when a
// tool's description, schema or service changes, or a tool goes.
func TestSchemaHash(t *testing.T) {
	t.Parallel()
	hashOf := func(tools []hootv1hoot.Tool) string {
		s, _ := newTestServer(t, func(c *Config) { c.Tools = tools })
		return s.schemaHash(context.Background())
	}
	edit := func(f func(*hootv1hoot.Tool)) []hootv1hoot.Tool {
		tools := slices.Clone(testTools)
		i := slices.IndexFunc(tools, func(t hootv1hoot.Tool) bool { return t.Name == "echo" })
		if i < 0 {
			t.Fatal("no echo in the test tools")
		}
		f(&tools[i])
		return tools
	}
	base := hashOf(testTools)
	if again := hashOf(slices.Clone(testTools)); again != base {
		t.Fatalf("two servers of the same tools: %s and %s", base, again)
	}
	for name, tools := range map[string][]hootv1hoot.Tool{
		"description": edit(func(t *hootv1hoot.Tool) { t.Description += " More." }),
		"title":       edit(func(t *hootv1hoot.Tool) { t.Title += "!" }),
		"schema":      edit(func(t *hootv1hoot.Tool) { t.InputSchema = `{"type":"object","properties":{}}` }),
		"service":     edit(func(t *hootv1hoot.Tool) { t.Service = "elsewhere" }),
		"gone":        slices.DeleteFunc(slices.Clone(testTools), func(t hootv1hoot.Tool) bool { return t.Name == "echo" }),
	} {
		if h := hashOf(tools); h == base {
			t.Errorf("a change of the %s keeps the hash %s", name, h)
		}
	}
	// A tier above the server's maximum takes the tool out of the schema, as out of the list.
	if h := hashOf(edit(func(t *hootv1hoot.Tool) { t.Tier = hootv1.Tier_TIER_ADMIN })); h == base {
		t.Error("a tool taken out by the tier cap keeps the hash")
	}
}

// BenchmarkSchemaHash measures the hash of the whole test table, which every tools/list page,
// server/discover and WebSocket greeting computes.
func BenchmarkSchemaHash(b *testing.B) {
	s, err := NewServer(&Config{Backend: newFakeBackend(), MaxTier: hootv1.Tier_TIER_STANDARD})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.ReportMetric(float64(len(s.listedNow())), "tools")
	b.ReportAllocs()
	for b.Loop() {
		s.schemaHash(ctx)
	}
}
