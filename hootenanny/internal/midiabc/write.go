package midiabc

import (
	"fmt"
	"strings"
)

// writer collects the ABC, refusing to grow past max bytes.
type writer struct {
	b   strings.Builder
	max int
	err error
}

func (w *writer) printf(format string, args ...any) {
	if w.err != nil {
		return
	}
	fmt.Fprintf(&w.b, format, args...)
	if w.b.Len() > w.max {
		w.err = &TooLongError{Max: w.max}
	}
}

func (w *writer) str(s string) {
	if w.err != nil {
		return
	}
	w.b.WriteString(s)
	if w.b.Len() > w.max {
		w.err = &TooLongError{Max: w.max}
	}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// lengthFrac writes a length of num/den grid steps (g steps a quarter) in units of 1/unitDen
// of a whole note: "" for one unit, "2", "/2" (written "/"), "3/2", "2/3".
func lengthFrac(num, den, g, unitDen int64) string {
	n, d := num*unitDen, den*4*g
	c := gcd(n, d)
	n, d = n/c, d/c
	switch {
	case d == 1 && n == 1:
		return ""
	case d == 1:
		return fmt.Sprint(n)
	case n == 1 && d == 2:
		return "/"
	case n == 1:
		return fmt.Sprintf("/%d", d)
	}
	return fmt.Sprintf("%d/%d", n, d)
}

// lengthString writes a length of k grid steps.
func lengthString(k, g, unitDen int64) string { return lengthFrac(k, 1, g, unitDen) }

// speller spells the twelve pitch classes in a key and knows the key's accidentals.
type speller struct {
	letter [12]int // 0..6: C D E F G A B
	alt    [12]int // -1, 0, 1
	keyAlt [7]int
}

var letterPC = [7]int{0, 2, 4, 5, 7, 9, 11}

// sharpOrder and flatOrder are the letters a key signature alters, in order.
var sharpOrder = [7]int{3, 0, 4, 1, 5, 2, 6} // F C G D A E B
var flatOrder = [7]int{6, 2, 5, 1, 4, 0, 3}  // B E A D G C F

// newSpeller spells each pitch class as the key has it when the key holds it; otherwise as the
// natural of a letter the key alters (F natural in G), else sharpened in sharp keys and
// flattened in flat keys (C sharp in D, D flat in F).
func newSpeller(sharps int) *speller {
	s := &speller{}
	for i := 0; i < sharps && i < 7; i++ {
		s.keyAlt[sharpOrder[i]] = 1
	}
	for i := 0; i < -sharps && i < 7; i++ {
		s.keyAlt[flatOrder[i]] = -1
	}
	for pc := 0; pc < 12; pc++ {
		best, bestCost := -1, 0
		for l := 0; l < 7; l++ {
			for a := -1; a <= 1; a++ {
				if ((letterPC[l]+a)%12+12)%12 != pc {
					continue
				}
				cost := 3
				switch {
				case a == s.keyAlt[l]:
					cost = 0
				case a == 0:
					cost = 1
				case (a > 0) == (sharps >= 0):
					cost = 2
				}
				if best < 0 || cost < bestCost {
					best, bestCost = l*3+(a+1), cost
				}
			}
		}
		s.letter[pc], s.alt[pc] = best/3, best%3-1
	}
	return s
}

// barState is what accidentals written in the current bar have set.
type barState struct {
	set     map[[2]int]int // letter, octave: alteration in force
	touched [7]bool        // letters given an accidental in any octave
}

func (b *barState) reset() {
	clear(b.set)
	b.touched = [7]bool{}
}

var marks = map[int]string{-2: "__", -1: "_", 0: "=", 1: "^", 2: "^^"}

// pitch writes MIDI pitch p, with an accidental where the key and the bar so far do not give
// it. An accidental is written again rather than trusted to carry over to another octave, as
// readers differ on that.
func (s *speller) pitch(p int, st *barState) string {
	pc := p % 12
	l, a := s.letter[pc], s.alt[pc]
	natural := p - a
	oct := natural/12 - 1
	if natural < 0 {
		oct = -1
	}
	var b strings.Builder
	cur, ok := st.set[[2]int{l, oct}]
	need := true
	switch {
	case ok:
		need = cur != a
	case !st.touched[l]:
		need = a != s.keyAlt[l]
	}
	if need {
		b.WriteString(marks[a])
		st.set[[2]int{l, oct}] = a
		st.touched[l] = true
	}
	c := "CDEFGAB"[l]
	if oct >= 5 {
		b.WriteByte(c + 'a' - 'A')
		b.WriteString(strings.Repeat("'", oct-5))
	} else {
		b.WriteByte(c)
		b.WriteString(strings.Repeat(",", 4-oct))
	}
	return b.String()
}

// laneWriter writes one voice's chords, rests and bar lines. A bar's notes and rests are
// gathered first: lengths that are not a whole number of units over a power of two (thirds,
// from a grid of triplets; fifths, sevenths) are written p/q as long inside a tuplet (p:q:n,
// which abc2midi and ABC 2.1 read as n notes played at q/p of their written length (q the
// power of two below p: 3:2, 5:4, 7:4).
type laneWriter struct {
	w       *writer
	sp      *speller
	g       int64 // grid steps a quarter
	unitDen int64 // L: 1/unitDen
	barG    int64 // grid steps a bar
	pickupG int64 // grid steps before the first bar line
	// The beat is beatNum/beatDen of a quarter: 1/1, or 3/2 in 6/8, 9/8 and 12/8.
	beatNum, beatDen int64
	pos              int64
	bars             int
	onLine           int
	st               barState
	toks             []token
	// keys and tempos are the changes still to write, in order.
	keys, tempos []fieldChange
	// key is the key change to write before the next bar's notes.
	key string
}

// token is a note, chord or rest of the current bar.
type token struct {
	render func(length string) string
	// at is where it starts and steps how long it lasts, in grid steps.
	at, steps int64
	rest      bool
}

// barsPerLine is how many bars go on one line of music.
const barsPerLine = 4

// boundary is the first bar line after pos.
func (lw *laneWriter) boundary(pos int64) int64 {
	if lw.pickupG > 0 && pos < lw.pickupG {
		return lw.pickupG
	}
	return lw.pickupG + ((pos-lw.pickupG)/lw.barG+1)*lw.barG
}

// ternary reports a length of k steps whose unit fraction has the grid's odd prime (3, 5 or 7)
// in its denominator: one that needs a tuplet.
func (lw *laneWriter) ternary(k int64) bool {
	p := tupletPrime(lw.g)
	if p <= 1 {
		return false
	}
	n, d := k*lw.unitDen, 4*lw.g
	return (d/gcd(n, d))%p == 0
}

// flush writes the bar's tokens. Notes shorter than a quarter are beamed (written without a
// space) within a beat of the meter; a tuplet closes as soon as its notes add up to a plain
// length, so a swung pair is (3:2:2B4A2 and a triplet (3abc.
func (lw *laneWriter) flush() {
	if lw.key != "" && len(lw.toks) > 0 {
		lw.w.str(lw.key)
		lw.key = ""
	}
	for i := 0; i < len(lw.toks); {
		if i > 0 && !lw.beamed(lw.toks[i-1], lw.toks[i]) {
			lw.w.str(" ")
		}
		t := lw.toks[i]
		for len(lw.tempos) > 0 && lw.tempos[0].at <= t.at {
			lw.w.str("[" + lw.tempos[0].text + "]")
			lw.tempos = lw.tempos[1:]
		}
		if !lw.ternary(t.steps) {
			lw.w.str(t.render(lengthString(t.steps, lw.g, lw.unitDen)))
			i++
			continue
		}
		j, sum := i, int64(0)
		for j < len(lw.toks) && lw.ternary(lw.toks[j].steps) {
			sum += lw.toks[j].steps
			j++
			if !lw.ternary(sum) {
				break
			}
		}
		p := tupletPrime(lw.g)
		q := int64(2)
		if p > 3 {
			q = 4
		}
		if j-i == int(p) && p == 3 {
			lw.w.str("(3")
		} else {
			lw.w.str(fmt.Sprintf("(%d:%d:%d", p, q, j-i))
		}
		for ; i < j; i++ {
			lw.w.str(lw.toks[i].render(lengthFrac(p*lw.toks[i].steps, q, lw.g, lw.unitDen)))
		}
	}
	lw.toks = lw.toks[:0]
}

// beamed reports whether b is written straight after a, without a space: two notes shorter
// than a quarter, b not on a beat of the meter.
func (lw *laneWriter) beamed(a, b token) bool {
	if a.rest || b.rest || a.steps >= lw.g || b.steps >= lw.g {
		return false
	}
	rel := ((b.at-lw.pickupG)%lw.barG + lw.barG) % lw.barG
	return (rel*lw.beatDen)%(lw.g*lw.beatNum) != 0
}

// advance moves to end, writing the bar when it lands on a bar line.
func (lw *laneWriter) advance(end int64) {
	lw.pos = end
	if lw.boundary(end-1) == end {
		lw.flush()
		lw.bars++
		lw.onLine++
		lw.st.reset()
		if lw.onLine == barsPerLine {
			lw.w.str("|\n")
			lw.onLine = 0
		} else {
			lw.w.str("| ")
		}
		for len(lw.keys) > 0 && lw.keys[0].at <= end {
			// The bar's notes are spelled in the new key; the field goes before them (and is
			// not written when no note follows).
			lw.key = "[" + lw.keys[0].text + "] "
			lw.sp = newSpeller(lw.keys[0].sharps)
			lw.keys = lw.keys[1:]
		}
	}
}

// write writes the lane's chords with the rests between them, and returns the bars written.
func (lw *laneWriter) write(groups []group) int {
	lw.st.set = map[[2]int]int{}
	for _, gr := range groups {
		if gr.on > lw.pos {
			lw.rest(gr.on)
		}
		lw.chord(gr)
	}
	if lw.pos == 0 || lw.boundary(lw.pos-1) != lw.pos {
		lw.rest(lw.boundary(lw.pos))
	}
	lw.flush()
	// The last bar line ends the voice.
	s := lw.w.b.String()
	if strings.HasSuffix(s, "| ") || strings.HasSuffix(s, "|\n") {
		lw.w.b.Reset()
		lw.w.b.WriteString(s[:len(s)-1])
		lw.w.str("]\n")
	}
	return lw.bars
}

// rest writes rests up to end, split at bar lines.
func (lw *laneWriter) rest(end int64) {
	for lw.pos < end && lw.w.err == nil {
		stop := min(end, lw.boundary(lw.pos))
		lw.toks = append(lw.toks, token{at: lw.pos, steps: stop - lw.pos, rest: true, render: func(l string) string { return "z" + l }})
		lw.advance(stop)
	}
}

// chord writes a note or chord, split at bar lines and tied across them.
func (lw *laneWriter) chord(gr group) {
	for lw.pos < gr.end && lw.w.err == nil {
		stop := min(gr.end, lw.boundary(lw.pos))
		tie := ""
		if stop < gr.end {
			tie = "-"
		}
		pitches := gr.pitches
		lw.toks = append(lw.toks, token{at: lw.pos, steps: stop - lw.pos, render: func(l string) string { return lw.chordText(pitches, l) + tie }})
		lw.advance(stop)
	}
}

// chordText spells a note or chord of the given length.
func (lw *laneWriter) chordText(pitches []int, length string) string {
	if len(pitches) == 1 {
		return lw.sp.pitch(pitches[0], &lw.st) + length
	}
	var b strings.Builder
	b.WriteByte('[')
	for _, p := range pitches {
		b.WriteString(lw.sp.pitch(p, &lw.st))
	}
	b.WriteByte(']')
	return b.String() + length
}
