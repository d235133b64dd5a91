package jsonrpc

import (
	"encoding/json"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
)

// This file decodes the envelope of a message with rawjson's member scanner, and falls back
// to json.Unmarshal whenever the scanner gives up (scan_test.go compares the two).

// envelopeNames are the members of an envelope, in the order of scanEnvelope's indexes.
var envelopeNames = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// unmarshalEnvelope is json.Unmarshal into an envelope, in a function of its own so that
// callers' envelopes stay off the heap.
func unmarshalEnvelope(data []byte) (envelope, error) {
	var env envelope
	err := json.Unmarshal(data, &env)
	return env, err
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
