package rawjson

import (
	"unicode/utf8"
)

// IsCompact reports whether the JSON text v has no whitespace outside its strings, so that
// json.Compact would return it unchanged. It does not check that v is valid JSON.
func IsCompact(v []byte) bool {
	inString := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ' ', '\t', '\n', '\r':
			return false
		}
	}
	return true
}

// CompactValid returns the valid JSON text v without insignificant whitespace, as compact
// does, without checking it again. It compacts in place: v's bytes are overwritten.
func CompactValid(v []byte) []byte {
	if IsCompact(v) {
		return v
	}
	// Writing never overtakes reading, since compacting only drops bytes.
	out := v[:0]
	inString := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if inString {
			out = append(out, c)
			switch c {
			case '\\':
				if i+1 < len(v) {
					i++
					out = append(out, v[i])
				}
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inString = true
		}
		out = append(out, c)
	}
	return out
}

const hexDigits = "0123456789abcdef"

// AppendEscapedByte appends the escape of one ASCII byte that a JSON string may not hold as it
// is, or that a writer chooses to escape: the quote and the backslash after a backslash, \b,
// \f, \n, \r and \t by their letters, and any other byte as \u00XX.
func AppendEscapedByte(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// AppendRaw appends the compact JSON text raw as json.Marshal writes a json.RawMessage: with
// <, > and & and the line and paragraph separators escaped.
func AppendRaw(dst, raw []byte) []byte {
	start := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, raw[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
			dst = append(dst, raw[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[raw[i+2]&0xF])
			i += 2
			start = i + 1
		}
	}
	return append(dst, raw[start:]...)
}

// AppendString appends s as a JSON string the way json.Marshal writes one: HTML-safe, with
// invalid UTF-8 replaced by U+FFFD and the line and paragraph separators escaped.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = AppendEscapedByte(dst, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
