package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/httpapi"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/listen"
	"github.com/hootenanny/hoot/holler/internal/mcp/toollist"
	"github.com/hootenanny/hoot/holler/internal/mcp/ws"
)

// wsTestServer is a Server behind the gateway's real router (Host, Origin and token guard) on
// a loopback listener, with a standard and a basic token.
type wsTestServer struct {
	s               *Server
	b               *fakeBackend
	url             string
	standard, basic string
}

func newWSTestServer(t *testing.T, edit func(*Config)) *wsTestServer {
	t.Helper()
	s, b := newTestServer(t, edit)
	return serveWS(t, s, b)
}

// serveWS serves s behind the router, as newWSTestServer does.
func serveWS(t *testing.T, s *Server, b *fakeBackend) *wsTestServer {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	standard, err := access.AddToken(p, "alice", hootv1.Tier_TIER_STANDARD)
	if err != nil {
		t.Fatal(err)
	}
	basic, err := access.AddToken(p, "bob", hootv1.Tier_TIER_BASIC)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := access.LoadTokens(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := access.NewGuard(access.Config{Tokens: toks})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(httpapi.NewRouter(httpapi.Deps{
		Access:   g,
		MCPDeny:  s.WriteAccessFailure,
		MCP:      s,
		WS:       http.HandlerFunc(s.ServeWebSocket),
		Services: func() []string { return []string{"system"} },
	}))
	// Close the server first, which ends its sockets, then the listener, which waits for them.
	t.Cleanup(hs.Close)
	t.Cleanup(func() { _ = s.Close() })
	return &wsTestServer{s: s, b: b, url: "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws", standard: standard, basic: basic}
}

// wsClient is a real WebSocket client of a test server.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
}

// dial opens a socket with token (none if empty) and the extra header h.
func (ts *wsTestServer) dial(t *testing.T, token string, h http.Header) (*wsClient, *http.Response, error) {
	t.Helper()
	if h == nil {
		h = http.Header{}
	}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	opts := &websocket.DialOptions{HTTPHeader: h, Subprotocols: []string{"mcp"}, Host: h.Get("Host")}
	conn, resp, err := websocket.Dial(ctx, ts.url, opts)
	if err != nil {
		return nil, resp, err
	}
	conn.SetReadLimit(16 << 20)
	c := &wsClient{t: t, conn: conn}
	t.Cleanup(func() { conn.CloseNow() })
	return c, resp, nil
}

// open dials with token and reads the greeting.
func (ts *wsTestServer) open(t *testing.T, token string) (*wsClient, welcomeParams) {
	t.Helper()
	c, _, err := ts.dial(t, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := c.recv()
	if m.Method != ws.MethodWelcome || m.ID != nil {
		t.Fatalf("first message = %+v, want the %s notification", m, ws.MethodWelcome)
	}
	var w welcomeParams
	if err := json.Unmarshal(m.Params, &w); err != nil {
		t.Fatal(err)
	}
	return c, w
}

func (c *wsClient) send(msg string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.conn.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		c.t.Fatal(err)
	}
}

// recv reads one message; every frame must be one JSON-RPC object.
func (c *wsClient) recv() rpcResponse {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	typ, data, err := c.conn.Read(ctx)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	var r rpcResponse
	if typ != websocket.MessageText || json.Unmarshal(data, &r) != nil || r.JSONRPC != "2.0" {
		c.t.Fatalf("frame (type %v) is not one JSON-RPC message: %q", typ, data)
	}
	return r
}

// answer reads messages until the response to id, skipping notifications.
func (c *wsClient) answer(id string) rpcResponse {
	c.t.Helper()
	var seen []string
	for range 100 {
		r := c.recv()
		if r.Method == "" && string(r.ID) == id {
			return r
		}
		seen = append(seen, r.Method+" "+string(r.ID))
	}
	c.t.Logf("messages before the answer: %v", seen)
	c.t.Fatalf("no answer to %s in 100 messages", id)
	return rpcResponse{}
}

