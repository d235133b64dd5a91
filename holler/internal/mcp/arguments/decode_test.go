package arguments

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

// TestDecode decodes echo's arguments: the request comes back filled in and valid, and every
// kind of mistake comes back as an Error that names the argument and what it takes.
func TestDecode(t *testing.T) {
	t.Parallel()
	echo := &hootv1hoot.Tools[slices.IndexFunc(hootv1hoot.Tools, func(t hootv1hoot.Tool) bool { return t.Name == "echo" })]
	m, bad := Decode(echo, json.RawMessage(" {\n\"message\": \"hi\"} "))
	if bad != nil {
		t.Fatalf("a valid call failed: %+v", bad)
	}
	if req, ok := m.(*hootv1.EchoRequest); !ok || req.GetMessage() != "hi" {
		t.Fatalf("decoded %v, want echo's request with its message", m)
	}
	testCases := []struct {
		name, args                       string
		wantField, wantExpected, wantGot string
		wantDYM                          string
	}{
		{name: "array", args: `[1]`, wantExpected: "an object", wantGot: "[1]"},
		{name: "string", args: `"hi"`, wantExpected: "an object", wantGot: `"hi"`},
		{name: "absent is empty, and message is required", args: ``, wantField: "message"},
		{name: "null is empty", args: `null`, wantField: "message"},
		{name: "misspelt", args: `{"mesage":"hi"}`, wantField: "mesage", wantExpected: "message", wantDYM: "message"},
		{name: "wrong type", args: `{"message":5}`, wantField: "message", wantExpected: "a string", wantGot: "5"},
		{name: "too short", args: `{"message":""}`, wantField: "message", wantGot: `""`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, bad := Decode(echo, json.RawMessage(tc.args))
			if bad == nil {
				t.Fatalf("decoded %v, want an error", m)
			}
			if m != nil || bad.Message == "" || bad.Field != tc.wantField ||
				!strings.Contains(bad.Expected, tc.wantExpected) || tc.wantGot != "" && bad.Got != tc.wantGot ||
				tc.wantDYM != "" && !slices.Contains(bad.DidYouMean, tc.wantDYM) {
				t.Errorf("Decode(%s) = %v, %+v", tc.args, m, bad)
			}
		})
	}
}
