package genhoot

import (
	"strings"

	"github.com/hootenanny/hoot/hooteproto/internal/fieldrules"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Headers from tool arguments.
//
// A request field with (hoot.v1.field).header is published with "x-mcp-header" in the tool's
// input schema, and MCP 2026-07-28 clients then repeat its value in the HTTP header
// Mcp-Param-{header}. A client drops a tool whose annotation breaks the protocol's rules, so
// the generator refuses such a schema rather than let the tool vanish from a client's list.

// maxHeaderNameLen bounds a header name: long enough for any sensible name, short enough
// that a proxy's header limits never matter.
const maxHeaderNameLen = 64

// headerKinds are the field kinds a header may repeat: MCP allows strings, booleans and
// integers (within ±(2^53-1), which every 32-bit integer is). 64-bit integers are left out:
// their schema is "integer or string", which is not one of the allowed types.
var headerKinds = map[protoreflect.Kind]bool{
	protoreflect.StringKind:   true,
	protoreflect.EnumKind:     true,
	protoreflect.BoolKind:     true,
	protoreflect.Int32Kind:    true,
	protoreflect.Sint32Kind:   true,
	protoreflect.Sfixed32Kind: true,
	protoreflect.Uint32Kind:   true,
	protoreflect.Fixed32Kind:  true,
}

// checkHeaders refuses header names that break MCP's rules on the fields of m: names that
// are not HTTP tokens, names given twice (ignoring case), fields of a type a header cannot
// carry, and headers below the request's own fields. nested says that m is not the tool's
// request itself but a message inside it.
func (c *requestChecker) checkHeaders(m *protogen.Message, nested bool) {
	seen := map[string]protoreflect.FullName{}
	for _, f := range m.Fields {
		h := fieldrules.RulesOf(f.Desc).GetHeader()
		if h == "" {
			continue
		}
		name := f.Desc.FullName()
		if nested {
			c.bad.add("%s: header %q is on a field of a nested message; MCP mirrors only properties reachable from the arguments' root, and this generator only the request's own fields: move the field to the request or drop the header", name, h)
			continue
		}
		if f.Desc.IsList() || f.Desc.IsMap() || !headerKinds[f.Desc.Kind()] {
			c.bad.add("%s: header %q is on %s; a header repeats a single string, enum, bool or 32-bit integer: drop it", name, h, describeType(f))
			continue
		}
		if why := badHeaderName(h); why != "" {
			c.bad.add("%s: header %q %s", name, h, why)
			continue
		}
		key := strings.ToLower(h)
		if other, dup := seen[key]; dup {
			c.bad.add("%s: header %q is also the header of %s (names compare without case): give each field its own", name, h, other)
			continue
		}
		seen[key] = name
	}
}

// badHeaderName says what is wrong with a header name, or returns "" for a good one: an HTTP
// token (RFC 9110 tchar) of at most maxHeaderNameLen characters.
func badHeaderName(h string) string {
	if len(h) > maxHeaderNameLen {
		return "is longer than " + formatUint(maxHeaderNameLen) + " characters: shorten it"
	}
	for i := range len(h) {
		if !isTokenChar(h[i]) {
			return "has " + quoteByte(h[i]) + ", which an HTTP header name cannot hold: use letters, digits and -"
		}
	}
	return ""
}

// isTokenChar reports whether c may appear in an HTTP token (RFC 9110 section 5.6.2).
func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func quoteByte(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return "a byte 0x" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15]))
	}
	return "'" + string(rune(c)) + "'"
}
