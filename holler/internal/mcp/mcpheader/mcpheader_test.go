package mcpheader

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzDecodeParamValue(f *testing.F) {
	for _, seed := range []string{"", "us-west1", "=?base64?SGVsbG8=?=", "=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?=", "=?base64?", "?=",
		"=?base64??=", "=?BASE64?SGVsbG8=?=", "é", "a\tb", "=?base64?w6k=?=", "=?base64?SGVsbG8=?=?="} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, ok := DecodeParamValue(v)
		inner, hasPrefix := strings.CutPrefix(v, "=?base64?")
		inner, sentinel := strings.CutSuffix(inner, "?=")
		sentinel = sentinel && hasPrefix
		switch {
		case sentinel && ok:
			// Strict decoding: the value is exactly the canonical encoding of what it decodes to.
			if base64.StdEncoding.EncodeToString([]byte(got)) != inner {
				t.Errorf("%q decoded to %q, which encodes otherwise", v, got)
			}
		case sentinel:
			if _, err := base64.StdEncoding.Strict().DecodeString(inner); err == nil {
				t.Errorf("%q refused, but it decodes", v)
			}
		case ok:
			if got != v {
				t.Errorf("literal %q read as %q", v, got)
			}
			for i := range len(v) {
				if v[i] < 0x20 || v[i] > 0x7e {
					t.Errorf("literal %q with byte %#x accepted", v, v[i])
				}
			}
		default:
			printable := utf8.ValidString(v)
			for i := range len(v) {
				printable = printable && v[i] >= 0x20 && v[i] <= 0x7e
			}
			if printable {
				t.Errorf("printable literal %q refused", v)
			}
		}
	})
}