// closeStatus reads until the socket ends and returns its close status and reason.
func (c *wsClient) closeStatus() (websocket.StatusCode, string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for range 100 {
		if _, _, err := c.conn.Read(ctx); err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code, ce.Reason
			}
			c.t.Fatalf("the socket ended without a close frame: %v", err)
		}
	}
	c.t.Fatal("the socket did not close")
	return 0, ""
}

// TestWebSocketLegacySession opens a socket, initializes, and sends every method that the
// legacy era of /mcp answers: each one reaches the method table (no "method not found"), and a
// tool call's progress notifications come on the socket before its answer.
func TestWebSocketLegacySession(t *testing.T) {
	t.Parallel()
	ts := newWSTestServer(t, nil)
	c, hello := ts.open(t, ts.standard)
	if !strings.HasPrefix(hello.SchemaHash, "sha256:") || len(hello.SupportedVersions) == 0 || !strings.Contains(hello.Hint, "initialize") {
		t.Fatalf("greeting = %+v", hello)
	}
	c.send(initializeRequest(era.Latest))
	if r := c.answer(`"init"`); r.Error != nil || !strings.Contains(string(r.Result), `"protocolVersion":"`+era.Latest+`"`) {
		t.Fatalf("initialize = %+v %s", r.Error, r.Result)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	for i, m := range methodList {
		row := methodByName[m]
		if row.notify != nil || m == methodInitialize {
			continue
		}
		id := 100 + i
		c.send(request(id, m, map[string]any{}))
		r := c.answer(jsonNumber(id))
		if r.Error != nil && r.Error.Code == -32601 {
			t.Errorf("%s over /ws: method not found: %s", m, r.Error.Message)
		}
	}

	c.send(request(2, "tools/list", map[string]any{}))
	r := c.answer("2")
	var list struct {
		Tools []struct{ Name string }
		Meta  map[string]string `json:"_meta"`
	}
	if err := json.Unmarshal(r.Result, &list); err != nil || len(list.Tools) == 0 {
		t.Fatalf("tools/list = %s (%v)", r.Result, err)
	}
	if list.Meta[toollist.MetaSchemaHash] != hello.SchemaHash {
		t.Errorf("tools/list _meta hash %q, the greeting's %q", list.Meta[toollist.MetaSchemaHash], hello.SchemaHash)
	}

	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"progress"},"_meta":{"progressToken":"p1"}}}`)
	progress := 0
	for range 10 {
		m := c.recv()
		if m.Method == notifyProgress {
			progress++
			continue
		}
		if string(m.ID) != "7" {
			t.Fatalf("message = %+v", m)
		}
		if tr := toolResultOf(t, m); tr.IsError || tr.StructuredContent["message"] != "progress" {
			t.Fatalf("echo = %+v", tr)
		}
		break
	}
	if progress != 2 {
		t.Errorf("%d progress notifications, want 2", progress)
	}
	// A clean close ends the socket's session.
	if err := c.conn.Close(websocket.StatusNormalClosure, ""); err != nil {
		t.Errorf("close: %v", err)
	}
}

func jsonNumber(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestWebSocketModernDiscover sends 2026-07-28 requests with no initialize: server/discover
// lists the services and their tools, with the same hash as the greeting and tools/list.
func TestWebSocketModernDiscover(t *testing.T) {
	t.Parallel()
	ts := newWSTestServer(t, nil)
	c, hello := ts.open(t, ts.standard)
	c.send(string(era.TryDiscover()))
	r := c.answer("1")
	var d struct {
		SupportedVersions []string
		Services          []toollist.Service
		SchemaHash        string
	}
	if r.Error != nil {
		t.Fatalf("server/discover: %+v", r.Error)
	}
	if err := json.Unmarshal(r.Result, &d); err != nil {
		t.Fatal(err)
	}
	if d.SchemaHash != hello.SchemaHash {
		t.Errorf("discover's hash %q, the greeting's %q", d.SchemaHash, hello.SchemaHash)
	}
	var system *toollist.Service
	for i := range d.Services {
		if d.Services[i].Name == "system" {
			system = &d.Services[i]
		}
	}
	if system == nil || !strings.Contains(strings.Join(system.Tools, ","), "echo") {
		t.Fatalf("services = %+v, want system with echo", d.Services)
	}
	meta := `"_meta":{"` + era.MetaProtocolVersion + `":"` + era.V20260728 + `","` + era.MetaClientCapabilities + `":{}}`
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`)
	r = c.answer("2")
	if !strings.Contains(string(r.Result), `"`+toollist.MetaSchemaHash+`":"`+hello.SchemaHash+`"`) {
		t.Errorf("modern tools/list = %s, want the hash in _meta", r.Result)
	}
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},` + meta + `}}`)
	if tr := toolResultOf(t, c.answer("3")); tr.IsError || tr.StructuredContent["message"] != "hi" {
		t.Errorf("modern echo = %+v", tr)
	}
	// Every method of the era reaches the method table (subscriptions/listen, whose answer is
	// a stream, is TestWebSocketListChanges').
	if n := len(ts.s.modernMethods()); n < 5 {
		t.Fatalf("the era has %d methods: the loop below would prove little", n)
	}
	for i, m := range ts.s.modernMethods() {
		if m == methodListen {
			continue
		}
		id := 100 + i
		c.send(modernLine(id, m, nil))
		if r := c.answer(jsonNumber(id)); r.Error != nil && r.Error.Code == -32601 {
			t.Errorf("%s over /ws: method not found: %s", m, r.Error.Message)
		}
	}
}

// TestWebSocketClientRequests: a tool asks the client to sample, over the socket, and gets the
// client's answer from it.
func TestWebSocketClientRequests(t *testing.T) {
	t.Parallel()
	ts := newWSTestServer(t, nil)
	ts.b.override = func(ctx context.Context, _ string, _ *hootv1.Payload) (*hootv1.Result, error) {
		sampled, err := callOf(ctx).Ask(ctx, &hootv1.ClientRequest{Request: &hootv1.ClientRequest_Sampling{Sampling: &hootv1.SamplingRequest{
			Messages:  []*hootv1.SamplingMessage{{Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: "hi"}}}},
			MaxTokens: 7,
		}}})
		if err != nil {
			return nil, err
		}
		return &hootv1.Result{Result: &hootv1.Result_Echo{Echo: &hootv1.EchoResult{Message: sampled.GetSampling().GetContent().GetText()}}}, nil
	}
	c, _ := ts.open(t, ts.standard)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + era.Latest + `","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	c.answer("1")
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(request(2, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}}))
	r := c.recv()
	if r.Method != "sampling/createMessage" || r.ID == nil || !strings.Contains(string(r.Params), `"maxTokens":7`) {
		t.Fatalf("message = %+v, want a sampling/createMessage request", r)
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":{"role":"assistant","content":{"type":"text","text":"sampled"},"model":"m"}}`)
	if tr := toolResultOf(t, c.answer("2")); tr.IsError || tr.StructuredContent["message"] != "sampled" {
		t.Fatalf("result = %+v", tr)
	}
}

