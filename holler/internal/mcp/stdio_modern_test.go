package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/listen"
)

// modernLine returns a 2026-07-28 request as a stdio line: params with _meta added.
func modernLine(id any, method string, params map[string]any) string {
	if params == nil {
		params = map[string]any{}
	}
	if _, ok := params["_meta"]; !ok {
		params["_meta"] = modernMetaOf(era.V20260728)
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return string(b)
}

func TestModernEraOverStdio(t *testing.T) {
	t.Parallel()
	s, b := newLiveModernServer(t, nil)
	c := newMCPStdio(t, s)

	c.send(modernLine(1, era.MethodDiscover, nil))
	r := c.recv()
	var disc struct {
		ResultType        string   `json:"resultType"`
		SupportedVersions []string `json:"supportedVersions"`
		TTLMs             *int     `json:"ttlMs"`
	}
	if err := json.Unmarshal(r.Result, &disc); err != nil || string(r.ID) != "1" || disc.ResultType != "complete" || disc.TTLMs == nil ||
		len(disc.SupportedVersions) == 0 || disc.SupportedVersions[0] != era.V20260728 {
		t.Fatalf("server/discover over stdio = %s %+v", r.Result, r.Error)
	}

	// The same per-request rules as over HTTP, without the headers.
	for _, tc := range []struct {
		line string
		code int
	}{
		{modernLine(2, methodToolsList, map[string]any{"_meta": map[string]any{era.MetaProtocolVersion: era.V20260728}}), jsonrpc.CodeInvalidParams},
		{modernLine(3, era.MethodDiscover, map[string]any{"_meta": modernMetaOf("v999")}), era.CodeUnsupportedVersion},
		{modernLine(4, methodPing, nil), jsonrpc.CodeMethodNotFound},
		{modernLine(5, era.MethodDiscover, map[string]any{"_meta": map[string]any{
			era.MetaProtocolVersion: era.V20260728, era.MetaClientCapabilities: map[string]any{}, "io.modelcontextprotocol/logLevel": "loud"}}), jsonrpc.CodeInvalidParams},
	} {
		c.send(tc.line)
		if r := c.recv(); r.Error == nil || r.Error.Code != tc.code || !strings.Contains(tc.line, `"id":`+string(r.ID)) {
			t.Errorf("%s: got %+v, want error %d", tc.line, r, tc.code)
		}
	}

	// A tool call answers with the era's result, and no log message without a logLevel.
	c.send(modernLine(6, methodToolsCall, map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}}))
	r = c.recv()
	if r.Method != "" || string(r.ID) != "6" || !strings.Contains(string(r.Result), `"resultType":"complete"`) || !strings.Contains(string(r.Result), era.MetaServerInfo) {
		t.Fatalf("tools/call over stdio = %+v", r)
	}

	// subscriptions/listen: acknowledged, tagged, and ended by notifications/cancelled.
	c.send(modernLine("L", methodListen, map[string]any{"notifications": map[string]any{"toolsListChanged": true}}))
	ack := c.recv()
	if id, p := listenParams(t, ack); ack.Method != listen.NotifyAck || id != `"L"` || string(p["notifications"]) != `{"toolsListChanged":true}` {
		t.Fatalf("listen over stdio began with %s %s", ack.Method, ack.Params)
	}
	b.set(hootv1hoot.SystemServiceName, conformancev1hoot.ConformanceServiceName, hootv1hoot.CasServiceName)
	n := c.recv()
	if id, _ := listenParams(t, n); n.Method != notifyToolsChange || id != `"L"` {
		t.Fatalf("listen over stdio got %s tagged %s", n.Method, id)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}`)
	waitFor(t, func() bool {
		return s.listens.Open() == 0
	})
	b.set(hootv1hoot.SystemServiceName, conformancev1hoot.ConformanceServiceName)
	// After the cancellation the stream says nothing more, not even a response: the next line
	// is the answer to the next request.
	c.send(modernLine(7, era.MethodDiscover, nil))
	if r := c.recv(); string(r.ID) != "7" || r.Method != "" {
		t.Errorf("after cancelling the listen stream: %+v", r)
	}
	// A stream still open when the input ends does not hold ServeStdio (the cleanup checks that
	// it returns).
	c.send(modernLine("M", methodListen, map[string]any{"notifications": map[string]any{"promptsListChanged": true}}))
	if ack := c.recv(); ack.Method != listen.NotifyAck {
		t.Errorf("second listen began with %s", ack.Method)
	}
}

// TestStdioInitializeStaysLegacy: after initialize, the process speaks the older era, even to
// a line with modern _meta.
func TestStdioInitializeStaysLegacy(t *testing.T) {
	t.Parallel()
	s, _ := newLiveModernServer(t, nil)
	c := newMCPStdio(t, s)
	c.send(initializeRequest(era.Latest))
	if r := c.recv(); r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(modernLine(2, methodToolsList, nil))
	if r := c.recv(); r.Error != nil || strings.Contains(string(r.Result), "resultType") {
		t.Errorf("tools/list after initialize = %s %+v; want the older era's answer", r.Result, r.Error)
	}
	c.send(modernLine(3, era.MethodDiscover, nil))
	if r := c.recv(); r.Error == nil || r.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("server/discover after initialize = %s; want method not found", r.Result)
	}
}

// TestListenOverStdioFallsBehind: a stream whose notifications pile up beyond the bound is
// ended by the server with notifications/cancelled naming it, stdio's way to end a listen.
func TestListenOverStdioFallsBehind(t *testing.T) {
	t.Parallel()
	s, _ := newLiveModernServer(t, nil)
	s.listenExtensions = append(s.listenExtensions, listen.Extension{
		Member: "flood",
		Open: func(_ context.Context, _ json.RawMessage, notify func(string, map[string]any)) (any, func(), string) {
			for i := range listen.MaxQueue + 1 {
				notify("notifications/flood", map[string]any{"n": i})
			}
			return true, nil, ""
		},
	})
	c := newMCPStdio(t, s)
	c.send(modernLine("F", methodListen, map[string]any{"notifications": map[string]any{"flood": true}}))
	if ack := c.recv(); ack.Method != listen.NotifyAck {
		t.Fatalf("began with %s", ack.Method)
	}
	for i := range listen.MaxQueue {
		if n := c.recv(); n.Method != "notifications/flood" {
			t.Fatalf("notification %d is %s", i, n.Method)
		}
	}
	end := c.recv()
	if end.Method != notifyCancelled || !strings.Contains(string(end.Params), `"requestId":"F"`) || !strings.Contains(string(end.Params), "listen again") {
		t.Errorf("after the bound: %s %s", end.Method, end.Params)
	}
}
