package wording

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClose(t *testing.T) {
	t.Parallel()
	tools := []string{"echo", "cas_store", "cas_get", "cas_inspect"}
	testCases := []struct {
		name string
		want []string
	}{
		{"ech", []string{"echo"}},
		{"ECHO", []string{"echo"}},
		{"cas_gte", []string{"cas_get"}},
		{"cas_put", []string{"cas_get"}},
		{"inspect", []string{"cas_inspect"}},
		{"store", []string{"cas_store"}},
		{"zzzzzzzz", nil},
		{"echo", nil},
	}
	for _, tc := range testCases {
		got := Close(tc.name, tools)
		if len(tc.want) == 0 && len(got) != 0 || len(tc.want) > 0 && (len(got) == 0 || got[0] != tc.want[0]) {
			t.Errorf("Close(%q) = %v, want %v first", tc.name, got, tc.want)
		}
	}
	if got := Close("x", slices.Repeat([]string{"a", "b", "c", "d"}, 2)); len(got) > 3 {
		t.Errorf("Close gave %d names", len(got))
	}
}

func TestDidYouMean(t *testing.T) {
	t.Parallel()
	if got := DidYouMean(nil); got != "" {
		t.Errorf("DidYouMean(nil) = %q, want nothing", got)
	}
	if got, want := DidYouMean([]string{"echo", "cas_get"}), `; did you mean "echo"?`; got != want {
		t.Errorf("DidYouMean = %q, want %q", got, want)
	}
}

func TestQuoteAndShortBound(t *testing.T) {
	t.Parallel()
	if got, want := Quote(`a"b`), `"a\"b"`; got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
	long := strings.Repeat("é", 200) // two bytes each: a cut may fall inside one
	if got := Quote(long); len(got) > 80+len(`"..."`) {
		t.Errorf("Quote of %d bytes gave %d bytes", len(long), len(got))
	}
	if got := Short("short"); got != "short" {
		t.Errorf("Short changed a short text: %q", got)
	}
	for _, s := range []string{long, "x" + long, strings.Repeat("x", 121)} {
		got := Short(s)
		if len(got) > 120+len("...") || !strings.HasSuffix(got, "...") || !utf8.ValidString(got) {
			t.Errorf("Short(%d bytes) = %q", len(s), got)
		}
	}
}