// TestWebSocketGuidedParseError: a frame that is not JSON-RPC is answered with what the socket
// speaks and a request to copy, of the era it shows; the socket goes on serving.
func TestWebSocketGuidedParseError(t *testing.T) {
	t.Parallel()
	ts := newWSTestServer(t, nil)
	c, _ := ts.open(t, ts.standard)
	for _, tc := range []struct {
		frame   string
		binary  bool
		tryWant string
	}{
		{frame: "hello", tryWant: "initialize"},
		{frame: `{"params":{"_meta":{"` + era.MetaProtocolVersion + `":"x"`, tryWant: "server/discover"},
		{frame: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, binary: true, tryWant: "initialize"},
	} {
		typ := websocket.MessageText
		if tc.binary {
			typ = websocket.MessageBinary
		}
		if err := c.conn.Write(context.Background(), typ, []byte(tc.frame)); err != nil {
			t.Fatal(err)
		}
		r := c.recv()
		if r.Error == nil {
			t.Fatalf("%q: no error: %+v", tc.frame, r)
		}
		hint, _ := r.Error.Data["hint"].(string)
		try, _ := json.Marshal(r.Error.Data["try"])
		if r.Error.Code != -32700 && r.Error.Code != -32600 || !strings.Contains(hint, "This server speaks JSON-RPC 2.0 over WebSocket") ||
			!strings.Contains(string(try), `"method":"`+tc.tryWant+`"`) {
			t.Errorf("%q (binary %v) = %d %q hint %q try %s", tc.frame, tc.binary, r.Error.Code, r.Error.Message, hint, try)
		}
	}
	c.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	c.send(initializeRequest(era.Latest))
	if r := c.answer(`"init"`); r.Error != nil {
		t.Fatalf("initialize after the errors: %+v", r.Error)
	}
}

