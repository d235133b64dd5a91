package arbor

import (
	"fmt"
	"strings"
)

// Sources are the kinds of thing an external node points to.
var Sources = []string{"artifact", "job", "node"}

// MaxIdentifierLen is the longest identifier an external handle has.
const MaxIdentifierLen = 128

// An External is a handle to something kept elsewhere: an artifact, a job or another tree's
// node, by its id. It is written [source:identifier].
type External struct {
	Source     string
	Identifier string
}

// String returns the handle as a render shows it: [source:identifier].
func (e External) String() string { return "[" + e.Source + ":" + e.Identifier + "]" }

// Validate reports what is wrong with e, if anything.
func (e External) Validate() error {
	known := false
	for _, s := range Sources {
		known = known || e.Source == s
	}
	if !known {
		return &InvalidError{Field: "external", Problem: fmt.Sprintf("the source %q is not one of %s", e.Source, strings.Join(Sources, ", "))}
	}
	if len(e.Identifier) == 0 || len(e.Identifier) > MaxIdentifierLen {
		return &InvalidError{Field: "external", Problem: fmt.Sprintf("the identifier must have 1 to %d characters, not %d", MaxIdentifierLen, len(e.Identifier))}
	}
	for i := 0; i < len(e.Identifier); i++ {
		c := e.Identifier[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return &InvalidError{Field: "external", Problem: fmt.Sprintf("the identifier has %q at byte %d; it may hold only letters, digits, _ . and -", c, i)}
		}
	}
	return nil
}

// ParseExternal reads a handle written source:identifier, with or without the square brackets
// a render puts around it.
func ParseExternal(s string) (External, error) {
	body := s
	if strings.HasPrefix(body, "[") || strings.HasSuffix(body, "]") {
		inner, ok := strings.CutPrefix(body, "[")
		inner, ok2 := strings.CutSuffix(inner, "]")
		if !ok || !ok2 {
			return External{}, &InvalidError{Field: "external", Problem: fmt.Sprintf("%q has one square bracket without the other; write source:identifier or [source:identifier]", truncateBytes(s, 80))}
		}
		body = inner
	}
	source, id, ok := strings.Cut(body, ":")
	if !ok {
		return External{}, &InvalidError{Field: "external", Problem: fmt.Sprintf("%q has no colon; write source:identifier, for instance artifact:art_01jd8x2k3m4n5p6q7r8s9t0vwx", truncateBytes(s, 80))}
	}
	e := External{Source: source, Identifier: id}
	if err := e.Validate(); err != nil {
		return External{}, err
	}
	return e, nil
}

// truncateBytes cuts s to at most n bytes, for quoting input in an error.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
