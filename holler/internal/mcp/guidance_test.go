package mcp

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

func TestCloseNames(t *testing.T) {
	t.Parallel()
	tools := []string{"echo", "cas_store", "cas_get", "cas_inspect"}
	testCases := []struct {
		name string
		want []string
	}{
		{"ech", []string{"echo"}},
		{"ECHO", []string{"echo"}},
		{"cas_gte", []string{"cas_get"}},
		{"cas_put", []string{"cas_get"}},
		{"inspect", []string{"cas_inspect"}},
		{"store", []string{"cas_store"}},
		{"zzzzzzzz", nil},
		{"echo", nil},
	}
	for _, tc := range testCases {
		got := closeNames(tc.name, tools)
		if len(tc.want) == 0 && len(got) != 0 || len(tc.want) > 0 && (len(got) == 0 || got[0] != tc.want[0]) {
			t.Errorf("closeNames(%q) = %v, want %v first", tc.name, got, tc.want)
		}
	}
	if got := closeNames("x", slices.Repeat([]string{"a", "b", "c", "d"}, 2)); len(got) > 3 {
		t.Errorf("closeNames gave %d names", len(got))
	}
}

// TestTryRequests checks that every request offered to copy is valid JSON-RPC that this server
// answers, and that every generated tool's example call decodes and validates.
func TestTryRequests(t *testing.T) {
	t.Parallel()
	tries := []json.RawMessage{tryInitialize(), tryToolsList()}
	for i := range hootv1hoot.Tools {
		tool := &hootv1hoot.Tools[i]
		tries = append(tries, tryToolsCall(tool))
		var call struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(exampleCall(tool), &call); err != nil {
			t.Fatal(err)
		}
		if _, bad := decodeArguments(tool, call.Arguments); bad != nil {
			t.Errorf("the example of %s does not decode: %+v", tool.Name, bad)
		}
	}
	for _, try := range tries {
		msg, bad := decodeMessage(try)
		if bad != nil || !msg.isRequest() {
			t.Errorf("%s is not a request: %+v", try, bad)
		}
	}
}
