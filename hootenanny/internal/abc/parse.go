package abc

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Options bound the work Parse does. Zero fields take the defaults.
type Options struct {
	MaxBytes       int // input size limit; default 1 MiB
	MaxTunes       int // default 10000
	MaxElements    int // body elements over the whole book; default 1<<18
	MaxDiagnostics int // default 1000
}

// Defaults for Options.
const (
	DefaultMaxBytes       = 1 << 20
	DefaultMaxTunes       = 10000
	DefaultMaxElements    = 1 << 18
	DefaultMaxDiagnostics = 1000
)

// Limits on nesting and numbers inside one construct.
const (
	maxSlurDepth = 64
	maxOctave    = 6
	maxNumber    = 1 << 16
)

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxTunes <= 0 {
		o.MaxTunes = DefaultMaxTunes
	}
	if o.MaxElements <= 0 {
		o.MaxElements = DefaultMaxElements
	}
	if o.MaxDiagnostics <= 0 {
		o.MaxDiagnostics = DefaultMaxDiagnostics
	}
	return o
}

// Parse parses an ABC file or fragment. It always returns a Book: parsing is generous, and a bad
// token, bar or line produces a diagnostic while the rest is still read.
//
// Parse runs in time linear in the input: it reads each line once, every token consumes at
// least one byte, per-bar checks touch each element once, and suggestions compare a bounded
// word against a fixed list. Memory is bounded by Options.
func Parse(src string, opts Options) (*Book, []Diagnostic) {
	opts = opts.withDefaults()
	p := &parser{src: src, opts: opts, book: &Book{}}
	if len(src) > opts.MaxBytes {
		p.diagAt(Pos{1, 1, 0}, Error, fmt.Sprintf("input is %d bytes; the limit is %d", len(src), opts.MaxBytes),
			"split the tune book into smaller files")
		p.book.Truncated = true
		return p.book, p.diags
	}
	p.run()
	p.book.Truncated = p.stop
	return p.book, p.diags
}

// TruncatedBecause returns the message of the diagnostic that says why a parse stopped early
// (see Book.Truncated), or a general one when the diagnostics were capped before it.
func TruncatedBecause(diags []Diagnostic) string {
	for i := len(diags) - 1; i >= 0; i-- {
		if m := diags[i].Message; strings.Contains(m, "the rest are not read") || strings.HasPrefix(m, "input is ") {
			return m
		}
	}
	return "it goes past a limit of the parser"
}

// Validate checks src and returns only its diagnostics.
func Validate(src string) []Diagnostic {
	_, d := Parse(src, Options{})
	return d
}

type parser struct {
	src   string
	opts  Options
	book  *Book
	diags []Diagnostic
	full  bool // diagnostics limit reached

	line      int
	lineStart int
	stop      bool

	tune      *Tune
	inHeader  bool
	sawMusic  bool // a music line since K:
	unitSet   bool
	elements  int
	lastField *Field
	voices    map[string]*vstate
	cur       *vstate
	anyX      bool
	joins     []int // starts of the lines read with the current one (chordOpen)
}

// vstate is the parsing state of one voice.
type vstate struct {
	v     *Voice
	unit  Rat
	meter Meter

	last    scaler // the last note, chord or rest, for broken rhythm
	lastTie tieable
	lastEnd int // end offset of lastTie
	broken  Rat // pending factor for the next note; zero when none
	tupLeft int
	tupFact Rat
	tupPos  Pos
	tupP    int
	slurs   []Pos
	tupAt   Pos // the last tuplet's (p in this bar, or Line 0
	// fullLine is the first line at whose end this bar already held all the meter asks, or 0:
	// where a bar line is most likely missing when the bar turns out too long.
	fullLine int
	// short is a bar found too short, held until the next bar line: a bar line right after it,
	// with nothing between, may end a section (A2 [|]:|), where a short bar is usual.
	short    *Diagnostic
	bar      Rat
	barStart Pos
	barSkip  bool // the bar cannot be checked (meter change, overlay, Z rest)
	barNum   int
	// prevEnds is set when the last bar line, or one right before it with nothing between
	// (:| then | on the next line), ends a section: the bar after it may be a short pickup.
	prevEnds bool
	barEnd   bool // the bar started with an ending
	hasNotes bool
}

type scaler interface{ scale(f Rat) Rat }
type tieable interface{ setTie() }

func (n *Note) scale(f Rat) Rat {
	old := n.Duration
	n.Duration = n.Duration.Mul(f)
	return n.Duration.Sub(old)
}
func (n *Note) setTie() { n.Tie = true }

func (r *Rest) scale(f Rat) Rat {
	old := r.Duration
	r.Duration = r.Duration.Mul(f)
	return r.Duration.Sub(old)
}

func (c *Chord) scale(f Rat) Rat {
	for _, n := range c.Notes {
		n.Duration = n.Duration.Mul(f)
	}
	old := c.Duration
	c.Duration = c.Duration.Mul(f)
	return c.Duration.Sub(old)
}
func (c *Chord) setTie() {
	c.Tie = true
	for _, n := range c.Notes {
		n.Tie = true
	}
}

func (p *parser) posOf(off int) Pos {
	line, from := p.line, p.lineStart
	for k, j := range p.joins { // lines read with this one (chordOpen)
		if off >= j {
			line, from = p.line+k+1, j
		}
	}
	return Pos{Line: line, Col: off - from + 1, Offset: off}
}

// chordOpen reports a music line that ends inside a chord: a [ that starts no bar line,
// ending or inline field, not closed by ]. Quoted text, !decorations! and comments are
// skipped.
func chordOpen(line string) bool {
	depth := 0
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '%' && (i == 0 || line[i-1] != '\\'):
			return false // a comment ends the line: not joined
		case c == '"' || c == '!':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				return false
			}
			i += j + 1
		case c == '[':
			switch {
			case i+2 < len(line) && isAlpha(line[i+1]) && line[i+2] == ':':
				j := strings.IndexByte(line[i:], ']')
				if j < 0 {
					return false
				}
				i += j
			case i+1 < len(line) && (line[i+1] == '|' || line[i+1] >= '0' && line[i+1] <= '9'):
			default:
				depth++
			}
		case c == ']' && depth > 0:
			depth--
		}
	}
	return depth > 0
}