// TestAttackWebSocketAccess: the upgrade goes through the router's guard, as /mcp does: no
// token, a foreign Origin or a foreign Host gets no socket; a lower tier's token lists and
// calls only its tier's tools, with a hash of its own.
func TestAttackWebSocketAccess(t *testing.T) {
	t.Parallel()
	ts := newWSTestServer(t, nil)
	if _, resp, err := ts.dial(t, "", nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: err %v, status %v, want 401", err, statusOf(resp))
	}
	if _, resp, err := ts.dial(t, "hoot_not-a-token", nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: err %v, status %v, want 401", err, statusOf(resp))
	}
	if _, resp, err := ts.dial(t, ts.standard, http.Header{"Origin": {"https://evil.example"}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign origin: err %v, status %v, want 403", err, statusOf(resp))
	}
	if _, resp, err := ts.dial(t, ts.standard, http.Header{"Host": {"evil.example"}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign host: err %v, status %v, want 403", err, statusOf(resp))
	}

	std, stdHello := ts.open(t, ts.standard)
	basic, basicHello := ts.open(t, ts.basic)
	if stdHello.SchemaHash == basicHello.SchemaHash {
		t.Errorf("a basic and a standard token see the same schema hash %s", stdHello.SchemaHash)
	}
	count := func(c *wsClient) int {
		c.send(string(era.TryDiscover()))
		var d struct{ Services []toollist.Service }
		_ = json.Unmarshal(c.answer("1").Result, &d)
		n := 0
		for _, s := range d.Services {
			n += len(s.Tools)
		}
		return n
	}
	if nb, ns := count(basic), count(std); nb == 0 || nb >= ns {
		t.Errorf("basic sees %d tools, standard %d: want fewer, not none", nb, ns)
	}
	// A standard tool called with the basic token is refused before it reaches a worker.
	basic.send(initializeRequest(era.Latest))
	basic.answer(`"init"`)
	before := ts.b.calls.Load()
	basic.send(request(2, "tools/call", map[string]any{"name": "cas_get", "arguments": map[string]any{"hash": "x"}}))
	r := basic.answer("2")
	if tr := toolResultOf(t, r); !tr.IsError && r.Error == nil || ts.b.calls.Load() != before {
		t.Errorf("cas_get with a basic token = %+v %s (backend calls %d -> %d)", r.Error, r.Result, before, ts.b.calls.Load())
	}
}

func statusOf(resp *http.Response) any {
	if resp == nil {
		return nil
	}
	return resp.StatusCode
}

// TestAttackWebSocketLimits: a message over the size limit closes the socket with 1009, a
// request beyond the socket's requests in flight is refused while the others run, and an idle
// socket is closed with a reason.
func TestAttackWebSocketLimits(t *testing.T) {
	t.Parallel()
	t.Run("size", func(t *testing.T) {
		t.Parallel()
		ts := newWSTestServer(t, func(c *Config) { c.MaxBodyBytes = 1 << 10 })
		c, _ := ts.open(t, ts.standard)
		c.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2<<10) + `"}}`)
		if code, _ := c.closeStatus(); code != websocket.StatusMessageTooBig {
			t.Errorf("close status %v, want 1009", code)
		}
	})
	t.Run("inflight", func(t *testing.T) {
		t.Parallel()
		ts := newWSTestServer(t, func(c *Config) { c.WebSocketMaxInFlight = 1 })
		c, _ := ts.open(t, ts.standard)
		c.send(initializeRequest(era.Latest))
		c.answer(`"init"`)
		// A "hold" echo waits for release.
		c.send(request(2, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hold"}}))
		<-ts.b.started
		c.send(request(3, "ping", nil))
		r := c.answer("3")
		if r.Error == nil || !strings.Contains(r.Error.Message, "too many requests in flight") {
			t.Fatalf("a second request = %+v, want refused", r)
		}
		// A cancellation is a notification and always gets in.
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
		if err := <-ts.b.ended; err == nil {
			t.Error("the held call's context did not end")
		}
		// The slot is free again once the call ends: a ping is answered (tried until it is,
		// since the slot is released just after the call's goroutine ends).
		for i := range 100 {
			id := 10 + i
			c.send(request(id, "ping", nil))
			if r := c.answer(jsonNumber(id)); r.Error == nil {
				return
			}
		}
		t.Fatal("the socket refused requests after the held one ended")
	})
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		ts := newWSTestServer(t, func(c *Config) { c.SessionIdleTimeout = 50 * time.Millisecond })
		c, _ := ts.open(t, ts.standard)
		if code, reason := c.closeStatus(); code != websocket.StatusNormalClosure || !strings.Contains(reason, "idle") {
			t.Errorf("close %v %q, want a normal closure saying idle", code, reason)
		}
	})
}

