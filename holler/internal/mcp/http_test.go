package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolcall"
	"github.com/hootenanny/hoot/hooteproto"
)

func TestHTTPTransportErrors(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	small, _ := newTestServer(t, func(c *Config) {
		c.MaxBodyBytes = 512
		c.AllowedOrigins = []string{"https://app.example/"}
	})
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`

	testCases := []struct {
		name       string
		server     *Server
		init       bool
		session    string // replaces the session header when set
		header     map[string]string
		body       string
		wantStatus int
		wantCode   int
		wantData   []string
		wantText   string
	}{
		{name: "missing session id", body: ping + " ", wantStatus: http.StatusBadRequest, wantCode: jsonrpc.CodeInvalidRequest,
			wantData: []string{"hint", "try"}, wantText: headerSessionID},
		{name: "missing session id on tools/call", body: request(1, "tools/call", map[string]any{"name": "echo"}),
			wantStatus: http.StatusBadRequest, wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint", "try"}},
		{name: "unknown session id", init: true, session: "feedface", body: ping, wantStatus: http.StatusNotFound,
			wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint", "try"}, wantText: "unknown or expired session"},
		{name: "unsupported protocol version header", init: true, header: map[string]string{"MCP-Protocol-Version": "2099-01-01"},
			body: ping, wantStatus: http.StatusBadRequest, wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint", "supported"}},
		{name: "supported protocol version header", init: true, header: map[string]string{"MCP-Protocol-Version": era.V20250618},
			body: ping, wantStatus: http.StatusOK},
		{name: "oversized body", server: small, init: true, body: request(1, "tools/call", map[string]any{"name": "echo",
			"arguments": map[string]any{"message": strings.Repeat("x", 1000)}}), wantStatus: http.StatusRequestEntityTooLarge,
			wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint"}, wantText: "limit"},
		{name: "wrong content type", init: true, header: map[string]string{"Content-Type": "text/plain"}, body: ping,
			wantStatus: http.StatusUnsupportedMediaType, wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint"}, wantText: "Content-Type"},
		{name: "no content type", init: true, header: map[string]string{"Content-Type": ""}, body: ping,
			wantStatus: http.StatusUnsupportedMediaType, wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint"}},
		{name: "JSON content type with charset", init: true, header: map[string]string{"Content-Type": "application/json; charset=utf-8"},
			body: ping, wantStatus: http.StatusOK},
		{name: "foreign origin", init: true, header: map[string]string{"Origin": "http://evil.example"}, body: ping,
			wantStatus: http.StatusForbidden, wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint"}, wantText: "origin"},
		{name: "loopback origin", init: true, header: map[string]string{"Origin": "http://localhost:5173"}, body: ping, wantStatus: http.StatusOK},
		{name: "allowed origin", server: small, init: true, header: map[string]string{"Origin": "https://app.example"}, body: ping,
			wantStatus: http.StatusOK},
		{name: "no Accept header", init: true, header: map[string]string{"Accept": ""}, body: ping, wantStatus: http.StatusOK},
		{name: "notification", init: true, body: `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`,
			wantStatus: http.StatusAccepted},
		{name: "client response", init: true, body: `{"jsonrpc":"2.0","id":9,"result":{}}`, wantStatus: http.StatusAccepted},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.server
			if srv == nil {
				srv = s
			}
			c := newMCPHTTP(t, srv)
			if tc.init {
				c.initialize(era.Latest)
			}
			if tc.session != "" {
				c.session = tc.session
			}
			a := c.post(tc.body, tc.header)
			if a.status != tc.wantStatus {
				t.Fatalf("status = %d, want %d: %s", a.status, tc.wantStatus, a.body)
			}
			if tc.wantStatus == http.StatusAccepted {
				if len(a.body) != 0 {
					t.Errorf("202 with a body: %q", a.body)
				}
				return
			}
			r := a.last(t)
			if tc.wantCode == 0 {
				if r.Error != nil {
					t.Errorf("unexpected error %+v", r.Error)
				}
				return
			}
			if r.Error == nil || r.Error.Code != tc.wantCode {
				t.Fatalf("want error %d, got %s", tc.wantCode, a.body)
			}
			if missing := hasKeys(r.Error.Data, tc.wantData...); len(missing) > 0 {
				t.Errorf("data lacks %v: %v", missing, r.Error.Data)
			}
			if !strings.Contains(r.Error.Message, tc.wantText) {
				t.Errorf("message %q lacks %q", r.Error.Message, tc.wantText)
			}
		})
	}
}

func TestHTTPMethods(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)

	req, _ := http.NewRequest(http.MethodPut, c.url, nil)
	req.Header.Set(headerSessionID, c.session)
	a := c.do(req)
	if a.status != http.StatusMethodNotAllowed || a.header.Get("Allow") != "GET, POST, DELETE" {
		t.Errorf("PUT: status %d, Allow %q", a.status, a.header.Get("Allow"))
	}
	// GET opens the session's stream, which DELETE ends.
	get := c.openGet("")
	if get.resp.StatusCode != http.StatusOK || !strings.HasPrefix(get.resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("GET: status %d, Content-Type %q", get.resp.StatusCode, get.resp.Header.Get("Content-Type"))
	}

	req, _ = http.NewRequest(http.MethodDelete, c.url, nil)
	if a := c.do(req); a.status != http.StatusBadRequest {
		t.Errorf("DELETE without a session: status %d", a.status)
	}
	req, _ = http.NewRequest(http.MethodDelete, c.url, nil)
	req.Header.Set(headerSessionID, c.session)
	if a := c.do(req); a.status != http.StatusNoContent {
		t.Errorf("DELETE: status %d: %s", a.status, a.body)
	}
	for {
		ev, err := get.nextWithin(5 * time.Second)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Errorf("the GET stream outlived its session: %v", err)
			}
			break
		}
		if ev.data != "" {
			t.Errorf("unexpected event %+v", ev)
		}
	}
	if a := c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil); a.status != http.StatusNotFound {
		t.Errorf("a request after DELETE: status %d", a.status)
	}
	req, _ = http.NewRequest(http.MethodDelete, c.url, nil)
	req.Header.Set(headerSessionID, c.session)
	if a := c.do(req); a.status != http.StatusNotFound {
		t.Errorf("DELETE twice: status %d", a.status)
	}
}

func TestHTTPSessionIDs(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	seen := map[string]bool{}
	for range 5 {
		c := newMCPHTTP(t, s)
		c.initialize(era.Latest)
		if seen[c.session] || len(c.session) < 32 {
			t.Fatalf("session id %q is short or repeated", c.session)
		}
		for _, r := range c.session {
			if r < 0x21 || r > 0x7e {
				t.Fatalf("session id %q has a character that is not visible ASCII", c.session)
			}
		}
		seen[c.session] = true
	}
	// A failed initialize starts no session.
	c := newMCPHTTP(t, s)
	a := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, nil)
	if a.header.Get(headerSessionID) != "" || a.last(t).Error == nil || a.last(t).Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("bad initialize: %d %q %s", a.status, a.header.Get(headerSessionID), a.body)
	}
}

func TestHTTPSessionExpires(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, func(c *Config) { c.SessionIdleTimeout = 20 * time.Millisecond })
	c := newMCPHTTP(t, s)
	// Only initialize: the session exists from its answer on, and a second message (the
	// client's notifications/initialized) could come later than the 20 ms idle timeout on a
	// busy machine and find it gone already.
	a := c.post(initializeRequest(era.Latest), nil)
	if c.session = a.header.Get(headerSessionID); a.status != http.StatusOK || c.session == "" {
		t.Fatalf("initialize: status %d, session %q: %s", a.status, c.session, a.body)
	}
	// Left idle (a request would make it busy again), the session is expired by the janitor.
	waitFor(t, func() bool { _, _, expired := s.sessions.Stats(); return expired == 1 })
	if a := c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil); a.status != http.StatusNotFound {
		t.Fatalf("a request of the expired session: status %d: %s", a.status, a.body)
	}
}

func TestHTTPToolCalls(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, nil)
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)

	list := c.call(1, "tools/list", map[string]any{})
	var lr struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(list.Result, &lr); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range lr.Tools {
		var name string
		_ = json.Unmarshal(tool["name"], &name)
		names[name] = true
		var ann map[string]any
		_ = json.Unmarshal(tool["annotations"], &ann)
		if missing := hasKeys(ann, "title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"); len(missing) > 0 {
			t.Errorf("%s: annotations lack %v", name, missing)
		}
		if rawjson.Kind(tool["inputSchema"]) != "object" {
			t.Errorf("%s: inputSchema = %s", name, tool["inputSchema"])
		}
	}
	if !names["echo"] || !names["cas_store"] {
		t.Errorf("tools/list lacks echo or cas_store: %v", names)
	}

	// Echo: structuredContent and the same JSON as text, every field present.
	tr := toolResultOf(t, c.call(2, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}}))
	if tr.IsError || tr.StructuredContent["message"] != "hi" || tr.StructuredContent["worker"] != "test-worker" {
		t.Errorf("echo = %+v", tr)
	}
	var fromText map[string]any
	if len(tr.Content) != 1 || tr.Content[0].Type != "text" || json.Unmarshal([]byte(tr.Content[0].Text), &fromText) != nil ||
		fromText["message"] != "hi" {
		t.Errorf("echo content = %+v", tr.Content)
	}

	// A store and a read through the real typed path, with proto names and default values.
	tr = toolResultOf(t, c.call(3, "tools/call", map[string]any{"name": "cas_store", "arguments": map[string]any{"content": "abc", "mime_type": "text/plain"}}))
	hash, _ := tr.StructuredContent["hash"].(string)
	if tr.IsError || len(hash) != 64 || tr.StructuredContent["existed"] != false || tr.StructuredContent["mime_type"] != "text/plain" {
		t.Errorf("cas_store = %+v", tr)
	}
	tr = toolResultOf(t, c.call(4, "tools/call", map[string]any{"name": "cas_get", "arguments": map[string]any{"hash": hash}}))
	if tr.IsError || tr.StructuredContent["content"] != "abc" {
		t.Errorf("cas_get = %+v", tr)
	}

	// A ToolError from the worker: isError, a text a model can act on, no structuredContent.
	tr = toolResultOf(t, c.call(5, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "fail"}}))
	for _, want := range []string{"echo failed (not_found)", "nothing is stored", "field: message", "hint: store it first", "retryable: no"} {
		if !strings.Contains(tr.text(), want) {
			t.Errorf("tool error text lacks %q:\n%s", want, tr.text())
		}
	}
	if !tr.IsError || tr.StructuredContent != nil {
		t.Errorf("tool error = %+v", tr)
	}
	tr = toolResultOf(t, c.call(6, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "busy"}}))
	if !tr.IsError || !strings.Contains(tr.text(), "overloaded") || !strings.Contains(tr.text(), "retryable: yes, after 2s") {
		t.Errorf("overloaded = %q", tr.text())
	}

	// A *hooteproto.Error from the backend itself.
	b.override = func(context.Context, string, *hootv1.Payload) (*hootv1.Result, error) {
		return nil, errors.New("no route to worker")
	}
	tr = toolResultOf(t, c.call(7, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}}))
	if !tr.IsError || !strings.Contains(tr.text(), "internal") {
		t.Errorf("backend error = %q", tr.text())
	}

	// A *hooteproto.Error from the backend keeps its code and retry advice.
	b.override = func(context.Context, string, *hootv1.Payload) (*hootv1.Result, error) {
		return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "no worker serves system").WithRetryAfter(time.Second)
	}
	tr = toolResultOf(t, c.call(9, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}}))
	if !tr.IsError || !strings.Contains(tr.text(), "(unavailable): no worker serves system") || !strings.Contains(tr.text(), "retryable: yes, after 1s") {
		t.Errorf("unavailable = %q", tr.text())
	}

	// A result of another tool is an internal error.
	b.override = func(context.Context, string, *hootv1.Payload) (*hootv1.Result, error) {
		return &hootv1.Result{Result: &hootv1.Result_CasStore{CasStore: &hootv1.CasStoreResult{}}}, nil
	}
	r := c.call(8, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}})
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInternalError {
		t.Errorf("wrong result type: %+v", r)
	}
}

func TestHTTPProgressSwitchesToSSE(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)

	// Without a progress token the answer stays JSON.
	a := c.post(request(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "progress"}}), nil)
	if ct := a.header.Get("Content-Type"); ct != "application/json" || len(a.messages) != 1 {
		t.Errorf("without a token: Content-Type %q, %d messages", ct, len(a.messages))
	}

	// With one, the answer turns into an event stream: two notifications, then the response.
	a = c.post(request(2, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "progress"},
		"_meta": map[string]any{"progressToken": 42}}), nil)
	if ct := a.header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("with a token: Content-Type %q: %s", ct, a.body)
	}
	if len(a.messages) != 3 {
		t.Fatalf("want 3 events, got %d: %s", len(a.messages), a.body)
	}
	for i, m := range a.messages[:2] {
		var p toolcall.ProgressParams
		if m.Method != notifyProgress || json.Unmarshal(m.Params, &p) != nil || string(p.ProgressToken) != "42" || p.Progress != float64(i+1) || p.Total != 2 {
			t.Errorf("event %d = %s %s", i, m.Method, m.Params)
		}
	}
	if last := a.messages[2]; string(last.ID) != "2" || toolResultOf(t, last).StructuredContent["message"] != "progress" {
		t.Errorf("last event = %+v", last)
	}

	// A call that reports no progress stays JSON even with a token.
	a = c.post(request(3, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "quiet"},
		"_meta": map[string]any{"progressToken": "t"}}), nil)
	if ct := a.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("no progress: Content-Type %q", ct)
	}

	// A client that takes only JSON gets the response without notifications.
	c.accept = "application/json"
	a = c.post(request(4, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "progress"},
		"_meta": map[string]any{"progressToken": "t"}}), nil)
	if ct := a.header.Get("Content-Type"); ct != "application/json" || len(a.messages) != 1 || string(a.messages[0].ID) != "4" {
		t.Errorf("JSON only: Content-Type %q: %s", ct, a.body)
	}

	// A client that takes only event streams gets one.
	c.accept = "text/event-stream"
	a = c.post(request(5, "ping", nil), nil)
	if ct := a.header.Get("Content-Type"); ct != "text/event-stream" || len(a.messages) != 1 {
		t.Errorf("SSE only: Content-Type %q: %s", ct, a.body)
	}
}

func TestHTTPCancel(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, nil)
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)

	// Another session cannot cancel a call. Its notification has been acted on when its POST is
	// answered; had it cancelled the held call, the call would end with its context's error when
	// released, instead of answering.
	held := make(chan rpcResponse, 1)
	go func() {
		held <- c.post(request(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hold"}}), nil).last(t)
	}()
	<-b.started
	other := newMCPHTTP(t, s)
	other.initialize(era.Latest)
	if a := other.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, nil); a.status != http.StatusAccepted {
		t.Fatalf("the other session's cancel: status %d", a.status)
	}
	b.release <- struct{}{}
	if tr := toolResultOf(t, <-held); tr.IsError || tr.StructuredContent["message"] != "hold" {
		t.Fatalf("another session cancelled the call: %q", tr.text())
	}

	// notifications/cancelled in the same session ends the call.
	done := make(chan rpcResponse, 1)
	go func() {
		done <- c.post(request(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "block"}}), nil).last(t)
	}()
	<-b.started
	if a := c.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"changed my mind"}}`, nil); a.status != http.StatusAccepted {
		t.Fatalf("cancel: status %d", a.status)
	}
	if cause := <-b.ended; !errors.Is(cause, sessions.ErrCancelledByClient) {
		t.Errorf("the call ended with %v", cause)
	}
	if tr := toolResultOf(t, <-done); !tr.IsError || !strings.Contains(tr.text(), "canceled") {
		t.Errorf("cancelled call = %q", tr.text())
	}

	// The client going away does not end the call (see TestHTTPDisconnectIsNotCancel); the end
	// of its session does.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(request(2, "tools/call",
		map[string]any{"name": "echo", "arguments": map[string]any{"message": "block"}})))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(headerSessionID, c.session)
	go func() {
		resp, err := c.client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-b.started
	cancel()
	del, _ := http.NewRequest(http.MethodDelete, c.url, nil)
	del.Header.Set(headerSessionID, c.session)
	if a := c.do(del); a.status != http.StatusNoContent {
		t.Fatalf("DELETE: status %d", a.status)
	}
	if cause := <-b.ended; cause == nil {
		t.Error("the call did not end with its session")
	}

	// So does a call timeout.
	s2, b2 := newTestServer(t, func(c *Config) { c.CallTimeout = 10 * time.Millisecond })
	c2 := newMCPHTTP(t, s2)
	c2.initialize(era.Latest)
	tr := toolResultOf(t, c2.call(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "block"}}))
	<-b2.started
	if cause := <-b2.ended; !errors.Is(cause, context.DeadlineExceeded) {
		t.Errorf("timeout cause = %v", cause)
	}
	if !tr.IsError || !strings.Contains(tr.text(), "deadline_exceeded") || !strings.Contains(tr.text(), "retryable: yes") {
		t.Errorf("timed out call = %q", tr.text())
	}
}

