package rawjson

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestKindMatchesUnmarshal(t *testing.T) {
	testCases := map[string]string{
		`{}`: "object", ` {"a":1}`: "object", "\n[1]": "array", `"x"`: "string", `true`: "boolean",
		`false`: "boolean", `null`: "null", `-1.5e3`: "number", `0`: "number", ``: "nothing", "  \t": "nothing",
	}
	for doc, want := range testCases {
		if got := Kind([]byte(doc)); got != want {
			t.Errorf("Kind(%q) = %q, want %q", doc, got, want)
		}
		if want == "nothing" {
			continue
		}
		// The name agrees with the Go type encoding/json decodes the value into.
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		var goKind string
		switch v.(type) {
		case map[string]any:
			goKind = "object"
		case []any:
			goKind = "array"
		case string:
			goKind = "string"
		case bool:
			goKind = "boolean"
		case nil:
			goKind = "null"
		case float64:
			goKind = "number"
		}
		if goKind != want {
			t.Errorf("%q decodes as %s, Kind says %s", doc, goKind, want)
		}
	}
}

func TestCompact(t *testing.T) {
	for _, doc := range []string{`{"a": [1, 2], "b" : "x y"}`, `{"a":1}`, "\t[ ]\n", `{"a":`, `"x"`} {
		want := []byte(doc)
		var buf bytes.Buffer
		if json.Compact(&buf, want) == nil {
			want = buf.Bytes()
		}
		if got := Compact([]byte(doc)); !bytes.Equal(got, want) {
			t.Errorf("Compact(%q) = %q, want %q", doc, got, want)
		}
	}
}
