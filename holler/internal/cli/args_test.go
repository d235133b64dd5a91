package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const testSchema = `{
  "type": "object",
  "properties": {
    "abc": {"type": "string"},
    "x": {"type": "integer"},
    "ratio": {"type": "number"},
    "dry_run": {"type": "boolean"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "ids": {"type": "array", "items": {"$ref": "#/$defs/Id"}},
    "mode": {"type": "string", "enum": ["AWAIT_MODE_ALL", "AWAIT_MODE_ANY"]},
    "content": {"type": "string", "contentEncoding": "base64"},
    "rendering": {"$ref": "#/$defs/Rendering"}
  },
  "$defs": {
    "Id": {"type": "integer"},
    "Rendering": {"type": "object", "properties": {"velocity": {"type": "integer"}}}
  }
}`

func testSchemaOf(t *testing.T) schema {
	t.Helper()
	var s schema
	if err := json.Unmarshal([]byte(testSchema), &s.root); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseArguments(t *testing.T) {
	s := testSchemaOf(t)
	file := filepath.Join(t.TempDir(), "tune.abc")
	if err := os.WriteFile(file, []byte("X:1\nK:C\nC|]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := parseArguments([]string{
		"abc=@" + file, "x=3", "ratio=0.5", "dry_run=true", "tags=folk", "tags=reel",
		"ids=7", "ids=8", "mode=any", "content=@-", `rendering:={"velocity":90}`, "unknown=kept",
	}, s, strings.NewReader("\x00\x01hi"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"abc": "X:1\nK:C\nC|]\n", "x": int64(3), "ratio": 0.5, "dry_run": true,
		"tags": []any{"folk", "reel"}, "ids": []any{int64(7), int64(8)}, "mode": "AWAIT_MODE_ANY",
		"content": "AAFoaQ==", "rendering": map[string]any{"velocity": float64(90)}, "unknown": "kept",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
}

func TestParseArgumentsErrors(t *testing.T) {
	s := testSchemaOf(t)
	for _, c := range []struct{ word, want string }{
		{"x=three", "x takes a whole number"},
		{"ratio=half", "ratio takes a number"},
		{"dry_run=maybe", "dry_run takes true or false"},
		{"mode=some", "mode takes one of AWAIT_MODE_ALL, AWAIT_MODE_ANY"},
		{"rendering={", "rendering takes a JSON object"},
		{"rendering:={", "rendering:= takes JSON"},
		{"abc=@/nonexistent/file", "abc=@/nonexistent/file"},
		{"=value", "is not key=value"},
		{"novalue", "is not key=value"},
		{"ids=x", "ids takes a whole number"},
	} {
		_, err := parseArguments([]string{c.word}, s, strings.NewReader(""))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.word, err, c.want)
		}
	}
	if _, err := parseArguments([]string{"x=1", "x=2"}, s, nil); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("x twice: %v", err)
	}
}

func TestEnumValueAmbiguous(t *testing.T) {
	if _, err := enumValue("k", "a", []any{"X_A", "Y_A"}); err == nil || !strings.Contains(err.Error(), "could be X_A or Y_A") {
		t.Errorf("ambiguous: %v", err)
	}
}

func TestExampleWords(t *testing.T) {
	got := exampleWords(`{"ids":["job_1","job_2"],"timeout_ms":10000,"rendering":{"v":1},"abc":"X:1 it's"}`)
	want := `abc='X:1 it'\''s' ids=job_1 ids=job_2 rendering:='{"v":1}' timeout_ms=10000`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{"art_01": "art_01", "../../etc/passwd": ".._.._etc_passwd", "..": "content", "": "content", "a b/c": "a_b_c"} {
		if got := safeName(in); got != want {
			t.Errorf("safeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseArguments holds parseArguments to its contract on any words: an error or
// arguments, never a panic, and every key it returns is one the words named.
func FuzzParseArguments(f *testing.F) {
	for _, seed := range []string{"x=1", "tags=a", `rendering:={"a":1}`, "mode=all", "=", "a:=", "x=1e400", "ids=-1", "content=@-"} {
		f.Add(seed)
	}
	var s schema
	if err := json.Unmarshal([]byte(testSchema), &s.root); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, word string) {
		if strings.Contains(word, "=@") && !strings.Contains(word, "=@-") {
			return // no files from the fuzzer
		}
		args, err := parseArguments([]string{word}, s, strings.NewReader("stdin"))
		if err != nil {
			return
		}
		for k := range args {
			if !strings.HasPrefix(word, k) {
				t.Errorf("%q gave key %q", word, k)
			}
		}
	})
}
