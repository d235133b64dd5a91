package mcp

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
)

// A malformedCase is a mistake a client can make, and what the server must answer, over any
// transport.
type malformedCase struct {
	name string
	// version is the protocol version to initialize with; empty means no initialize.
	version string
	body    string
	// wantCode is the JSON-RPC error code; 0 means a tool result with isError.
	wantCode int
	// wantData are the keys the error's data must have.
	wantData []string
	// wantText are parts of the isError result's text, or of the error's message.
	wantText []string
	// wantDidYouMean is the first name of data.didYouMean, when set.
	wantDidYouMean string
	// wantStatus is the HTTP status.
	wantStatus int
	// wantNullID is set when the id could not be read and the answer's id must be null.
	wantNullID bool
}

var malformedCases = []malformedCase{
	{
		name: "not JSON", version: era.Latest,
		body:     `{"jsonrpc": "2.0", "id": 1, "method": `,
		wantCode: jsonrpc.CodeParseError, wantData: []string{"hint", "try"}, wantStatus: http.StatusBadRequest, wantNullID: true,
	},
	{
		name: "batch array", version: era.Latest,
		body:     `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint"}, wantText: []string{"batch"}, wantStatus: http.StatusBadRequest, wantNullID: true,
	},
	{
		name: "not an object", version: era.Latest,
		body:     `"tools/list"`,
		wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint", "try"}, wantStatus: http.StatusBadRequest, wantNullID: true,
	},
	{
		name: "not JSON-RPC at all", version: era.Latest,
		body:     `{"name":"echo","arguments":{"message":"hi"}}`,
		wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint", "try"}, wantText: []string{"JSON-RPC 2.0"}, wantStatus: http.StatusBadRequest, wantNullID: true,
	},
	{
		name: "wrong jsonrpc", version: era.Latest,
		body:     `{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint", "try"}, wantText: []string{`"2.0"`}, wantStatus: http.StatusBadRequest,
	},
	{
		name: "no method", version: era.Latest,
		body:     `{"jsonrpc":"2.0","id":1,"params":{}}`,
		wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint", "try"}, wantStatus: http.StatusBadRequest,
	},
	{
		name: "bad id type", version: era.Latest,
		body:     `{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}`,
		wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint"}, wantText: []string{"id must be"}, wantStatus: http.StatusBadRequest, wantNullID: true,
	},
	{
		name: "null id", version: era.Latest,
		body:     `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint"}, wantStatus: http.StatusBadRequest, wantNullID: true,
	},
	{
		name: "params not an object", version: era.Latest,
		body:     `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"all"}`,
		wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint"}, wantStatus: http.StatusBadRequest,
	},
	{
		name: "unknown method", version: era.Latest,
		body:     `{"jsonrpc":"2.0","id":1,"method":"tools/lst"}`,
		wantCode: jsonrpc.CodeMethodNotFound, wantData: []string{"hint", "methods", "try"}, wantDidYouMean: "tools/list", wantStatus: http.StatusOK,
	},
	{
		name: "tool name as method", version: era.Latest,
		body:     `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"message":"hi"}}`,
		wantCode: jsonrpc.CodeMethodNotFound, wantData: []string{"hint", "methods", "try"}, wantText: []string{"tools/call"}, wantStatus: http.StatusOK,
	},
	{
		name:     "request before initialize",
		body:     `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint", "try"}, wantText: []string{"initialize"}, wantStatus: http.StatusBadRequest,
	},
	{
		name: "initialize twice", version: era.Latest,
		body:     initializeRequest(era.Latest),
		wantCode: jsonrpc.CodeInvalidRequest, wantData: []string{"hint"}, wantText: []string{"already initialized"}, wantStatus: http.StatusOK,
	},
	{
		name: "tools/call without a name", version: era.Latest,
		body:     `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}`,
		wantCode: jsonrpc.CodeInvalidParams, wantData: []string{"hint", "tools", "try"}, wantStatus: http.StatusOK,
	},
	{
		name: "unknown tool", version: era.Latest,
		body:     `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ech","arguments":{}}}`,
		wantCode: jsonrpc.CodeInvalidParams, wantData: []string{"hint", "tools", "didYouMean", "try"}, wantDidYouMean: "echo",
		wantText: []string{`did you mean "echo"`}, wantStatus: http.StatusOK,
	},
	{
		name: "unknown field as result", version: era.V20251125,
		body:       `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"mesage":"hi"}}}`,
		wantText:   []string{"field: mesage", "did you mean: message", "usage: echo(", "example: ", "expected: "},
		wantStatus: http.StatusOK,
	},
	{
		name: "unknown field as -32602", version: era.V20250618,
		body:     `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"mesage":"hi"}}}`,
		wantCode: jsonrpc.CodeInvalidParams, wantData: []string{"hint", "tool", "field", "expected", "got", "didYouMean", "usage", "example"},
		wantDidYouMean: "message", wantStatus: http.StatusOK,
	},
	{
		name: "wrong type as result", version: era.V20251125,
		body:       `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":5}}}`,
		wantText:   []string{"field: message", "expected: a string", "got: 5", "usage: "},
		wantStatus: http.StatusOK,
	},
	{
		name: "wrong type as -32602", version: era.V20250326,
		body:     `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":true}}}`,
		wantCode: jsonrpc.CodeInvalidParams, wantData: []string{"hint", "field", "expected", "got", "usage", "example"}, wantStatus: http.StatusOK,
	},
	{
		name: "failed validation as result", version: era.V20251125,
		body:       `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cas_get","arguments":{"hash":"xyz"}}}`,
		wantText:   []string{"field: hash", `got: "xyz"`, "usage: cas_get(", "example: "},
		wantStatus: http.StatusOK,
	},
	{
		name: "failed validation as -32602", version: era.V20250618,
		body:     `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		wantCode: jsonrpc.CodeInvalidParams, wantData: []string{"hint", "field", "usage", "example"}, wantStatus: http.StatusOK,
	},
	{
		name: "arguments not an object", version: era.V20250618,
		body:     `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":"hi"}}`,
		wantCode: jsonrpc.CodeInvalidParams, wantData: []string{"hint", "expected", "got", "usage", "example"}, wantStatus: http.StatusOK,
	},
	{
		name: "two members of a oneof", version: era.V20251125,
		body:       `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cas_store","arguments":{"content":"a","content_base64":"YQ=="}}}`,
		wantText:   []string{"only one of content, content_base64", "field: content_base64"},
		wantStatus: http.StatusOK,
	},
	{
		name: "unknown cursor", version: era.Latest,
		body:     `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"bm90IG1pbmU"}}`,
		wantCode: jsonrpc.CodeInvalidParams, wantData: []string{"hint", "try"}, wantText: []string{"cursor"}, wantStatus: http.StatusOK,
	},
	{
		name: "cursor not a string", version: era.Latest,
		body:     `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":2}}`,
		wantCode: jsonrpc.CodeInvalidParams, wantData: []string{"hint", "try"}, wantStatus: http.StatusOK,
	},
	{
		name: "unknown log level", version: era.Latest,
		body:     `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"loud"}}`,
		wantCode: jsonrpc.CodeInvalidParams, wantData: []string{"hint", "expected", "got", "try"}, wantText: []string{"debug"}, wantStatus: http.StatusOK,
	},
	{
		name: "log level missing", version: era.Latest,
		body:     `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{}}`,
		wantCode: jsonrpc.CodeInvalidParams, wantData: []string{"hint", "expected", "try"}, wantStatus: http.StatusOK,
	},
}

