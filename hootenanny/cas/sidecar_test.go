package cas

import (
	"strings"
	"testing"
	"time"
)

func TestSidecarRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		mimeType string
		at       time.Time
	}{
		{"text/plain; charset=utf-8", time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)},
		{"audio/midi", time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("CET", 3600))},
	} {
		b := formatSidecar(tc.mimeType, tc.at)
		mimeType, at, err := parseSidecar(b)
		if err != nil {
			t.Fatalf("parseSidecar(%q): %v", b, err)
		}
		if mimeType != tc.mimeType || !at.Equal(tc.at) || at.Location() != time.UTC {
			t.Errorf("round trip of %q gave %q, %v", b, mimeType, at)
		}
	}
}

func TestSidecarStrict(t *testing.T) {
	good := "hoot-cas-meta 1\nmime-type text/plain\nstored-at 2026-01-02T03:04:05.5Z\n"
	if _, _, err := parseSidecar([]byte(good)); err != nil {
		t.Fatalf("parseSidecar(%q): %v", good, err)
	}
	for _, bad := range []string{
		"",
		strings.TrimSuffix(good, "\n"),
		good + "\n",
		good + "extra line\n",
		strings.Replace(good, "hoot-cas-meta 1", "hoot-cas-meta 2", 1),
		strings.Replace(good, "mime-type ", "mime-type  ", 1),
		strings.Replace(good, "mime-type ", "mime_type ", 1),
		strings.Replace(good, "text/plain", "nonsense", 1),
		strings.Replace(good, "stored-at ", "stored ", 1),
		strings.Replace(good, ".5Z", ".50Z", 1),
		strings.Replace(good, "Z", "+00:00", 1),
		strings.Replace(good, "Z", "+01:00", 1),
		strings.Replace(good, "2026-01-02T03:04:05.5Z", "yesterday", 1),
		strings.ReplaceAll(good, "\n", "\r\n"),
		strings.Replace(good, "text/plain", strings.Repeat("a", 1100)+"/plain", 1),
	} {
		if _, _, err := parseSidecar([]byte(bad)); err == nil {
			t.Errorf("parseSidecar(%q) succeeded", bad)
		}
	}
}

func FuzzSidecar(f *testing.F) {
	f.Add([]byte("hoot-cas-meta 1\nmime-type text/plain; charset=utf-8\nstored-at 2026-01-02T03:04:05.123456789Z\n"))
	f.Add([]byte("hoot-cas-meta 1\nmime-type audio/midi\nstored-at 2026-01-02T03:04:05Z\n"))
	f.Add([]byte("hoot-cas-meta 1\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		mimeType, at, err := parseSidecar(b)
		if err != nil {
			return
		}
		// The parser takes one form only, so what it parsed formats back to the same bytes.
		if again := formatSidecar(mimeType, at); string(again) != string(b) {
			t.Fatalf("parseSidecar(%q) = %q, %v, which formats as %q", b, mimeType, at, again)
		}
	})
}
