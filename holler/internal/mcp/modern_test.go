package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/content"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolcall"
	"github.com/hootenanny/hoot/holler/internal/mcp/toollist"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/hooteproto"
)

// modernMetaOf returns the _meta of a 2026-07-28 request at version v.
func modernMetaOf(v string) map[string]any {
	return map[string]any{
		era.MetaProtocolVersion:    v,
		era.MetaClientCapabilities: map[string]any{},
	}
}

// modernCall sends a 2026-07-28 request with params (to which it adds _meta unless they have
// one) and the headers that the body implies, changed by header (an empty value removes one).
func (c *mcpHTTP) modernCall(id int, method string, params map[string]any, header map[string]string) *httpAnswer {
	c.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	if _, ok := params["_meta"]; !ok {
		params["_meta"] = modernMetaOf(era.V20260728)
	}
	h := map[string]string{headerProtocolVersion: era.V20260728, era.HeaderMethod: method}
	if name, ok := params["name"].(string); ok {
		h[era.HeaderName] = name
	}
	if uri, ok := params["uri"].(string); ok {
		h[era.HeaderName] = uri
	}
	for k, v := range header {
		h[k] = v
	}
	return c.post(request(id, method, params), h)
}

// newModernClient returns a client of a server of the conformance fixtures, which has tools,
// prompts, resources and completions.
func newModernClient(t *testing.T) (*Server, *mcpHTTP) {
	t.Helper()
	s, err := NewServer(&Config{Backend: fixtureBackend()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, newMCPHTTP(t, s)
}

// checkModernError checks an error answer of the modern era: its status, code, the request's
// id, and guidance with a hint.
func checkModernError(t *testing.T, name string, a *httpAnswer, id string, status, code int) rpcResponse {
	t.Helper()
	if a.status != status {
		t.Errorf("%s: status %d, want %d: %s", name, a.status, status, a.body)
	}
	if len(a.messages) != 1 || a.messages[0].Error == nil {
		t.Errorf("%s: want one JSON-RPC error, got %s", name, a.body)
		return rpcResponse{}
	}
	r := a.messages[0]
	if r.Error.Code != code || string(r.ID) != id {
		t.Errorf("%s: error %d with id %s, want %d with id %s: %s", name, r.Error.Code, r.ID, code, id, a.body)
	}
	if hint, _ := r.Error.Data["hint"].(string); hint == "" {
		t.Errorf("%s: the error's data has no hint: %s", name, a.body)
	}
	// MCP reserves -32020..-32099 for its own codes and retires -32000..-32019.
	if c := r.Error.Code; c >= -32099 && c <= -32000 && c != era.CodeHeaderMismatch && c != era.CodeUnsupportedVersion {
		t.Errorf("%s: code %d is reserved", name, c)
	}
	if sid := a.header.Get(headerSessionID); sid != "" {
		t.Errorf("%s: the modern era named a session %q", name, sid)
	}
	return r
}

func TestModernEnvelopeChecks(t *testing.T) {
	t.Parallel()
	_, c := newModernClient(t)
	noMeta := func(drop string) map[string]any {
		m := modernMetaOf(era.V20260728)
		delete(m, drop)
		return map[string]any{"_meta": m}
	}
	tests := []struct {
		name   string
		method string
		params map[string]any
		header map[string]string
		status int
		code   int
	}{
		// The required _meta comes first, even before the headers are compared.
		{"no _meta", "tools/list", map[string]any{"_meta": nil}, nil, 400, jsonrpc.CodeInvalidParams},
		{"_meta without protocolVersion", "tools/list", noMeta(era.MetaProtocolVersion), nil, 400, jsonrpc.CodeInvalidParams},
		{"_meta without clientCapabilities", "tools/list", noMeta(era.MetaClientCapabilities), nil, 400, jsonrpc.CodeInvalidParams},
		{"clientCapabilities not an object", "tools/list", map[string]any{"_meta": map[string]any{era.MetaProtocolVersion: era.V20260728, era.MetaClientCapabilities: "all"}}, nil, 400, jsonrpc.CodeInvalidParams},
		{"unknown logLevel", "tools/list", map[string]any{"_meta": map[string]any{era.MetaProtocolVersion: era.V20260728, era.MetaClientCapabilities: map[string]any{}, "io.modelcontextprotocol/logLevel": "loud"}}, nil, 400, jsonrpc.CodeInvalidParams},
		// Then the header against the body, before the version is judged.
		{"header differs from _meta", "tools/list", map[string]any{"_meta": modernMetaOf("v999.0.0")}, nil, 400, era.CodeHeaderMismatch},
		{"header missing, _meta modern", "tools/list", nil, map[string]string{headerProtocolVersion: ""}, 400, era.CodeHeaderMismatch},
		{"Mcp-Method missing", "tools/list", nil, map[string]string{era.HeaderMethod: ""}, 400, era.CodeHeaderMismatch},
		{"Mcp-Method in other case", "tools/list", nil, map[string]string{era.HeaderMethod: "TOOLS/LIST"}, 400, era.CodeHeaderMismatch},
		{"Mcp-Method names another method", "tools/list", nil, map[string]string{era.HeaderMethod: "tools/call"}, 400, era.CodeHeaderMismatch},
		{"Mcp-Name missing", "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}}, map[string]string{era.HeaderName: ""}, 400, era.CodeHeaderMismatch},
		{"Mcp-Name names another tool", "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}}, map[string]string{era.HeaderName: "cas_store"}, 400, era.CodeHeaderMismatch},
		{"Mcp-Name is broken base64", "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}}, map[string]string{era.HeaderName: "=?base64?ZWNobw?="}, 400, era.CodeHeaderMismatch},
		{"Mcp-Name differs from the uri", "resources/read", map[string]any{"uri": "test://static-text"}, map[string]string{era.HeaderName: "test://static-binary"}, 400, era.CodeHeaderMismatch},
		{"Mcp-Name missing on prompts/get", "prompts/get", map[string]any{"name": "test_simple_prompt"}, map[string]string{era.HeaderName: ""}, 400, era.CodeHeaderMismatch},
		// Methods the era does not have are 404 with -32601, the legacy ones included.
		{"initialize", "initialize", map[string]any{"protocolVersion": era.V20260728, "capabilities": map[string]any{}}, nil, 404, jsonrpc.CodeMethodNotFound},
		{"ping", "ping", nil, nil, 404, jsonrpc.CodeMethodNotFound},
		{"logging/setLevel", "logging/setLevel", map[string]any{"level": "info"}, nil, 404, jsonrpc.CodeMethodNotFound},
		{"resources/subscribe", "resources/subscribe", map[string]any{"uri": "test://static-text"}, nil, 404, jsonrpc.CodeMethodNotFound},
		{"resources/unsubscribe", "resources/unsubscribe", map[string]any{"uri": "test://static-text"}, nil, 404, jsonrpc.CodeMethodNotFound},
		{"an unknown method", "unknown/method", nil, nil, 404, jsonrpc.CodeMethodNotFound},
	}
	for i, tc := range tests {
		// A nil _meta is sent as null, which is no _meta.
		params := tc.params
		checkModernError(t, tc.name, c.modernCall(i+1, tc.method, params, tc.header), jsonInt(i+1), tc.status, tc.code)
	}

	// A request without params is malformed too, and its id still comes back.
	a := c.post(`{"jsonrpc":"2.0","id":"x","method":"tools/list"}`, map[string]string{headerProtocolVersion: era.V20260728, era.HeaderMethod: "tools/list"})
	checkModernError(t, "no params", a, `"x"`, 400, jsonrpc.CodeInvalidParams)

	// The unsupported version names what is supported, which server/discover lists too.
	a = c.modernCall(900, era.MethodDiscover, map[string]any{"_meta": modernMetaOf("v999.0.0")}, map[string]string{headerProtocolVersion: "v999.0.0"})
	r := checkModernError(t, "unsupported version", a, "900", 400, era.CodeUnsupportedVersion)
	if r.Error != nil {
		supported, _ := r.Error.Data["supported"].([]any)
		if r.Error.Data["requested"] != "v999.0.0" || len(supported) == 0 || supported[0] != era.V20260728 {
			t.Errorf("unsupported version data = %v", r.Error.Data)
		}
		var disc struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		d := c.modernCall(901, era.MethodDiscover, nil, nil)
		if err := json.Unmarshal(d.last(t).Result, &disc); err != nil {
			t.Fatal(err)
		}
		for _, v := range supported {
			if !slices.Contains(disc.SupportedVersions, v.(string)) {
				t.Errorf("supported %v names %v, which discover (%v) does not", supported, v, disc.SupportedVersions)
			}
		}
	}

	// The method-not-found guidance lists what the era answers, and no legacy method.
	a = c.modernCall(902, "ping", nil, nil)
	methods, _ := a.last(t).Error.Data["methods"].([]any)
	if !slices.Contains(methods, any(era.MethodDiscover)) || slices.Contains(methods, any(methodPing)) {
		t.Errorf("methods in the guidance = %v", methods)
	}

	// A name that is not plain ASCII may come in the base64 form.
	a = c.modernCall(903, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}},
		map[string]string{era.HeaderName: "=?base64?ZWNobw==?="})
	if a.status != http.StatusOK || a.last(t).Error != nil {
		t.Errorf("base64 Mcp-Name: status %d: %s", a.status, a.body)
	}
}

// jsonInt returns n as JSON.
func jsonInt(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestModernDiscover(t *testing.T) {
	t.Parallel()
	_, c := newModernClient(t)
	// clientInfo is optional.
	a := c.modernCall(1, era.MethodDiscover, nil, nil)
	if a.status != http.StatusOK || a.header.Get(headerSessionID) != "" {
		t.Fatalf("discover: status %d, session %q: %s", a.status, a.header.Get(headerSessionID), a.body)
	}
	var res struct {
		ResultType        string                     `json:"resultType"`
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      map[string]json.RawMessage `json:"capabilities"`
		Instructions      string                     `json:"instructions"`
		TTLMs             *json.Number               `json:"ttlMs"`
		CacheScope        string                     `json:"cacheScope"`
		Meta              map[string]struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(a.last(t).Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.ResultType != "complete" || res.Instructions == "" || res.CacheScope != "public" || res.TTLMs == nil ||
		res.Meta[era.MetaServerInfo].Name != DefaultName {
		t.Errorf("discover = %s", a.last(t).Result)
	}
	if ttl, err := res.TTLMs.Int64(); err != nil || ttl < 0 {
		t.Errorf("ttlMs = %v", res.TTLMs)
	}
	if !slices.Equal(res.SupportedVersions, []string{era.V20260728, era.V20251125, era.V20250618, era.V20250326}) {
		t.Errorf("supportedVersions = %v", res.SupportedVersions)
	}
	for _, k := range []string{"tools", "prompts", "resources", "completions"} {
		if _, ok := res.Capabilities[k]; !ok {
			t.Errorf("capabilities lack %s: %s", k, a.last(t).Result)
		}
	}
	// A backend that does not report its live services never changes the lists, so nothing
	// promises list changes; resources take subscriptions (through subscriptions/listen).
	if res := string(a.last(t).Result); strings.Contains(res, `"listChanged":true`) || !strings.Contains(res, `"subscribe":true`) {
		t.Errorf("discover capabilities = %s", a.last(t).Result)
	}
}

func TestModernMethods(t *testing.T) {
	t.Parallel()
	s, c := newModernClient(t)
	tests := []struct {
		method string
		params map[string]any
		want   []string // parts of the result's JSON
		cached string   // the cacheScope, for cacheable results
	}{
		{"tools/list", nil, []string{`"name":"echo"`}, "public"},
		{"tools/call", map[string]any{"name": "test_multiple_content_types"}, []string{`{"type":"text","text":"first"}`}, ""},
		{"resources/list", nil, []string{`"uri":"test://static-text"`}, "public"},
		{"resources/templates/list", nil, []string{`"uriTemplate":"test://template/{id}/data"`}, "public"},
		{"resources/read", map[string]any{"uri": "test://template/42/data"}, []string{`"text":"id 42"`}, "private"},
		{"prompts/list", nil, []string{`"name":"test_prompt_with_arguments"`}, "public"},
		{"prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]any{"arg1": "a", "arg2": "b"}}, []string{`"text":"a+b"`}, ""},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": map[string]any{"name": "arg1", "value": "par"}},
			[]string{`"values":["paris","park","party"]`}, ""},
	}
	for i, tc := range tests {
		a := c.modernCall(i+1, tc.method, tc.params, nil)
		if a.status != http.StatusOK || len(a.messages) != 1 || a.messages[0].Error != nil {
			t.Errorf("%s: status %d: %s", tc.method, a.status, a.body)
			continue
		}
		res := string(a.messages[0].Result)
		for _, w := range append(tc.want, `"resultType":"complete"`, `"`+era.MetaServerInfo+`":{"name":"`+DefaultName+`"`) {
			if !strings.Contains(res, w) {
				t.Errorf("%s: result %s lacks %s", tc.method, res, w)
			}
		}
		hasTTL := strings.Contains(res, `"ttlMs":`)
		if tc.cached != "" && (!hasTTL || !strings.Contains(res, `"cacheScope":"`+tc.cached+`"`)) || tc.cached == "" && hasTTL {
			t.Errorf("%s: caching hints of %s, want scope %q", tc.method, res, tc.cached)
		}
	}

	// The same list comes in the same order.
	first := c.modernCall(20, "tools/list", nil, nil).last(t).Result
	if again := c.modernCall(21, "tools/list", nil, nil).last(t).Result; string(first) != string(again) {
		t.Errorf("tools/list changed between calls:\n%s\n%s", first, again)
	}

	// A missing resource is -32602 with its URI: -32002 is retired in this era.
	a := c.modernCall(30, "resources/read", map[string]any{"uri": "test://nothing"}, nil)
	r := checkModernError(t, "missing resource", a, "30", http.StatusOK, jsonrpc.CodeInvalidParams)
	if r.Error != nil && r.Error.Data["uri"] != "test://nothing" {
		t.Errorf("missing resource data = %v", r.Error.Data)
	}
	// An unknown tool is still a protocol error with guidance.
	a = c.modernCall(31, "tools/call", map[string]any{"name": "ech"}, nil)
	if r := checkModernError(t, "unknown tool", a, "31", http.StatusOK, jsonrpc.CodeInvalidParams); r.Error != nil {
		if dym, _ := r.Error.Data["didYouMean"].([]any); len(dym) == 0 || dym[0] != "echo" {
			t.Errorf("unknown tool data = %v", r.Error.Data)
		}
	}

	// No request left a session behind.
	if n := len(s.sessions.All()); n != 0 {
		t.Errorf("%d sessions after modern requests", n)
	}
}

func TestModernProgressAndLogs(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, nil)
	c := newMCPHTTP(t, s)
	meta := modernMetaOf(era.V20260728)
	meta["progressToken"] = "p"
	a := c.modernCall(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "progress"}, "_meta": meta}, nil)
	if ct := a.header.Get("Content-Type"); ct != "text/event-stream" || len(a.messages) != 3 {
		t.Fatalf("progress: Content-Type %q: %s", ct, a.body)
	}
	for i, m := range a.messages[:2] {
		var p toolcall.ProgressParams
		if m.Method != notifyProgress || json.Unmarshal(m.Params, &p) != nil || string(p.ProgressToken) != `"p"` || p.Progress != float64(i+1) {
			t.Errorf("event %d = %s %s", i, m.Method, m.Params)
		}
	}
	if last := a.messages[2]; string(last.ID) != "1" || !strings.Contains(string(last.Result), `"resultType":"complete"`) {
		t.Errorf("last event = %s %s", last.ID, last.Result)
	}
	// The era has no resumption: no event ids, no priming event.
	if strings.Contains(string(a.body), "id: ") {
		t.Errorf("the stream has event ids: %s", a.body)
	}

	// A call that finds no worker logs to the client only when the request asks for a level.
	b.override = func(context.Context, string, *hootv1.Payload) (*hootv1.Result, error) {
		return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "no worker serves system")
	}
	fail := map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}}
	a = c.modernCall(2, "tools/call", fail, nil)
	for _, m := range a.messages {
		if m.Method == notifyMessage {
			t.Errorf("a log message without logLevel: %s", a.body)
		}
	}
	meta = modernMetaOf(era.V20260728)
	meta["io.modelcontextprotocol/logLevel"] = "debug"
	fail["_meta"] = meta
	a = c.modernCall(3, "tools/call", fail, nil)
	logged := false
	for _, m := range a.messages {
		logged = logged || m.Method == notifyMessage
	}
	if !logged {
		t.Errorf("no log message with logLevel debug: %s", a.body)
	}
}

