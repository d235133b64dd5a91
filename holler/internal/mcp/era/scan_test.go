package era

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson/rawjsontest"
)

// envelopes are modern params and near misses of them, which scanMeta must read as readMeta
// does or leave to it.
var envelopes = []string{
	`{"name":"echo","arguments":{"message":"hi"},"_meta":{"` + MetaProtocolVersion + `":"2026-07-28","` + MetaClientCapabilities + `":{}}}`,
	`{"_meta":{"` + MetaProtocolVersion + `":"2026-07-28","` + MetaClientCapabilities + `":{"sampling":{}},"` + MetaLogLevel + `":"debug","traceparent":"00-x"},"uri":"hoot://a","taskId":"t"}`,
	` { "_meta" : { "` + MetaProtocolVersion + `" : "2026-07-28" , "` + MetaClientCapabilities + `" : { } } } `,
	`{"_meta":{"` + MetaProtocolVersion + `":"2026-\u00307-28","` + MetaClientCapabilities + `":{}}}`,
	`{"_meta":{"` + MetaProtocolVersion + `":"2026-07-28","` + MetaClientCapabilities + `":{},"traceparent":7}}`,
	`{"_meta":{"` + MetaProtocolVersion + `":"2026-07-28","` + MetaClientCapabilities + `":{},"traceparent":null}}`,
	`{"_meta":{"` + MetaProtocolVersion + `":"a","` + MetaProtocolVersion + `":"b","` + MetaClientCapabilities + `":[],"` + MetaClientCapabilities + `":{}}}`,
	`{"_meta":{"` + MetaProtocolVersion + `":"2026-07-28","` + MetaClientCapabilities + `":{}},"_meta":{}}`,
	`{"_meta":{},"_meta":{"` + MetaProtocolVersion + `":"2026-07-28","` + MetaClientCapabilities + `":{}}}`,
	`{"_META":{"` + MetaProtocolVersion + `":"2026-07-28","` + MetaClientCapabilities + `":{}}}`,
	`{"_meta":{"TRACEPARENT":"x","` + MetaProtocolVersion + `":"2026-07-28","` + MetaClientCapabilities + `":{}}}`,
	`{"_meta":{"` + MetaProtocolVersion + `":"2026-07-28","` + MetaClientCapabilities + `":{}},"name":"\u00e9\ud800","arguments":{"a":[1,2,{"b":null}]}}`,
	"{\"_meta\":{\"" + MetaProtocolVersion + "\":\"2026\xff\",\"" + MetaClientCapabilities + "\":{}}}",
	`{"_meta":{"` + MetaProtocolVersion + `":"2026-07-28","` + MetaClientCapabilities + `":{}},"name":1}`,
	`{"_meta":{"` + MetaProtocolVersion + `":7,"` + MetaClientCapabilities + `":{}}}`,
	`{"_meta":{"` + MetaProtocolVersion + `":"2026-07-28"}}`,
	`{"_meta":null}`, `{"_meta":[]}`, `{}`, `[]`, ``, `null`,
}

// checkScanMeta fails t when scanMeta reads params otherwise than readMeta.
func checkScanMeta(t *testing.T, params string) {
	t.Helper()
	m, p, ok := scanMeta(json.RawMessage(params))
	if !ok {
		return
	}
	wm, wp, fault := readMeta(json.RawMessage(params))
	if fault != nil {
		t.Fatalf("%q: scanMeta took params that readMeta refuses: %s", params, fault.Text)
	}
	if !reflect.DeepEqual(m, wm) || !reflect.DeepEqual(p, wp) {
		t.Fatalf("%q:\n got %+v %+v\nwant %+v %+v", params, m, p, wm, wp)
	}
}

// TestScanMetaMatchesReadMeta checks the fast reader against encoding/json's on the envelopes,
// on random changes of them and on the JSON documents every fast reader is checked with, and
// that it does read the usual envelope (a fast path that always gave up would pass the rest).
func TestScanMetaMatchesReadMeta(t *testing.T) {
	docs := append(append([]string{}, envelopes...), rawjsontest.Docs()...)
	r := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		docs = append(docs, rawjsontest.Mutate(r, envelopes[r.IntN(len(envelopes))]))
	}
	for _, d := range docs {
		checkScanMeta(t, d)
	}
	for _, usual := range envelopes[:3] {
		if _, _, ok := scanMeta(json.RawMessage(usual)); !ok {
			t.Errorf("scanMeta left the usual envelope %s to encoding/json", usual)
		}
	}
	if m, p, ok := scanMeta(json.RawMessage(envelopes[1])); !ok || m.Version != V20260728 || m.Traceparent != "00-x" ||
		!m.HasLogLevel || string(m.LogLevel) != `"debug"` || string(p.URI) != `"hoot://a"` || string(p.TaskID) != `"t"` {
		t.Errorf("scanMeta read %+v %+v", m, p)
	}
}

// FuzzScanMeta checks scanMeta against readMeta on any params.
func FuzzScanMeta(f *testing.F) {
	for _, e := range envelopes {
		f.Add(e)
	}
	f.Fuzz(checkScanMeta)
}
