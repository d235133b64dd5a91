package jsonrpc

import (
	"encoding/json"
	"testing"
)

// TestResponseEncoding writes a result, an error with and without data, and an error about a
// message whose id could not be read (null), as JSON-RPC 2.0 spells them; Abandoned is the
// server's own and never written.
func TestResponseEncoding(t *testing.T) {
	for _, tc := range []struct {
		resp *Response
		want string
	}{
		{NewResult(json.RawMessage(`7`), map[string]int{"a": 1}), `{"jsonrpc":"2.0","id":7,"result":{"a":1}}`},
		{NewError(json.RawMessage(`"x"`), CodeInvalidParams, "bad", map[string]string{"hint": "h"}), `{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"bad","data":{"hint":"h"}}}`},
		{NewError(nil, CodeParseError, "unreadable", nil), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"unreadable"}}`},
		{&Response{JSONRPC: Version, ID: json.RawMessage(`1`), Result: struct{}{}, Abandoned: true}, `{"jsonrpc":"2.0","id":1,"result":{}}`},
	} {
		b, err := json.Marshal(tc.resp)
		if err != nil || string(b) != tc.want {
			t.Errorf("got %s, %v; want %s", b, err, tc.want)
		}
	}
	n := &Notification{JSONRPC: Version, Method: "notifications/progress", Params: map[string]int{"progress": 1}}
	if b, _ := json.Marshal(n); string(b) != `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}` {
		t.Errorf("notification = %s", b)
	}
}