// TestErasSideBySide serves a legacy session and modern requests from one server: neither
// changes what the other sees.
func TestErasSideBySide(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	legacy := newMCPHTTP(t, s)
	legacy.initialize(era.Latest)
	modern := &mcpHTTP{t: t, url: legacy.url, client: legacy.client}

	if a := modern.modernCall(1, "tools/list", nil, nil); a.status != http.StatusOK || !strings.Contains(string(a.last(t).Result), `"resultType"`) {
		t.Errorf("modern tools/list: %d %s", a.status, a.body)
	}
	r := legacy.call(2, "tools/list", map[string]any{})
	if r.Error != nil || strings.Contains(string(r.Result), `"resultType"`) || strings.Contains(string(r.Result), era.MetaServerInfo) {
		t.Errorf("legacy tools/list = %s %+v", r.Result, r.Error)
	}
	if r := legacy.call(3, "ping", nil); r.Error != nil {
		t.Errorf("legacy ping: %+v", r.Error)
	}
	// A legacy session keeps its era even when a message names the modern version: the
	// session's own header check answers.
	a := legacy.post(request(4, "tools/list", map[string]any{}), map[string]string{headerProtocolVersion: era.V20260728})
	if a.status != http.StatusBadRequest || a.last(t).Error == nil || a.last(t).Error.Code != jsonrpc.CodeInvalidRequest {
		t.Errorf("legacy session with the modern header: %d %s", a.status, a.body)
	}
	// initialize without modern signs starts a legacy session as before.
	a = modern.post(initializeRequest(era.V20250618), nil)
	if a.status != http.StatusOK || a.header.Get(headerSessionID) == "" {
		t.Errorf("initialize: %d %s", a.status, a.body)
	}
	if n := len(s.sessions.All()); n != 2 {
		t.Errorf("%d sessions, want the two that initialize started", n)
	}
}

