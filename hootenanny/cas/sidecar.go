package cas

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// A sidecar is the small file next to an object that records its media type and when it was
// stored. It is three lines of UTF-8 text, each ending in a newline:
//
//	hoot-cas-meta 1
//	mime-type text/plain; charset=utf-8
//	stored-at 2026-01-02T03:04:05.123456789Z
//
// The first line names the format and its version. The media type is one that
// [ValidateMediaType] accepts; the time is UTC in RFC 3339 with as many fractional digits as
// it needs (time.RFC3339Nano). The parser takes exactly this form and nothing else, so that
// formatting what it parsed gives back the same bytes.

const (
	sidecarMagic   = "hoot-cas-meta 1"
	sidecarMime    = "mime-type "
	sidecarStored  = "stored-at "
	maxSidecarSize = 1024
)

// formatSidecar returns the sidecar for an object of media type mimeType stored at t.
func formatSidecar(mimeType string, t time.Time) []byte {
	var b strings.Builder
	b.WriteString(sidecarMagic + "\n")
	b.WriteString(sidecarMime + mimeType + "\n")
	b.WriteString(sidecarStored + t.UTC().Format(time.RFC3339Nano) + "\n")
	return []byte(b.String())
}

// parseSidecar returns the media type and stored time that a sidecar records.
func parseSidecar(b []byte) (mimeType string, storedAt time.Time, err error) {
	if len(b) > maxSidecarSize {
		return "", time.Time{}, fmt.Errorf("sidecar is %d bytes long; the limit is %d", len(b), maxSidecarSize)
	}
	s := string(b)
	if !strings.HasSuffix(s, "\n") {
		return "", time.Time{}, errors.New("sidecar does not end in a newline")
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) != 3 {
		return "", time.Time{}, fmt.Errorf("sidecar has %d lines; want 3", len(lines))
	}
	if lines[0] != sidecarMagic {
		return "", time.Time{}, fmt.Errorf("sidecar starts with %q; want %q", lines[0], sidecarMagic)
	}
	mimeType, ok := strings.CutPrefix(lines[1], sidecarMime)
	if !ok {
		return "", time.Time{}, fmt.Errorf("sidecar line 2 is %q; want %q and the media type", lines[1], sidecarMime)
	}
	if err := ValidateMediaType(mimeType); err != nil {
		return "", time.Time{}, fmt.Errorf("sidecar line 2: %w", err)
	}
	stamp, ok := strings.CutPrefix(lines[2], sidecarStored)
	if !ok {
		return "", time.Time{}, fmt.Errorf("sidecar line 3 is %q; want %q and the time", lines[2], sidecarStored)
	}
	storedAt, err = time.Parse(time.RFC3339Nano, stamp)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("sidecar line 3: %w", err)
	}
	storedAt = storedAt.UTC()
	if storedAt.Format(time.RFC3339Nano) != stamp {
		return "", time.Time{}, fmt.Errorf("sidecar line 3: time %q is not in canonical UTC form", stamp)
	}
	return mimeType, storedAt, nil
}
