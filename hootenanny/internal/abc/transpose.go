package abc

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// MaxSemitones bounds a transposition.
const MaxSemitones = 48

// Transpose moves every tune in src by semitones. It rewrites the tonic of each K: field
// (header, body and inline), every note's accidental, letter and octave marks, and chord
// symbols, spelling them for the new key; everything else (comments, spacing, line breaks,
// lyrics, decorations) is kept byte for byte. Accidentals are written only where the new key
// and the bar's earlier accidentals do not already give the pitch, and wherever the original
// had one.
//
// It runs in time linear in the input: one parse, one walk over the elements, and one pass to
// splice the sorted edits.
func Transpose(src string, semitones int) (string, error) {
	if semitones < -MaxSemitones || semitones > MaxSemitones {
		return "", fmt.Errorf("abc: transposition by %d semitones is out of range ±%d", semitones, MaxSemitones)
	}
	return transpose(src, func(*Tune) (int, *Key) { return semitones, nil })
}

// TransposeToKey moves every tune in src so that its first key has the tonic of targetKey
// (e.g. "A", "Bb", "F#m"), by the shorter way (at most 6 semitones down or 5 up). The mode
// of each tune is kept.
func TransposeToKey(src, targetKey string) (string, error) {
	k, err := ParseKey(targetKey)
	if err != nil {
		return "", err
	}
	return transpose(src, func(t *Tune) (int, *Key) { return ShiftToTonic(t.Header.Key, k), &k })
}

// ParseKey reads a key as a K: field writes it ("G", "Bb", "F#m", "A dorian") and refuses
// anything without a tonic.
func ParseKey(text string) (Key, error) {
	p := &parser{src: text, opts: Options{}.withDefaults(), line: 1}
	k := p.parseKey(text, 0, Pos{1, 1, 0})
	if k.Tonic == 0 || k.None || len(p.diags) > 0 || strings.TrimSpace(text) == "" {
		return Key{}, fmt.Errorf("abc: bad target key %q; write a tonic such as G, Bb or F#m", text)
	}
	return k, nil
}

// ShiftToTonic is the move, in semitones, that takes the tonic of from to the tonic of target
// the shorter way (at most 6 down or 5 up). A key without a tonic (K:none, the bagpipe keys, no
// K:) counts as C.
func ShiftToTonic(from, target Key) int {
	if from.None || from.Highland || from.Tonic == 0 {
		from = Key{Tonic: 'C'}
	}
	s := ((tonicPC(target)-tonicPC(from))%12 + 12) % 12
	if s > 5 {
		s -= 12
	}
	return s
}

func tonicPC(k Key) int {
	return (letterSemitone[k.Tonic-'A'] + k.TonicAcc.Semitones() + 12) % 12
}

type edit struct {
	start, end int
	text       string
}

// ErrTooLarge is returned by Transpose and TransposeToKey for input that Parse does not read
// whole (see Book.Truncated): transposing part of it would be wrong without saying so.
var ErrTooLarge = errors.New("abc: input too large to transpose")

