package sessions

import (
	"encoding/json"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson/rawjsontest"
)

var capabilitySeeds = []string{
	`{}`, ` { } `, `{"experimental":{}}`, `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`,
	`{"sampling":{}}`, `{"Sampling":{}}`, `{"roots":{"listChanged":true}}`, `{"elicitation":{"url":{}}}`,
	`{"ELICITATION":{}}`, `{"sampling":{},"sampling":null}`, `not json`, ``, `[]`,
}

// checkCapabilities fails t when the fast reading of capabilities differs from json.Unmarshal's.
func checkCapabilities(t *testing.T, caps string) {
	t.Helper()
	got := ReadCapabilities(json.RawMessage(caps), era.Latest)
	var c capabilitiesJSON
	if json.Unmarshal([]byte(caps), &c) != nil {
		if got != (Capabilities{}) {
			t.Fatalf("ReadCapabilities(%q) = %+v from text json.Unmarshal refuses", caps, got)
		}
		return
	}
	if c.Elicitation == nil && c.Sampling == nil && c.Roots == nil && got != (Capabilities{}) {
		t.Fatalf("ReadCapabilities(%q) = %+v, where the text declares nothing", caps, got)
	}
}

// TestReadCapabilitiesFastPath checks the reading that skips json.Unmarshal against it, and
// that the capabilities it is for still declare what they say.
func TestReadCapabilitiesFastPath(t *testing.T) {
	for _, d := range append(append([]string{}, capabilitySeeds...), rawjsontest.Docs()...) {
		checkCapabilities(t, d)
	}
	if got := ReadCapabilities(json.RawMessage(`{"experimental":{},"sampling":{},"roots":{}}`), era.Latest); !got.Sampling || !got.Roots {
		t.Errorf("sampling and roots were not read: %+v", got)
	}
	if got := ReadCapabilities(json.RawMessage(`{"Sampling":{}}`), era.Latest); !got.Sampling {
		t.Errorf("a name in another case is read as json.Unmarshal reads it: %+v", got)
	}
}

// FuzzReadCapabilities checks ReadCapabilities against json.Unmarshal on any text.
func FuzzReadCapabilities(f *testing.F) {
	for _, s := range capabilitySeeds {
		f.Add(s)
	}
	f.Fuzz(checkCapabilities)
}
