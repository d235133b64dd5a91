package genhoot

import (
	"bytes"
	"encoding/json"
	"slices"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
)

// isFixture reports whether the tool is a test fixture rather than one of the product's tools:
// its request is declared in a file marked with the (hoot.v1.fixtures) file option. Fixtures go
// into a table of their own (Fixtures), and only they may carry a literal input schema.
func isFixture(m *protogen.Message) bool {
	on, _ := proto.GetExtension(m.Desc.ParentFile().Options(), hootv1.E_Fixtures).(bool)
	return on
}

// checkFixtureSchema refuses a literal input schema on a tool of the product.
func checkFixtureSchema(t *tool, bad *refusals) {
	m, o := t.request.Desc.FullName(), t.opts
	if o.GetFixtureInputSchema() != "" && !t.fixture {
		bad.add("%s: (hoot.v1.tool).fixture_input_schema is for fixtures, the tools of a file with `option (hoot.v1.fixtures) = true;`, and tool %q is one of the product's: "+
			"its input schema must be generated from the request's fields, so that it follows the schema conventions; drop fixture_input_schema",
			m, o.GetName())
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
