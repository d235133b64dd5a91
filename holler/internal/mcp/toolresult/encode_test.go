package toolresult

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/content"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
)

// fastJSONStrings are strings with every kind of character that JSON escapes or that
// json.Marshal treats specially.
var fastJSONStrings = []string{
	"", "hello, bench", `quote " and backslash \`, "<script>&amp;</script>", "\b\f\n\r\t\x00\x01\x1f\x7f",
	"line\u2028para\u2029", "bad \xff utf-8 \xe2\x80", "é ü 日本 🎵", "\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa",
	`{"message":"<b>","n":"1"}`,
}

// randomJSONString returns a string of random bytes, biased towards the interesting ones.
func randomJSONString(r *rand.Rand) string {
	pool := []byte("ab \"\\<>&\n\t\x00\x1f\x7f\xe2\x80\xa8\xa9\xff\xc3\xa9{}[]:,")
	b := make([]byte, r.IntN(24))
	for i := range b {
		b[i] = pool[r.IntN(len(pool))]
	}
	return string(b)
}

func TestEncodeToolResultMatchesMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	strs := append([]string{}, fastJSONStrings...)
	for range 2000 {
		strs = append(strs, randomJSONString(r))
	}
	ids := []json.RawMessage{json.RawMessage("7"), json.RawMessage(`"a<b>&c\u2028"`), json.RawMessage("\"x\u2028y\u2029\""), json.RawMessage("-1.5e3"), jsonrpc.NullID}
	for i, s := range strs {
		sc, _ := json.Marshal(map[string]string{"message": s, "worker": strs[(i+1)%len(strs)]})
		text := s
		res := Result{Content: []content.Block{content.Text(text)}, StructuredContent: sc}
		switch i % 5 {
		case 1:
			res = Result{Content: []content.Block{content.Text(text), content.Text(strs[(i+3)%len(strs)])}, IsError: true}
		case 2:
			res.Content = nil
		case 3:
			res.Content = []content.Block{}
		}
		resp := jsonrpc.NewResult(ids[i%len(ids)], res)
		want, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := Encode(resp)
		if !ok {
			t.Fatalf("case %d: the fast path refused %+v", i, res)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

func TestEncodeToolResultFallsBack(t *testing.T) {
	sc := json.RawMessage(`{"a":1}`)
	for _, resp := range []*jsonrpc.Response{
		jsonrpc.NewResult(json.RawMessage(" 7 "), Result{Content: []content.Block{content.Text("x")}}),
		jsonrpc.NewResult(json.RawMessage("7"), Result{StructuredContent: json.RawMessage(`{"a": 1}`)}),
		jsonrpc.NewResult(nil, Result{StructuredContent: sc}),
		jsonrpc.NewResult(json.RawMessage("7"), Result{Content: []content.Block{{Type: "image", Data: "AA=="}}}),
		jsonrpc.NewResult(json.RawMessage("7"), Result{Content: []content.Block{{Type: "text"}}}),
		jsonrpc.NewResult(json.RawMessage("7"), struct{ Tools []string }{}),
		jsonrpc.NewError(json.RawMessage("7"), jsonrpc.CodeInternalError, "x", nil),
	} {
		if b, ok := Encode(resp); ok {
			t.Errorf("fast path took %+v: %s", resp, b)
		}
	}
}

func TestCompactMatchesJSONCompact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	docs := []string{`{"a": 1}`, `{"a":"b c"}`, "[1,\n2]", `"x \" y"`, `"\\"`, `"\\" `, ` 1`, `{"a":"\\\" "}`, `not json`, `{"a" :"b"}`, ``}
	for range 2000 {
		s := randomJSONString(r)
		docs = append(docs, s)
		b, _ := json.Marshal(map[string]any{s: []any{s, 1.5, nil}})
		docs = append(docs, string(b))
		ind, _ := json.MarshalIndent(map[string]any{s: []any{s, 1.5, nil}}, " ", "\t")
		docs = append(docs, string(ind))
	}
	for _, d := range docs {
		want := []byte(d)
		var buf bytes.Buffer
		if json.Compact(&buf, want) == nil {
			want = buf.Bytes()
		}
		if got := rawjson.Compact(json.RawMessage(d)); !bytes.Equal(got, want) {
			t.Fatalf("compact(%q) = %q, want %q", d, got, want)
		}
		if json.Valid([]byte(d)) {
			if got := rawjson.CompactValid([]byte(d)); !bytes.Equal(got, want) { // a copy: compactValid overwrites
				t.Fatalf("CompactValid(%q) = %q, want %q", d, got, want)
			}
		}
	}
}
