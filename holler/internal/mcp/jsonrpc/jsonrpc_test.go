package jsonrpc

import (
	"encoding/json"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
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
		{name: "empty", in: ``, wantCode: CodeParseError, wantID: "null"},
		{name: "garbage", in: `hello`, wantCode: CodeParseError, wantID: "null"},
		{name: "truncated", in: `{"jsonrpc":"2.0"`, wantCode: CodeParseError, wantID: "null"},
		{name: "batch", in: `[]`, wantCode: CodeInvalidRequest, wantID: "null"},
		{name: "number", in: `1`, wantCode: CodeInvalidRequest, wantID: "null"},
		{name: "no jsonrpc", in: `{"id":1,"method":"ping"}`, wantCode: CodeInvalidRequest, wantID: "1"},
		{name: "jsonrpc 1.0", in: `{"jsonrpc":"1.0","id":1,"method":"ping"}`, wantCode: CodeInvalidRequest, wantID: "1"},
		{name: "jsonrpc number", in: `{"jsonrpc":2.0,"id":1,"method":"ping"}`, wantCode: CodeInvalidRequest, wantID: "1"},
		{name: "bool id", in: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, wantCode: CodeInvalidRequest, wantID: "null"},
		{name: "array id", in: `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, wantCode: CodeInvalidRequest, wantID: "null"},
		{name: "null id", in: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, wantCode: CodeInvalidRequest, wantID: "null"},
		{name: "no method", in: `{"jsonrpc":"2.0","id":1}`, wantCode: CodeInvalidRequest, wantID: "1"},
		{name: "method number", in: `{"jsonrpc":"2.0","id":1,"method":5}`, wantCode: CodeInvalidRequest, wantID: "1"},
		{name: "empty method", in: `{"jsonrpc":"2.0","id":1,"method":""}`, wantCode: CodeInvalidRequest, wantID: "1"},
		{name: "string params", in: `{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`, wantCode: CodeInvalidRequest, wantID: "1"},
		{name: "response without id", in: `{"jsonrpc":"2.0","result":{}}`, wantCode: CodeInvalidRequest, wantID: "null"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msg, bad := Decode([]byte(tc.in))
			if tc.wantCode != 0 {
				if bad == nil {
					t.Fatalf("decoded %+v, want error %d", msg, tc.wantCode)
				}
				if bad.Code != tc.wantCode || string(bad.ID) != tc.wantID || bad.Message == "" || bad.Hint == "" {
					t.Errorf("error = %+v, want code %d id %s with a message and a hint", bad, tc.wantCode, tc.wantID)
				}
				return
			}
			if bad != nil {
				t.Fatalf("error %+v", bad)
			}
			kind := "response"
			switch {
			case msg.IsRequest():
				kind = "request"
			case msg.IsNotification():
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
	if IDKey(json.RawMessage(`1`)) == IDKey(json.RawMessage(`"1"`)) {
		t.Error("a number id and a string id of the same text share a key")
	}
	if IDKey(json.RawMessage(`"a"`)) != IDKey(json.RawMessage(`"\u0061"`)) {
		t.Error("equal string ids have different keys")
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[]`, `{"id":{}}`, `"x"`, `{"jsonrpc":"2.0","id":1,"result":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, bad := Decode(data)
		if bad == nil {
			if msg.Method == "" && msg.ID == nil {
				t.Fatalf("Decode(%q) = %+v: neither a call nor a response", data, msg)
			}
			return
		}
		if msg.Method != "" || msg.ID != nil || bad.Message == "" || bad.Hint == "" ||
			bad.Code != CodeParseError && bad.Code != CodeInvalidRequest {
			t.Fatalf("Decode(%q) = %+v, %+v", data, msg, bad)
		}
		// The error must be answerable: its id is a valid id (or null) in a response that encodes.
		if k := rawjson.Kind(bad.ID); k != "string" && k != "number" && k != "null" || !json.Valid(bad.ID) {
			t.Fatalf("Decode(%q) answers with id %q", data, bad.ID)
		}
		if _, err := json.Marshal(struct {
			ID json.RawMessage `json:"id"`
		}{bad.ID}); err != nil {
			t.Fatalf("the id %q of an error does not encode: %v", bad.ID, err)
		}
	})
}