// TestWebSocketNeedsUpgrade: a plain GET of /ws is told to open a WebSocket, or POST to /mcp.
func TestWebSocketNeedsUpgrade(t *testing.T) {
	t.Parallel()
	ts := newWSTestServer(t, nil)
	req, _ := http.NewRequest(http.MethodGet, "http"+strings.TrimPrefix(ts.url, "ws"), nil)
	req.Header.Set("Authorization", "Bearer "+ts.standard)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body strings.Builder
	_, _ = io.Copy(&body, resp.Body)
	if resp.StatusCode != http.StatusUpgradeRequired || !strings.Contains(body.String(), "WebSocket") || !strings.Contains(body.String(), "/mcp") {
		t.Errorf("GET /ws = %d %q", resp.StatusCode, body.String())
	}
}

// TestWebSocketServerClose: closing the server closes its sockets with 1001 (going away).
func TestWebSocketServerClose(t *testing.T) {
	t.Parallel()
	ts := newWSTestServer(t, nil)
	c, _ := ts.open(t, ts.standard)
	_ = ts.s.Close()
	if code, _ := c.closeStatus(); code != websocket.StatusGoingAway {
		t.Errorf("close status %v, want 1001", code)
	}
}

// TestTypeScriptSDKWebSocket runs the official TypeScript SDK client over its WebSocket
// transport against /ws: it initializes, lists every tool, and calls a tool that asks the
// client to sample, which the SDK's handler answers on the same socket.
func TestTypeScriptSDKWebSocket(t *testing.T) {
	root := repoRoot(t)
	node := nodeTools(t, root)
	ts := newWSTestServer(t, nil)
	ts.b.override = func(ctx context.Context, _ string, _ *hootv1.Payload) (*hootv1.Result, error) {
		sampled, err := callOf(ctx).Ask(ctx, &hootv1.ClientRequest{Request: &hootv1.ClientRequest_Sampling{Sampling: &hootv1.SamplingRequest{
			Messages:  []*hootv1.SamplingMessage{{Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: "hi"}}}},
			MaxTokens: 7,
		}}})
		if err != nil {
			return nil, err
		}
		return &hootv1.Result{Result: &hootv1.Result_Echo{Echo: &hootv1.EchoResult{Message: sampled.GetSampling().GetContent().GetText()}}}, nil
	}
	// This server has access control; the SDK's transport (the browser's WebSocket API) sends
	// no headers, so the test serves the same Server without it, on loopback.
	hs := httptest.NewServer(http.HandlerFunc(ts.s.ServeWebSocket))
	t.Cleanup(hs.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := []string{filepath.Join(root, "holler", "e2e", "tsclient", "ws_client.mjs"), "ws" + strings.TrimPrefix(hs.URL, "http")}
	// Node 20 has WebSocket behind a flag; later versions have it on.
	if exec.Command(node, "-e", "if (typeof WebSocket === 'undefined') process.exit(1)").Run() != nil {
		args = append([]string{"--experimental-websocket"}, args...)
	}
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	report, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	var got struct {
		Names   []string   `json:"names"`
		Echo    toolResult `json:"echo"`
		Sampled int        `json:"sampled"`
		Server  string     `json:"server"`
	}
	if err := json.Unmarshal(report, &got); err != nil {
		t.Fatalf("report %s: %v", report, err)
	}
	if !slices.Equal(got.Names, ts.s.allowedNames) || got.Server != DefaultName {
		t.Errorf("listed %v from %q, want %v", got.Names, got.Server, ts.s.allowedNames)
	}
	if got.Sampled != 1 || got.Echo.IsError || got.Echo.StructuredContent["message"] != "sampled:hi" {
		t.Errorf("echo = %+v after %d sampling requests", got.Echo, got.Sampled)
	}
}

