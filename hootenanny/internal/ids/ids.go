// Package ids makes the ids of artifacts, annotations, jobs, and conversation trees and their
// nodes: a prefix that says what the id names, then 26 characters of lowercase Crockford
// base32, the first 10 of which encode the creation time in milliseconds and the other 16 are
// random. Ids of one prefix sort by creation time, as text, to the millisecond.
package ids

import (
	"crypto/rand"
	"strings"
	"sync"
	"time"
)

// last is the time and random part of the last id made, so that the next one in the same
// millisecond sorts after it.
var last struct {
	sync.Mutex
	ms     uint64
	random [16]byte // 5-bit digits
}

// Prefixes of the kinds of id.
const (
	Artifact   = "art_"
	Annotation = "ann_"
	Job        = "job_"
	Tree       = "tree_"
	Node       = "node_"
)

// alphabet is Crockford's base32 in lowercase: no i, l, o or u.
const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// bodyLen is the number of characters after the prefix.
const bodyLen = 26

// New returns a new id with the given prefix for something created at t.
func New(prefix string, t time.Time) string {
	var b strings.Builder
	b.Grow(len(prefix) + bodyLen)
	b.WriteString(prefix)
	ms := uint64(t.UnixMilli())
	var r [16]byte
	last.Lock()
	if ms <= last.ms {
		// Same millisecond (or a clock that went back): one more than the last id.
		ms, r = last.ms, last.random
		for i := len(r) - 1; i >= 0; i-- {
			r[i]++
			if r[i] < 32 {
				break
			}
			r[i] = 0
		}
	} else {
		_, _ = rand.Read(r[:]) // crypto/rand.Read never fails
		for i := range r {
			r[i] &= 31
		}
		r[0] &= 15 // room to count up within the millisecond
	}
	last.ms, last.random = ms, r
	last.Unlock()
	for i := 9; i >= 0; i-- {
		b.WriteByte(alphabet[(ms>>(5*uint(i)))&31])
	}
	for _, c := range r {
		b.WriteByte(alphabet[c])
	}
	return b.String()
}

// Valid reports whether s is an id with the given prefix.
func Valid(prefix, s string) bool {
	body, ok := strings.CutPrefix(s, prefix)
	if !ok || len(body) != bodyLen {
		return false
	}
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(alphabet, body[i]) < 0 {
			return false
		}
	}
	return true
}
