// Package guidance is the data of the gateway's errors: what was wrong, what was expected, and
// the next step, in a JSON-RPC error's data and in a tool result's _meta, and the requests it
// offers to copy.
package guidance

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
)

// Data is the data of an error: a hint for the next step, and, as far as the mistake allows,
// what was wrong, what was expected, and a request to copy. The closer a request was to valid,
// the more specific the guidance.
type Data struct {
	// Hint is one sentence saying what to do next. Every guidance has one.
	Hint string `json:"hint"`
	// Tool is the tool the error is about.
	Tool string `json:"tool,omitempty"`
	// Field is the argument the error is about, as a path such as "items[2].name".
	Field string `json:"field,omitempty"`
	// Expected says what the field should have been.
	Expected string `json:"expected,omitempty"`
	// Got shows what came instead.
	Got string `json:"got,omitempty"`
	// DidYouMean lists the names closest to a misspelt one, closest first.
	DidYouMean []string `json:"didYouMean,omitempty"`
	// Usage is the tool's one-line signature.
	Usage string `json:"usage,omitempty"`
	// Example is a valid tools/call params object for the tool.
	Example json.RawMessage `json:"example,omitempty"`
	// Tools lists the tools this server offers.
	Tools []string `json:"tools,omitempty"`
	// Methods lists the methods this server answers.
	Methods []string `json:"methods,omitempty"`
	// Supported lists the protocol versions this server speaks.
	Supported []string `json:"supported,omitempty"`
	// Requested is the protocol version a request asked for that this server does not speak.
	Requested string `json:"requested,omitempty"`
	// URI is the resource URI the error is about.
	URI string `json:"uri,omitempty"`
	// Try is a complete JSON-RPC request to copy.
	Try json.RawMessage `json:"try,omitempty"`
	// Policy is the decision of the gateway's policy that refused a call.
	Policy *consent.Decision `json:"policy,omitempty"`
	// RequiredCapabilities are the client capabilities a request needed and the client did not
	// declare, keyed by capability as clientCapabilities has them (MCP 2026-07-28's -32021).
	RequiredCapabilities map[string]any `json:"requiredCapabilities,omitempty"`
}

// TryInitialize returns an initialize request of protocol version to copy.
func TryInitialize(version string) json.RawMessage {
	return json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` +
		version + `","capabilities":{},"clientInfo":{"name":"example-client","version":"1.0.0"}}}`)
}

// TryToolsList returns a tools/list request to copy.
func TryToolsList() json.RawMessage {
	return json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
}

// TryToolsCall returns a tools/call request of t with its example arguments, to copy.
func TryToolsCall(t *hootv1hoot.Tool) json.RawMessage {
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      int             `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}{jsonrpc.Version, 1, "tools/call", ExampleCall(t)})
	return b
}

// ExampleCall returns a tools/call params object for t with its example arguments.
func ExampleCall(t *hootv1hoot.Tool) json.RawMessage {
	args := json.RawMessage(t.Example)
	if len(strings.TrimSpace(t.Example)) == 0 {
		args = json.RawMessage(`{}`)
	}
	b, _ := json.Marshal(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}{t.Name, rawjson.Compact(args)})
	return b
}

// ArgumentText renders bad arguments for a model, from the same guidance g that -32602 carries
// in its data.
func ArgumentText(msg string, g *Data) string {
	if g == nil {
		return msg
	}
	var b strings.Builder
	b.WriteString(msg)
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "\n%s: %s", k, v)
		}
	}
	line("field", g.Field)
	line("expected", g.Expected)
	line("got", g.Got)
	if len(g.DidYouMean) > 0 {
		line("did you mean", strings.Join(g.DidYouMean, ", "))
	}
	line("usage", g.Usage)
	line("example", string(g.Example))
	line("hint", g.Hint)
	return b.String()
}