func (p *parser) diagAt(at Pos, sev Severity, msg, sugg string) {
	if p.full {
		return
	}
	if len(p.diags) >= p.opts.MaxDiagnostics {
		p.full = true
		p.diags = append(p.diags, Diagnostic{Line: at.Line, Col: at.Col, Severity: Error,
			Message: "too many problems; stopped reporting", Suggestion: "fix the ones above and check again"})
		return
	}
	p.diags = append(p.diags, Diagnostic{Line: at.Line, Col: at.Col, Severity: sev, Message: msg, Suggestion: sugg})
}

func (p *parser) run() {
	src := p.src
	start := 0
	if strings.HasPrefix(src, "\ufeff") {
		start = 3
	}
	p.line = 0
	for start <= len(src) && !p.stop {
		end := strings.IndexByte(src[start:], '\n')
		next := 0
		if end < 0 {
			end = len(src)
			next = len(src) + 1
		} else {
			end += start
			next = end + 1
		}
		p.line++
		p.lineStart = start
		e := end
		if e > start && src[e-1] == '\r' {
			e--
		}
		// A chord left open at the end of a music line goes on on the next ([f3a / 3]), as
		// abc2midi reads it: the lines are read as one, their ends as spaces.
		for k := 0; k < 8 && p.tune != nil && !p.inHeader && next < len(src) && chordOpen(src[start:e]); k++ {
			nend := strings.IndexByte(src[next:], '\n')
			nnext := 0
			if nend < 0 {
				nend, nnext = len(src), len(src)+1
			} else {
				nend += next
				nnext = nend + 1
			}
			ne := nend
			if ne > next && src[ne-1] == '\r' {
				ne--
			}
			if t := src[next:ne]; isBlank(t) || fieldLine(t) || strings.HasPrefix(t, "%") {
				break
			}
			p.joins = append(p.joins, next)
			e, next = ne, nnext
		}
		p.doLine(start, e, next)
		p.line += len(p.joins)
		p.joins = nil
		start = next
	}
	p.endTune(len(src))
}

func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' {
			return false
		}
	}
	return true
}

// fieldLine reports whether the line is an information field line such as "T:Title".
func fieldLine(s string) bool {
	if len(s) < 2 || s[1] != ':' {
		return false
	}
	c := s[0]
	if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '+') {
		return false
	}
	// "B:|" and "a::" are music: a note and a bar line.
	if (c >= 'A' && c <= 'G' || c >= 'a' && c <= 'g') && len(s) > 2 && (s[2] == '|' || s[2] == ':') {
		return false
	}
	if c >= 'a' && c <= 'z' && strings.IndexByte("wsrm", c) < 0 {
		// lowercase note letters followed by ':' are music ("e:|" was handled); other lowercase
		// letters are unknown fields
		return !(c >= 'a' && c <= 'g')
	}
	return true
}

const knownFields = "ABCDFGHIKLMNOPQRSTUVWXZwsrm+"

func stripComment(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i == 0 || s[i-1] != '\\') {
			return s[:i]
		}
	}
	return s
}

func (p *parser) doLine(s, e, next int) {
	text := p.src[s:e]
	if p.tune == nil {
		if isBlank(text) || strings.HasPrefix(text, "%") {
			return
		}
		if fieldLine(text) {
			switch text[0] {
			case 'X':
				p.startTune(s)
			case 'T', 'K':
				p.diagAt(p.posOf(s), Warning, fmt.Sprintf("the tune at line %d has no X: field", p.line), "start every tune with X:<number> on its own line, e.g. X:1")
				p.startTune(s)
			default:
				if len(p.book.Tunes) == 0 && len(p.book.FileHeader) < 256 {
					p.book.FileHeader = append(p.book.FileHeader, p.field(s, e))
				}
				return
			}
		} else {
			return // free text between tunes
		}
	}
	if p.tune == nil {
		return
	}
	if isBlank(text) {
		p.endTune(s)
		return
	}
	p.tune.End = next
	if text[0] == '%' {
		return
	}
	if fieldLine(text) {
		if text[0] == 'X' && len(p.tune.Header.Fields) > 0 {
			// a new tune without a blank line before it
			p.endTune(s)
			p.startTune(s)
			if p.tune == nil {
				return
			}
			p.tune.End = next
		}
		f := p.field(s, e)
		if p.inHeader || !p.sawMusic && headerOnly(f.Name) {
			p.headerField(f)
		} else {
			p.bodyField(f, false)
		}
		return
	}
	// A music line.
	if p.inHeader {
		p.diagAt(p.posOf(s), Error, "missing K: field before the music",
			"end the header with a K: line, e.g. K:C or K:Gmaj, just before the first line of music")
		p.endHeader()
	}
	p.sawMusic = true
	p.music(s, e)
}

// headerOnly are fields that belong in the header; after K: and before music they most likely
// were meant to be there.
func headerOnly(c byte) bool { return strings.IndexByte("CORMLQ", c) >= 0 }

// allowedInBody reports the fields of headerOnly that the standard allows in the body as well:
// written between K: and the music they are valid, and apply from the start.
func allowedInBody(c byte) bool { return strings.IndexByte("RMLQ", c) >= 0 }

// field reads a field line (or its inline contents) between s and e.
func (p *parser) field(s, e int) Field {
	raw := p.src[s+2 : e]
	v := strings.TrimRight(stripComment(raw), " \t")
	lead := len(v) - len(strings.TrimLeft(v, " \t"))
	return Field{Name: p.src[s], Value: v[lead:], Pos: p.posOf(s), End: e, ValueOffset: s + 2 + lead}
}

func (p *parser) startTune(s int) {
	if len(p.book.Tunes) >= p.opts.MaxTunes {
		p.diagAt(p.posOf(s), Error, fmt.Sprintf("more than %d tunes; the rest are not read", p.opts.MaxTunes), "split the tune book")
		p.stop = true
		return
	}
	p.tune = &Tune{Pos: p.posOf(s), End: s}
	p.book.Tunes = append(p.book.Tunes, p.tune)
	p.inHeader = true
	p.sawMusic = false
	p.unitSet = false
	p.voices = map[string]*vstate{}
	p.cur = nil
	p.lastField = nil
	p.tune.Header.Key = Key{Tonic: 'C', TonicStart: -1, TonicEnd: -1}
}

