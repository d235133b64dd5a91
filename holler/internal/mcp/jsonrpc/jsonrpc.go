// Package jsonrpc reads JSON-RPC 2.0 messages as MCP sends them: one object per message, no
// batches. Decode checks an incoming message's envelope (jsonrpc, id, method, params, result,
// error) and either returns it with params, result and error still JSON, for the method to
// decode, or says what is wrong with it and which id to answer with, with a hint for the
// sender. The package also holds the messages a server writes (Response, with its ErrorObject,
// and Notification), the JSON-RPC error codes and the key under which ids are compared. What a
// method means, and what its results hold, are the mcp package's.
package jsonrpc

import (
	"bytes"
	"encoding/json"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
)

// JSON-RPC 2.0 error codes, as the JSON-RPC specification numbers them.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Version is the only value the "jsonrpc" member may have.
const Version = "2.0"

// NullID is the id of a response to a message whose id could not be read. It is shared:
// callers do not change it.
var NullID = json.RawMessage("null")

// A Message is one decoded JSON-RPC 2.0 message: a request (method and id), a notification
// (method, no id) or a response (id and result or error). Params, results and ids stay JSON
// until a method decodes them.
type Message struct {
	// ID is the message's id as it came, compacted; nil for a notification.
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  json.RawMessage
}

// IsRequest reports whether m expects a response.
func (m *Message) IsRequest() bool { return m.Method != "" && m.ID != nil }

// IsNotification reports whether m is a method call without an id.
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID == nil }

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

// A DecodeError is a message that is not valid JSON-RPC: its code (-32700 or -32600), what
// is wrong with it, and the id to answer with.
type DecodeError struct {
	Code int64
	// ID is the message's id when it could be read, else NullID.
	ID json.RawMessage
	// Message is the error's message; Hint is one sentence saying what to send instead.
	Message string
	Hint    string
	// NotRPC marks input that is not JSON-RPC at all, which deserves a whole request to copy;
	// the hints of such errors point at that request ("such as the request in try"), which
	// the caller adds to its answer.
	NotRPC bool
}

// Decode reads one JSON-RPC message. Batches are refused: the protocol versions of MCP that
// this package serves send one message at a time.
func Decode(data []byte) (Message, *DecodeError) {
	data = bytes.TrimSpace(data)
	notJSON := func() *DecodeError {
		return &DecodeError{
			Code:    CodeParseError,
			ID:      NullID,
			Message: "parse error: the message is not valid JSON",
			Hint:    "This endpoint speaks MCP (JSON-RPC 2.0): send one JSON object per message, such as the request in try.",
			NotRPC:  true,
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
				return Message{}, notJSON()
			}
		}
	} else {
		if !json.Valid(data) {
			return Message{}, notJSON()
		}
		if data[0] == '[' {
			return Message{}, &DecodeError{
				Code:    CodeInvalidRequest,
				ID:      NullID,
				Message: "invalid request: JSON-RPC batches are not supported",
				Hint:    "Send each JSON-RPC message on its own; MCP does not allow batches in the protocol versions this server speaks.",
			}
		}
		return Message{}, &DecodeError{
			Code:    CodeInvalidRequest,
			ID:      NullID,
			Message: "invalid request: a JSON-RPC message is a JSON object",
			Hint:    "This endpoint speaks MCP (JSON-RPC 2.0): send a JSON object with jsonrpc, id, method and params, such as the request in try.",
			NotRPC:  true,
		}
	}

	// The id comes first so that later errors can answer with it.
	id := NullID
	if env.ID != nil {
		switch rawjson.Kind(env.ID) {
		case "string", "number":
			id = rawjson.Compact(env.ID)
		default:
			return Message{}, &DecodeError{
				Code:    CodeInvalidRequest,
				ID:      NullID,
				Message: "invalid request: id must be a string or a number, not " + rawjson.Kind(env.ID),
				Hint:    `Give each request a unique id that is a string or a number, such as "id": 1.`,
			}
		}
	}
	if env.JSONRPC == nil && env.Method == nil && env.Result == nil && env.Error == nil {
		return Message{}, &DecodeError{
			Code:    CodeInvalidRequest,
			ID:      id,
			Message: "invalid request: this endpoint speaks MCP (JSON-RPC 2.0), and the message has no jsonrpc or method member",
			Hint:    `Wrap the call in a JSON-RPC request: {"jsonrpc": "2.0", "id": 1, "method": ..., "params": {...}}, such as the request in try.`,
			NotRPC:  true,
		}
	}
	var version string
	var versionErr error
	if env.JSONRPC != nil {
		version, versionErr = rawjson.Unquote(env.JSONRPC)
	}
	if env.JSONRPC == nil || versionErr != nil || version != Version {
		got := "it is missing"
		if env.JSONRPC != nil {
			got = "it is " + string(rawjson.Compact(env.JSONRPC))
		}
		return Message{}, &DecodeError{
			Code:    CodeInvalidRequest,
			ID:      id,
			Message: `invalid request: "jsonrpc" must be "2.0", and ` + got,
			Hint:    `Add "jsonrpc": "2.0" to every message.`,
			NotRPC:  true,
		}
	}
	var msg Message
	if env.ID != nil {
		msg.ID = id
	}
	if env.Method == nil {
		if env.ID != nil && (env.Result != nil || env.Error != nil) {
			msg.Result, msg.Error = env.Result, env.Error
			return msg, nil
		}
		return Message{}, &DecodeError{
			Code:    CodeInvalidRequest,
			ID:      id,
			Message: "invalid request: the message has no method",
			Hint:    `Name the method to call, such as "method": "tools/list".`,
			NotRPC:  true,
		}
	}
	method, err := rawjson.Unquote(env.Method)
	msg.Method = method
	if err != nil || msg.Method == "" {
		return Message{}, &DecodeError{
			Code:    CodeInvalidRequest,
			ID:      id,
			Message: "invalid request: method must be a non-empty string, not " + rawjson.Kind(env.Method),
			Hint:    `Name the method as a string, such as "method": "tools/list".`,
		}
	}
	if env.Params != nil {
		switch rawjson.Kind(env.Params) {
		case "object", "array":
			msg.Params = env.Params
		case "null":
			// A null params is taken as no params; some clients send it.
		default:
			return Message{}, &DecodeError{
				Code:    CodeInvalidRequest,
				ID:      id,
				Message: "invalid request: params must be an object, not " + rawjson.Kind(env.Params),
				Hint:    `Put the method's arguments in an object, such as "params": {"name": ...}.`,
			}
		}
	}
	return msg, nil
}

// IDKey returns a key that is equal for equal JSON-RPC ids: a string id and a number id with
// the same text stay apart.
func IDKey(id json.RawMessage) string {
	if rawjson.Kind(id) == "string" {
		if s, err := rawjson.Unquote(id); err == nil {
			return "s:" + s
		}
	}
	// Concatenating string(bytes) does not copy the bytes first.
	return "n:" + string(bytes.TrimSpace(id))
}
