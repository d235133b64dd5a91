package rawjson

import (
	"encoding/json"
	"testing"
)

func TestUnquoteMatchesUnmarshal(t *testing.T) {
	for _, raw := range []string{`"2.0"`, `""`, `"a\"b"`, `"\u00e9"`, "\"\xff\"", `"é"`, `1`, `null`, `"x`, `{}`, `"tools/call"`} {
		var want string
		werr := json.Unmarshal([]byte(raw), &want)
		got, gerr := Unquote([]byte(raw))
		if (werr == nil) != (gerr == nil) || got != want {
			t.Errorf("Unquote(%s) = %q, %v; json.Unmarshal gives %q, %v", raw, got, gerr, want, werr)
		}
	}
}
