package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/listen"
)

// openListen POSTs a 2026-07-28 subscriptions/listen with the filter and keeps its event stream
// open. A status other than 200 is left for the caller to check.
func (c *mcpHTTP) openListen(id int, filter map[string]any) *sseStream {
	c.t.Helper()
	params := map[string]any{"_meta": modernMetaOf(era.V20260728), "notifications": filter}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(request(id, methodListen, params)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(headerProtocolVersion, era.V20260728)
	req.Header.Set(era.HeaderMethod, methodListen)
	resp, err := c.client.Do(req)
	if err != nil {
		cancel()
		c.t.Fatal(err)
	}
	st := &sseStream{t: c.t, resp: resp, br: bufio.NewReader(resp.Body), cancel: cancel}
	c.t.Cleanup(st.close)
	return st
}

// listenMeta reads a listen stream message's params: its _meta subscription id and the rest.
func listenParams(t *testing.T, r rpcResponse) (subscriptionID string, params map[string]json.RawMessage) {
	t.Helper()
	if err := json.Unmarshal(r.Params, &params); err != nil {
		t.Fatalf("params of %s: %v", r.Method, err)
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(params["_meta"], &meta)
	return string(meta[listen.MetaSubscriptionID]), params
}

// newLiveModernServer returns a server over a backend whose live services the test sets,
// starting with the system and conformance services.
func newLiveModernServer(t *testing.T, edit func(*Config)) (*Server, *liveBackend) {
	t.Helper()
	b := &liveBackend{fakeBackend: fixtureBackend(), live: []string{hootv1hoot.SystemServiceName, conformancev1hoot.ConformanceServiceName}, changed: make(chan struct{})}
	cfg := &Config{Backend: b}
	if edit != nil {
		edit(cfg)
	}
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, b
}

func TestListenOverHTTP(t *testing.T) {
	t.Parallel()
	s, b := newLiveModernServer(t, func(c *Config) {
		c.MaxListens = 2
		c.KeepAlive = 30 * time.Millisecond
	})
	c := newMCPHTTP(t, s)

	disc := c.modernCall(1, era.MethodDiscover, nil, nil)
	if body := string(disc.body); !strings.Contains(body, `"tools":{"listChanged":true}`) || !strings.Contains(body, `"prompts":{"listChanged":true}`) ||
		!strings.Contains(body, `"resources":{"subscribe":true,"listChanged":true}`) {
		t.Errorf("discover over a live backend: %s", body)
	}

	tools := c.openListen(7, map[string]any{
		"toolsListChanged":      true,
		"promptsListChanged":    false,
		"resourceSubscriptions": []string{"test://static-text", "test://no-such-thing"},
		"somethingElse":         true,
	})
	if tools.resp.StatusCode != http.StatusOK || !strings.HasPrefix(tools.resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("listen: status %d, %s: %s", tools.resp.StatusCode, tools.resp.Header.Get("Content-Type"), tools.body())
	}
	_, ack := tools.message()
	id, params := listenParams(t, ack)
	if ack.Method != listen.NotifyAck || id != "7" {
		t.Fatalf("first message %s, subscription id %s; want the acknowledgement of 7", ack.Method, id)
	}
	if got := string(params["notifications"]); got != `{"resourceSubscriptions":["test://static-text"],"toolsListChanged":true}` {
		t.Errorf("acknowledged filter = %s; want what was asked and is honoured only", got)
	}
	prompts := c.openListen(8, map[string]any{"promptsListChanged": true})
	if _, ack := prompts.message(); ack.Method != listen.NotifyAck {
		t.Fatalf("second listen began with %s", ack.Method)
	}
	// The streams are bounded.
	full := c.openListen(9, map[string]any{"toolsListChanged": true})
	if body := full.body(); full.resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "its limit") || !strings.Contains(body, `"id":9`) {
		t.Errorf("a third listen: status %d: %s", full.resp.StatusCode, body)
	}

	// A quiet listen stream gets keep-alives; a tool list change reaches the stream that asked
	// for tools, tagged.
	tools.comment(5 * time.Second)
	b.set(hootv1hoot.SystemServiceName, conformancev1hoot.ConformanceServiceName, hootv1hoot.CasServiceName)
	_, n := tools.message()
	if id, _ := listenParams(t, n); n.Method != notifyToolsChange || id != "7" {
		t.Errorf("tools stream got %s tagged %s", n.Method, id)
	}
	// A prompt list change reaches only the stream that asked for prompts: the tools stream's
	// next message is the next tool change.
	b.set(hootv1hoot.SystemServiceName, conformancev1hoot.ConformanceServiceName, hootv1hoot.CasServiceName, conformancev1hoot.ConformanceDynamicPromptServiceName)
	if _, n := prompts.message(); n.Method != listen.NotifyPromptsChange {
		t.Errorf("prompts stream got %s", n.Method)
	} else if id, _ := listenParams(t, n); id != "8" {
		t.Errorf("prompts notification tagged %s", id)
	}
	b.set(hootv1hoot.SystemServiceName, conformancev1hoot.ConformanceServiceName, conformancev1hoot.ConformanceDynamicPromptServiceName)
	if _, n := tools.message(); n.Method != notifyToolsChange {
		t.Errorf("tools stream got %s; a stream hears only what it asked for", n.Method)
	}

	// A client that closes its stream frees its place.
	tools.close()
	waitFor(t, func() bool {
		return s.listens.Open() == 1
	})

	// At shutdown a stream ends with the request's result.
	s.EndSubscriptions()
	_, last := prompts.message()
	var res struct {
		ResultType string                     `json:"resultType"`
		Meta       map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(last.Result, &res); err != nil || string(last.ID) != "8" || res.ResultType != "complete" ||
		string(res.Meta[listen.MetaSubscriptionID]) != "8" || res.Meta[era.MetaServerInfo] == nil {
		t.Errorf("last message at shutdown = %+v (%v)", last, err)
	}
	if _, err := prompts.nextWithin(5 * time.Second); err != io.EOF {
		t.Errorf("after its result the stream goes on: %v", err)
	}
	// A listen opened after shutdown began ends at once with its result.
	late := c.openListen(10, map[string]any{"toolsListChanged": true})
	if _, ack := late.message(); ack.Method != listen.NotifyAck {
		t.Errorf("late listen began with %s", ack.Method)
	}
	if _, r := late.message(); string(r.ID) != "10" || r.Result == nil {
		t.Errorf("late listen = %+v", r)
	}
}

func TestListenRefusals(t *testing.T) {
	t.Parallel()
	s, _ := newLiveModernServer(t, nil)
	c := newMCPHTTP(t, s)
	for _, tc := range []struct {
		name   string
		params map[string]any
		accept string
		status int
		code   int
		want   string
	}{
		{"no filter", map[string]any{}, "", http.StatusBadRequest, jsonrpc.CodeInvalidParams, "params.notifications"},
		{"filter not an object", map[string]any{"notifications": []int{1}}, "", http.StatusBadRequest, jsonrpc.CodeInvalidParams, "params.notifications"},
		{"flag not a boolean", map[string]any{"notifications": map[string]any{"toolsListChanged": "yes"}}, "", http.StatusBadRequest, jsonrpc.CodeInvalidParams, "toolsListChanged must be true or false"},
		{"too many resources", map[string]any{"notifications": map[string]any{"resourceSubscriptions": make([]string, listen.MaxResourceSubscriptions+1)}}, "", http.StatusBadRequest, jsonrpc.CodeInvalidParams, "more than this server's limit"},
		{"URI too long", map[string]any{"notifications": map[string]any{"resourceSubscriptions": []string{"test://" + strings.Repeat("x", listen.MaxSubscribedURI)}}}, "", http.StatusBadRequest, jsonrpc.CodeInvalidParams, "bytes long"},
		{"no event streams", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, "application/json", http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest, "text/event-stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.accept = tc.accept
			defer func() { c.accept = "" }()
			a := c.modernCall(3, methodListen, tc.params, nil)
			r := a.last(t)
			if a.status != tc.status || r.Error == nil || r.Error.Code != tc.code || !strings.Contains(r.Error.Message, tc.want) || string(r.ID) != "3" {
				t.Errorf("status %d: %s", a.status, a.body)
			}
			if r.Error != nil && r.Error.Data["hint"] == nil {
				t.Errorf("no hint: %s", a.body)
			}
		})
	}
}

// TestListenExtension: a feature adds a member to the filter; what it honours is acknowledged,
// its notifications are tagged, and it stops when the stream ends.
func TestListenExtension(t *testing.T) {
	t.Parallel()
	s, _ := newLiveModernServer(t, nil)
	notifyc := make(chan func(string, map[string]any), 1)
	stopped := make(chan struct{})
	s.listenExtensions = append(s.listenExtensions, listen.Extension{
		Member: "exampleIds",
		Open: func(_ context.Context, value json.RawMessage, notify func(string, map[string]any)) (any, func(), string) {
			var ids []string
			if json.Unmarshal(value, &ids) != nil {
				return nil, nil, "must be a list of task ids"
			}
			notifyc <- notify
			return ids[:1], func() { close(stopped) }, ""
		},
	})
	c := newMCPHTTP(t, s)
	if a := c.modernCall(1, methodListen, map[string]any{"notifications": map[string]any{"exampleIds": 5}}, nil); a.status != http.StatusBadRequest ||
		!strings.Contains(string(a.body), "params.notifications.exampleIds: must be a list of task ids") {
		t.Errorf("a malformed member: %d %s", a.status, a.body)
	}
	st := c.openListen(2, map[string]any{"exampleIds": []string{"a", "b"}})
	_, ack := st.message()
	if _, p := listenParams(t, ack); string(p["notifications"]) != `{"exampleIds":["a"]}` {
		t.Errorf("acknowledged %s", p["notifications"])
	}
	notify := <-notifyc
	notify("notifications/tasks", map[string]any{"taskId": "a", "status": "working", "_meta": map[string]any{"x": 1}})
	_, n := st.message()
	id, p := listenParams(t, n)
	if n.Method != "notifications/tasks" || id != "2" || string(p["taskId"]) != `"a"` || !strings.Contains(string(p["_meta"]), `"x":1`) {
		t.Errorf("extension notification = %s %s", n.Method, n.Params)
	}
	st.close()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Error("the extension was not stopped when the stream ended")
	}
}
