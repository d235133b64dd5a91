package musicxml

import (
	"fmt"
	"strings"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
)

// value is a written note value: a type with dots, and its length in whole notes.
type value struct {
	typ  string
	dots int
	len  abc.Rat
}

// noteTypes are MusicXML's note types from the longest, with their lengths in whole notes.
var noteTypes = []struct {
	name string
	len  abc.Rat
}{
	{"long", abc.R(4, 1)}, {"breve", abc.R(2, 1)}, {"whole", abc.R(1, 1)}, {"half", abc.R(1, 2)},
	{"quarter", abc.R(1, 4)}, {"eighth", abc.R(1, 8)}, {"16th", abc.R(1, 16)}, {"32nd", abc.R(1, 32)},
	{"64th", abc.R(1, 64)}, {"128th", abc.R(1, 128)}, {"256th", abc.R(1, 256)},
}

// maxPieces bounds the tied notes one written length is split into.
const maxPieces = 4

// values writes a length as at most maxPieces tied note values, longest first, each with up to
// three dots; nil when that cannot be done exactly (a length of 5/12, say, outside a tuplet).
func values(l abc.Rat) []value {
	if l.Num <= 0 {
		return nil
	}
	var out []value
	for _, t := range noteTypes {
		for l.Cmp(t.len) >= 0 {
			if len(out) == maxPieces {
				return nil
			}
			v := value{typ: t.name, len: t.len}
			add := t.len
			for v.dots < 3 {
				add = add.Div(abc.R(2, 1))
				if v.len.Add(add).Cmp(l) > 0 {
					break
				}
				v.len = v.len.Add(add)
				v.dots++
			}
			out = append(out, v)
			l = l.Sub(v.len)
		}
		if l.IsZero() {
			return out
		}
	}
	return nil
}

// maxImplied bounds the notes of a tuplet that impliedTuplet makes.
const maxImplied = 1 << 10

// impliedTuplet returns the tuplet, m notes in the time of n, that writes a length whose
// denominator is not a power of two: m is the odd part of the denominator and n the largest power
// of two below it (3 in the time of 2, 5 in the time of 4, 7 in the time of 4, 9 in the time of
// 8). It returns 0, 0 for a length that needs none or a tuplet of more than maxImplied notes.
func impliedTuplet(l abc.Rat) (m, n int64) {
	if l.Num <= 0 || l.Den <= 0 {
		return 0, 0
	}
	m = abc.R(l.Num, l.Den).Den
	for m%2 == 0 {
		m /= 2
	}
	if m == 1 || m > maxImplied {
		return 0, 0
	}
	n = 1
	for n*2 < m {
		n *= 2
	}
	return m, n
}

// tempoDirection writes a Q: field as a metronome mark, or its text alone.
func tempoDirection(q *abc.Tempo) *direction {
	d := &direction{placement: "above", words: strings.TrimSpace(q.Text)}
	if q.BPM > 0 && len(q.Beats) > 0 {
		beat := abc.Rat{Num: 0, Den: 1}
		for _, b := range q.Beats {
			beat = beat.Add(b)
		}
		if vs := values(beat); len(vs) == 1 && beat.Num > 0 {
			d.beatUnit, d.beatDots, d.perMinute = vs[0].typ, vs[0].dots, q.BPM
			d.tempo = float64(q.BPM) * beat.Float64() * 4
		}
	}
	if d.words == "" && d.beatUnit == "" {
		return nil
	}
	return d
}

// divisions is the number of divisions of a quarter note that writes every duration of the
// parts as a whole number.
func divisions(parts []*part) (int64, error) {
	div := int64(1)
	for _, p := range parts {
		for _, m := range p.measures {
			for _, it := range m.items {
				var d abc.Rat
				switch x := it.(type) {
				case *note:
					d = x.dur
				case *backup:
					d = x.dur
				default:
					continue
				}
				if d.Num == 0 {
					continue
				}
				q := d.Mul(abc.R(4, 1))
				g := gcd(div, q.Den)
				div = div / g * q.Den
				if div > MaxDivisions || div <= 0 {
					return 0, fmt.Errorf("musicxml: the tune's note lengths need more than %d divisions of a quarter note (a length of %s of a whole note)", MaxDivisions, d)
				}
			}
		}
	}
	return div, nil
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	if a < 0 {
		return -a
	}
	return a
}