func (p *parser) endTune(s int) {
	t := p.tune
	if t == nil {
		return
	}
	if p.inHeader {
		if len(t.Header.Fields) > 0 {
			p.diagAt(t.Pos, Error, "tune has no K: field", "end the header with a K: line, e.g. K:C")
		}
		p.endHeader()
	}
	for _, v := range t.Voices {
		vs := p.voices[v.ID]
		if vs == nil {
			continue
		}
		for _, at := range vs.slurs {
			p.diagAt(at, Warning, fmt.Sprintf("the slur ( at line %d, column %d is never closed", at.Line, at.Col),
				"write ) after the last note the slur covers, or remove the (")
		}
		if vs.short != nil {
			// The tune's last bar: it may be short, to complete a pickup. The bar held is
			// the one before it, so it is reported only when bars followed.
			if vs.hasNotes || !vs.bar.IsZero() {
				p.diagAt(Pos{Line: vs.short.Line, Col: vs.short.Col}, Warning, vs.short.Message, vs.short.Suggestion)
			}
			vs.short = nil
		}
		if vs.tupLeft > 0 {
			p.diagAt(vs.tupPos, Warning, fmt.Sprintf("the tuplet (%d at line %d, column %d is missing %d note(s)", vs.tupP, vs.tupPos.Line, vs.tupPos.Col, vs.tupLeft),
				fmt.Sprintf("write its other %d note(s) after it, or (p:q:r with r the notes it has", vs.tupLeft))
		}
	}
	p.tune = nil
}

func (p *parser) endHeader() {
	p.inHeader = false
	h := &p.tune.Header
	if !p.unitSet {
		h.UnitLength = DefaultUnitLength(h.Meter)
	}
}

func (p *parser) headerField(f Field) {
	h := &p.tune.Header
	if len(h.Fields) < 1024 {
		h.Fields = append(h.Fields, f)
	}
	if !p.inHeader && !allowedInBody(f.Name) {
		// After K: and before the music: apply to the header, and say so. M:, L:, Q: and R:
		// may stand in the body too (ABC 2.1, 3.1), so there they are valid and mean the same.
		k := "the K: line"
		for _, g := range h.Fields {
			if g.Name == 'K' {
				k = fmt.Sprintf("the K: line (line %d)", g.Pos.Line)
				break
			}
		}
		p.diagAt(f.Pos, Warning, fmt.Sprintf("%c: at line %d comes after K:, which must end the header", f.Name, f.Pos.Line),
			fmt.Sprintf("move this %c: line above %s", f.Name, k))
	}
	at := f.Pos
	switch f.Name {
	case 'X':
		v := strings.TrimSpace(f.Value)
		n, digits := 0, 0
		for ; digits < len(v) && v[digits] >= '0' && v[digits] <= '9'; digits++ {
			if n < maxNumber {
				n = n*10 + int(v[digits]-'0')
			}
		}
		if digits == 0 || digits < len(v) {
			p.diagAt(at, Warning, fmt.Sprintf("X: at line %d takes the tune's number, not \"%s\"; this tune counts as X:%d", at.Line, v, n),
				"write a number, such as X:1, and give each tune of a book its own")
		}
		h.X = n
		p.anyX = true
	case 'T':
		h.Titles = append(h.Titles, f.Value)
	case 'C':
		h.Composers = append(h.Composers, f.Value)
	case 'O':
		h.Origin = f.Value
	case 'R':
		h.Rhythm = f.Value
	case 'P':
		h.Parts = f.Value
	case 'M':
		if m, ok := p.parseMeter(f.Value, at); ok {
			h.Meter = m
			for _, vs := range p.voices {
				vs.meter = m
			}
		}
	case 'L':
		if r, ok := parseFraction(f.Value); ok {
			h.UnitLength = r
			p.unitSet = true
			for _, vs := range p.voices {
				vs.unit = r
			}
		} else {
			p.diagAt(at, Error, "bad unit note length \"L:"+f.Value+"\"", "write a fraction such as L:1/8")
		}
	case 'Q':
		h.Tempo = p.parseTempo(f.Value, at)
	case 'K':
		h.Key = p.parseKey(f.Value, f.ValueOffset, at)
		if p.inHeader {
			p.endHeader()
		}
	case 'V':
		d := p.parseVoice(f.Value, f.ValueOffset, at)
		d.InHeader = true
		if d.ID != "" && len(h.Voices) < 256 {
			h.Voices = append(h.Voices, *d)
		}
	case 'W':
		p.tune.Words = append(p.tune.Words, f.Value)
	case '+':
		if n := len(h.Fields); n >= 2 && len(h.Fields[n-2].Value)+len(f.Value) < 4096 {
			// Bounded, so that a run of +: lines stays linear.
			prev := &h.Fields[n-2]
			prev.Value += " " + f.Value
			if prev.Name == 'T' && len(h.Titles) > 0 {
				h.Titles[len(h.Titles)-1] = prev.Value
			}
		}
	default:
		if strings.IndexByte(knownFields, f.Name) < 0 {
			p.diagAt(at, Warning, fmt.Sprintf("unknown header field \"%c:\" at line %d", f.Name, at.Line),
				"header fields are X: T: C: O: R: M: L: Q: K: V: P: W: and the like; check the letter")
		}
	}
}

// voice returns the state of voice id, making it when needed.
func (p *parser) voice(id string) *vstate {
	if vs, ok := p.voices[id]; ok {
		return vs
	}
	h := &p.tune.Header
	v := &Voice{ID: id}
	for i := range h.Voices {
		if h.Voices[i].ID == id {
			v.Def = &h.Voices[i]
		}
	}
	if len(p.tune.Voices) >= 256 {
		// too many voices: keep writing into the last one
		return p.voices[p.tune.Voices[len(p.tune.Voices)-1].ID]
	}
	p.tune.Voices = append(p.tune.Voices, v)
	vs := &vstate{v: v, unit: h.UnitLength, meter: h.Meter}
	p.voices[id] = vs
	return vs
}