// checkMalformed checks r, the answer to tc.
func checkMalformed(t *testing.T, tc malformedCase, r rpcResponse) {
	t.Helper()
	if tc.wantCode == 0 {
		tr := toolResultOf(t, r)
		if !tr.IsError {
			t.Fatalf("want a tool result with isError, got %s", r.Result)
		}
		if tr.StructuredContent != nil {
			t.Errorf("an error result has structuredContent %v", tr.StructuredContent)
		}
		for _, want := range tc.wantText {
			if !strings.Contains(tr.text(), want) {
				t.Errorf("result text lacks %q:\n%s", want, tr.text())
			}
		}
		return
	}
	if r.Error == nil {
		t.Fatalf("want error %d, got result %s", tc.wantCode, r.Result)
	}
	if r.Error.Code != tc.wantCode {
		t.Errorf("code = %d, want %d (%s)", r.Error.Code, tc.wantCode, r.Error.Message)
	}
	if missing := hasKeys(r.Error.Data, tc.wantData...); len(missing) > 0 {
		t.Errorf("data lacks %v: %v", missing, r.Error.Data)
	}
	if hint, _ := r.Error.Data["hint"].(string); hint == "" {
		t.Errorf("data has no hint: %v", r.Error.Data)
	}
	for _, want := range tc.wantText {
		if !strings.Contains(r.Error.Message, want) {
			t.Errorf("message %q lacks %q", r.Error.Message, want)
		}
	}
	if tc.wantDidYouMean != "" {
		dym, _ := r.Error.Data["didYouMean"].([]any)
		if len(dym) == 0 || dym[0] != tc.wantDidYouMean {
			t.Errorf("didYouMean = %v, want %q first", dym, tc.wantDidYouMean)
		}
	}
	switch {
	case tc.wantNullID && string(r.ID) != "null":
		t.Errorf("id = %s, want null", r.ID)
	case !tc.wantNullID && string(r.ID) == "null":
		t.Errorf("id = null, want the request's id")
	}
}

