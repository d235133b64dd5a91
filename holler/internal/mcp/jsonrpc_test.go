package mcp

import (
	"encoding/json"
	"testing"
)

func TestDecodeMessage(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name     string
		in       string
		wantCode int64
		wantID   string
		kind     string // "request", "notification" or "response" when valid
	}{
		{name: "request", in: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, kind: "request", wantID: "1"},
		{name: "string id", in: ` {"jsonrpc": "2.0", "id": "a b", "method": "ping", "params": {}} `, kind: "request", wantID: `"a b"`},
		{name: "null params", in: `{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`, kind: "request", wantID: "1"},
		{name: "notification", in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, kind: "notification"},
		{name: "response", in: `{"jsonrpc":"2.0","id":3,"result":{}}`, kind: "response", wantID: "3"},
		{name: "error response", in: `{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}}`, kind: "response", wantID: "3"},
		{name: "empty", in: ``, wantCode: codeParseError, wantID: "null"},
		{name: "garbage", in: `hello`, wantCode: codeParseError, wantID: "null"},
		{name: "truncated", in: `{"jsonrpc":"2.0"`, wantCode: codeParseError, wantID: "null"},
		{name: "batch", in: `[]`, wantCode: codeInvalidRequest, wantID: "null"},
		{name: "number", in: `1`, wantCode: codeInvalidRequest, wantID: "null"},
		{name: "no jsonrpc", in: `{"id":1,"method":"ping"}`, wantCode: codeInvalidRequest, wantID: "1"},
		{name: "jsonrpc 1.0", in: `{"jsonrpc":"1.0","id":1,"method":"ping"}`, wantCode: codeInvalidRequest, wantID: "1"},
		{name: "jsonrpc number", in: `{"jsonrpc":2.0,"id":1,"method":"ping"}`, wantCode: codeInvalidRequest, wantID: "1"},
		{name: "bool id", in: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, wantCode: codeInvalidRequest, wantID: "null"},
		{name: "array id", in: `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, wantCode: codeInvalidRequest, wantID: "null"},
		{name: "null id", in: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, wantCode: codeInvalidRequest, wantID: "null"},
		{name: "no method", in: `{"jsonrpc":"2.0","id":1}`, wantCode: codeInvalidRequest, wantID: "1"},
		{name: "method number", in: `{"jsonrpc":"2.0","id":1,"method":5}`, wantCode: codeInvalidRequest, wantID: "1"},
		{name: "empty method", in: `{"jsonrpc":"2.0","id":1,"method":""}`, wantCode: codeInvalidRequest, wantID: "1"},
		{name: "string params", in: `{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`, wantCode: codeInvalidRequest, wantID: "1"},
		{name: "response without id", in: `{"jsonrpc":"2.0","result":{}}`, wantCode: codeInvalidRequest, wantID: "null"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msg, bad := decodeMessage([]byte(tc.in))
			if tc.wantCode != 0 {
				if bad == nil {
					t.Fatalf("decoded %+v, want error %d", msg, tc.wantCode)
				}
				if bad.code != tc.wantCode || string(bad.id) != tc.wantID || bad.message == "" || bad.hint == "" {
					t.Errorf("error = %+v, want code %d id %s with a message and a hint", bad, tc.wantCode, tc.wantID)
				}
				return
			}
			if bad != nil {
				t.Fatalf("error %+v", bad)
			}
			kind := "response"
			switch {
			case msg.isRequest():
				kind = "request"
			case msg.isNotification():
				kind = "notification"
			}
			if kind != tc.kind || (tc.wantID != "" && string(msg.ID) != tc.wantID) {
				t.Errorf("got %s with id %s, want %s with id %s", kind, msg.ID, tc.kind, tc.wantID)
			}
		})
	}
}

func TestIDKey(t *testing.T) {
	t.Parallel()
	if idKey(json.RawMessage(`1`)) == idKey(json.RawMessage(`"1"`)) {
		t.Error("a number id and a string id of the same text share a key")
	}
	if idKey(json.RawMessage(`"a"`)) != idKey(json.RawMessage(`"\u0061"`)) {
		t.Error("equal string ids have different keys")
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[]`, `{"id":{}}`, `"x"`, `{"jsonrpc":"2.0","id":1,"result":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, bad := decodeMessage(data)
		if (msg == nil) == (bad == nil) {
			t.Fatalf("decodeMessage(%q) = %v, %v", data, msg, bad)
		}
		if bad != nil {
			// The error must encode as a JSON-RPC response with a valid id.
			var r rpcResponse
			if err := json.Unmarshal(encode(newError(bad.id, bad.code, bad.message, nil)), &r); err != nil {
				t.Fatalf("error response does not decode: %v", err)
			}
		}
	})
}
