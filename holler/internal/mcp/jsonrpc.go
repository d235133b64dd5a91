package mcp

import (
	"encoding/json"

	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
)

// A message is one decoded JSON-RPC 2.0 message (a jsonrpc.Message) with the server's own
// state of it.
type message struct {
	jsonrpc.Message
	// tool is the known tool a tools/call names, once the call has found it: what the call's
	// observer is told.
	tool string
}

// A response is a JSON-RPC response to a request, or an error about a message that could not
// be read as one.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`

	// abandoned is set when the client cancelled the request: over stdio the response is not
	// sent, as the MCP cancellation rules ask.
	abandoned bool
}

// A wireError is the error member of a JSON-RPC response.
type wireError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	// Data is the guidance: an object with at least a hint. Nil when guidance is off.
	Data any `json:"data,omitempty"`
}

// A notification is a JSON-RPC notification the server sends.
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	// ID is set only for a request of the server to the client (clientreq.go).
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params any             `json:"params,omitempty"`
}

// decodeMessage reads one JSON-RPC message (jsonrpc.Decode).
func decodeMessage(data []byte) (*message, *jsonrpc.DecodeError) {
	m, bad := jsonrpc.Decode(data)
	if bad != nil {
		return nil, bad
	}
	return &message{Message: m}, nil
}

// newResult returns the response to the request with id, carrying result.
func newResult(id json.RawMessage, result any) *response {
	return &response{JSONRPC: jsonrpc.Version, ID: id, Result: result}
}

// newError returns the error response to the request with id.
func newError(id json.RawMessage, code int64, msg string, data any) *response {
	if id == nil {
		id = jsonrpc.NullID
	}
	return &response{JSONRPC: jsonrpc.Version, ID: id, Error: &wireError{Code: code, Message: msg, Data: data}}
}

// encode returns v as JSON. Values built by this package always encode; a failure is a fault
// of the program, answered as an internal error so the client still hears back.
func encode(v any) []byte {
	if r, ok := v.(*response); ok {
		if b, ok := encodeToolResult(r); ok {
			return b
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		if r, ok := v.(*response); ok {
			b, _ = json.Marshal(newError(r.ID, jsonrpc.CodeInternalError, "internal error: the response could not be encoded", nil))
			return b
		}
		return []byte("{}")
	}
	return b
}
