package mcp

import (
	"encoding/json"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/arguments"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
)

// TestTryRequests checks that every request offered to copy is valid JSON-RPC that this server
// answers, and that every generated tool's example call decodes and validates.
func TestTryRequests(t *testing.T) {
	t.Parallel()
	tries := []json.RawMessage{guidance.TryInitialize(era.Latest), guidance.TryToolsList()}
	for i := range testTools {
		tool := &testTools[i]
		tries = append(tries, guidance.TryToolsCall(tool))
		var call struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(guidance.ExampleCall(tool), &call); err != nil {
			t.Fatal(err)
		}
		if _, bad := arguments.Decode(tool, call.Arguments); bad != nil {
			t.Errorf("the example of %s does not decode: %+v", tool.Name, bad)
		}
	}
	for _, try := range tries {
		msg, bad := decodeMessage(try)
		if bad != nil || !msg.IsRequest() {
			t.Errorf("%s is not a request: %+v", try, bad)
		}
	}
}
