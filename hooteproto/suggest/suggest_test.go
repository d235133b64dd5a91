package suggest

import "testing"

func TestDistance(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"hash", "hash", 0},
		{"hsh", "hash", 1},
		{"cas_gt", "cas_get", 1},
		{"trill", "tril", 1},
		{"kitten", "sitting", 3},
		{"", "abc", 3},
		{"mime_typ", "mime_type", 1},
	}
	for _, tc := range testCases {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (not symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}