func (p *parser) current() *vstate {
	if p.cur == nil {
		id := ""
		if len(p.tune.Header.Voices) > 0 {
			id = p.tune.Header.Voices[0].ID
		}
		p.cur = p.voice(id)
	}
	return p.cur
}

func (p *parser) add(e Element) bool {
	if p.elements >= p.opts.MaxElements {
		if p.stop {
			return false
		}
		p.diagAt(e.Position(), Error, fmt.Sprintf("more than %d elements; the rest are not read", p.opts.MaxElements), "split the tune book")
		p.stop = true
		return false
	}
	switch e := e.(type) {
	case *Chord:
		p.elements += len(e.Notes)
	case *GraceGroup:
		p.elements += len(e.Notes)
	}
	p.elements++
	vs := p.current()
	if vs.barStart.Line == 0 {
		vs.barStart = e.Position()
	}
	vs.v.Elements = append(vs.v.Elements, e)
	return true
}

// bodyField handles a field in the body, on its own line or inline ([K:D]). span is the source
// range of the whole field.
func (p *parser) bodyField(f Field, inline bool) {
	el := &InlineField{Span: Span{f.Pos, f.End}, Field: f, Inline: inline}
	at := f.Pos
	switch f.Name {
	case 'w':
		p.add(&Lyrics{Span: Span{f.Pos, f.End}, Text: f.Value})
		return
	case 'W':
		p.tune.Words = append(p.tune.Words, f.Value)
		return
	case 'V':
		p.sawMusic = true
		d := p.parseVoice(f.Value, f.ValueOffset, at)
		if d.ID == "" {
			return
		}
		el.Voice = d.ID
		vs := p.voice(d.ID)
		if vs.v.Def == nil && (len(d.Props) > 0 || d.Clef.Name != "") {
			vs.v.Def = d
		}
		p.cur = vs
	case 'K':
		k := p.parseKey(f.Value, f.ValueOffset, at)
		el.Key = &k
	case 'M':
		if m, ok := p.parseMeter(f.Value, at); ok {
			el.Meter = &m
			vs := p.current()
			vs.meter = m
			vs.barSkip = true
		}
	case 'L':
		if r, ok := parseFraction(f.Value); ok {
			el.Unit = r
			p.current().unit = r
		} else {
			p.diagAt(at, Error, "bad unit note length \"L:"+f.Value+"\"", "write a fraction such as L:1/8")
		}
	case 'Q':
		el.Tempo = p.parseTempo(f.Value, at)
	case 'X':
		p.diagAt(at, Error, "X: inside a tune", "leave a blank line before a new tune's X:")
		return
	default:
		if strings.IndexByte(knownFields, f.Name) < 0 {
			p.diagAt(at, Warning, fmt.Sprintf("unknown field \"%c:\" at line %d", f.Name, at.Line), "check the field letter; fields are A: to Z: and w: s: r: m: of the ABC standard")
		}
	}
	p.add(el)
}