func transpose(src string, shift func(*Tune) (int, *Key)) (string, error) {
	if len(src) > DefaultMaxBytes {
		return "", fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(src), DefaultMaxBytes)
	}
	book, diags := Parse(src, Options{})
	if book.Truncated {
		return "", fmt.Errorf("%w: %s", ErrTooLarge, TruncatedBecause(diags))
	}
	var edits []edit
	for _, t := range book.Tunes {
		s, target := shift(t)
		if s == 0 && target == nil {
			continue
		}
		var err error
		if edits, err = transposeTune(t, s, target, edits); err != nil {
			return "", err
		}
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	b.Grow(len(src) + len(src)/8)
	at := 0
	for _, e := range edits {
		if e.start < at || e.end < e.start || e.end > len(src) {
			continue // overlapping edits cannot happen; skip rather than corrupt
		}
		b.WriteString(src[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.WriteString(src[at:])
	return b.String(), nil
}

// cIndex is the diatonic index of a letter counting from C.
func cIndex(letter byte) int { return (int(letter-'A') + 5) % 7 }

func cLetter(i int) byte { return byte('A' + (i+2)%7) }

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func mod(a, b int) int { return ((a % b) + b) % b }

// keyMove is how one key region moves: the new key, and the diatonic step of its letters.
type keyMove struct {
	old, new Key
	steps    int
	oldSig   [7]int
	newSig   [7]int
}

// moveKey spells k moved by s semitones; target, when given, fixes the new tonic.
func moveKey(k Key, s int, target *Key) keyMove {
	m := keyMove{old: k, new: k}
	m.oldSig = k.Signature()
	if k.None || k.Highland || k.Tonic == 0 || k.TonicStart < 0 {
		// No key signature to move (or no tonic written, as in K:clef=bass or a missing K:): notes are spelled against C with accidentals.
		m.new = Key{None: true, TonicStart: -1}
		m.steps = diatonicSteps(s, mod(s, 12) == 1 || mod(s, 12) == 3 || mod(s, 12) == 6 || mod(s, 12) == 8 || mod(s, 12) == 10, s)
		return m
	}
	pc := mod(tonicPC(k)+s, 12)
	var best Key
	bestScore := 1 << 30
	for l := byte('A'); l <= 'G'; l++ {
		for _, a := range []Accidental{NoAccidental, Sharp, Flat} {
			if mod(letterSemitone[l-'A']+a.Semitones(), 12) != pc {
				continue
			}
			c := k
			c.Tonic, c.TonicAcc, c.Explicit = l, a, nil
			f := c.Fifths()
			score := 2 * abs(f)
			if target != nil && target.Tonic == l && target.TonicAcc == a {
				score = -1
			}
			if f == 6 && s < 0 || f == -6 && s > 0 {
				score++
			}
			if score < bestScore {
				best, bestScore = c, score
			}
		}
	}
	d0 := mod(cIndex(best.Tonic)-cIndex(k.Tonic), 7)
	m.steps = diatonicStepsFrom(s, d0)
	best.Explicit = nil
	for _, e := range k.Explicit {
		nl := cLetter(mod(cIndex(e.Letter)+d0, 7))
		pcE := letterSemitone[e.Letter-'A'] + e.Accidental.Semitones() + s
		alt := mod(pcE-letterSemitone[nl-'A']+6, 12) - 6
		acc := accidentalFor(alt, e.Accidental == Natural)
		best.Explicit = append(best.Explicit, KeyAccidental{Letter: nl, Accidental: acc, Offset: e.Offset})
	}
	m.new = best
	m.newSig = best.Signature()
	return m
}

// diatonicSteps picks letter steps for a keyless transposition.
func diatonicSteps(s int, preferLower bool, _ int) int {
	// semitone -> steps on the C major scale, taking the lower letter for black keys
	steps := [12]int{0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6, 6}
	if !preferLower {
		steps = [12]int{0, 1, 1, 2, 2, 3, 4, 4, 5, 5, 6, 6}
	}
	return 7*floorDiv(s, 12) + steps[mod(s, 12)]
}

func diatonicStepsFrom(s, d0 int) int {
	k, r := floorDiv(s, 12), mod(s, 12)
	d := 7*k + d0
	if d0 >= 5 && r <= 2 {
		d -= 7
	} else if d0 <= 1 && r >= 10 {
		d += 7
	}
	return d
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func accidentalFor(alt int, natural bool) Accidental {
	switch alt {
	case 1:
		return Sharp
	case 2:
		return DoubleSharp
	case -1:
		return Flat
	case -2:
		return DoubleFlat
	}
	if natural {
		return Natural
	}
	return NoAccidental
}

func tonicText(k Key) string {
	s := string(k.Tonic)
	switch k.TonicAcc {
	case Sharp:
		s += "#"
	case Flat:
		s += "b"
	}
	return s
}

func keyAccText(e KeyAccidental) string {
	a := e.Accidental
	if a == NoAccidental {
		a = Natural
	}
	return a.String() + string(e.Letter+32)
}

func (m keyMove) edits(out []edit) []edit {
	if m.old.TonicStart >= 0 && m.new.Tonic != 0 {
		out = append(out, edit{m.old.TonicStart, m.old.TonicEnd, tonicText(m.new)})
	}
	for i, e := range m.old.Explicit {
		if i < len(m.new.Explicit) {
			out = append(out, edit{e.Offset, e.Offset + len(keyAccText(e)), keyAccText(m.new.Explicit[i])})
		}
	}
	return out
}

// transposeTune adds the edits for one tune.
func transposeTune(t *Tune, s int, target *Key, out []edit) ([]edit, error) {
	var rangeErr error
	head := moveKey(t.Header.Key, s, target)
	out = head.edits(out)
	for _, v := range t.Voices {
		km := head
		var srcAcc, dstAcc [7]int
		var srcSet, dstSet [7]bool
		resetBar := func() { srcSet, dstSet = [7]bool{}, [7]bool{} }
		note := func(n *Note) {
			li := n.Letter - 'A'
			alt := km.oldSig[li]
			if n.Accidental != NoAccidental {
				alt = n.Accidental.Semitones()
				srcAcc[li], srcSet[li] = alt, true
			} else if srcSet[li] {
				alt = srcAcc[li]
			}
			pitch := MIDIPitch(n.Letter, n.Octave, alt) + s
			di := 7*n.Octave + cIndex(n.Letter) + km.steps
			oct, letter := floorDiv(di, 7), cLetter(mod(di, 7))
			nalt := pitch - MIDIPitch(letter, oct, 0)
			if km.new.None {
				// No key: spell each note on its own, sharps going up and flats going down.
				l, a := spellPC(mod(pitch, 12), s < 0)
				letter, nalt = l, a
				oct = floorDiv(pitch-60-letterSemitone[l-'A']-a, 12)
			}
			if nalt > 2 || nalt < -2 {
				// respell on the nearest letter
				for _, d := range []int{1, -1, 2, -2} {
					o2, l2 := floorDiv(di+d, 7), cLetter(mod(di+d, 7))
					if a := pitch - MIDIPitch(l2, o2, 0); a >= -2 && a <= 2 {
						oct, letter, nalt = o2, l2, a
						break
					}
				}
			}
			if (oct > maxOctave || oct < -maxOctave) && rangeErr == nil {
				rangeErr = fmt.Errorf("abc: the note at line %d column %d would leave the range of ABC octaves", n.Pos.Line, n.Pos.Col)
			}
			nl := letter - 'A'
			eff := km.newSig[nl]
			if dstSet[nl] {
				eff = dstAcc[nl]
			}
			acc := ""
			if n.Accidental != NoAccidental || eff != nalt {
				acc = accidentalFor(nalt, true).String()
				dstAcc[nl], dstSet[nl] = nalt, true
			}
			out = append(out, edit{n.Pos.Offset, n.PitchEnd, acc + noteText(letter, oct)})
		}
		for _, el := range v.Elements {
			switch e := el.(type) {
			case *Note:
				note(e)
			case *Chord:
				for _, n := range e.Notes {
					note(n)
				}
			case *GraceGroup:
				for _, g := range e.Notes {
					switch g := g.(type) {
					case *Note:
						note(g)
					case *Chord:
						for _, n := range g.Notes {
							note(n)
						}
					}
				}
			case *BarLine:
				resetBar()
			case *ChordSymbol:
				if txt, ok := transposeChordSymbol(e.Text, s, km); ok {
					out = append(out, edit{e.Pos.Offset + 1, e.End - 1, txt})
				}
			case *InlineField:
				if e.Key != nil {
					km = moveKey(*e.Key, s, nil)
					out = km.edits(out)
					resetBar()
				}
			}
		}
	}
	return out, rangeErr
}

func noteText(letter byte, oct int) string {
	if oct >= 1 {
		return string(letter+32) + strings.Repeat("'", oct-1)
	}
	return string(letter) + strings.Repeat(",", -oct)
}

// transposeChordSymbol moves the root and the bass of a chord symbol such as "F#m7/C#".
func transposeChordSymbol(text string, s int, km keyMove) (string, bool) {
	var b strings.Builder
	changed := false
	i := 0
	root := true
	for i < len(text) {
		c := text[i]
		if c >= 'A' && c <= 'G' && (root || i > 0 && text[i-1] == '/') {
			alt, j := 0, i+1
			if j < len(text) && text[j] == '#' {
				alt, j = 1, j+1
			} else if j < len(text) && text[j] == 'b' {
				alt, j = -1, j+1
			}
			if !chordQuality(text[j:]) {
				b.WriteByte(c)
				i++
				root = false
				continue
			}
			pc := letterSemitone[c-'A'] + alt + s
			d0 := mod(km.steps, 7)
			nl := cLetter(mod(cIndex(c)+d0, 7))
			na := mod(pc-letterSemitone[nl-'A']+6, 12) - 6
			if na > 1 || na < -1 {
				nl, na = spellPC(mod(pc, 12), km.new.Fifths() < 0)
			}
			b.WriteByte(nl)
			if na > 0 {
				b.WriteString(strings.Repeat("#", na))
			} else {
				b.WriteString(strings.Repeat("b", -na))
			}
			i = j
			root = false
			changed = true
			continue
		}
		if c != '(' && c != ' ' {
			root = false
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), changed
}

func spellPC(pc int, flats bool) (byte, int) {
	sharpNames := [12]string{"C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"}
	flatNames := [12]string{"C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B"}
	n := sharpNames[pc]
	if flats {
		n = flatNames[pc]
	}
	a := 0
	if len(n) > 1 {
		a = 1
		if n[1] == 'b' {
			a = -1
		}
	}
	return n[0], a
}

// chordQuality reports whether rest can follow a chord root: nothing, a non-letter (7, /, +)
// or a quality such as m, maj, dim, sus. Words such as "Fine" or "Coda" are not chords.
func chordQuality(rest string) bool {
	if rest == "" || !isAlpha(rest[0]) {
		return true
	}
	for _, q := range []string{"maj", "min", "mi", "m", "M", "dim", "aug", "sus", "add", "o"} {
		if strings.HasPrefix(rest, q) && (q != "o" || len(rest) == 1 || !isAlpha(rest[1])) {
			return true
		}
	}
	return false
}
