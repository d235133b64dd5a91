// Package textenc turns text read from files (MIDI meta events, SoundFont names) into valid
// UTF-8. File formats of the 1990s say "ASCII" and their writers used their own code page, so
// names arrive as UTF-8, as Latin-1 or Windows-1252, or as something else; protobuf string
// fields, and so every result, must hold valid UTF-8.
//
// UTF8 keeps bytes that are valid UTF-8 as they are and reads any others as Windows-1252 in the
// WHATWG mapping, where every byte is a character: the five bytes Windows-1252 leaves undefined
// (0x81, 0x8D, 0x8F, 0x90, 0x9D) become the C1 controls of the same number, as in Latin-1.
// Nothing is lost: [Bytes] gives back the file's bytes of any text UTF8 decoded this way, and a
// name in Latin-1 or Windows-1252, the usual case, reads right.
package textenc

import (
	"unicode/utf8"
)

// windows1252 maps the bytes 0x80 to 0x9F; the rest of the upper half is Latin-1.
var windows1252 = [32]rune{
	'€', 0x81, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0x8D, 'Ž', 0x8F,
	0x90, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0x9D, 'ž', 'Ÿ',
}

// UTF8 returns b as valid UTF-8: b itself when it is valid UTF-8, and otherwise b read as
// Windows-1252.
func UTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]rune, 0, len(b))
	for _, c := range b {
		switch {
		case c < 0x80:
			out = append(out, rune(c))
		case c < 0xA0:
			out = append(out, windows1252[c-0x80])
		default:
			out = append(out, rune(c))
		}
	}
	return string(out)
}

// Bytes returns the bytes a Windows-1252 decoding by UTF8 came from: each character of s that
// Windows-1252 holds becomes its byte. It reports false when s has a character it does not hold
// (then s was not decoded from Windows-1252, and was the file's own UTF-8).
func Bytes(s string) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r < 0x80 || (r >= 0xA0 && r <= 0xFF):
			out = append(out, byte(r))
		default:
			i := indexOf(r)
			if i < 0 {
				return nil, false
			}
			out = append(out, byte(0x80+i))
		}
	}
	return out, true
}

func indexOf(r rune) int {
	for i, w := range windows1252 {
		if w == r {
			return i
		}
	}
	return -1
}

// Text returns b as text, as UTF8 does, when it looks like text: valid UTF-8, or 8-bit text
// without control characters other than tab, line feed, form feed and carriage return (an ABC
// file from before ABC 2.1 made UTF-8 its default is usually Latin-1). It reports false for
// what looks binary.
func Text(b []byte) (string, bool) {
	if utf8.Valid(b) {
		return string(b), true
	}
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r' {
			return "", false
		}
	}
	return UTF8(b), true
}