// music parses one line of music between byte offsets s and e.
func (p *parser) music(s, e int) {
	src := p.src
	vs := p.current()
	continued := false
	i := s
	for i < e && !p.stop {
		c := src[i]
		at := p.posOf(i)
		switch {
		case c == ' ' || c == '\t' || c == '`' || c == '$' || c == '*' || c == '\n' || c == '\r':
			i++
		case c == '%':
			i = e
		case c == '\\':
			j := i + 1
			for j < e && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			if j == e || src[j] == '%' {
				continued = true
				i = e
			} else {
				p.diagAt(at, Error, "\\ in the middle of a line", "\\ continues a line only at its end")
				i++
			}
		case c == '"':
			i = p.quoted(i, e)
		case c == '!' || c == '+':
			j := strings.IndexByte(src[i+1:e], c)
			if j < 0 {
				p.diagAt(at, Error, "decoration "+string(c)+"... is not closed", "write decorations as !name!, e.g. !trill!; a lone "+string(c)+" (a line break in ABC 1.6) is not ABC 2.1: remove it")
				i++
				continue
			}
			name := src[i+1 : i+1+j]
			p.checkDecoration(at, name, c)
			p.add(&Decoration{Span: Span{at, i + j + 2}, Name: name})
			i += j + 2
		case c == '.' && i+1 < e && src[i+1] == '|':
			i = p.bar(i, e)
			vs = p.current()
		case c == '.' && i+1 < e && src[i+1] == '(':
			i = p.slurOpen(vs, i, true)
		case strings.IndexByte(".~HLMOPSTuv", c) >= 0:
			p.add(&Decoration{Span: Span{at, i + 1}, Name: shortDecorations[c], Short: true})
			i++
		case c == '{':
			i = p.grace(vs, i, e)
		case c == '}':
			p.diagAt(at, Error, "} without {", "grace notes are written {gab}")
			i++
		case c == '[':
			switch {
			case i+2 < e && isAlpha(src[i+1]) && src[i+2] == ':':
				j := strings.IndexByte(src[i:e], ']')
				if j < 0 {
					p.diagAt(at, Error, "inline field ["+string(src[i+1])+": is not closed", "close it with ], e.g. [K:D]")
					i = e
					continue
				}
				end := i + j + 1
				v := src[i+3 : end-1]
				lead := len(v) - len(strings.TrimLeft(v, " \t"))
				f := Field{Name: src[i+1], Value: strings.TrimSpace(v), Pos: at, End: end, ValueOffset: i + 3 + lead}
				p.bodyField(f, true)
				vs = p.current()
				i = end
			case i+1 < e && src[i+1] >= '0' && src[i+1] <= '9':
				i = p.ending(vs, i, i+1, e)
			case i+1 < e && src[i+1] == '|':
				i = p.bar(i, e)
				vs = p.current()
			default:
				i = p.chord(vs, i, e)
			}
		case c == '|' || c == ':':
			i = p.bar(i, e)
		case c == ']':
			p.diagAt(at, Error, "] without [", "chords are written [CEG]")
			i++
		case c == '(':
			if i+1 < e && src[i+1] >= '1' && src[i+1] <= '9' {
				i = p.tuplet(vs, i, e)
			} else {
				i = p.slurOpen(vs, i, false)
			}
		case c == ')':
			p.slurClose(vs, at)
			p.add(&Slur{Span: Span{at, i + 1}})
			i++
		case c == '-':
			if vs.lastTie != nil && vs.lastEnd == i {
				vs.lastTie.setTie()
			} else {
				p.diagAt(at, Error, "tie - must come right after a note", "write the tie directly after the note, e.g. A2-A")
			}
			i++
		case c == '>' || c == '<':
			j := i
			for j < e && src[j] == c {
				j++
			}
			n := j - i
			if n > 3 {
				p.diagAt(at, Error, "too many "+string(c)+" in a broken rhythm", "use at most "+strings.Repeat(string(c), 3))
				n = 3
			}
			if vs.last == nil {
				p.diagAt(at, Error, "broken rhythm "+string(c)+" needs a note before it", "write it between two notes, e.g. A>B")
			} else {
				short := R(1, 1<<n)
				long := R(2, 1).Sub(short)
				first, second := long, short
				if c == '<' {
					first, second = short, long
				}
				vs.bar = vs.bar.Add(vs.last.scale(first))
				vs.broken = second
				vs.last = nil
			}
			p.add(&BrokenRhythm{Span: Span{at, j}, Dir: c, Count: n})
			i = j
		case c == '&':
			vs.barSkip = true
			p.add(&Overlay{Span{at, i + 1}})
			i++
		case c == 'y':
			j := i + 1
			for j < e && src[j] >= '0' && src[j] <= '9' {
				j++
			}
			p.add(&Spacer{Span{at, j}})
			i = j
		case isNoteStart(c):
			n, j := p.note(i, e)
			if n != nil {
				n.Duration = p.timed(vs, n.Length.Mul(vs.unit))
				vs.last = n
				vs.lastTie, vs.lastEnd = n, j
				vs.hasNotes = true
				p.add(n)
			}
			i = j
		case c == 'z' || c == 'x':
			l, j := p.length(at, i+1, e)
			r := &Rest{Span: Span{at, j}, Kind: RestKind(c), Length: l}
			r.Duration = p.timed(vs, l.Mul(vs.unit))
			vs.last = r
			vs.lastTie = nil
			p.add(r)
			i = j
		case c == 'Z' || c == 'X':
			j := i + 1
			n := 0
			for j < e && src[j] >= '0' && src[j] <= '9' {
				if n < maxNumber {
					n = n*10 + int(src[j]-'0')
				}
				j++
			}
			if j == i+1 {
				n = 1
			}
			bar := vs.meter.Value()
			if bar.IsZero() {
				bar = R(1, 1)
			}
			r := &Rest{Span: Span{at, j}, Kind: RestKind(c), Measures: n, Duration: bar.MulInt(int64(n))}
			vs.barSkip = true
			vs.last, vs.lastTie = nil, nil
			p.add(r)
			i = j
		default:
			r, size := utf8.DecodeRuneInString(src[i:e])
			p.diagAt(at, Error, fmt.Sprintf("unexpected character %q", r), unexpectedHint(c))
			i += size
		}
	}
	if !p.stop {
		p.lineEnd(p.current(), p.posOf(e).Line)
	}
	if !continued && !p.stop {
		p.add(&LineBreak{Span{p.posOf(e), e}})
	}
}

func unexpectedHint(c byte) string {
	switch {
	case c >= 'h' && c <= 'w' || c >= 'I' && c <= 'W':
		return "notes are A-G and a-g; rests are z and x"
	case c == '#':
		return "sharps are written before the note: ^F, not F#"
	}
	return "remove it, or put text in quotes as an annotation: \"^text\""
}

func isAlpha(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }
func isNoteStart(c byte) bool {
	return c >= 'A' && c <= 'G' || c >= 'a' && c <= 'g' || c == '^' || c == '_' || c == '='
}

// timed applies the pending tuplet and broken rhythm to a duration, and adds it to the bar.
func (p *parser) timed(vs *vstate, d Rat) Rat {
	if vs.tupLeft > 0 {
		d = d.Mul(vs.tupFact)
		vs.tupLeft--
	}
	if !vs.broken.IsZero() {
		d = d.Mul(vs.broken)
		vs.broken = Rat{}
	}
	vs.bar = vs.bar.Add(d)
	return d
}

// note reads an accidental, letter, octave marks and length at i. It returns nil after
// reporting a problem, and always moves at least one byte.
func (p *parser) note(i, e int) (*Note, int) {
	src := p.src
	start := i
	at := p.posOf(i)
	acc := NoAccidental
	switch {
	case strings.HasPrefix(src[i:e], "^^"):
		acc, i = DoubleSharp, i+2
	case strings.HasPrefix(src[i:e], "__"):
		acc, i = DoubleFlat, i+2
	case src[i] == '^':
		acc, i = Sharp, i+1
	case src[i] == '_':
		acc, i = Flat, i+1
	case src[i] == '=':
		acc, i = Natural, i+1
	}
	if i >= e || !(src[i] >= 'A' && src[i] <= 'G' || src[i] >= 'a' && src[i] <= 'g') {
		p.diagAt(at, Error, "accidental "+src[start:i]+" without a note", "write the accidental right before the note letter, e.g. ^F")
		return nil, max(i, start+1)
	}
	n := &Note{Accidental: acc}
	n.Letter = upper(src[i])
	if src[i] >= 'a' {
		n.Octave = 1
	}
	i++
	for i < e && (src[i] == ',' || src[i] == '\'') {
		if src[i] == ',' {
			n.Octave--
		} else {
			n.Octave++
		}
		i++
	}
	if n.Octave > maxOctave || n.Octave < -maxOctave {
		p.diagAt(at, Error, "note is out of range", "use at most a few ' or , octave marks")
		n.Octave = max(-maxOctave, min(maxOctave, n.Octave))
	}
	n.PitchEnd = i
	if len(p.joins) > 0 { // in a chord read across lines, a length may follow the line end
		j := i
		for j < e && (src[j] == '\r' || src[j] == '\n') {
			j++
		}
		if j > i && j < e && slices.Contains(p.joins, j) && (src[j] >= '0' && src[j] <= '9' || src[j] == '/') {
			i = j
			n.LengthNextLine = true
		}
	}
	n.Length, i = p.length(at, i, e)
	n.Span = Span{at, i}
	n.Pos.Offset = start
	return n, i
}

