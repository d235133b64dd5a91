package mcp

import (
	"bytes"
	"encoding/json"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
)

// JSON-RPC 2.0 error codes, as the JSON-RPC specification numbers them.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// jsonrpcVersion is the only value the "jsonrpc" member may have.
const jsonrpcVersion = "2.0"

// nullID is the id of a response to a message whose id could not be read.
var nullID = json.RawMessage("null")

// A message is one decoded JSON-RPC 2.0 message: a request (method and id), a notification
// (method, no id) or a response (id and result or error). Params, results and ids stay JSON
// until a method decodes them.
type message struct {
	// ID is the message's id as it came, compacted; nil for a notification.
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  json.RawMessage
	// tool is the known tool a tools/call names, once the call has found it: what the call's
	// observer is told.
	tool string
}

// isRequest reports whether m expects a response.
func (m *message) isRequest() bool { return m.Method != "" && m.ID != nil }

// isNotification reports whether m is a method call without an id.
func (m *message) isNotification() bool { return m.Method != "" && m.ID == nil }

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

// envelope is the wire shape of an incoming message. Every member stays raw, so that presence
// and type can be checked before anything is believed.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// An envelopeError is a message that is not valid JSON-RPC: its code (-32700 or -32600), what
// is wrong with it, and the id to answer with.
type envelopeError struct {
	code    int64
	id      json.RawMessage
	message string
	hint    string
	// notRPC marks input that is not JSON-RPC at all, which is answered with a request to copy.
	notRPC bool
}

// decodeMessage reads one JSON-RPC message. Batches are refused: the protocol versions this
// server speaks send one message at a time.
func decodeMessage(data []byte) (*message, *envelopeError) {
	data = bytes.TrimSpace(data)
	notJSON := func() *envelopeError {
		return &envelopeError{
			code:    codeParseError,
			id:      nullID,
			message: "parse error: the message is not valid JSON",
			hint:    "This endpoint speaks MCP (JSON-RPC 2.0): send one JSON object per message, such as the request in try.",
			notRPC:  true,
		}
	}
	var env envelope
	if len(data) > 0 && data[0] == '{' {
		// scanEnvelope reads the usual message (plain member names) without reflection or
		// copies, and leaves everything else to json.Unmarshal. Unmarshal checks the whole
		// text before it decodes, and an object always decodes into raw members, so its only
		// error is text that is not JSON. (Checking with json.Valid first would read every
		// message twice.)
		if !scanEnvelope(data, &env) {
			var err error
			if env, err = unmarshalEnvelope(data); err != nil {
				return nil, notJSON()
			}
		}
	} else {
		if !json.Valid(data) {
			return nil, notJSON()
		}
		if data[0] == '[' {
			return nil, &envelopeError{
				code:    codeInvalidRequest,
				id:      nullID,
				message: "invalid request: JSON-RPC batches are not supported",
				hint:    "Send each JSON-RPC message on its own; MCP does not allow batches in the protocol versions this server speaks.",
			}
		}
		return nil, &envelopeError{
			code:    codeInvalidRequest,
			id:      nullID,
			message: "invalid request: a JSON-RPC message is a JSON object",
			hint:    "This endpoint speaks MCP (JSON-RPC 2.0): send a JSON object with jsonrpc, id, method and params, such as the request in try.",
			notRPC:  true,
		}
	}

	// The id comes first so that later errors can answer with it.
	id := nullID
	if env.ID != nil {
		switch kindOf(env.ID) {
		case "string", "number":
			id = compact(env.ID)
		default:
			return nil, &envelopeError{
				code:    codeInvalidRequest,
				id:      nullID,
				message: "invalid request: id must be a string or a number, not " + kindOf(env.ID),
				hint:    `Give each request a unique id that is a string or a number, such as "id": 1.`,
			}
		}
	}
	if env.JSONRPC == nil && env.Method == nil && env.Result == nil && env.Error == nil {
		return nil, &envelopeError{
			code:    codeInvalidRequest,
			id:      id,
			message: "invalid request: this endpoint speaks MCP (JSON-RPC 2.0), and the message has no jsonrpc or method member",
			hint:    `Wrap the call in a JSON-RPC request: {"jsonrpc": "2.0", "id": 1, "method": ..., "params": {...}}, such as the request in try.`,
			notRPC:  true,
		}
	}
	var version string
	var versionErr error
	if env.JSONRPC != nil {
		version, versionErr = rawjson.Unquote(env.JSONRPC)
	}
	if env.JSONRPC == nil || versionErr != nil || version != jsonrpcVersion {
		got := "it is missing"
		if env.JSONRPC != nil {
			got = "it is " + string(compact(env.JSONRPC))
		}
		return nil, &envelopeError{
			code:    codeInvalidRequest,
			id:      id,
			message: `invalid request: "jsonrpc" must be "2.0", and ` + got,
			hint:    `Add "jsonrpc": "2.0" to every message.`,
			notRPC:  true,
		}
	}
	msg := &message{}
	if env.ID != nil {
		msg.ID = id
	}
	if env.Method == nil {
		if env.ID != nil && (env.Result != nil || env.Error != nil) {
			msg.Result, msg.Error = env.Result, env.Error
			return msg, nil
		}
		return nil, &envelopeError{
			code:    codeInvalidRequest,
			id:      id,
			message: "invalid request: the message has no method",
			hint:    `Name the method to call, such as "method": "tools/list".`,
			notRPC:  true,
		}
	}
	method, err := rawjson.Unquote(env.Method)
	msg.Method = method
	if err != nil || msg.Method == "" {
		return nil, &envelopeError{
			code:    codeInvalidRequest,
			id:      id,
			message: "invalid request: method must be a non-empty string, not " + kindOf(env.Method),
			hint:    `Name the method as a string, such as "method": "tools/list".`,
		}
	}
	if env.Params != nil {
		switch kindOf(env.Params) {
		case "object", "array":
			msg.Params = env.Params
		case "null":
			// A null params is taken as no params; some clients send it.
		default:
			return nil, &envelopeError{
				code:    codeInvalidRequest,
				id:      id,
				message: "invalid request: params must be an object, not " + kindOf(env.Params),
				hint:    `Put the method's arguments in an object, such as "params": {"name": ...}.`,
			}
		}
	}
	return msg, nil
}

// kindOf names the JSON type of a valid JSON value (rawjson.Kind).
func kindOf(v json.RawMessage) string { return rawjson.Kind(v) }

// compact returns v without insignificant whitespace (rawjson.Compact).
func compact(v json.RawMessage) json.RawMessage { return rawjson.Compact(v) }

// idKey returns a key that is equal for equal JSON-RPC ids: a string id and a number id with
// the same text stay apart.
func idKey(id json.RawMessage) string {
	if kindOf(id) == "string" {
		if s, err := rawjson.Unquote(id); err == nil {
			return "s:" + s
		}
	}
	// Concatenating string(bytes) does not copy the bytes first.
	return "n:" + string(bytes.TrimSpace(id))
}

// newResult returns the response to the request with id, carrying result.
func newResult(id json.RawMessage, result any) *response {
	return &response{JSONRPC: jsonrpcVersion, ID: id, Result: result}
}

// newError returns the error response to the request with id.
func newError(id json.RawMessage, code int64, msg string, data any) *response {
	if id == nil {
		id = nullID
	}
	return &response{JSONRPC: jsonrpcVersion, ID: id, Error: &wireError{Code: code, Message: msg, Data: data}}
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
			b, _ = json.Marshal(newError(r.ID, codeInternalError, "internal error: the response could not be encoded", nil))
			return b
		}
		return []byte("{}")
	}
	return b
}
