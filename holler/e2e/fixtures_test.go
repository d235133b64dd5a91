package e2e

import (
	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	"slices"
	"testing"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/gateway"
)

// TestAttackFixturesOnAPlainGateway: a worker that offers the conformance fixtures' services
// adds nothing to a gateway started without Conformance, which knows only the product's
// tools: the fixtures are neither listed nor callable there. The same worker's fixtures are
// served by a gateway started with it.
func TestAttackFixturesOnAPlainGateway(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := serveGatewayWith(t, gateway.Config{DataDir: dir})
	fixtures := serveGatewayWith(t, gateway.Config{DataDir: dir, Conformance: true})
	startSharedWorker(t, []*servedGateway{plain, fixtures}, []string{"--data", dir, "--heartbeat", "500ms", "--log-level", "warn", "--conformance"},
		hootv1hoot.SystemServiceName, conformancev1hoot.ConformanceServiceName)

	listed := func(c *modernClient) []string {
		t.Helper()
		var names []string
		tools, _ := c.ok("tools/list", map[string]any{}, "")["tools"].([]any)
		for _, x := range tools {
			if m, ok := x.(map[string]any); ok {
				names = append(names, m["name"].(string))
			}
		}
		return names
	}
	const fixture = "test_simple_text"
	p := &modernClient{t: t, url: plain.base + "/mcp"}
	if names := listed(p); slices.Contains(names, fixture) || !slices.Contains(names, hootv1hoot.EchoToolName) {
		t.Errorf("the plain gateway lists %v: want echo and no fixture", names)
	}
	a := p.request("tools/call", map[string]any{"name": fixture, "arguments": map[string]any{}}, fixture, false)
	if a.err == nil || a.err.Message != `unknown tool "`+fixture+`"` {
		t.Errorf("calling %s through the plain gateway = %+v, %+v; want unknown tool", fixture, a.result, a.err)
	}

	f := &modernClient{t: t, url: fixtures.base + "/mcp"}
	if names := listed(f); !slices.Contains(names, fixture) {
		t.Errorf("the gateway with Conformance lists %v, without %s", names, fixture)
	}
	if res := f.callTool(fixture, map[string]any{}); res["isError"] == true {
		t.Errorf("calling %s with Conformance = %v", fixture, res)
	}
}
