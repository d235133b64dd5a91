// Package wording holds the few routines that the gateway's error messages share, so that
// every message names a value the same way: the names close to a misspelt one (for "did you
// mean"), a value in quotes, and a value cut to a length fit for a message. It knows nothing
// of JSON-RPC or of the tools; the texts around these pieces are their callers'.
package wording

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hootenanny/hoot/hooteproto/suggest"
)

// Close returns the candidates that look like a misspelling of name, closest first, at most
// three. The comparison ignores case; a candidate equal to name is not close to it.
func Close(name string, candidates []string) []string {
	type scored struct {
		name string
		d    int
	}
	var found []scored
	lname := strings.ToLower(name)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := suggest.Distance(lname, lc)
		limit := max(2, len(lc)/3)
		switch {
		case lname == "" || c == name:
			continue
		case d <= limit:
		case len(lname) >= 3 && (strings.Contains(lc, lname) || strings.Contains(lname, lc)):
			// A part or a longer form of a name is close whatever the distance.
			d = limit + 1
		default:
			continue
		}
		found = append(found, scored{c, d})
	}
	slices.SortStableFunc(found, func(a, b scored) int { return a.d - b.d })
	var names []string
	for _, f := range found[:min(len(found), 3)] {
		names = append(names, f.name)
	}
	return names
}

// DidYouMean returns `; did you mean "x"?` for the first (the closest) of names, or "" when
// there are none.
func DidYouMean(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return "; did you mean " + Quote(names[0]) + "?"
}

// Quote returns s in double quotes, Go-escaped and cut after 80 bytes when longer, for
// messages.
func Quote(s string) string {
	const maxLen = 80
	if len(s) > maxLen {
		s = s[:maxLen] + "..."
	}
	return strconv.Quote(s)
}

// Short returns s cut to at most 120 bytes and "...", at a character boundary, for a
// message.
func Short(s string) string {
	const maxLen = 120
	if len(s) <= maxLen {
		return s
	}
	cut := maxLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
