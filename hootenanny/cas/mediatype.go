package cas

import (
	"fmt"
	"mime"
	"strings"
)

// DefaultMediaType is the media type of content stored without one, and of an object whose
// metadata is missing.
const DefaultMediaType = "application/octet-stream"

// MaxMediaTypeLen is the longest media type the store records, in bytes.
const MaxMediaTypeLen = 255

// ValidateMediaType reports whether s has the shape of a media type: type/subtype, each a
// restricted name of RFC 6838 (a letter or digit, then letters, digits and !#$&-^_.+), and
// optionally parameters after ";" that [mime.ParseMediaType] accepts, such as
// "text/plain; charset=utf-8". It takes printable ASCII only and at most [MaxMediaTypeLen]
// bytes. The error is a [*MediaTypeError].
func ValidateMediaType(s string) error {
	fail := func(format string, args ...any) error {
		return &MediaTypeError{MediaType: s, Problem: fmt.Sprintf(format, args...)}
	}
	const shape = "a media type is type/subtype, such as text/plain or audio/midi"
	if s == "" {
		return fail("media type is empty; %s", shape)
	}
	if len(s) > MaxMediaTypeLen {
		return fail("media type is %d bytes long; the limit is %d", len(s), MaxMediaTypeLen)
	}
	for i, r := range s {
		if r < 0x20 || r > 0x7e {
			return fail("media type has %q at byte %d; a media type is printable ASCII only", r, i+1)
		}
	}
	base, params, hasParams := strings.Cut(s, ";")
	typ, sub, ok := strings.Cut(base, "/")
	if !ok {
		return fail("media type %q has no '/'; %s", s, shape)
	}
	if err := checkRestrictedName(typ); err != "" {
		return fail("media type %q: the type %s; %s", s, err, shape)
	}
	if err := checkRestrictedName(sub); err != "" {
		return fail("media type %q: the subtype %s; %s", s, err, shape)
	}
	if hasParams {
		if strings.TrimSpace(params) == "" {
			return fail("media type %q has ';' but no parameter after it; write parameters as name=value, such as text/plain; charset=utf-8", s)
		}
		if _, _, err := mime.ParseMediaType(s); err != nil {
			return fail("media type %q has malformed parameters; write them as name=value, such as text/plain; charset=utf-8", s)
		}
	}
	return nil
}

// checkRestrictedName returns what keeps name from being a restricted name of RFC 6838, or "".
func checkRestrictedName(name string) string {
	if name == "" {
		return "is empty"
	}
	if len(name) > 127 {
		return fmt.Sprintf("is %d characters long; the limit is 127", len(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if i == 0 && !alnum {
			return fmt.Sprintf("starts with %q, not a letter or digit", c)
		}
		if !alnum && !strings.ContainsRune("!#$&-^_.+", rune(c)) {
			return fmt.Sprintf("has %q, which a media type may not contain", c)
		}
	}
	return ""
}
