package arbor

import (
	"errors"
	"strings"
	"testing"
)

func TestParseExternal(t *testing.T) {
	for _, c := range []struct {
		in   string
		want External
		err  string // part of the error, or "" for none
	}{
		{in: "artifact:art_01jd8x2k3m4n5p6q7r8s9t0vwx", want: External{"artifact", "art_01jd8x2k3m4n5p6q7r8s9t0vwx"}},
		{in: "[job:job_1]", want: External{"job", "job_1"}},
		{in: "[node:node_a.b-c]", want: External{"node", "node_a.b-c"}},
		{in: "artifact", err: "no colon"},
		{in: "[artifact:x", err: "one square bracket"},
		{in: "artifact:x]", err: "one square bracket"},
		{in: "url:http", err: `source "url" is not one of artifact, job, node`},
		{in: "artifact:", err: "1 to 128 characters"},
		{in: "artifact:" + strings.Repeat("a", 129), err: "1 to 128 characters"},
		{in: "artifact:a b", err: "may hold only letters"},
		{in: "artifact:a:b", err: "may hold only letters"},
	} {
		got, err := ParseExternal(c.in)
		if c.err == "" {
			if err != nil || got != c.want {
				t.Errorf("ParseExternal(%q) = %v, %v; want %v", c.in, got, err, c.want)
			}
			continue
		}
		var inv *InvalidError
		if !errors.As(err, &inv) || inv.Field != "external" || !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseExternal(%q) = %v; want an error on external saying %q", c.in, err, c.err)
		}
	}
}

// FuzzParseExternal checks that a handle that parses is valid, prints as [source:identifier]
// and parses again to itself, and that nothing panics.
func FuzzParseExternal(f *testing.F) {
	for _, s := range []string{"artifact:art_1", "[job:job_1]", "[node:x]", "", "[", "]", ":", "[:]", "artifact:\x00", "node:é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseExternal(s)
		if err != nil {
			var inv *InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("ParseExternal(%q): an error of type %T", s, err)
			}
			return
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("ParseExternal(%q) = %v, which is not valid: %v", s, e, err)
		}
		again, err := ParseExternal(e.String())
		if err != nil || again != e {
			t.Fatalf("%q parsed to %v, whose string %q parses to %v, %v", s, e, e.String(), again, err)
		}
		if strings.ContainsAny(Label(Content{External: e}), "\n\r") {
			t.Fatalf("the label of %v spans lines", e)
		}
	})
}

// FuzzLabel checks that a label is one line of at most LineRunes characters of text after the
// role, whatever the text.
func FuzzLabel(f *testing.F) {
	for _, s := range []string{"", "hi", "a\nb", "\r\n", strings.Repeat("é", 70), "\u2028x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l := Label(Content{Role: RoleUser, Text: s})
		if strings.ContainsAny(l, "\n\r\u2028\u2029") {
			t.Fatalf("Label of %q spans lines: %q", s, l)
		}
		body := strings.TrimSuffix(strings.TrimPrefix(l, "User: "), "…")
		if n := len([]rune(body)); n > LineRunes {
			t.Fatalf("Label of %q shows %d characters", s, n)
		}
	})
}
