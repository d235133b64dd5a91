package tasks

import (
	"encoding/json"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson/rawjsontest"
)

// declaresSlow is Declares with encoding/json alone, what scanDeclares is checked against.
func declaresSlow(caps []byte) bool {
	var c struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(caps, &c) != nil {
		return false
	}
	return c.Extensions[Extension] != nil && string(c.Extensions[Extension][:1]) == "{"
}

var capsSeeds = []string{
	`{}`, ` { } `, `{"sampling":{}}`, `{"extensions":{"` + Extension + `":{}}}`, `{"extensions":{"` + Extension + `":true}}`,
	`{"extensions":{"other":{}}}`, `{"extensions":null}`, `{"extensions":"x"}`, `{"Extensions":{"` + Extension + `":{}}}`,
	`{"extensions":{},"extensions":{"` + Extension + `":{}}}`, `{"extensions":{"` + Extension + `":{},"` + Extension + `":1}}`,
	`{"extensions":{"IO.modelcontextprotocol/tasks":{}}}`, `{"extensions":{"` + Extension + `":{"a":[1,{}]}},"roots":{"listChanged":true}}`,
	`not json`, `[]`, ``, `null`,
}

func checkDeclares(t *testing.T, caps string) {
	t.Helper()
	if got, ok := scanDeclares([]byte(caps)); ok && got != declaresSlow([]byte(caps)) {
		t.Fatalf("scanDeclares(%q) = %v, encoding/json says %v", caps, got, !got)
	}
}

// TestScanDeclaresMatchesUnmarshal checks the fast reading of the capabilities against
// encoding/json's, and that it does read the usual ones.
func TestScanDeclaresMatchesUnmarshal(t *testing.T) {
	for _, d := range append(append([]string{}, capsSeeds...), rawjsontest.Docs()...) {
		checkDeclares(t, d)
	}
	for _, usual := range capsSeeds[:6] {
		if _, ok := scanDeclares([]byte(usual)); !ok {
			t.Errorf("scanDeclares left %s to encoding/json", usual)
		}
	}
}

// FuzzScanDeclares checks scanDeclares against encoding/json on any capabilities.
func FuzzScanDeclares(f *testing.F) {
	for _, s := range capsSeeds {
		f.Add(s)
	}
	f.Fuzz(checkDeclares)
}
