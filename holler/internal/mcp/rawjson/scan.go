// Package rawjson reads and writes JSON text without reflection, for the hot path of the MCP
// gateway: it finds the members of an object without decoding them, unquotes plain strings,
// compacts text already known to be valid, and appends strings and raw values exactly as
// encoding/json writes them. Each function agrees with encoding/json on what it accepts (the
// tests compare them) and gives up, for its caller to use encoding/json, wherever it could not
// tell that they agree.
package rawjson

import (
	"encoding/json"
	"unicode/utf8"
)

// This file reads the members of JSON objects without reflection and without copying them,
// for the common case of plain member names. Whenever the text could decode differently
// from json.Unmarshal into a struct of json.RawMessage fields (member names with escapes,
// non-ASCII letters or other capitalisations, which json.Unmarshal matches case-insensitively;
// deep nesting; invalid JSON) it gives up, and the caller decodes with json.Unmarshal as
// before (package toolcall's scan_test.go compares the two on tools/call's params).

// maxScanDepth bounds the nesting that the fast reader follows; deeper text is left to
// encoding/json, which has its own limit.
const maxScanDepth = 200

// ScanMembers calls member for every member of the JSON object data, in order, with the
// member's name and its value as a slice of data. It returns false, possibly after some
// calls, when data is not valid JSON, is not an object, or has a member name that is not
// plain: one that needs unescaping or has bytes outside ASCII. names are the member names
// that the caller knows, as json tags spell them; a name that differs from one of them only
// in case also returns false. The values of other names are not passed to member.
func ScanMembers(data []byte, names []string, member func(i int, value []byte)) bool {
	return EachMember(data, func(name, value []byte) bool {
		for k, n := range names {
			if string(name) == n {
				member(k, value)
				return true
			}
			if equalFoldASCII(name, n) {
				return false
			}
		}
		return true
	})
}

// EachMember calls member for every member of the JSON object data, in order, with the
// member's plain name and its value as slices of data, until member returns false. It returns
// false, possibly after some calls, when member did, or when data is not valid JSON, is not an
// object, or has a member name that is not plain: one that needs unescaping or has bytes
// outside ASCII.
func EachMember(data []byte, member func(name, value []byte) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return skipSpace(data, i+1) == len(data)
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return false
		}
		start := i + 1
		end := start
		for end < len(data) && data[end] != '"' {
			if c := data[end]; c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
				return false
			}
			end++
		}
		if end >= len(data) {
			return false
		}
		name := data[start:end]
		i = skipSpace(data, end+1)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		vstart := i
		var ok bool
		if i, ok = scanValue(data, i, 0); !ok {
			return false
		}
		if !member(name, data[vstart:i]) {
			return false
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return skipSpace(data, i+1) == len(data)
		default:
			return false
		}
	}
}

// equalFoldASCII reports whether the ASCII text a equals b, ignoring case.
func equalFoldASCII(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanValue returns the offset just after the JSON value that starts at data[i], and false
// when there is no valid value there.
func scanValue(data []byte, i, depth int) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch c := data[i]; {
	case c == '"':
		return scanString(data, i)
	case c == '{' || c == '[':
		if depth >= maxScanDepth {
			return i, false
		}
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == closer {
			return i + 1, true
		}
		for {
			var ok bool
			if c == '{' {
				if i, ok = scanString(data, i); !ok {
					return i, false
				}
				i = skipSpace(data, i)
				if i >= len(data) || data[i] != ':' {
					return i, false
				}
				i = skipSpace(data, i+1)
			}
			if i, ok = scanValue(data, i, depth+1); !ok {
				return i, false
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return i, false
			}
			if data[i] == closer {
				return i + 1, true
			}
			if data[i] != ',' {
				return i, false
			}
			i = skipSpace(data, i+1)
		}
	case c == '-' || ('0' <= c && c <= '9'):
		return scanNumber(data, i)
	case c == 't':
		return scanLiteral(data, i, "true")
	case c == 'f':
		return scanLiteral(data, i, "false")
	case c == 'n':
		return scanLiteral(data, i, "null")
	}
	return i, false
}

func scanLiteral(data []byte, i int, lit string) (int, bool) {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// scanString reads a JSON string that starts at data[i]. Like encoding/json it takes any
// bytes but control characters, invalid UTF-8 included.
func scanString(data []byte, i int) (int, bool) {
	if i >= len(data) || data[i] != '"' {
		return i, false
	}
	i++
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			i++
			if i >= len(data) {
				return i, false
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(data)-i < 5 {
					return i, false
				}
				for _, h := range data[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return i, false
					}
				}
				i += 5
			default:
				return i, false
			}
		default:
			i++
		}
	}
	return i, false
}

// scanNumber reads a JSON number that starts at data[i].
func scanNumber(data []byte, i int) (int, bool) {
	digits := func(i int) (int, bool) {
		start := i
		for i < len(data) && '0' <= data[i] && data[i] <= '9' {
			i++
		}
		return i, i > start
	}
	if data[i] == '-' {
		i++
	}
	if i >= len(data) {
		return i, false
	}
	if data[i] == '0' {
		i++
	} else {
		var ok bool
		if i, ok = digits(i); !ok {
			return i, false
		}
	}
	if i < len(data) && data[i] == '.' {
		var ok bool
		if i, ok = digits(i + 1); !ok {
			return i, false
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		var ok bool
		if i, ok = digits(i); !ok {
			return i, false
		}
	}
	return i, true
}

// Unquote decodes the JSON value raw into a string as json.Unmarshal does, without
// allocating more than the string for plain ones.
func Unquote(raw []byte) (string, error) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		plain := true
		for _, c := range raw[1 : len(raw)-1] {
			if c == '\\' || c == '"' || c < 0x20 || c >= utf8.RuneSelf {
				plain = false
				break
			}
		}
		if plain {
			return string(raw[1 : len(raw)-1]), nil
		}
	}
	// Declared here, so that only this path pays for the variable that Unmarshal's
	// interface argument moves to the heap.
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}
