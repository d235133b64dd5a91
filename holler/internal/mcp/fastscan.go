package mcp

import (
	"encoding/json"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
)

// This file decodes the two messages that every tool call carries, the JSON-RPC envelope and
// tools/call's params, with rawjson's member scanner, and falls back to json.Unmarshal
// whenever the scanner gives up (fastscan_test.go compares the two).

// envelopeNames are the members of an envelope, in the order of scanEnvelope's indexes.
var envelopeNames = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// unmarshalEnvelope is json.Unmarshal into an envelope, in a function of its own so that
// callers' envelopes stay off the heap.
func unmarshalEnvelope(data []byte) (envelope, error) {
	var env envelope
	err := json.Unmarshal(data, &env)
	return env, err
}

// unmarshalCallToolParams is json.Unmarshal into callToolParams, for the same reason.
func unmarshalCallToolParams(data []byte) (callToolParams, error) {
	var p callToolParams
	err := json.Unmarshal(data, &p)
	return p, err
}

// scanEnvelope decodes data into env as json.Unmarshal does, and returns false, with env
// untouched, when it cannot tell that the two agree.
func scanEnvelope(data []byte, env *envelope) bool {
	var e envelope
	fields := [...]*json.RawMessage{&e.JSONRPC, &e.ID, &e.Method, &e.Params, &e.Result, &e.Error}
	if !rawjson.ScanMembers(data, envelopeNames, func(i int, v []byte) { *fields[i] = v }) {
		return false
	}
	*env = e
	return true
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
	if meta != nil && kindOf(meta) != "null" {
		// An _meta that is not an object is an error of json.Unmarshal; leave it to that.
		if kindOf(meta) != "object" || !rawjson.ScanMembers(meta, metaNames, func(_ int, v []byte) { q.Meta.ProgressToken = v }) {
			return false
		}
	}
	*p = q
	return true
}
