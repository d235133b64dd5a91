package cas

import (
	"errors"
	"strings"
	"testing"
)

const helloHash = "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"

func TestParseHash(t *testing.T) {
	h, err := ParseHash(helloHash)
	if err != nil {
		t.Fatal(err)
	}
	if h != Sum([]byte("hello world")) || h.String() != helloHash {
		t.Errorf("ParseHash(%q) = %s", helloHash, h)
	}
}

func TestParseHashErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "hash is empty; a hash is 64 lowercase hex digits"},
		{helloHash[:63], "hash has 63 characters; a hash is 64 lowercase hex digits"},
		{"a", "hash has 1 character; a hash is 64 lowercase hex digits"},
		{helloHash + "0", "hash has 65 characters; a hash is 64 lowercase hex digits"},
		{strings.ToUpper(helloHash), "hash has uppercase 'B' at character 1; a hash is 64 lowercase hex digits"},
		{helloHash[:10] + "g" + helloHash[11:], "hash has 'g' at character 11, which is not a hex digit; a hash is 64 lowercase hex digits"},
		{"sha256:" + helloHash, "hash has 71 characters and 's' at character 1, which is not a hex digit; a hash is 64 lowercase hex digits"},
		{" " + helloHash[1:], "hash has ' ' at character 1, which is not a hex digit; a hash is 64 lowercase hex digits"},
		{"é" + helloHash[1:], "hash has 'é' at character 1, which is not a hex digit; a hash is 64 lowercase hex digits"},
		{"\xff" + helloHash[1:], "hash has '�' at character 1, which is not a hex digit; a hash is 64 lowercase hex digits"},
	} {
		_, err := ParseHash(tc.in)
		var he *HashError
		if !errors.Is(err, ErrInvalidHash) || !errors.As(err, &he) {
			t.Errorf("ParseHash(%q) = %v, want a HashError", tc.in, err)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("ParseHash(%q):\n got %q\nwant %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseHash(f *testing.F) {
	for _, s := range []string{"", helloHash, strings.ToUpper(helloHash), helloHash[:63], "sha256:" + helloHash, "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHash(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidHash) || !strings.HasPrefix(err.Error(), "hash ") {
				t.Fatalf("ParseHash(%q) = %v", s, err)
			}
			return
		}
		if h.String() != s {
			t.Fatalf("ParseHash(%q) = %s, which does not print back the same", s, h)
		}
	})
}