// length reads a length multiplier such as 2, 3/2, /, //, /4 at i.
func (p *parser) length(at Pos, i, e int) (Rat, int) {
	src := p.src
	start := i
	num, den := int64(1), int64(1)
	if i < e && src[i] >= '0' && src[i] <= '9' {
		num = 0
		for i < e && src[i] >= '0' && src[i] <= '9' {
			if num < maxNumber {
				num = num*10 + int64(src[i]-'0')
			}
			i++
		}
	}
	for i < e && src[i] == '/' {
		i++
		if i < e && src[i] >= '0' && src[i] <= '9' {
			d := int64(0)
			for i < e && src[i] >= '0' && src[i] <= '9' {
				if d < maxNumber {
					d = d*10 + int64(src[i]-'0')
				}
				i++
			}
			if d == 0 {
				p.diagAt(at, Error, "bad length \""+src[start:i]+"\": division by zero", "write /2 for half the unit length, /4 for a quarter")
				d = 1
			}
			den *= d
		} else {
			den *= 2
		}
		if den > maxNumber {
			p.diagAt(at, Error, "length \""+src[start:i]+"\" is too short", "use a longer note or a smaller L:")
			den = maxNumber
		}
	}
	if num == 0 {
		p.diagAt(at, Error, "bad length \""+src[start:i]+"\": a note cannot last zero", "remove the 0, or write the length you mean, e.g. 2")
		num = 1
	}
	if num >= maxNumber {
		p.diagAt(at, Error, "length \""+src[start:i]+"\" is too long", "use a shorter note or a longer L:")
		num = maxNumber
	}
	return R(num, den), i
}

// quoted reads "..." at i: a chord symbol or, with a placement character, an annotation.
func (p *parser) quoted(i, e int) int {
	at := p.posOf(i)
	j := strings.IndexByte(p.src[i+1:e], '"')
	if j < 0 {
		p.diagAt(at, Error, "chord symbol or annotation is not closed", "close the quoted text with \"")
		return e
	}
	text := p.src[i+1 : i+1+j]
	end := i + j + 2
	if text != "" && strings.IndexByte("^_<>@", text[0]) >= 0 {
		p.add(&Annotation{Span: Span{at, end}, Placement: text[0], Text: text[1:]})
	} else {
		p.add(&ChordSymbol{Span: Span{at, end}, Text: text})
	}
	return end
}

// slurClose closes the innermost open slur at at, or says that there is none. A ) after a
// tuplet whose (p opened no slur is the common slip of (3ABA) for ((3ABA); abcm2ps then draws a
// slur from the start of the line.
func (p *parser) slurClose(vs *vstate, at Pos) {
	if len(vs.slurs) > 0 {
		vs.slurs = vs.slurs[:len(vs.slurs)-1]
		return
	}
	msg := fmt.Sprintf(") at line %d, column %d closes no slur", at.Line, at.Col)
	if t := vs.tupAt; t.Line != 0 {
		p.diagAt(at, Warning, msg+fmt.Sprintf(": the tuplet (%d at line %d, column %d opens none", vs.tupP, t.Line, t.Col),
			fmt.Sprintf("to slur the tuplet, write ((%d at line %d, column %d; else remove the )", vs.tupP, t.Line, t.Col))
		return
	}
	p.diagAt(at, Warning, msg, "open the slur with ( before the first note it covers, or remove the )")
}

func (p *parser) slurOpen(vs *vstate, i int, dotted bool) int {
	at := p.posOf(i)
	end := i + 1
	if dotted {
		end = i + 2
	}
	if len(vs.slurs) >= maxSlurDepth {
		p.diagAt(at, Error, "slurs nested too deep", "close some slurs")
	} else {
		vs.slurs = append(vs.slurs, at)
	}
	p.add(&Slur{Span: Span{at, end}, Open: true, Dotted: dotted})
	return end
}

// tuplet reads (p, (p:q, (p:q:r, (p::r at i.
func (p *parser) tuplet(vs *vstate, i, e int) int {
	src := p.src
	at := p.posOf(i)
	j := i + 1
	num := func() int {
		n, k := 0, j
		for j < e && src[j] >= '0' && src[j] <= '9' {
			if n < maxNumber {
				n = n*10 + int(src[j]-'0')
			}
			j++
		}
		if j == k {
			return 0
		}
		return n
	}
	pp := num()
	q, r := 0, 0
	if j < e && src[j] == ':' {
		j++
		q = num()
		if j < e && src[j] == ':' {
			j++
			r = num()
		}
	}
	if pp < 2 || pp > 64 || q > 64 || r > 64 {
		p.diagAt(at, Error, "bad tuplet \""+src[i:j]+"\"", "write (3 for a triplet, or (p:q:r with numbers from 2 to 64")
		return j
	}
	if q == 0 {
		switch pp {
		case 2, 4, 8:
			q = 3
		case 3, 6:
			q = 2
		default:
			q = 2
			if n := vs.meter.Value().MulInt(int64(vs.meter.Den)); vs.meter.Kind == MeterFraction && n.Den == 1 && n.Num%3 == 0 {
				q = 3 // as abc2midi reads it: in 3/4, 3/8 and 3/2 too, not only compound meters
			}
		}
	}
	if r == 0 {
		r = pp
	}
	vs.tupLeft, vs.tupFact, vs.tupPos, vs.tupP = r, R(int64(q), int64(pp)), at, pp
	vs.tupAt = at
	p.add(&Tuplet{Span: Span{at, j}, P: pp, Q: q, R: r})
	return j
}

