package jsonrpc

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson/rawjsontest"
)

func TestScanEnvelopeMatchesUnmarshal(t *testing.T) {
	fast := 0
	for _, d := range rawjsontest.Docs() {
		var want envelope
		err := json.Unmarshal([]byte(d), &want)
		var got envelope
		if !scanEnvelope([]byte(d), &got) {
			if !reflect.DeepEqual(got, envelope{}) {
				t.Fatalf("%q: scanEnvelope gave up but changed env", d)
			}
			continue
		}
		fast++
		if err != nil {
			t.Fatalf("%q: scanEnvelope took text that json.Unmarshal refuses: %v", d, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", d, got, want)
		}
	}
	if fast < rawjsontest.Seeds()/2 {
		t.Fatalf("the fast reader took only %d documents", fast)
	}
}
