// Package rawjsontest holds the JSON documents that the fast readers of JSON-RPC text (the
// envelope's and tools/call params') are checked against encoding/json with: messages and near
// misses of every kind, and random mutations of them.
package rawjsontest

import (
	"math/rand/v2"
	"strings"
)

// Seeds is how many hand-written documents lead Docs.
func Seeds() int { return len(seeds) }

// seeds are JSON-RPC messages and near misses: every member, odd spacing, duplicates,
// names in other cases or with escapes, invalid text of every kind.
var seeds = []string{
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
	` { "jsonrpc" : "2.0" , "id" : "a\"b" , "method" : "x" , "params" : [ 1 , 2 ] } `,
	"{\n\t\"jsonrpc\":\"2.0\",\r\n\"id\":-1.5e+3,\"result\":{},\"error\":null}",
	`{}`, `{ }`, `{"id":null}`, `{"id":1,"id":2}`, `{"ID":1}`, `{"Method":"x"}`, `{"i\u0064":1}`,
	`{"jſonrpc":"2.0"}`, `{"other":{"deep":[1,{"a":null}]},"id":1}`, `{"id":01}`, `{"id":1.}`, `{"id":-}`,
	`{"id":1e}`, `{"id":.5}`, `{"id":+1}`, `{"id":"\x01"}`, `{"id":"\q"}`, `{"id":"\u12"}`, `{"id":"\u12G4"}`,
	`{"id":"\ud800"}`, "{\"id\":\"\xff\xfe\"}", `{"id":1,}`, `{"id":1`, `{"id":1}}`, `{"id":1} x`, `{"id" 1}`,
	`{id:1}`, `{"id":tru}`, `{"id":true,"x":false,"y":null}`, `{"a":[]}`, `{"a":[,]}`, `{"a":[1,]}`,
	`{"a":{"b":}}`, `{"a":"\/\b\f\n\r\t\\"}`, `[]`, `"x"`, ``, `{`, `{"`, `{"a"`, `{"a":`, `{"a":"`,
	`{"name":"echo","arguments":null,"_meta":{"progressToken":"t"}}`, `{"name":"e","_meta":null}`,
	`{"name":"e","_meta":"x"}`, `{"name":"e","_meta":{"progresstoken":1}}`, `{"name":"e","_meta":{"progressToken":1,"progressToken":2}}`,
	`{"name":1,"arguments":"x"}`, `{"NAME":"e"}`, `{"_meta":{"other":1},"name":"e"}`, `{"_meta":[1]}`,
	`{"name":"e","_meta":{"progressToken":1},"_meta":{}}`, `{"name":"e","_meta":{"progressToken":1},"_meta":null}`,
	`{"name":"e","_meta":{"progressToken":1},"_meta":{"other":2}}`, `{"name":"a","arguments":{},"name":"b","arguments":[]}`,
	strings.Repeat("[", 300) + strings.Repeat("]", 300), `{"a":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`,
}

// Mutate returns doc with a few random bytes changed, inserted or removed: what a fast reader
// is checked against encoding/json with besides the documents themselves.
func Mutate(r *rand.Rand, doc string) string {
	pool := []byte(` {}[]:,"\\01-.eE+tfnul` + "\x00\n\xff")
	b := []byte(doc)
	for range 1 + r.IntN(3) {
		if len(b) == 0 {
			break
		}
		i := r.IntN(len(b))
		switch r.IntN(3) {
		case 0:
			b[i] = pool[r.IntN(len(pool))]
		case 1:
			b = append(b[:i], append([]byte{pool[r.IntN(len(pool))]}, b[i:]...)...)
		default:
			b = append(b[:i], b[i+1:]...)
		}
	}
	return string(b)
}

// Docs returns the seeds and, for each run the same, 20,000 mutations of them: the
// documents a fast reader of JSON is checked against encoding/json with.
func Docs() []string {
	r := rand.New(rand.NewPCG(5, 6))
	docs := append([]string{}, seeds...)
	for range 20000 {
		docs = append(docs, Mutate(r, seeds[r.IntN(len(seeds))]))
	}
	return docs
}
