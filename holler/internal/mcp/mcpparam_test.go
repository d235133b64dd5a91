package mcp

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/mcpheader"
)

func TestParamHeadersOfTheTable(t *testing.T) {
	t.Parallel()
	s, _ := newModernClient(t)
	got := s.paramHeaders["test_custom_header"]
	want := map[string]mcpheader.Param{
		"region":   {Property: "region", Name: "Region", Kind: "string"},
		"priority": {Property: "priority", Name: "Priority", Kind: "integer"},
		"verbose":  {Property: "verbose", Name: "Verbose", Kind: "boolean"},
	}
	if len(got) != len(want) {
		t.Fatalf("headers of test_custom_header = %+v", got)
	}
	for _, ph := range got {
		if want[ph.Property] != ph {
			t.Errorf("header %+v; want %+v", ph, want[ph.Property])
		}
	}
	if len(s.paramHeaders) != 1 {
		t.Errorf("tools with headers: %v; want test_custom_header alone", s.paramHeaders)
	}
}

// TestParamHeadersOverHTTP checks the Mcp-Param headers of a tools/call against its arguments,
// over real HTTP: accepted calls reach the tool, refused ones are 400 with -32020 and guidance.
func TestParamHeadersOverHTTP(t *testing.T) {
	t.Parallel()
	_, c := newModernClient(t)
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	for _, tc := range []struct {
		name   string
		args   map[string]any
		header map[string]string
		ok     bool
	}{
		{"plain", map[string]any{"region": "us-west1"}, map[string]string{"Mcp-Param-Region": "us-west1"}, true},
		{"base64", map[string]any{"region": "Hello"}, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8=?="}, true},
		{"base64 of non-ASCII", map[string]any{"region": "ést 東"}, map[string]string{"Mcp-Param-Region": b64("ést 東")}, true},
		{"base64 of spaces at the ends", map[string]any{"region": " x "}, map[string]string{"Mcp-Param-Region": b64(" x ")}, true},
		{"base64 without padding", map[string]any{"region": "Hello"}, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8?="}, false},
		{"base64 with bad characters", map[string]any{"region": "Hello"}, map[string]string{"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?="}, false},
		{"no suffix is literal", map[string]any{"region": "=?base64?SGVsbG8="}, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8="}, true},
		{"no prefix is literal", map[string]any{"region": "SGVsbG8="}, map[string]string{"Mcp-Param-Region": "SGVsbG8="}, true},
		{"literal that is not the value", map[string]any{"region": "Hello"}, map[string]string{"Mcp-Param-Region": "SGVsbG8="}, false},
		{"case of the value matters", map[string]any{"region": "eu"}, map[string]string{"Mcp-Param-Region": "EU"}, false},
		{"header name in any case", map[string]any{"region": "eu"}, map[string]string{"mcp-param-region": "eu"}, true},
		{"header missing", map[string]any{"region": "eu"}, nil, false},
		{"header without a value in the body", map[string]any{"region": "eu"}, map[string]string{"Mcp-Param-Region": "eu", "Mcp-Param-Priority": "3"}, false},
		{"null needs no header", map[string]any{"region": "eu", "priority": nil}, map[string]string{"Mcp-Param-Region": "eu"}, true},
		{"integer", map[string]any{"region": "eu", "priority": 42}, map[string]string{"Mcp-Param-Region": "eu", "Mcp-Param-Priority": "42"}, true},
		{"integer compared as a number", map[string]any{"region": "eu", "priority": 42}, map[string]string{"Mcp-Param-Region": "eu", "Mcp-Param-Priority": "42.0"}, true},
		{"integer as a string in the body", map[string]any{"region": "eu", "priority": "42"}, map[string]string{"Mcp-Param-Region": "eu", "Mcp-Param-Priority": "42"}, true},
		{"other integer", map[string]any{"region": "eu", "priority": 42}, map[string]string{"Mcp-Param-Region": "eu", "Mcp-Param-Priority": "43"}, false},
		{"integer header not a number", map[string]any{"region": "eu", "priority": 42}, map[string]string{"Mcp-Param-Region": "eu", "Mcp-Param-Priority": "many"}, false},
		{"boolean", map[string]any{"region": "eu", "verbose": true}, map[string]string{"Mcp-Param-Region": "eu", "Mcp-Param-Verbose": "true"}, true},
		{"boolean spelled otherwise", map[string]any{"region": "eu", "verbose": true}, map[string]string{"Mcp-Param-Region": "eu", "Mcp-Param-Verbose": "TRUE"}, false},
		{"unannotated argument needs no header", map[string]any{"region": "eu", "query": "q"}, map[string]string{"Mcp-Param-Region": "eu"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := c.modernCall(5, methodToolsCall, map[string]any{"name": "test_custom_header", "arguments": tc.args}, tc.header)
			r := a.last(t)
			if tc.ok {
				if a.status != http.StatusOK || r.Error != nil {
					t.Errorf("refused: %d %s", a.status, a.body)
				}
				return
			}
			if a.status != http.StatusBadRequest || r.Error == nil || r.Error.Code != era.CodeHeaderMismatch || string(r.ID) != "5" {
				t.Fatalf("accepted or wrong error: %d %s", a.status, a.body)
			}
			if hint, _ := r.Error.Data["hint"].(string); !strings.Contains(hint, "Mcp-Param-") || !strings.HasPrefix(r.Error.Data["field"].(string), "Mcp-Param-") {
				t.Errorf("guidance = %v", r.Error.Data)
			}
		})
	}
}
