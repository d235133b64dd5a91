package guidance

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

// TestExampleCall checks that a tool's example call names the tool and carries its example
// arguments, compact, and that a tool without an example is called with an empty object.
func TestExampleCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		example, want string
	}{
		{`{ "hash": "abc" }`, `{"name":"cas_get","arguments":{"hash":"abc"}}`},
		{"", `{"name":"cas_get","arguments":{}}`},
		{"  \n", `{"name":"cas_get","arguments":{}}`},
	} {
		got := ExampleCall(&hootv1hoot.Tool{Name: "cas_get", Example: tc.example})
		if string(got) != tc.want {
			t.Errorf("example %q: call = %s, want %s", tc.example, got, tc.want)
		}
	}
	var req struct {
		JSONRPC, Method string
		Params          json.RawMessage
	}
	if err := json.Unmarshal(TryToolsCall(&hootv1hoot.Tool{Name: "cas_get"}), &req); err != nil {
		t.Fatal(err)
	}
	if req.JSONRPC != "2.0" || req.Method != "tools/call" || string(req.Params) != `{"name":"cas_get","arguments":{}}` {
		t.Errorf("tools/call to copy = %+v", req)
	}
	if !strings.Contains(string(TryInitialize("2025-11-25")), `"protocolVersion":"2025-11-25"`) {
		t.Errorf("initialize to copy = %s", TryInitialize("2025-11-25"))
	}
}

// TestArgumentText checks that the text a model reads of bad arguments has every part of the
// guidance that is set, in a fixed order, and nothing of the parts that are not.
func TestArgumentText(t *testing.T) {
	t.Parallel()
	if got := ArgumentText("bad", nil); got != "bad" {
		t.Errorf("without guidance: %q", got)
	}
	g := &Data{Hint: "Fix it.", Field: "items[2].name", Expected: "a string", Got: "7", DidYouMean: []string{"name", "names"}}
	want := "bad\nfield: items[2].name\nexpected: a string\ngot: 7\ndid you mean: name, names\nhint: Fix it."
	if got := ArgumentText("bad", g); got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
}
