package mcp

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestToolSchemasResolve checks every tool's schemas with the JSON Schema library that the Go
// SDK's clients validate with: each declares 2020-12, every $ref resolves, and the tool's
// example call is valid for its input schema.
func TestToolSchemasResolve(t *testing.T) {
	t.Parallel()
	resolve := func(name, text string) *jsonschema.Resolved {
		t.Helper()
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(text), &s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.Schema != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema = %q", name, s.Schema)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return rs
	}
	for _, tool := range testTools {
		in := resolve(tool.Name+" input", tool.InputSchema)
		resolve(tool.Name+" output", tool.OutputSchema)
		var example map[string]any
		if err := json.Unmarshal([]byte(tool.Example), &example); err != nil {
			t.Fatalf("%s example: %v", tool.Name, err)
		}
		if err := in.Validate(example); err != nil {
			t.Errorf("%s: the example %s breaks the input schema: %v", tool.Name, tool.Example, err)
		}
	}
}
