package access

import (
	"strings"
	"testing"
)

func TestBearerToken(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BEARER   a.b-c_d~e+f/g==", "a.b-c_d~e+f/g==", true},
		{"", "", false},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Basic dXNlcjpwYXNz", "", false},
		{"Bearer abc def", "", false},
		{"Bearer ab=c", "", false},
		{"Bearer ===", "", false},
		{"Bearer abc\t", "", false},
		{"Bearer \"abc\"", "", false},
		{"Bearer " + strings.Repeat("a", maxTokenLength+1), "", false},
	}
	for _, tc := range testCases {
		token, reason, ok := BearerToken(tc.header)
		if token != tc.token || ok != tc.ok {
			t.Errorf("BearerToken(%.40q) = %q, %v; want %q, %v", tc.header, token, ok, tc.token, tc.ok)
		}
		if !ok && tc.header != "" && reason == "" {
			t.Errorf("BearerToken(%.40q) gave no reason", tc.header)
		}
	}
}

func FuzzBearerToken(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer a.b.c", "Basic x", "Bearer ", "Bearer a==", "Bearer =a", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		token, reason, ok := BearerToken(header)
		if !ok {
			if token != "" || (header != "" && reason == "") {
				t.Fatalf("a refusal with token %q and reason %q", token, reason)
			}
			return
		}
		if token == "" || len(token) > maxTokenLength || strings.ContainsAny(token, " \t\r\n\"\\,") || !IsBearer(header) {
			t.Fatalf("accepted token %q from %q", token, header)
		}
		if again, _, ok := BearerToken("Bearer " + token); !ok || again != token {
			t.Fatalf("token %q does not read back", token)
		}
	})
}
