package abc

import (
	"fmt"
	"strconv"
	"strings"
)

// This file parses the values of K:, M:, L:, Q: and V: fields.

// token is a space-separated word of a field value with its offset in the source.
type token struct {
	s   string
	off int
}

// splitTokens splits v (which starts at byte offset off) at spaces, keeping quoted strings
// together. At most 64 tokens are kept.
func splitTokens(v string, off int) []token {
	var out []token
	i := 0
	for i < len(v) && len(out) < 64 {
		for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
			i++
		}
		if i >= len(v) {
			break
		}
		j := i
		inQuote := false
		for j < len(v) && (inQuote || (v[j] != ' ' && v[j] != '\t')) {
			if v[j] == '"' {
				inQuote = !inQuote
			}
			j++
		}
		out = append(out, token{v[i:j], off + i})
		i = j
	}
	return out
}

var modeWords = []struct {
	prefix string
	mode   Mode
}{
	{"maj", Major}, {"ion", Major}, {"min", Minor}, {"aeo", Minor}, {"mix", Mixolydian},
	{"dor", Dorian}, {"phr", Phrygian}, {"lyd", Lydian}, {"loc", Locrian},
}

// parseMode reads a mode word; only the first three letters count, and "m" is minor.
func parseMode(s string) (Mode, bool) {
	l := strings.ToLower(s)
	if l == "m" {
		return Minor, true
	}
	if len(l) < 3 {
		return Major, false
	}
	for _, w := range modeWords {
		if strings.HasPrefix(l, w.prefix) {
			return w.mode, true
		}
	}
	return Major, false
}

var clefNames = map[string]bool{
	"treble": true, "bass": true, "alto": true, "tenor": true, "perc": true, "none": true,
	"bass3": true, "alto1": true, "alto2": true, "baritone": true, "soprano": true, "mezzosoprano": true,
	"treble+8": true, "treble-8": true, "bass+8": true, "bass-8": true, "alto+8": true, "alto-8": true,
	"tenor-8": true, "tenor+8": true,
}

// clefProp applies a key=value or bare clef token to c; it reports whether it knew the token.
func clefProp(c *Clef, key, val string) bool {
	switch key {
	case "clef":
		c.Name = val
		return true
	case "transpose", "t":
		n, err := strconv.Atoi(val)
		if err == nil && n > -128 && n < 128 {
			c.Transpose = n
		}
		return true
	case "octave":
		n, err := strconv.Atoi(val)
		if err == nil && n > -10 && n < 10 {
			c.Octave = n
		}
		return true
	case "middle", "m":
		c.Middle = val
		return true
	case "stafflines", "staffscale", "cue":
		return true
	}
	return false
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// parseKey parses a K: value that starts at byte offset off.
func (p *parser) parseKey(v string, off int, at Pos) Key {
	k := Key{Text: v, TonicStart: -1, TonicEnd: -1}
	toks := splitTokens(v, off)
	if len(toks) == 0 {
		k.None = true
		return k
	}
	rest := toks
	t := toks[0]
	switch {
	case t.s == "none":
		k.None = true
		rest = toks[1:]
	case t.s == "HP" || t.s == "Hp":
		k.Highland = true
		rest = toks[1:]
	case t.s[0] >= 'A' && t.s[0] <= 'G':
		k.Tonic = t.s[0]
		n := 1
		if len(t.s) > 1 && t.s[1] == '#' {
			k.TonicAcc = Sharp
			n = 2
		} else if len(t.s) > 1 && t.s[1] == 'b' {
			k.TonicAcc = Flat
			n = 2
		}
		k.TonicStart, k.TonicEnd = t.off, t.off+n
		rest = toks[1:]
		m := t.s[n:]
		if i := strings.IndexAny(m, "^_="); i >= 0 {
			// Accidentals written against the tonic (K:C^f^c, as abc2midi reads them).
			rest = append(splitAccidentals(token{m[i:], t.off + n + i}), rest...)
			m = m[:i]
		}
		if m != "" {
			mode, ok := parseMode(m)
			if !ok {
				p.diagAt(p.posOf(t.off+n), Error, "unknown mode \""+m+"\" in K:",
					"use one of major, minor (m), mixolydian, dorian, phrygian, lydian, locrian, e.g. K:"+t.s[:n]+"m")
			}
			k.Mode = mode
		} else if len(rest) > 0 {
			if mode, ok := parseMode(rest[0].s); ok && !strings.Contains(rest[0].s, "=") && !clefNames[rest[0].s] {
				k.Mode = mode
				rest = rest[1:]
			}
		}
	default:
		// K:clef=bass and the like: a clef without a key (C major).
	}
	if k.Tonic == 0 && !k.None && !k.Highland {
		k.Tonic = 'C'
	}
	var split []token
	for _, t := range rest {
		if t.s[0] == '^' || t.s[0] == '_' || t.s[0] == '=' {
			split = append(split, splitAccidentals(t)...)
		} else {
			split = append(split, t)
		}
	}
	for _, t := range split {
		s := t.s
		switch {
		case s == "exp":
			k.Exp = true
		case s[0] == '^' || s[0] == '_' || s[0] == '=':
			acc := NoAccidental
			i := 0
			switch {
			case strings.HasPrefix(s, "^^"):
				acc, i = DoubleSharp, 2
			case strings.HasPrefix(s, "__"):
				acc, i = DoubleFlat, 2
			case s[0] == '^':
				acc, i = Sharp, 1
			case s[0] == '_':
				acc, i = Flat, 1
			default:
				acc, i = Natural, 1
			}
			if i < len(s) && len(s) == i+1 && strings.IndexByte("abcdefgABCDEFG", s[i]) >= 0 && len(k.Explicit) < 7 {
				k.Explicit = append(k.Explicit, KeyAccidental{Letter: upper(s[i]), Accidental: acc, Offset: t.off})
			} else {
				p.diagAt(p.posOf(t.off), Error, "bad key accidental \""+s+"\"", "write an accidental and one note letter, e.g. ^f or _b")
			}
		case strings.Contains(s, "="):
			kv := strings.SplitN(s, "=", 2)
			if !clefProp(&k.Clef, kv[0], unquote(kv[1])) {
				p.diagAt(p.posOf(t.off), Warning, fmt.Sprintf("unknown K: property \"%s\" at line %d, column %d", kv[0], p.posOf(t.off).Line, p.posOf(t.off).Col), "known: clef=, transpose=, octave=, middle=")
			}
		case clefNames[s]:
			k.Clef.Name = s
		default:
			kat := p.posOf(t.off)
			sugg := "K: takes a tonic and mode, explicit accidentals and clef, e.g. K:Ador clef=treble"
			if s == "H" || s == "h" {
				sugg = "H is the German name of B: write K:B, or K:Bm for h-moll"
			}
			p.diagAt(kat, Warning, fmt.Sprintf("unknown word \"%s\" in K: at line %d, column %d", s, kat.Line, kat.Col), sugg)
		}
	}
	return k
}

// splitAccidentals splits accidentals written together (^f^c_b) into one token each; what
// does not read as accidentals stays one token.
func splitAccidentals(t token) []token {
	var out []token
	s := t.s
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && j < i+2 && (s[j] == '^' || s[j] == '_' || s[j] == '=') && (j == i || s[j] == s[i]) {
			j++
		}
		if j == i || j >= len(s) || strings.IndexByte("abcdefgABCDEFG", s[j]) < 0 {
			return []token{t}
		}
		out = append(out, token{s[i : j+1], t.off + i})
		i = j + 1
		if len(out) > 7 {
			return []token{t}
		}
	}
	return out
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 32
	}
	return c
}

