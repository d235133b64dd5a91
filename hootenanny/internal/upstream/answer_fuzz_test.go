package upstream

import (
	"strings"
	"testing"
)

// FuzzParseAnswer feeds arbitrary bytes to the reader of JSON-RPC answers: it returns an answer
// with exactly one of result and error, or an error, and never panics.
func FuzzParseAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":"0x1"}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x","data":{"a":[1,2]}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1.5}}`, `{"jsonrpc":"2.0","id":1,"result":null}`,
		`{"jsonrpc":"2.0","id":1}`, `[]`, `{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 80) + strings.Repeat("]", 80) + `}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		a, err := parseAnswer(b)
		if err != nil {
			return
		}
		if a.hasErr == a.hasRes {
			t.Fatalf("%q: an answer with result %v and error %v", b, a.hasRes, a.hasErr)
		}
		if a.hasErr && a.errData != nil {
			if _, err := ValueOf(a.errData); err != nil {
				t.Fatalf("%q: error data has no value: %v", b, err)
			}
		}
	})
}
