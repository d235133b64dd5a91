package era

import (
	"encoding/json"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
)

func TestOf(t *testing.T) {
	modern := json.RawMessage(`{"_meta":{"` + MetaProtocolVersion + `":"2026-07-28"}}`)
	for _, c := range []struct {
		name    string
		live    bool
		header  string
		params  json.RawMessage
		want    Era
		wantStr string
	}{
		{"a message without either sign", false, "", json.RawMessage(`{}`), Legacy, "legacy"},
		{"_meta names a version", false, "", modern, Modern, "modern"},
		{"the header names a modern version", false, V20260728, nil, Modern, "modern"},
		{"a header of no version at all is left to the legacy checks", false, "1999-01-01", nil, Legacy, "legacy"},
		{"a live legacy session keeps its era", true, V20260728, modern, Legacy, "legacy"},
	} {
		if got := Of(c.live, c.header, c.params); got != c.want {
			t.Errorf("%s: Of = %v, want %s", c.name, got, c.wantStr)
		}
	}
}

func TestReadMeta(t *testing.T) {
	m, p, f := ReadMeta(json.RawMessage(`{"name":"echo","_meta":{"` + MetaProtocolVersion + `":"2026-07-28","` +
		MetaClientCapabilities + `":{"sampling":{}},"` + MetaLogLevel + `":"debug","traceparent":"00-x"}}`))
	if f != nil {
		t.Fatalf("fault %+v", f)
	}
	if m.Version != V20260728 || string(m.Caps) != `{"sampling":{}}` || !m.HasLogLevel || string(m.LogLevel) != `"debug"` || m.Traceparent != "00-x" || string(p.Name) != `"echo"` {
		t.Errorf("meta %+v, params %+v", m, p)
	}
	for _, bad := range []string{``, `[]`, `{}`, `{"_meta":[]}`, `{"_meta":{"` + MetaProtocolVersion + `":7}}`, `{"_meta":{"` + MetaProtocolVersion + `":"2026-07-28"}}`} {
		if _, _, f := ReadMeta(json.RawMessage(bad)); f == nil || f.Code != jsonrpc.CodeInvalidParams || f.Guidance == nil || f.Guidance.Field == "" {
			t.Errorf("ReadMeta(%s) fault = %+v, want -32602 naming the field", bad, f)
		}
	}
}

// FuzzReadMeta feeds any params to ReadMeta: it never panics, a fault is always -32602 with
// the field to fix, and params it accepts carry a version and capabilities that are an object.
func FuzzReadMeta(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `{}`, `{"_meta":{}}`, `{"_meta":"x"}`,
		`{"_meta":{"` + MetaProtocolVersion + `":"2026-07-28","` + MetaClientCapabilities + `":{}}}`,
		`{"_meta":{"` + MetaProtocolVersion + `":"2026-07-28","` + MetaClientCapabilities + `":{},"` + MetaLogLevel + `":3}}`,
		`{"name":"a","_meta":{"` + MetaProtocolVersion + `":"","` + MetaClientCapabilities + `":{}},"_meta":{}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, params string) {
		m, _, fault := ReadMeta(json.RawMessage(params))
		if fault != nil {
			if fault.Code != jsonrpc.CodeInvalidParams || fault.Guidance == nil || fault.Guidance.Field == "" || fault.Text == "" {
				t.Fatalf("ReadMeta(%q) fault %+v", params, fault)
			}
			return
		}
		if rawjson.Kind(m.Caps) != "object" || m.HasLogLevel != (m.LogLevel != nil) {
			t.Fatalf("ReadMeta(%q) accepted %+v", params, m)
		}
	})
}

func TestNameInBody(t *testing.T) {
	p := Params{Name: json.RawMessage(`"echo"`), URI: json.RawMessage(`"hoot://x"`), TaskID: json.RawMessage(`"t1"`)}
	for _, c := range []struct{ method, field, value string }{
		{"tools/call", "params.name", "echo"},
		{"prompts/get", "params.name", "echo"},
		{"resources/read", "params.uri", "hoot://x"},
		{"tasks/get", "params.taskId", "t1"},
	} {
		if field, value, ok := NameInBody(c.method, p); !ok || field != c.field || value != c.value {
			t.Errorf("NameInBody(%s) = %q %q %v", c.method, field, value, ok)
		}
	}
	if _, _, ok := NameInBody("tools/list", p); ok {
		t.Error("tools/list has no Mcp-Name")
	}
}
