package mcp

import (
	"encoding/json"

	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
)

// A message is one decoded JSON-RPC 2.0 message (a jsonrpc.Message) with the server's own
// state of it.
type message struct {
	jsonrpc.Message
	// tool is the known tool a tools/call names, once the call has found it: what the call's
	// observer is told.
	tool string
}

// decodeMessage reads one JSON-RPC message (jsonrpc.Decode).
func decodeMessage(data []byte) (*message, *jsonrpc.DecodeError) {
	m, bad := jsonrpc.Decode(data)
	if bad != nil {
		return nil, bad
	}
	return &message{Message: m}, nil
}

// encode returns v as JSON. Values built by this package always encode; a failure is a fault
// of the program, answered as an internal error so the client still hears back.
func encode(v any) []byte {
	if r, ok := v.(*jsonrpc.Response); ok {
		if b, ok := toolresult.Encode(r); ok {
			return b
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		if r, ok := v.(*jsonrpc.Response); ok {
			b, _ = json.Marshal(jsonrpc.NewError(r.ID, jsonrpc.CodeInternalError, "internal error: the response could not be encoded", nil))
			return b
		}
		return []byte("{}")
	}
	return b
}
