package jsonrpc

import "encoding/json"

// A Response is a JSON-RPC response to a request, or an error about a message that could not
// be read as one.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *ErrorObject    `json:"error,omitempty"`

	// Abandoned is set when the client cancelled the request: where MCP's cancellation rules
	// ask it (over stdio), the response is not sent.
	Abandoned bool `json:"-"`
}

// An ErrorObject is the error member of a Response.
type ErrorObject struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	// Data says more about the error; the gateway puts its guidance here, an object with at
	// least a hint. Nil when there is nothing to say.
	Data any `json:"data,omitempty"`
}

// A Notification is a JSON-RPC notification a server sends, or, with an ID, a request of the
// server to its client.
type Notification struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  any             `json:"params,omitempty"`
}

// NewResult returns the response to the request with id, carrying result.
func NewResult(id json.RawMessage, result any) *Response {
	return &Response{JSONRPC: Version, ID: id, Result: result}
}

// NewError returns the error response to the request with id; a nil id is answered as null.
func NewError(id json.RawMessage, code int64, msg string, data any) *Response {
	if id == nil {
		id = NullID
	}
	return &Response{JSONRPC: Version, ID: id, Error: &ErrorObject{Code: code, Message: msg, Data: data}}
}