// grace reads {..} or {/..} at i.
func (p *parser) grace(vs *vstate, i, e int) int {
	src := p.src
	at := p.posOf(i)
	g := &GraceGroup{}
	j := i + 1
	if j < e && src[j] == '/' {
		g.Acciaccatura = true
		j++
	}
	for {
		if j >= e {
			p.diagAt(at, Error, "grace notes { are not closed", "close the grace notes with } on the same line, e.g. {gab}A")
			break
		}
		c := src[j]
		if c == '}' {
			j++
			break
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r': // line ends: a chord read across lines
			j++
		case isNoteStart(c):
			n, k := p.note(j, e)
			if n != nil {
				n.Duration = n.Length.Mul(vs.unit)
				if len(g.Notes) < 64 {
					g.Notes = append(g.Notes, n)
				}
			}
			j = k
		case c == '[' && !(j+1 < e && (src[j+1] == '|' || src[j+1] >= '0' && src[j+1] <= '9' || j+2 < e && src[j+2] == ':')):
			ch, k := p.chordAt(vs, j, e, true)
			if ch != nil && len(g.Notes) < 64 {
				g.Notes = append(g.Notes, ch)
			}
			j = k
		case c == '-':
			j++
		default:
			if c == '{' {
				p.diagAt(p.posOf(j), Error, "grace notes cannot be nested", "close the first group with } before opening another")
			} else if c == '|' || c == ':' {
				p.diagAt(at, Error, "grace notes { are not closed before the bar line", "close the grace notes with }, e.g. {gab}A")
				g.Span = Span{at, j}
				p.add(g)
				return j
			} else {
				p.diagAt(p.posOf(j), Error, fmt.Sprintf("unexpected %q in grace notes", c), "grace groups hold only notes and chords")
			}
			_, size := utf8.DecodeRuneInString(src[j:e])
			j += size
		}
	}
	g.Span = Span{at, j}
	p.add(g)
	return j
}

func (p *parser) chord(vs *vstate, i, e int) int {
	ch, j := p.chordAt(vs, i, e, false)
	if ch != nil {
		p.add(ch)
	}
	return j
}

// chordAt reads [..] with its length at i.
func (p *parser) chordAt(vs *vstate, i, e int, grace bool) (*Chord, int) {
	src := p.src
	at := p.posOf(i)
	ch := &Chord{}
	j := i + 1
	closed := false
	for j < e {
		c := src[j]
		if c == ']' {
			j++
			closed = true
			break
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r': // line ends: a chord read across lines
			j++
		case isNoteStart(c):
			n, k := p.note(j, e)
			if n != nil && len(ch.Notes) < 32 {
				ch.Notes = append(ch.Notes, n)
				if k < e && src[k] == '-' {
					n.Tie = true
					k++
				}
			}
			j = k
		case c == '!' || c == '"':
			k := strings.IndexByte(src[j+1:e], c)
			if k < 0 {
				j = e
			} else {
				j += k + 2
			}
		case strings.IndexByte(".~HLMOPSTuv", c) >= 0:
			j++
		case c == '(' && !grace:
			// A slur may start or end on one note of a chord, [E(e]c): abcm2ps draws it
			// from that note, and abc2midi plays the chord as written.
			j = p.slurOpen(vs, j, false)
		case c == ')' && !grace:
			p.slurClose(vs, p.posOf(j))
			p.add(&Slur{Span: Span{p.posOf(j), j + 1}})
			j++
		default:
			if c == '|' || c == '[' {
				goto out
			}
			p.diagAt(p.posOf(j), Error, fmt.Sprintf("unexpected %q in a chord", c), "chords hold only notes, e.g. [CEG]")
			_, size := utf8.DecodeRuneInString(src[j:e])
			j += size
		}
	}
out:
	if !closed {
		p.diagAt(at, Error, "chord [ is not closed", "close the chord with ], e.g. [CEG]2")
	}
	ch.Length, j = p.length(at, j, e)
	ch.Span = Span{at, j}
	if len(ch.Notes) == 0 {
		p.diagAt(at, Error, "empty chord", "put notes inside the brackets, e.g. [CEG]")
		return nil, max(j, i+1)
	}
	if grace {
		for _, n := range ch.Notes {
			n.Duration = n.Length.Mul(ch.Length).Mul(vs.unit)
		}
		ch.Duration = ch.Notes[0].Duration
		return ch, j
	}
	first := ch.Notes[0].Length.Mul(ch.Length).Mul(vs.unit)
	d := p.timed(vs, first)
	f := d.Div(first)
	for _, n := range ch.Notes {
		n.Duration = n.Length.Mul(ch.Length).Mul(vs.unit).Mul(f)
	}
	ch.Duration = d
	vs.last = ch
	vs.lastTie, vs.lastEnd = ch, j
	vs.hasNotes = true
	return ch, j
}

// ending reads ending numbers starting at j (the element starts at i): 1, 1,3, 1-3.
func (p *parser) ending(vs *vstate, i, j, e int) int {
	src := p.src
	at := p.posOf(i)
	var nums []int
	for j < e && src[j] >= '0' && src[j] <= '9' {
		n := 0
		for j < e && src[j] >= '0' && src[j] <= '9' {
			if n < 100 {
				n = n*10 + int(src[j]-'0')
			}
			j++
		}
		if n > 99 || n == 0 {
			p.diagAt(at, Error, "bad ending number", "endings are numbered from 1, e.g. [1 and [2")
			n = max(1, min(n, 99))
		}
		if j+1 < e && src[j] == '-' && src[j+1] >= '0' && src[j+1] <= '9' {
			j++
			m := 0
			for j < e && src[j] >= '0' && src[j] <= '9' {
				if m < 100 {
					m = m*10 + int(src[j]-'0')
				}
				j++
			}
			for k := n; k <= m && k <= 99 && len(nums) < 16; k++ {
				nums = append(nums, k)
			}
		} else if len(nums) < 16 {
			nums = append(nums, n)
		}
		if j+1 < e && src[j] == ',' && src[j+1] >= '0' && src[j+1] <= '9' {
			j++
			continue
		}
		break
	}
	vs.barEnd = true
	p.add(&Ending{Span: Span{at, j}, Numbers: nums})
	return j
}