// A header naming a version of neither era, without modern _meta, is answered as an
// unsupported version, with the versions of both eras, not as a malformed modern request.
func TestUnknownVersionHeaderWithoutMeta(t *testing.T) {
	t.Parallel()
	_, c := newModernClient(t)
	r := c.post(initializeRequest("2024-11-05"), map[string]string{headerProtocolVersion: "2024-11-05"}).last(t)
	if r.Error == nil || !strings.Contains(r.Error.Message, "2024-11-05") || !strings.Contains(string(mustJSON(t, r.Error.Data)), "2026-07-28") {
		t.Errorf("an unknown version header without _meta = %s, want an unsupported-version error naming the versions of both eras", mustJSON(t, r.Error))
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A tool's text result in the 2026-07-28 era is written by the fast encoder and says the same
// as the general path: the result with resultType and the server's identity in _meta.
func TestModernToolResultEncoding(t *testing.T) {
	t.Parallel()
	s, err := NewServer(&Config{Backend: newFakeBackend(), Name: "holler", Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	text := "la \"di\" da"
	resp := jsonrpc.NewResult(json.RawMessage(`7`), toolresult.Result{Content: []content.Block{content.Text(text)}, StructuredContent: json.RawMessage(`{"message":"la"}`)})
	modern := s.modernResponse(methodToolsCall, resp)
	fast, ok := toolresult.Encode(modern)
	if !ok {
		t.Fatal("a modern tool text result did not take the fast encoder")
	}
	var got, want map[string]any
	if err := json.Unmarshal(fast, &got); err != nil {
		t.Fatalf("fast encoding %s: %v", fast, err)
	}
	// The general path: encoding/json of the same result, with the era's fields by hand.
	general, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "result": map[string]any{
		"content": []any{map[string]any{"type": "text", "text": text}}, "structuredContent": map[string]any{"message": "la"},
		"resultType": "complete", "_meta": map[string]any{era.MetaServerInfo: map[string]any{"name": "holler", "title": s.cfg.Title, "version": "v1"}}}})
	_ = json.Unmarshal(general, &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fast modern encoding\n got %s\nwant %s", fast, general)
	}
	// A list keeps the general path, with its caching fields.
	list := s.modernResponse(methodToolsList, jsonrpc.NewResult(json.RawMessage(`8`), toollist.Result{Tools: []toollist.Description{}}))
	if b := toolresult.Marshal(list); !strings.Contains(string(b), `"ttlMs"`) || !strings.Contains(string(b), `"resultType":"complete"`) {
		t.Errorf("a modern tools/list result = %s, want ttlMs and resultType", b)
	}
}

// BenchmarkToolResultEncoding encodes a 1 MiB tool text result in each era: the 2026-07-28
// answer should cost about what the legacy one does.
func BenchmarkToolResultEncoding(b *testing.B) {
	s, err := NewServer(&Config{Backend: newFakeBackend()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	big := strings.Repeat("abcdefgh", 1<<17)
	res := jsonrpc.NewResult(json.RawMessage("1"), toolresult.Result{Content: []content.Block{content.Text(big)}, StructuredContent: json.RawMessage(`{"text":"` + big + `"}`)})
	b.Run("legacy", func(b *testing.B) {
		for b.Loop() {
			_ = toolresult.Marshal(res)
		}
	})
	b.Run("2026-07-28", func(b *testing.B) {
		for b.Loop() {
			_ = toolresult.Marshal(s.modernResponse(methodToolsCall, res))
		}
	})
}