// letterFifths is each letter's place on the circle of fifths from C.
var letterFifths = [7]int{3, 5, 0, 2, 4, -1, 1} // A B C D E F G

var modeFifths = [...]int{0, -3, -1, -2, -4, 1, -5} // major minor mix dor phr lyd loc

// Fifths is the number of sharps (positive) or flats (negative) of the key signature, before
// explicit accidentals. K:none is 0 and K:HP / K:Hp is 2.
func (k Key) Fifths() int {
	if k.None || k.Tonic == 0 {
		if k.Highland {
			return 2
		}
		return 0
	}
	f := letterFifths[k.Tonic-'A'] + 7*k.TonicAcc.Semitones() + modeFifths[k.Mode]
	return max(-14, min(14, f))
}

// sharpOrder is the order in which sharps enter a key signature, as letter indexes (A=0):
// F C G D A E B.
var sharpOrder = [7]byte{5, 2, 6, 3, 0, 4, 1}

// Signature returns the alteration in semitones of each letter A..G under the key, including
// explicit accidentals.
func (k Key) Signature() [7]int {
	var sig [7]int
	if !k.Exp {
		sig = fifthsSignature(k.Fifths())
	}
	for _, e := range k.Explicit {
		sig[e.Letter-'A'] = e.Accidental.Semitones()
	}
	return sig
}

func fifthsSignature(f int) [7]int {
	var sig [7]int
	for i := 0; i < f; i++ {
		sig[sharpOrder[i%7]]++
	}
	for i := 0; i < -f; i++ {
		sig[sharpOrder[6-i%7]]--
	}
	return sig
}