// bar reads a bar line at i, and an ending number right after it.
func (p *parser) bar(i, e int) int {
	src := p.src
	at := p.posOf(i)
	vs := p.current()
	j := i
	dotted := false
	if src[j] == '.' {
		dotted = true
		j++
	}
	lead := 0
	for j < e && src[j] == ':' {
		j++
		lead++
	}
	thick := false
	if j+1 < e && src[j] == '[' && src[j+1] == '|' {
		thick = true
		j++
	}
	pipes := 0
	for j < e && src[j] == '|' {
		j++
		pipes++
	}
	closeThick := false
	if pipes > 0 && j < e && src[j] == ']' {
		closeThick = true
		j++
	}
	trail := 0
	for j < e && src[j] == ':' && !(closeThick && j+1 < e && src[j+1] == '|') { // [|]:| is [|] and :|
		j++
		trail++
	}
	text := src[i:j]
	var kind BarKind
	switch {
	case pipes == 0 && lead+trail < 2:
		p.diagAt(at, Error, "stray :", "repeats are written |: and :|")
		return j
	case pipes == 0 || lead > 0 && trail > 0:
		kind = BarRepeatBoth
	case lead > 0:
		kind = BarRepeatEnd
	case trail > 0:
		kind = BarRepeatStart
	case dotted:
		kind = BarDotted
	case thick && closeThick:
		kind = BarInvisible
	case thick:
		kind = BarThickThin
	case closeThick:
		kind = BarThinThick
	case pipes >= 2:
		kind = BarDouble
	default:
		kind = BarSingle
	}
	b := &BarLine{Span: Span{at, j}, Kind: kind, Text: text}
	p.closeBar(vs, b)
	p.add(b)
	if j < e && src[j] >= '1' && src[j] <= '9' && kind != BarRepeatStart {
		j = p.ending(vs, j, j, e)
	}
	return j
}

// closeBar checks the length of the bar that b ends, and starts a new one.
func (p *parser) closeBar(vs *vstate, b *BarLine) {
	if vs.short != nil {
		// The bar line before b ended a short bar; b follows it with nothing between, so the
		// two are one bar line, and b may make it a section's end.
		if vs.hasNotes || !vs.bar.IsZero() || !b.sectionEnd() {
			p.diagAt(Pos{Line: vs.short.Line, Col: vs.short.Col}, Warning, vs.short.Message, vs.short.Suggestion)
		}
		vs.short = nil
	}
	want := vs.meter.Value()
	if vs.hasNotes && !vs.barSkip && !want.IsZero() && !vs.bar.IsZero() {
		c := vs.bar.Cmp(want)
		boundary := vs.barNum == 0 || vs.barEnd || b.sectionEnd() || vs.prevEnds
		if c > 0 || c < 0 && !boundary {
			has := vs.bar.MulInt(int64(vs.meter.Den))
			hasText := vs.bar.String()
			if has.Den == 1 {
				hasText = fmt.Sprintf("%d/%d", has.Num, vs.meter.Den)
			}
			word := "too long"
			if c < 0 {
				word = "too short"
			}
			at := vs.barStart
			msg := fmt.Sprintf("bar %d (line %d, column %d) is %s: it has %s, M:%s needs %s", vs.barNum+1, at.Line, at.Col, word, hasText, meterText(vs.meter), needText(vs.meter))
			diff := vs.bar.Sub(want)
			if c < 0 {
				diff = want.Sub(vs.bar)
			}
			rest := "z" + lengthText(diff.Div(vs.unit))
			sugg := fmt.Sprintf("it has %s too much: take notes worth %s (a %s) out of it, or check their lengths against L: and M:", diff, diff, rest)
			switch {
			case c > 0 && vs.fullLine > 0:
				sugg = fmt.Sprintf("the bar is full at the end of line %d: end that line with |, or check the note lengths against L: and M:", vs.fullLine)
			case c < 0:
				sugg = fmt.Sprintf("it lacks %s: add a note or a rest of that length (%s), or check the note lengths against L: and M:; only a pickup, or the bar before ||, :| or |], may be short", diff, rest)
			}
			if c < 0 {
				vs.short = &Diagnostic{Line: at.Line, Col: at.Col, Severity: Warning, Message: msg, Suggestion: sugg}
			} else {
				p.diagAt(at, Warning, msg, sugg)
			}
		}
	}
	empty := !vs.hasNotes && vs.bar.IsZero()
	if !empty {
		vs.barNum++
	}
	vs.prevEnds = b.sectionEnd() || vs.prevEnds && empty
	vs.bar = Rat{}
	vs.barSkip = false
	vs.barEnd = false
	vs.hasNotes = false
	vs.barStart = p.posOf(b.End)
	vs.lastTie = nil
	vs.last = nil
	vs.broken = Rat{}
	vs.tupAt = Pos{}
	vs.fullLine = 0
}

// lengthText writes a length in units of L: as ABC writes it after a note: "" for 1, "2",
// "/2", "3/2".
func lengthText(r Rat) string {
	switch {
	case r.Num == 1 && r.Den == 1:
		return ""
	case r.Den == 1:
		return fmt.Sprint(r.Num)
	case r.Num == 1:
		return fmt.Sprintf("/%d", r.Den)
	}
	return fmt.Sprintf("%d/%d", r.Num, r.Den)
}

// lineEnd notes, at the end of a line of music, whether the current bar is already full.
func (p *parser) lineEnd(vs *vstate, line int) {
	if want := vs.meter.Value(); vs.fullLine == 0 && vs.hasNotes && !vs.barSkip && !want.IsZero() && vs.bar.Cmp(want) == 0 {
		vs.fullLine = line
	}
}

func meterText(m Meter) string {
	switch m.Kind {
	case MeterCommon:
		return "C"
	case MeterCut:
		return "C|"
	}
	parts := make([]string, len(m.Num))
	for i, n := range m.Num {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, "+") + "/" + fmt.Sprint(m.Den)
}

func needText(m Meter) string {
	n := 0
	for _, x := range m.Num {
		n += x
	}
	return fmt.Sprintf("%d/%d", n, m.Den)
}
