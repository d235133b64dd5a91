package paramshape

import (
	"encoding/json"
	"strings"
	"testing"
)

// table is a small table with every kind of shape: required members, an enumeration, nested
// objects, an object of strings and a list.
var table = NewTable(map[string]Method{
	"x/call": {
		Required: true,
		Members: []Member{
			{Name: "name", Required: true, Shape: Str("a string, a name")},
			{Name: "mode", Shape: &Shape{Kinds: []string{"string"}, Enum: []string{"a", "b"}, Expected: `"a" or "b"`}},
			{Name: "ref", Shape: Object("an object", Member{Name: "uri", Required: true, Shape: AString})},
			{Name: "tags", Shape: StringsObject},
			{Name: "list", Shape: &Shape{Kinds: []string{"array"}, Each: AString, Expected: "a list of strings"}},
		},
		Example: `{"name":"n"}`,
	},
	"x/list": {Example: `{}`},
})

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method, params, field, got string
	}{
		{"x/call", `{"name":"n"}`, "", ""},
		{"x/call", `{"name":"n","mode":null,"other":[1],"_meta":{"progressToken":3}}`, "", ""},
		{"x/call", `{"n\u0061me":"n"}`, "", ""},
		{"x/call", ``, "params", ""},
		{"x/call", `[]`, "params", "[]"},
		{"x/call", `{}`, "params.name", ""},
		{"x/call", `{"name":7}`, "params.name", "7"},
		{"x/call", `{"name":"n","mode":"c"}`, "params.mode", `"c"`},
		{"x/call", `{"name":"n","ref":{}}`, "params.ref.uri", ""},
		{"x/call", `{"name":"n","tags":{"k":1}}`, "params.tags.k", "1"},
		{"x/call", `{"name":"n","list":["a",2]}`, "params.list[1]", "2"},
		{"x/call", `{"name":"n","_meta":{"progressToken":true}}`, "params._meta.progressToken", "true"},
		{"x/list", ``, "", ""},
		{"x/list", `{"cursor":7}`, "", ""},
		{"x/unknown", `7`, "", ""},
	} {
		f := table.Check(tc.method, json.RawMessage(tc.params))
		switch {
		case tc.field == "" && f != nil:
			t.Errorf("%s %s: refused at %s", tc.method, tc.params, f.Field)
		case tc.field != "" && (f == nil || f.Field != tc.field || f.Got != tc.got || f.Expected == ""):
			t.Errorf("%s %s: fault %+v, want at %s with got %q", tc.method, tc.params, f, tc.field, tc.got)
		}
	}
	if table.Example("x/call") != `{"name":"n"}` || table.Example("x/unknown") != "" {
		t.Error("examples")
	}
}

// FuzzCheck checks that any params are either accepted or refused at a member of the params
// with what it must be, and never break the checker.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"name":"n"}`, `{"name":"n","tags":{"k":"v"},"list":["a"]}`, `{"n\u0061me":1}`, `[]`, `null`, `{"ref":{"uri":null}}`, `{`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		if fault := table.Check("x/call", json.RawMessage(params)); fault != nil {
			if !strings.HasPrefix(fault.Field, "params") || fault.Expected == "" {
				t.Fatalf("fault %+v", fault)
			}
		}
	})
}