func TestTierPolicy(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, func(c *Config) { c.MaxTier = hootv1.Tier_TIER_BASIC })
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)
	list := c.call(1, "tools/list", nil)
	if strings.Contains(string(list.Result), "cas_get") || !strings.Contains(string(list.Result), `"echo"`) {
		t.Errorf("tools/list with MaxTier BASIC = %s", list.Result)
	}
	tr := toolResultOf(t, c.call(2, "tools/call", map[string]any{"name": "cas_get", "arguments": map[string]any{"hash": "x"}}))
	if !tr.IsError || !strings.Contains(tr.text(), "permission_denied") || !strings.Contains(tr.text(), "STANDARD") ||
		!strings.Contains(tr.text(), "--max-tier standard") {
		t.Errorf("cas_get above the tier = %q", tr.text())
	}
	if n := b.calls.Load(); n != 0 {
		t.Errorf("a refused call reached the backend (%d calls)", n)
	}
	// A tool above the tier is not offered as a close name.
	r := c.call(3, "tools/call", map[string]any{"name": "cas_gte"})
	if r.Error == nil || strings.Contains(r.Error.Message, "cas_get") {
		t.Errorf("unknown tool near a hidden one = %+v", r.Error)
	}
}

func TestClose(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, nil)
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.post(request(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "block"}}), nil)
	}()
	<-b.started
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if cause := <-b.ended; cause == nil {
		t.Error("Close did not end the call in flight")
	}
	<-done
	if a := c.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, nil); a.status != http.StatusServiceUnavailable {
		t.Errorf("after Close: status %d", a.status)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestNewServerConfig(t *testing.T) {
	t.Parallel()
	if _, err := NewServer(nil); err == nil {
		t.Error("nil Config accepted")
	}
	if _, err := NewServer(&Config{}); err == nil {
		t.Error("Config without a Backend accepted")
	}
	if _, err := NewServer(&Config{Backend: newFakeBackend(), MaxTier: 99}); err == nil {
		t.Error("unknown MaxTier accepted")
	}
	s, err := NewServer(&Config{Backend: newFakeBackend()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.cfg.MaxTier != hootv1.Tier_TIER_STANDARD || s.cfg.CallTimeout != DefaultCallTimeout ||
		s.cfg.MaxBodyBytes != DefaultMaxBodyBytes || s.cfg.SessionIdleTimeout != DefaultSessionIdleTimeout {
		t.Errorf("defaults = %+v", s.cfg)
	}
}