// TestWebSocketListChanges: when a worker comes, a subscriptions/listen stream on one socket and
// the legacy session of another hear of it on their sockets, and the schema hash changes.
func TestWebSocketListChanges(t *testing.T) {
	t.Parallel()
	s, live := newLiveModernServer(t, nil)
	ts := serveWS(t, s, live.fakeBackend)
	modern, hello := ts.open(t, ts.standard)
	legacy, _ := ts.open(t, ts.standard)
	legacy.send(initializeRequest(era.Latest))
	legacy.answer(`"init"`)
	legacy.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	modern.send(modernLine("L", methodListen, map[string]any{"notifications": map[string]any{"toolsListChanged": true}}))
	if ack := modern.recv(); ack.Method != listen.NotifyAck {
		t.Fatalf("listen began with %s", ack.Method)
	}
	live.set(hootv1hoot.SystemServiceName, conformancev1hoot.ConformanceServiceName, hootv1hoot.CasServiceName)
	n := modern.recv()
	if id, _ := listenParams(t, n); n.Method != notifyToolsChange || id != `"L"` {
		t.Fatalf("the listen stream got %s tagged %s", n.Method, id)
	}
	if n := legacy.recv(); n.Method != notifyToolsChange {
		t.Fatalf("the legacy session got %+v, want %s", n, notifyToolsChange)
	}
	modern.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}`)
	modern.send(modernLine(2, era.MethodDiscover, nil))
	var d struct{ SchemaHash string }
	if err := json.Unmarshal(modern.answer("2").Result, &d); err != nil || d.SchemaHash == hello.SchemaHash || d.SchemaHash == "" {
		t.Errorf("hash after a worker came: %q, before %q (%v)", d.SchemaHash, hello.SchemaHash, err)
	}
}
