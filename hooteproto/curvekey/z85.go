package curvekey

import (
	"errors"
	"fmt"
)

// z85Alphabet is the alphabet of ZeroMQ's Z85 encoding (ZeroMQ RFC 32): every 4 bytes, read
// big-endian, become 5 digits of base 85, most significant first.
const z85Alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

var z85Digits = func() (d [256]byte) {
	for i := range d {
		d[i] = 0xff
	}
	for i := range len(z85Alphabet) {
		d[z85Alphabet[i]] = byte(i)
	}
	return d
}()

// Encode returns the Z85 text of a 32-byte key: 40 characters.
func Encode(key [32]byte) string { return encode(key[:]) }

// encode encodes b, whose length is a multiple of 4.
func encode(b []byte) string {
	key := b
	out := make([]byte, 0, len(b)/4*5)
	for i := 0; i < len(key); i += 4 {
		v := uint32(key[i])<<24 | uint32(key[i+1])<<16 | uint32(key[i+2])<<8 | uint32(key[i+3])
		var chunk [5]byte
		for j := 4; j >= 0; j-- {
			chunk[j] = z85Alphabet[v%85]
			v /= 85
		}
		out = append(out, chunk[:]...)
	}
	return string(out)
}

// Decode returns the 32-byte key that s, 40 characters of Z85, encodes.
func Decode(s string) ([32]byte, error) {
	var key [32]byte
	if len(s) != KeyLen {
		return key, fmt.Errorf("curvekey: a key is %d characters of Z85, got %d", KeyLen, len(s))
	}
	for i := 0; i < len(s); i += 5 {
		var v uint64
		for j := range 5 {
			d := z85Digits[s[i+j]]
			if d == 0xff {
				return key, fmt.Errorf("curvekey: %q is not a Z85 character", s[i+j])
			}
			v = v*85 + uint64(d)
		}
		if v > 0xffffffff {
			return key, errors.New("curvekey: the key is not valid Z85 (a group overflows 32 bits)")
		}
		n := i / 5 * 4
		key[n], key[n+1], key[n+2], key[n+3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	return key, nil
}
