package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/holler/internal/gateway"
)

// modernPost sends a 2026-07-28 request to url with its headers and returns the response, whose
// body the caller reads and closes.
func modernPost(t *testing.T, ctx context.Context, url string, id int, method string, params map[string]any) *http.Response {
	t.Helper()
	meta, _ := params["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["io.modelcontextprotocol/protocolVersion"] = "2026-07-28"
	meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{}
	params["_meta"] = meta
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// listenMessages reads the JSON-RPC messages of an event stream into a channel, closed at its end.
func listenMessages(resp *http.Response) <-chan map[string]any {
	out := make(chan map[string]any, 16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(data), &m) == nil {
					out <- m
				}
			}
		}
	}()
	return out
}

func nextMessage(t *testing.T, c <-chan map[string]any, what string) map[string]any {
	t.Helper()
	select {
	case m, ok := <-c:
		if !ok {
			t.Fatalf("%s: the stream ended", what)
		}
		return m
	case <-time.After(15 * time.Second):
		t.Fatalf("%s: nothing came", what)
	}
	return nil
}

// TestListenOnSeveralGateways: one worker with the conformance fixtures serves two gateways; a
// client listening on each hears of a tool list change that a call through one of them makes,
// and a gateway that shuts down ends its stream with the listen request's result.
func TestListenOnSeveralGateways(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := serveGatewayWith(t, gateway.Config{DataDir: dir, Conformance: true})
	b := serveGatewayWith(t, gateway.Config{DataDir: dir, Conformance: true})
	startSharedWorker(t, []*servedGateway{a, b}, []string{"--data", dir, "--heartbeat", "500ms", "--log-level", "warn", "--conformance"},
		conformancev1hoot.ConformanceServiceName, conformancev1hoot.ConformanceDynamicToolServiceName)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var streams []<-chan map[string]any
	for i, g := range []*servedGateway{a, b} {
		resp := modernPost(t, ctx, g.base+"/mcp", 10+i, "subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("listen on gateway %d: status %d", i, resp.StatusCode)
		}
		s := listenMessages(resp)
		if ack := nextMessage(t, s, "acknowledgement"); ack["method"] != "notifications/subscriptions/acknowledged" {
			t.Fatalf("gateway %d began with %v", i, ack)
		}
		streams = append(streams, s)
	}

	resp := modernPost(t, ctx, a.base+"/mcp", 1, "tools/call", map[string]any{"name": "test_trigger_tool_change", "arguments": map[string]any{}})
	var res map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&res)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || res["error"] != nil {
		t.Fatalf("test_trigger_tool_change: %d %v", resp.StatusCode, res)
	}
	for i, s := range streams {
		n := nextMessage(t, s, "list change")
		meta, _ := n["params"].(map[string]any)["_meta"].(map[string]any)
		if n["method"] != "notifications/tools/list_changed" || meta["io.modelcontextprotocol/subscriptionId"] != float64(10+i) {
			t.Errorf("gateway %d: %v", i, n)
		}
	}

	// test_logging_tool logs through the worker; a request that names no logLevel hears none
	// of it, one that names info hears all three messages before the result.
	for _, level := range []string{"", "info"} {
		params := map[string]any{"name": "test_logging_tool", "arguments": map[string]any{}}
		if level != "" {
			params["_meta"] = map[string]any{"io.modelcontextprotocol/logLevel": level}
		}
		resp := modernPost(t, ctx, a.base+"/mcp", 2, "tools/call", params)
		var logs, results int
		for m := range listenMessages(resp) {
			if m["method"] == "notifications/message" {
				logs++
			}
			if m["result"] != nil {
				results++
			}
		}
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") && results == 0 {
			// A JSON answer: read it as one message.
			results = 1
		}
		resp.Body.Close()
		if want := map[string]int{"": 0, "info": 3}[level]; logs != want || results != 1 {
			t.Errorf("test_logging_tool with logLevel %q: %d log messages and %d results, want %d and 1", level, logs, results, want)
		}
	}

	// Shutting gateway b down ends its stream with the result, well before the shutdown's
	// deadline.
	start := time.Now()
	b.stop()
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("shutting down with a listen stream open took %v", took)
	}
	// A list may change again before then (a worker joining or leaving gateway b's live set is
	// announced too): notifications may come first, but the stream ends with the result.
	last := nextMessage(t, streams[1], "result at shutdown")
	for range 10 {
		if last["method"] != "notifications/tools/list_changed" {
			break
		}
		last = nextMessage(t, streams[1], "result at shutdown")
	}
	result, _ := last["result"].(map[string]any)
	if last["id"] != float64(11) || result["resultType"] != "complete" {
		t.Errorf("last message at shutdown = %v", last)
	}
}
