package mcp

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/toollist"
)

// oldModernFields is how the 2026-07-28 result used to be made, through a map: the reference
// that era.Result must agree with.
func oldModernFields(t *testing.T, s *Server, method string, result any) map[string]any {
	t.Helper()
	b, err := json.Marshal(result)
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	if fields == nil { // a nil result
		fields = map[string]json.RawMessage{}
	}
	if _, ok := fields["resultType"]; !ok {
		fields["resultType"] = json.RawMessage(`"complete"`)
	}
	meta := map[string]any{}
	if raw, ok := fields["_meta"]; ok {
		_ = json.Unmarshal(raw, &meta)
	}
	if meta == nil { // a _meta of null
		meta = map[string]any{}
	}
	meta[era.MetaServerInfo] = implementation{Name: s.cfg.Name, Title: s.cfg.Title, Version: s.cfg.Version}
	fields["_meta"], _ = json.Marshal(meta)
	if scope, ok := era.CacheScopes[method]; ok {
		fields["ttlMs"] = json.RawMessage(strconv.Itoa(era.CacheTTLMillis))
		fields["cacheScope"] = json.RawMessage(`"` + scope + `"`)
	}
	b, _ = json.Marshal(fields)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// TestModernResult encodes results of every shape the way the era wants them, once, and says
// the same as the map it replaced: with and without their own _meta (first, last, alone) and
// resultType, empty, and cacheable.
func TestModernResult(t *testing.T) {
	t.Parallel()
	s, err := NewServer(&Config{Backend: newFakeBackend(), Name: "holler", Title: "Holler", Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	for _, tc := range []struct {
		method string
		result any
	}{
		{methodToolsCall, map[string]any{"content": []any{}, "isError": true}},
		{methodToolsCall, json.RawMessage(`{"_meta":{"a":1},"content":[]}`)},
		{methodToolsCall, json.RawMessage(`{"content":[],"_meta":{"a":1}}`)},
		{methodToolsCall, json.RawMessage(`{"content":[],"_meta":{"a":1},"z":2}`)},
		{methodToolsCall, json.RawMessage(`{"_meta":{}}`)},
		{methodToolsCall, json.RawMessage(`{"_meta":null,"x":"y"}`)},
		{methodToolsCall, json.RawMessage(`{"resultType":"input_required","inputRequests":{}}`)},
		{methodToolsCall, struct{}{}},
		{methodToolsCall, nil},
		{methodToolsList, toollist.Result{Tools: []toollist.Description{}}},
		{methodResourcesRead, json.RawMessage(`{"contents":[],"_meta":{"b":"c"}}`)},
	} {
		b, err := json.Marshal(s.modernResponse(tc.method, jsonrpc.NewResult(json.RawMessage(`1`), tc.result)))
		if err != nil {
			t.Errorf("%s %v: %v", tc.method, tc.result, err)
			continue
		}
		var got struct {
			Result map[string]any `json:"result"`
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if want := oldModernFields(t, s, tc.method, tc.result); !reflect.DeepEqual(got.Result, want) {
			t.Errorf("%s %s:\n got %v\nwant %v", tc.method, b, got.Result, want)
		}
	}
}
