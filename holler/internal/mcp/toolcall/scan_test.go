package toolcall

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson/rawjsontest"
)

func TestScanCallToolParamsMatchesUnmarshal(t *testing.T) {
	for _, d := range rawjsontest.Docs() {
		var want callToolParams
		err := json.Unmarshal([]byte(d), &want)
		var got callToolParams
		if !scanCallToolParams([]byte(d), &got) {
			continue
		}
		if err != nil {
			t.Fatalf("%q: scanCallToolParams took text that json.Unmarshal refuses: %v", d, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", d, got, want)
		}
	}
	var p callToolParams
	if !scanCallToolParams([]byte(`{"name":"echo","arguments":{"message":"hi"},"_meta":{"progressToken":3}}`), &p) ||
		string(p.Name) != `"echo"` || string(p.Meta.ProgressToken) != "3" {
		t.Fatalf("the usual params were not read: %+v", p)
	}
}