// parseMeter parses an M: value.
func (p *parser) parseMeter(v string, at Pos) (Meter, bool) {
	m := Meter{Text: v}
	s := strings.TrimSpace(v)
	switch s {
	case "", "none":
		m.Kind = MeterNone
		return m, true
	case "C":
		m.Kind = MeterCommon
		m.Num, m.Den = []int{4}, 4
		return m, true
	case "C|":
		m.Kind = MeterCut
		m.Num, m.Den = []int{2}, 2
		return m, true
	}
	slash := strings.IndexByte(s, '/')
	if slash < 0 {
		p.diagAt(at, Error, "bad meter \"M:"+v+"\"", "write a fraction such as M:6/8, or M:C, M:C| or M:none")
		return m, false
	}
	num := strings.Trim(s[:slash], "() ")
	den, err := strconv.Atoi(strings.TrimSpace(s[slash+1:]))
	if err != nil || den <= 0 || den > 64 {
		p.diagAt(at, Error, "bad meter denominator in \"M:"+v+"\"", "write a fraction such as M:6/8")
		return m, false
	}
	for _, part := range strings.Split(num, "+") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n <= 0 || n > 64 || len(m.Num) >= 8 {
			p.diagAt(at, Error, "bad meter numerator in \"M:"+v+"\"", "write a fraction such as M:6/8 or M:2+3/8")
			return m, false
		}
		m.Num = append(m.Num, n)
	}
	m.Kind = MeterFraction
	m.Den = den
	return m, true
}

// parseFraction parses "1/8" or "1"; it reports whether it could.
func parseFraction(s string) (Rat, bool) {
	s = strings.TrimSpace(s)
	n, d := s, "1"
	if i := strings.IndexByte(s, '/'); i >= 0 {
		n, d = s[:i], s[i+1:]
	}
	a, err1 := strconv.Atoi(n)
	b, err2 := strconv.Atoi(d)
	if err1 != nil || err2 != nil || a <= 0 || b <= 0 || a > 1<<16 || b > 1<<16 {
		return Rat{}, false
	}
	return R(int64(a), int64(b)), true
}

// parseTempo parses a Q: value.
func (p *parser) parseTempo(v string, at Pos) *Tempo {
	t := &Tempo{}
	rest := v
	// Quoted text, anywhere.
	for {
		i := strings.IndexByte(rest, '"')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+1:], '"')
		if j < 0 {
			p.diagAt(at, Error, "unclosed quote in Q:", "close the tempo text with \"")
			rest = rest[:i]
			break
		}
		if t.Text != "" {
			t.Text += " "
		}
		t.Text += rest[i+1 : i+1+j]
		rest = rest[:i] + " " + rest[i+2+j:]
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return t
	}
	beats, bpm := rest, ""
	if eq := strings.IndexByte(rest, '='); eq >= 0 {
		beats, bpm = rest[:eq], rest[eq+1:]
	} else if !strings.Contains(rest, "/") {
		beats, bpm = "", rest
	}
	for _, f := range strings.Fields(beats) {
		r, ok := parseFraction(f)
		if !ok || len(t.Beats) >= 8 {
			p.diagAt(at, Error, "bad beat unit \""+f+"\" in Q:", "write Q:1/4=120")
			return t
		}
		t.Beats = append(t.Beats, r)
	}
	if bpm = strings.TrimSpace(bpm); bpm != "" {
		n, err := strconv.Atoi(bpm)
		if err != nil || n <= 0 || n > 10000 {
			p.diagAt(at, Error, "bad tempo \""+bpm+"\" in Q:", "write the beats per minute as a number, e.g. Q:1/4=120")
			return t
		}
		t.BPM = n
	}
	return t
}

// parseVoice parses a V: value into a definition.
func (p *parser) parseVoice(v string, off int, at Pos) *VoiceDef {
	d := &VoiceDef{Pos: at}
	toks := splitTokens(v, off)
	if len(toks) == 0 {
		p.diagAt(at, Error, "V: without a voice id", "name the voice, e.g. V:1 or V:T1 name=\"Tenor\"")
		return d
	}
	d.ID = toks[0].s
	for _, t := range toks[1:] {
		key, val, ok := strings.Cut(t.s, "=")
		if !ok {
			switch {
			case clefNames[t.s]:
				d.Clef.Name = t.s
				continue
			case t.s == "up" || t.s == "down":
				// abcm2ps's short form of stem=up and stem=down.
				d.Stem = t.s
				continue
			case t.s == "merge":
				// abcm2ps: the voice shares the staff of the voice before it.
				continue
			}
			wat := p.posOf(t.off)
			sugg := "voice properties are key=value, e.g. clef=bass name=\"Bass\""
			if strings.EqualFold(t.s, "midi") {
				sugg = "MIDI settings go on a line of their own after the V: line, e.g. %%MIDI program 74"
			}
			p.diagAt(wat, Warning, fmt.Sprintf("unknown word \"%s\" in V: at line %d, column %d", t.s, wat.Line, wat.Col), sugg)
			continue
		}
		val = unquote(val)
		if d.Props == nil {
			d.Props = map[string]string{}
		}
		if len(d.Props) < 32 {
			d.Props[key] = val
		}
		switch key {
		case "name", "nm":
			d.Name = val
		case "subname", "snm", "sname":
			d.Subname = val
		case "stem":
			d.Stem = val
		default:
			clefProp(&d.Clef, key, val)
		}
	}
	return d
}
