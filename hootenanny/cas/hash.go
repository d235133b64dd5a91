package cas

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

// HashLen is the length of a hash in its text form: 64 lowercase hex digits.
const HashLen = 2 * sha256.Size

// A Hash is the address of an object: the SHA-256 of its bytes.
type Hash [sha256.Size]byte

// Sum returns the hash of b, the address b has once stored.
func Sum(b []byte) Hash { return sha256.Sum256(b) }

// String returns h as 64 lowercase hex digits.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// ParseHash parses a hash in its text form, 64 lowercase hex digits. It accepts nothing else:
// no uppercase letters, no prefix such as "sha256:", no surrounding space. The error, a
// [*HashError], says exactly what is wrong.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) == HashLen {
		if _, err := hex.Decode(h[:], []byte(s)); err == nil && isLowerHex(s) {
			return h, nil
		}
	}
	return Hash{}, &HashError{Problem: hashProblem(s)}
}

// isLowerHex reports whether s holds only the digits 0-9 and a-f.
func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// hashProblem describes what keeps s from being a hash: its length, its first character that
// is not a lowercase hex digit, or both, as in "hash has 71 characters and ':' at character 7,
// which is not a hex digit".
func hashProblem(s string) string {
	if s == "" {
		return "hash is empty"
	}
	var parts []string
	if n := utf8.RuneCountInString(s); n != HashLen {
		unit := "characters"
		if n == 1 {
			unit = "character"
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, unit))
	}
	pos := 0
	for _, r := range s {
		pos++
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'f' {
			continue
		}
		if r >= 'A' && r <= 'F' {
			parts = append(parts, fmt.Sprintf("uppercase %q at character %d", r, pos))
		} else {
			parts = append(parts, fmt.Sprintf("%q at character %d, which is not a hex digit", r, pos))
		}
		break
	}
	return "hash has " + strings.Join(parts, " and ")
}
