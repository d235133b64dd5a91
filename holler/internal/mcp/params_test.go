package mcp

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
)

// A paramsCase is a request whose params break its method's schema.
type paramsCase struct {
	method string
	params string // the params without _meta; "" sends none
	field  string // the member the answer must name
	// legacy and modern say in which era the method is served.
	legacy, modern bool
}

// paramsCases have at least one case of every method this server answers with params.
var paramsCases = []paramsCase{
	{methodInitialize, `{"protocolVersion":2025,"capabilities":{}}`, "params.protocolVersion", true, false},
	{methodInitialize, `{"protocolVersion":"2025-11-25"}`, "params.capabilities", true, false},
	{methodInitialize, `{"protocolVersion":"2025-11-25","capabilities":[]}`, "params.capabilities", true, false},
	{methodInitialize, `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":7,"version":"1"}}`, "params.clientInfo.name", true, false},
	{methodInitialize, "", "params", true, false},
	{methodPing, `{"_meta":{"progressToken":{}}}`, "params._meta.progressToken", true, false},
	{era.MethodDiscover, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":true}}`, "params._meta.progressToken", false, true},
	{methodToolsList, `{"cursor":2}`, "params.cursor", true, true},
	{methodToolsCall, `{"name":5,"arguments":{}}`, "params.name", true, true},
	{methodToolsCall, `{"name":"greet","arguments":"hi"}`, "params.arguments", true, true},
	{methodToolsCall, `{"name":"greet","arguments":[1]}`, "params.arguments", true, true},
	{methodToolsCall, `{"arguments":{}}`, "params.name", true, true},
	{methodToolsCall, `{"name":"greet","arguments":{},"task":"soon"}`, "params.task", true, false},
	{methodPromptsList, `{"cursor":false}`, "params.cursor", true, true},
	{methodPromptsGet, `{"name":["x"]}`, "params.name", true, true},
	{methodPromptsGet, `{"name":"test_prompt_with_arguments","arguments":{"arg1":1}}`, "params.arguments.arg1", true, true},
	{methodResourcesList, `{"cursor":{}}`, "params.cursor", true, true},
	{methodResourceTemplates, `{"cursor":1.5}`, "params.cursor", true, true},
	{methodResourcesRead, `{}`, "params.uri", true, true},
	{methodResourcesRead, `{"uri":42}`, "params.uri", true, true},
	{methodSubscribe, `{"uri":null}`, "params.uri", true, false},
	{methodUnsubscribe, `{"uri":true}`, "params.uri", true, false},
	{methodComplete, `{"argument":{"name":"a","value":""}}`, "params.ref", true, true},
	{methodComplete, `{"ref":{"type":"ref/other","name":"x"},"argument":{"name":"a","value":""}}`, "params.ref.type", true, true},
	{methodComplete, `{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":3}}`, "params.argument.value", true, true},
	{methodComplete, `{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":""},"context":{"arguments":{"b":false}}}`, "params.context.arguments.b", true, true},
	{methodSetLevel, `{"level":"loud"}`, "params.level", true, false},
	{methodSetLevel, `{"level":3}`, "params.level", true, false},
	{methodTasksGet, `{"taskId":1}`, "params.taskId", true, true},
	{methodTasksResult, `{}`, "params.taskId", true, false},
	{methodTasksList, `{"cursor":[]}`, "params.cursor", true, false},
	{methodTasksCancel, `{"taskId":{}}`, "params.taskId", true, true},
	{methodTasksUpdate, `{"taskId":"task_x","inputResponses":"yes"}`, "params.inputResponses", false, true},
	{methodListen, `{"notifications":{"toolsListChanged":"yes"}}`, "params.notifications.toolsListChanged", false, true},
}

// newParamsServer returns a server with tools, prompts, resources, completions and tasks.
func newParamsServer(t *testing.T) (*Server, *fakeBackend) {
	t.Helper()
	b := newJobTable().backend()
	s, err := NewServer(&Config{Backend: b, MaxTier: hootv1.Tier_TIER_STANDARD})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, b
}

// withMeta returns params (JSON text) as a map with a 2026-07-28 _meta that declares tasks.
func withMeta(t *testing.T, params string) map[string]any {
	t.Helper()
	p := map[string]any{}
	if params != "" {
		if err := json.Unmarshal([]byte(params), &p); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := p["_meta"]; ok {
		return p
	}
	return withTasks(p)
}

// legacyBody returns the request of tc as a 2025-11-25 message.
func legacyBody(tc paramsCase) string {
	if tc.params == "" {
		return `{"jsonrpc":"2.0","id":7,"method":"` + tc.method + `"}`
	}
	return `{"jsonrpc":"2.0","id":7,"method":"` + tc.method + `","params":` + tc.params + `}`
}

// checkParamsAnswer checks that r refuses tc as a protocol error that names the member.
func checkParamsAnswer(t *testing.T, tc paramsCase, r rpcResponse) {
	t.Helper()
	if r.Error == nil {
		t.Fatalf("want -32602, got result %s", r.Result)
	}
	if r.Error.Code != jsonrpc.CodeInvalidParams || string(r.ID) != "7" {
		t.Fatalf("error %d with id %s, want %d with id 7: %s", r.Error.Code, r.ID, jsonrpc.CodeInvalidParams, r.Error.Message)
	}
	if missing := hasKeys(r.Error.Data, "hint", "field", "expected", "try"); len(missing) > 0 {
		t.Fatalf("data lacks %v: %v", missing, r.Error.Data)
	}
	if f := r.Error.Data["field"]; f != tc.field && !strings.HasPrefix(tc.field, f.(string)+".") {
		// subscriptions/listen names the member it reads; the others the exact one.
		t.Errorf("data.field = %v, want %s", f, tc.field)
	}
	if tc.method == methodInitialize && r.Error.Data["supported"] == nil {
		t.Errorf("an initialize refused does not list the supported versions: %v", r.Error.Data)
	}
	try, _ := r.Error.Data["try"].(map[string]any)
	if try["method"] != tc.method {
		t.Errorf("data.try = %v, want a %s request", r.Error.Data["try"], tc.method)
	}
}

// TestAttackMethodParams sends every method a request whose params break the method's own
// schema, in both eras, over HTTP and stdio, and shows each refused as a protocol error
// (-32602) that names the member, says what it must be and gives a request to copy, before
// anything reaches a worker.
func TestAttackMethodParams(t *testing.T) {
	t.Parallel()
	s, b := newParamsServer(t)
	for _, tc := range paramsCases {
		name := tc.method + " " + tc.params
		if tc.legacy {
			t.Run("2025-11-25 HTTP "+name, func(t *testing.T) {
				c := newMCPHTTP(t, s)
				if tc.method != methodInitialize {
					c.initializeWith(era.V20251125, `{"tasks":{}}`)
				}
				checkParamsAnswer(t, tc, c.post(legacyBody(tc), nil).last(t))
			})
			t.Run("2025-11-25 stdio "+name, func(t *testing.T) {
				c := newMCPStdio(t, s)
				if tc.method != methodInitialize {
					c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{}},"clientInfo":{"name":"test","version":"0"}}}`)
					if r := c.recv(); r.Error != nil {
						t.Fatalf("initialize: %+v", r.Error)
					}
					c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				}
				c.send(legacyBody(tc))
				checkParamsAnswer(t, tc, c.recv())
			})
		}
		if tc.modern {
			t.Run("2026-07-28 HTTP "+name, func(t *testing.T) {
				c := newMCPHTTP(t, s)
				params := withMeta(t, tc.params)
				var header map[string]string
				if id, ok := params["taskId"].(string); ok {
					header = map[string]string{era.HeaderName: id}
				}
				a := c.modernCall(7, tc.method, params, header)
				if a.status != http.StatusOK && !(tc.method == methodListen && a.status == http.StatusBadRequest) {
					t.Errorf("status %d: %s", a.status, a.body)
				}
				checkParamsAnswer(t, tc, a.last(t))
			})
			t.Run("2026-07-28 stdio "+name, func(t *testing.T) {
				c := newMCPStdio(t, s)
				c.send(modernLine(7, tc.method, withMeta(t, tc.params)))
				checkParamsAnswer(t, tc, c.recv())
			})
		}
	}
	if n := b.calls.Load(); n != 0 {
		t.Errorf("the backend got %d calls from requests with bad params", n)
	}
}

// TestParamsAllowWhatTheSchemaAllows checks that the params each method's shape describes,
// with members the schema does not name, _meta with a progress token, and null in optional
// members, all pass.
func TestParamsAllowWhatTheSchemaAllows(t *testing.T) {
	t.Parallel()
	extra := func(example string) string {
		return strings.TrimSuffix(strings.TrimSpace(example), "}") + func() string {
			if strings.TrimSpace(example) == "{}" {
				return ""
			}
			return ","
		}() + `"x-extension":{"any":[1,"two"]},"_meta":{"progressToken":"p1","vendor/key":true}}`
	}
	for method, ms := range methodShapes.Methods() {
		for _, params := range []string{ms.Example, extra(ms.Example)} {
			if f := methodShapes.Check(method, json.RawMessage(params)); f != nil {
				t.Errorf("%s %s: refused at %s (want %s)", method, params, f.Field, f.Expected)
			}
		}
		for _, m := range ms.Members {
			if m.Required {
				continue
			}
			p := extra(ms.Example)
			p = strings.TrimSuffix(p, "}") + `,"` + m.Name + `":null}`
			var check map[string]any
			if json.Unmarshal([]byte(p), &check) != nil {
				continue // the example already has the member
			}
			if f := methodShapes.Check(method, json.RawMessage(p)); f != nil {
				t.Errorf("%s %s: null in an optional member refused at %s", method, p, f.Field)
			}
		}
		if !ms.Required {
			if f := methodShapes.Check(method, nil); f != nil {
				t.Errorf("%s without params: refused at %s", method, f.Field)
			}
		}
	}
	for _, p := range []string{
		`{"name":"x","arguments":{},"task":{"ttl":60000}}`,
		`{"name":"x","arguments":{"nested":{"deep":[1,2,{"a":null}]}},"_meta":{"progressToken":12}}`,
		`{"n\u0061me":"x"}`, // escaped member names are read as written
	} {
		if f := methodShapes.Check(methodToolsCall, json.RawMessage(p)); f != nil {
			t.Errorf("tools/call %s: refused at %s", p, f.Field)
		}
	}
	if f := methodShapes.Check(methodComplete, json.RawMessage(`{"ref":{"type":"ref/resource","uri":"test://x/{id}"},"argument":{"name":"id","value":"1"},"context":{"arguments":{"a":"b"}}}`)); f != nil {
		t.Errorf("completion/complete of a template: refused at %s", f.Field)
	}
}

// FuzzCheckParams checks that the params check never panics, and that what it lets through
// for tools/call is what tools/call reads as a named call.
func FuzzCheckParams(f *testing.F) {
	for _, tc := range paramsCases {
		f.Add(tc.method, tc.params)
	}
	f.Add(methodToolsCall, `{"name":"echo","arguments":{"message":"hi"}}`)
	f.Add(methodToolsCall, `{"n\u0061me":"echo","Name":5}`)
	f.Fuzz(func(t *testing.T, method, params string) {
		fault := methodShapes.Check(method, json.RawMessage(params))
		if method != methodToolsCall || !json.Valid([]byte(params)) {
			return
		}
		if fault == nil {
			var p map[string]json.RawMessage
			if json.Unmarshal([]byte(params), &p) != nil {
				t.Fatalf("%s passed but is not an object", params)
			}
			var name string
			if json.Unmarshal(p["name"], &name) != nil {
				t.Fatalf("%s passed without a string name", params)
			}
		}
	})
}
