package ids

import (
	"testing"
	"time"
)

func TestNew(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	seen := make(map[string]bool)
	prev := ""
	for i := 0; i < 1000; i++ {
		id := New(Artifact, t0.Add(time.Duration(i)*time.Millisecond))
		if !Valid(Artifact, id) {
			t.Fatalf("New gave %q, which is not valid", id)
		}
		if seen[id] {
			t.Fatalf("New gave %q twice", id)
		}
		seen[id] = true
		if id <= prev {
			t.Fatalf("%q does not sort after %q", id, prev)
		}
		prev = id
	}
}

func TestValid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prefix, s string
		want      bool
	}{
		{Artifact, "art_01jd8x2k3m4n5p6q7r8s9t0vwx", true},
		{Job, "art_01jd8x2k3m4n5p6q7r8s9t0vwx", false},
		{Artifact, "art_01jd8x2k3m4n5p6q7r8s9t0vw", false},
		{Artifact, "art_01jd8x2k3m4n5p6q7r8s9t0vwi", false},
		{Artifact, "art_01JD8X2K3M4N5P6Q7R8S9T0VWX", false},
		{Artifact, "", false},
	} {
		if got := Valid(tc.prefix, tc.s); got != tc.want {
			t.Errorf("Valid(%q, %q) = %v, want %v", tc.prefix, tc.s, got, tc.want)
		}
	}
}
