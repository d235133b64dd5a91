package mcp

import (
	"encoding/json"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
)

// This file decodes tools/call's params with rawjson's member scanner, and falls back to
// json.Unmarshal whenever the scanner gives up (fastscan_test.go compares the two). The
// JSON-RPC envelope around them is read the same way in package jsonrpc.

// unmarshalCallToolParams is json.Unmarshal into callToolParams, for the same reason.
func unmarshalCallToolParams(data []byte) (callToolParams, error) {
	var p callToolParams
	err := json.Unmarshal(data, &p)
	return p, err
}

var (
	callToolNames = []string{"name", "arguments", "_meta"}
	metaNames     = []string{"progressToken"}
)

// scanCallToolParams decodes tools/call's params into p as json.Unmarshal does, and returns
// false when it cannot tell that the two agree.
func scanCallToolParams(data []byte, p *callToolParams) bool {
	var q callToolParams
	var meta []byte
	metas := 0
	if !rawjson.ScanMembers(data, callToolNames, func(i int, v []byte) {
		switch i {
		case 0:
			q.Name = v
		case 1:
			q.Arguments = v
		case 2:
			meta = v
			metas++
		}
	}) {
		return false
	}
	if metas > 1 {
		// json.Unmarshal merges a repeated _meta into one struct (a later {} keeps an earlier
		// progressToken); leave that to it rather than copy the rule.
		return false
	}
	if meta != nil && rawjson.Kind(meta) != "null" {
		// An _meta that is not an object is an error of json.Unmarshal; leave it to that.
		if rawjson.Kind(meta) != "object" || !rawjson.ScanMembers(meta, metaNames, func(_ int, v []byte) { q.Meta.ProgressToken = v }) {
			return false
		}
	}
	*p = q
	return true
}
