package genhoot

import (
	"math"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/compiler/protogen"
)

func TestProse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		comment string
		want    string
	}{
		{"empty", "", ""},
		{"one line", " The text to send back.\n", "The text to send back."},
		{"wrapped lines join", " Returns the message,\n unchanged.\n", "Returns the message, unchanged."},
		{"paragraphs", " First.\n\n Second\n part.\n", "First.\n\nSecond part."},
		{"list items keep their lines", " Kinds:\n - one\n - two\n 1. three\n", "Kinds:\n- one\n- two\n1. three"},
		{"indented text keeps its lines", " Code:\n   x := 1\n   y := 2\n", "Code:\n  x := 1\n  y := 2"},
		{"lint directives go", " buf:lint:ignore FIELD_LOWER_SNAKE_CASE\n Real text.\n", "Real text."},
		{"trailing space", " Text.   \n\n\n", "Text."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := prose(protogen.Comments(tc.comment)); got != tc.want {
				t.Errorf("prose(%q) = %q, want %q", tc.comment, got, tc.want)
			}
		})
	}
}

func TestCamelCase(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"echo": "Echo", "cas_get": "CasGet", "ping2": "Ping2", "a_1b": "A1b", "lab_bench": "LabBench", "x__y": "XY",
	} {
		if got := camelCase(in); got != want {
			t.Errorf("camelCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSchemaPattern(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"^[0-9a-f]{64}$": "^[0-9a-f]{64}$",
		"[a-z]+":         "^(?:[a-z]+)$",
		"^a|b$":          "^(?:^a|b$)$",
		"^a":             "^(?:^a)$",
		"(":              "^(?:()$", // refused before it gets here; written as given
	} {
		if got := schemaPattern(in); got != want {
			t.Errorf("schemaPattern(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPickNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		r                 *hootv1.FieldRules
		integer, unsigned bool
		want              float64
	}{
		{"no rules", nil, true, false, 1},
		{"minimum above one", &hootv1.FieldRules{HasMinimum: true, Minimum: 5}, true, false, 5},
		{"fractional minimum", &hootv1.FieldRules{HasMinimum: true, Minimum: 2.5}, true, false, 3},
		{"negative range", &hootv1.FieldRules{HasMinimum: true, Minimum: -9, HasMaximum: true, Maximum: -2}, true, false, -9},
		{"float below one", &hootv1.FieldRules{HasMaximum: true, Maximum: 0.5}, false, false, 0.5},
		{"integer below zero", &hootv1.FieldRules{HasMaximum: true, Maximum: -0.5}, true, false, -1},
		{"unsigned", &hootv1.FieldRules{HasMaximum: true, Maximum: 0.5}, false, true, 0.5},
	}
	for _, tc := range tests {
		if got := pickNumber(tc.r, tc.integer, tc.unsigned); got != tc.want || math.IsInf(got, 0) {
			t.Errorf("%s: pickNumber = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestJSONSchemaString(t *testing.T) {
	t.Parallel()
	s := &jsonSchema{
		types:       []string{"object"},
		description: "a <b> & c",
		properties: []property{
			{"z", &jsonSchema{types: []string{"integer", "string"}, minimum: ptr(0.0), maximum: ptr(1e12)}},
			{"a", &jsonSchema{types: []string{"number"}, minimum: ptr(0.25)}},
			{"m", &jsonSchema{types: []string{"object"}, values: &jsonSchema{}}},
		},
		required: []string{"z"},
		closed:   true,
	}
	want := `{"type":"object","description":"a <b> & c","properties":{"z":{"type":["integer","string"],"minimum":0,"maximum":1000000000000},"a":{"type":"number","minimum":0.25},"m":{"type":"object","additionalProperties":{}}},"required":["z"],"additionalProperties":false}`
	if got := s.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
