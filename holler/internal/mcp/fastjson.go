package mcp

import (
	"unicode/utf8"
)

// This file writes the JSON of the most frequent answer, a tools/call result with text
// content, without reflection. The bytes are exactly those that json.Marshal writes for the
// same response (fastjson_test.go compares the two); anything else goes through json.Marshal.

// isCompact reports whether the JSON text v has no whitespace outside its strings, so that
// json.Compact would return it unchanged. It does not check that v is valid JSON.
func isCompact(v []byte) bool {
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

// compactValid returns the valid JSON text v without insignificant whitespace, as compact
// does, without checking it again. It compacts in place: v's bytes are overwritten.
func compactValid(v []byte) []byte {
	if isCompact(v) {
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

// appendRaw appends the compact JSON text raw as json.Marshal writes a json.RawMessage: with
// <, > and & and the line and paragraph separators escaped.
func appendRaw(dst, raw []byte) []byte {
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

// appendString appends s as a JSON string the way json.Marshal writes one: HTML-safe, with
// invalid UTF-8 replaced by U+FFFD and the line and paragraph separators escaped.
func appendString(dst []byte, s string) []byte {
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
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
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

// encodeToolResult returns the JSON of r when r is the result of a tools/call whose content
// is text only, and false for every other response.
func encodeToolResult(r *response) ([]byte, bool) {
	res, ok := r.Result.(callToolResult)
	if !ok || !fastToolResult(r, res) {
		return nil, false
	}
	// Room for everything and some escapes; append grows the buffer in the rare case that
	// more is needed.
	size := 64 + len(r.ID) + len(res.StructuredContent) + len(res.StructuredContent)/16 + len(res.modernMeta)
	for _, c := range res.Content {
		size += 32 + len(*c.Text) + len(*c.Text)/8
	}
	b := make([]byte, 0, size)
	b = append(b, `{"jsonrpc":`...)
	b = appendString(b, r.JSONRPC)
	b = append(b, `,"id":`...)
	b = appendRaw(b, r.ID)
	b = append(b, `,"result":{"content":`...)
	if res.Content == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range res.Content {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"text","text":`...)
			b = appendString(b, *c.Text)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(res.StructuredContent) > 0 {
		b = append(b, `,"structuredContent":`...)
		b = appendRaw(b, res.StructuredContent)
	}
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	if res.modernMeta != nil {
		b = append(b, `,"_meta":`...)
		b = append(b, res.modernMeta...)
		b = append(b, `,"resultType":"complete"`...)
	}
	return append(b, "}}"...), true
}

// fastToolResult reports whether encodeToolResult writes the response r, whose result is res:
// text content only, compact JSON, and no _meta of the legacy kind.
func fastToolResult(r *response, res callToolResult) bool {
	if r.Error != nil || len(r.ID) == 0 || !isCompact(r.ID) || !isCompact(res.StructuredContent) || res.Meta != nil {
		return false
	}
	for _, c := range res.Content {
		if c.Type != "text" || c.Text == nil || c.Data != "" || c.MimeType != "" || c.URI != "" ||
			c.Name != "" || c.Description != "" || c.Resource != nil {
			return false
		}
	}
	return true
}