func TestMalformedHTTP(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, nil)
	for _, tc := range malformedCases {
		t.Run(tc.name, func(t *testing.T) {
			c := newMCPHTTP(t, s)
			if tc.version != "" {
				c.initialize(tc.version)
			}
			a := c.post(tc.body, nil)
			if a.status != tc.wantStatus {
				t.Errorf("status = %d, want %d: %s", a.status, tc.wantStatus, a.body)
			}
			if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q", ct)
			}
			checkMalformed(t, tc, a.last(t))
		})
	}
	if n := b.calls.Load(); n != 0 {
		t.Errorf("the backend got %d calls from malformed requests", n)
	}
}

func TestMalformedStdio(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, nil)
	for _, tc := range malformedCases {
		t.Run(tc.name, func(t *testing.T) {
			c := newMCPStdio(t, s)
			if tc.version != "" {
				c.initialize(tc.version)
			}
			c.send(tc.body)
			checkMalformed(t, tc, c.recv())
		})
	}
	if n := b.calls.Load(); n != 0 {
		t.Errorf("the backend got %d calls from malformed requests", n)
	}
}

func TestMinimalErrors(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, func(c *Config) { c.MinimalErrors = true })
	c := newMCPHTTP(t, s)
	c.initialize(era.V20250618)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/lst"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ech"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"mesage":"x"}}}`,
		`not json`,
	} {
		r := c.post(body, nil).last(t)
		if r.Error == nil || r.Error.Message == "" || r.Error.Data != nil {
			t.Errorf("%s: want a bare error, got %+v", body, r.Error)
		}
	}
	c2 := newMCPHTTP(t, s)
	c2.initialize(era.V20251125)
	tr := toolResultOf(t, c2.call(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"mesage": "x"}}))
	if !tr.IsError || strings.Contains(tr.text(), "usage:") {
		t.Errorf("want a bare isError result, got %q", tr.text())
	}
}

// TestMalformedShowsTheEraExample: a message that is not JSON-RPC but carries a 2026-07-28
// _meta is shown server/discover to copy, not initialize, which that era does not have.
func TestMalformedShowsTheEraExample(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	c := newMCPHTTP(t, s)
	for _, tc := range []struct {
		name, body, want string
	}{
		{"modern _meta", `{"id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, era.MethodDiscover},
		{"no era", `{"id":1,"method":"tools/list"}`, methodInitialize},
	} {
		a := c.post(tc.body, nil)
		r := a.last(t)
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest {
			t.Errorf("%s: %s", tc.name, a.body)
			continue
		}
		try, _ := r.Error.Data["try"].(map[string]any)
		if try["method"] != tc.want {
			t.Errorf("%s: try = %v, want %s", tc.name, try, tc.want)
		}
	}
}
