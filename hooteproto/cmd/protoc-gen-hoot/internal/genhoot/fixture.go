package genhoot

import (
	"bytes"
	"encoding/json"
	"slices"
)

// fixtureService is the one service whose tools may carry a literal input schema
// ((hoot.v1.tool).fixture_input_schema): the fixtures that the MCP conformance suite calls.
// The product's own tools keep generated schemas, which follow the schema conventions.
const fixtureService = "conformance"

// checkFixtureSchema refuses a literal input schema on a tool outside the fixture service.
func checkFixtureSchema(t *tool, bad *refusals) {
	m, o := t.request.Desc.FullName(), t.opts
	if o.GetFixtureInputSchema() != "" && o.GetService() != fixtureService {
		bad.add("%s: (hoot.v1.tool).fixture_input_schema is for the fixtures of service %q, and tool %q is of service %q: "+
			"its input schema must be generated from the request's fields, so that it follows the schema conventions; drop fixture_input_schema",
			m, fixtureService, o.GetName(), o.GetService())
	}
}

// fixtureInputSchema returns a fixture's literal input schema as compact JSON, keeping its
// keys in their order. It must be a JSON object of type object whose properties are fields of
// the request (by proto or JSON name), since the request still decodes the arguments.
func fixtureInputSchema(t *tool, bad *refusals) (string, bool) {
	m, text := t.request.Desc.FullName(), t.opts.GetFixtureInputSchema()
	var schema struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal([]byte(text), &schema); err != nil {
		bad.add("%s: (hoot.v1.tool).fixture_input_schema is not a JSON object: %v", m, err)
		return "", false
	}
	if schema.Type != "object" {
		bad.add(`%s: (hoot.v1.tool).fixture_input_schema must have "type": "object", as every tool's input schema does`, m)
		return "", false
	}
	var names []string
	for _, f := range t.request.Fields {
		names = append(names, string(f.Desc.Name()), f.Desc.JSONName())
	}
	ok := true
	for _, p := range sortedKeys(schema.Properties) {
		if !slices.Contains(names, p) {
			bad.add("%s: (hoot.v1.tool).fixture_input_schema has property %q, which is not a field of the request: add the field, or drop the property",
				m, p)
			ok = false
		}
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(text)); err != nil {
		bad.add("%s: (hoot.v1.tool).fixture_input_schema: %v", m, err)
		return "", false
	}
	return b.String(), ok
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
