package arguments

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"google.golang.org/protobuf/encoding/protojson"
)

func TestPathAt(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"a":1,"b":{"c":[10,{"d":"x,]}"},30]},"e\"f":true}`)
	testCases := []struct {
		at   string // the text whose first occurrence is the offset
		want string
	}{
		{`"a"`, "a"},
		{`1,`, "a"},
		{`"b"`, "b"},
		{`{"c"`, "b"},
		{`"c"`, "b.c"},
		{`10`, "b.c[0]"},
		{`{"d"`, "b.c[1]"},
		{`"d"`, "b.c[1].d"},
		{`"x,]}"`, "b.c[1].d"},
		{`30`, "b.c[2]"},
		{`"e\"f"`, `e"f`},
		{`true`, `e"f`},
	}
	for _, tc := range testCases {
		off := strings.Index(string(doc), tc.at)
		if off < 0 {
			t.Fatalf("%q not in doc", tc.at)
		}
		var parts []string
		for _, s := range pathAt(doc, off) {
			if s.isIndex {
				parts = append(parts, "["+string(rune('0'+s.index))+"]")
			} else {
				parts = append(parts, "."+s.key)
			}
		}
		got := strings.TrimPrefix(strings.Join(parts, ""), ".")
		got = strings.ReplaceAll(got, ".[", "[")
		if got != tc.want {
			t.Errorf("pathAt(%q) = %q, want %q", tc.at, got, tc.want)
		}
	}
}

// TestExplainDecodeError decodes into hoot.v1.ToolOptions, which has a nested message, an enum
// and scalars, and checks that protojson's errors name the field and what it takes.
func TestExplainDecodeError(t *testing.T) {
	t.Parallel()
	md := (&hootv1.ToolOptions{}).ProtoReflect().Descriptor()
	testCases := []struct {
		name         string
		args         string
		wantField    string
		wantExpected string
		wantGot      string
		wantDYM      string
	}{
		{name: "unknown top-level field", args: `{"nme":"x"}`, wantField: "nme", wantExpected: "one of the fields name, title", wantGot: `"nme"`, wantDYM: "name"},
		{name: "unknown nested field", args: `{"annotations": {"read_onli": true}}`, wantField: "annotations.read_onli", wantExpected: "read_only", wantDYM: "read_only"},
		{name: "wrong scalar", args: `{"name": 12}`, wantField: "name", wantExpected: "a string", wantGot: "12"},
		{name: "wrong nested scalar", args: `{"annotations":{"readOnly":"yes"}}`, wantField: "annotations.read_only", wantExpected: "true or false", wantGot: `"yes"`},
		{name: "unknown enum name", args: `{"tier":"TIER_HUGE"}`, wantField: "tier", wantExpected: `one of "TIER_BASIC", "TIER_STANDARD", "TIER_ADMIN"`, wantGot: `"TIER_HUGE"`},
		{name: "object for scalar", args: `{"title":{"x":1}}`, wantField: "title", wantExpected: "a string", wantGot: `{"x":1}`},
		{name: "scalar for message", args: `{"annotations":"all"}`, wantField: "annotations", wantExpected: "an object", wantGot: `"all"`},
		{name: "duplicate field", args: `{"name":"a","name":"b"}`, wantField: "name", wantExpected: "each field once"},
		{name: "non-ASCII before the error", args: `{"title":"äöü ♪","nam":"x"}`, wantField: "nam", wantDYM: "name"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := rawjson.Compact(json.RawMessage(tc.args))
			err := protojson.Unmarshal(doc, &hootv1.ToolOptions{})
			if err == nil {
				t.Fatal("protojson accepted the arguments")
			}
			ae := explainDecodeError(md, doc, err)
			if ae.Field != tc.wantField {
				t.Errorf("field = %q, want %q (%v)", ae.Field, tc.wantField, err)
			}
			if !strings.Contains(ae.Expected, tc.wantExpected) {
				t.Errorf("expected = %q, want it to contain %q", ae.Expected, tc.wantExpected)
			}
			if tc.wantGot != "" && ae.Got != tc.wantGot {
				t.Errorf("got = %q, want %q", ae.Got, tc.wantGot)
			}
			if tc.wantDYM != "" && !slices.Contains(ae.DidYouMean, tc.wantDYM) {
				t.Errorf("didYouMean = %v, want %q", ae.DidYouMean, tc.wantDYM)
			}
			if ae.Message == "" || strings.Contains(ae.Message, "proto:") || strings.Contains(ae.Message, "line 1") {
				t.Errorf("message = %q", ae.Message)
			}
		})
	}
}

func TestRawAt(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"mimeType":"x","items":[{"name":"a"},{"name":"b"}],"labels":{"k":"v"}}`)
	for path, want := range map[string]string{
		"mime_type":     `"x"`,
		"items[1].name": `"b"`,
		"labels[k]":     `"v"`,
	} {
		if got, ok := rawAt(doc, path); !ok || string(got) != want {
			t.Errorf("rawAt(%q) = %s, %v; want %s", path, got, ok, want)
		}
	}
	for _, path := range []string{"", "nope", "items[5]", "items[x]", "mime_type.x"} {
		if got, ok := rawAt(doc, path); ok {
			t.Errorf("rawAt(%q) = %s, want nothing", path, got)
		}
	}
}

func FuzzExplainDecodeError(f *testing.F) {
	for _, s := range []string{`{"nme":"x"}`, `{"annotations":{"readOnly":"yes"}}`, `{"tier":"X"}`, `{"name":[1,{"a":"\"]"}]}`} {
		f.Add([]byte(s))
	}
	md := (&hootv1.ToolOptions{}).ProtoReflect().Descriptor()
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		doc := rawjson.Compact(data)
		err := protojson.Unmarshal(doc, &hootv1.ToolOptions{})
		if err == nil {
			return
		}
		if ae := explainDecodeError(md, doc, err); ae.Message == "" {
			t.Errorf("no message for %q (%v)", doc, err)
		}
	})
}
