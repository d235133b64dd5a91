// Package musicxml writes one parsed ABC tune (package abc) as a MusicXML 4.0 partwise score, so
// that a notation program (MuseScore, Finale, Sibelius, Dorico) can open it.
//
// Each voice becomes a part; each bar, a measure. The document carries the title and composers,
// the key (a non-traditional key for K: with explicit accidentals), the meter (senza-misura for
// free meter), the clef, the tempo, notes with their spelled pitch and printed accidentals, rests
// (whole-measure rests for Z and X), chords, ties, tuplets, grace notes, slurs, the common
// decorations, dynamics and hairpins, segno and coda, parts' labels as rehearsal marks, chord
// symbols as <harmony>, other quoted text as words, w: lyrics with their syllables, and repeats
// with first and second endings. Voice overlays (&) become a second voice in the measure. Notes
// of an eighth or shorter written together without a space are beamed, as ABC means. A length
// that no note value writes (B/3 under L:1/8) is a note of a tuplet the ABC leaves unsaid.
//
// Not written: secondary beams (notation programs draw them from the note types), stems, line
// and page breaks, the W: words after the tune, and %% directives.
package musicxml

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
)

// MediaType is the media type of an uncompressed MusicXML document.
const MediaType = "application/vnd.recordare.musicxml+xml"

// Limits bound what one conversion makes.
const (
	// MaxMeasures bounds the measures of one part (Z rests count each of their bars).
	MaxMeasures = 20000
	// MaxScoreMeasures bounds the measures of all parts together.
	MaxScoreMeasures = 100000
	// MaxDivisions bounds the divisions of a quarter note that the tune's durations need.
	MaxDivisions = 1 << 20
	// MaxBytes bounds the document.
	MaxBytes = 32 << 20
)

// ErrNoMusic is returned for a tune with no notes or rests in any voice.
var ErrNoMusic = errors.New("musicxml: the tune has no notes or rests")

// Score is a converted tune.
type Score struct {
	// Doc is the MusicXML document.
	Doc []byte
	// Parts is the number of parts (voices with music); Measures, the measures of the longest.
	Parts, Measures int
}

// Convert writes t as a MusicXML 4.0 partwise document.
func Convert(t *abc.Tune) (*Score, error) {
	var parts []*part
	left := MaxScoreMeasures
	for _, v := range t.Voices {
		p, err := convertVoice(t, v, &left)
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue
		}
		p.id = fmt.Sprintf("P%d", len(parts)+1)
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil, ErrNoMusic
	}
	if len(parts) == 1 && parts[0].name == "" && len(t.Voices) == 1 {
		parts[0].name = "Music"
	}
	div, err := divisions(parts)
	if err != nil {
		return nil, err
	}
	doc, err := write(t, parts, div)
	if err != nil {
		return nil, err
	}
	s := &Score{Doc: doc, Parts: len(parts)}
	for _, p := range parts {
		s.Measures = max(s.Measures, len(p.measures))
	}
	return s, nil
}

// part is one voice's measures.
type part struct {
	id, name string
	measures []*measure
}

// measure is one bar: its items in order, and its bar lines.
type measure struct {
	items       []any // *note, *harmony, *direction, *attributes, *backup
	left, right *barline
	elapsed     abc.Rat // of the first voice
	hasMusic    bool
}

// barline is a bar line with its repeat and ending.
type barline struct {
	style        string // light-light, light-heavy, heavy-light, dotted, none or ""
	repeat       string // forward, backward or ""
	endingNumber string
	endingType   string // start, stop, discontinue or ""
}

// attributes is a change of divisions, key, meter or clef; the first measure's sets divisions.
type attributes struct {
	divisions bool
	key       *abc.Key
	meter     *abc.Meter
	clef      *abc.Clef
}

// backup moves the time back to the measure's start, for an overlay.
type backup struct{ dur abc.Rat }

// note is one MusicXML note: a note, a rest, or one note of a chord.
type note struct {
	grace, slash bool
	chord        bool
	rest         bool
	measureRest  bool
	invisible    bool
	step         byte
	alter        int
	octave       int
	dur          abc.Rat // sounding, in whole notes; zero for grace notes
	typ          string  // note type, or "" when the written value has none
	dots         int
	accidental   string
	tieStart     bool
	tieStop      bool
	actual       int // time modification of a tuplet, 0 when none
	normal       int
	tupletStart  bool
	tupletStop   bool
	slurStarts   []int
	slurStops    []int
	marks        []mark
	lyrics       []lyric
	voice        int
	beam         string // begin, continue, end or ""
}

// mark is a notation on a note: group is articulations, ornaments, technical or "" (fermata).
type mark struct{ group, name string }

// lyric is one verse's syllable under a note.
type lyric struct {
	verse    int
	syllabic string
	text     string
	extend   bool
}

// harmony is a chord symbol.
type harmony struct {
	rootStep  byte
	rootAlter int
	kind      string
	kindText  string
	bassStep  byte
	bassAlter int
	hasBass   bool
}

// direction is words, a tempo mark or a dynamic above or below the staff.
type direction struct {
	placement string
	words     string
	rehearsal string // a part's label (P:A)
	sign      string // segno or coda
	wedge     string // crescendo, diminuendo or stop (a hairpin)
	dynamic   string
	beatUnit  string // metronome, with perMinute
	beatDots  int
	perMinute int
	tempo     float64 // quarter notes a minute, for <sound>
}

// walker converts one voice.
type walker struct {
	t        *abc.Tune
	measures []*measure
	cur      *measure
	sig      [7]int
	barAcc   [7]int
	barSet   [7]bool
	unit     abc.Rat
	meter    abc.Meter
	voice    int // 1, or 2 after an overlay
	// the notes whose tie is open, by pitch: the next note or chord closes the ties it matches,
	// and the others end nowhere and are dropped
	ties map[[2]int][]*note
	// the tuplet in force: notes left, and its ratio
	tupLeft, tupP, tupQ int
	tupFirst            bool
	// the run of notes in a tuplet the ABC leaves unsaid (B/3c/3d/3): its ratio, its length so
	// far, and its last note, which ends the tuplet when the run does
	impP, impQ   int
	impLen       abc.Rat
	impLast      *note
	slurs        []int         // open slur numbers
	pendingSlurs []int         // slur numbers that start on the next note
	slurFrom     map[int]*note // the note each open slur starts on
	lastNotes    []*note       // the last note or chord, for a slur's stop
	decos        []string
	openEnding   string
	// lyrics: the notes since the last w: block, the block's notes, and the verse
	lyricNotes, lyricBlock []lyricNote
	verse                  int
	afterLyrics            bool
	// beams: the end of the last element, whether the elements since the last note, chord or
	// rest followed one another without a space, and the notes beamed so far
	lastEnd  int
	adjacent bool
	lastTie  bool
	beamRun  []*note
	left     *int // measures the score may still have
	err      error
}

// lyricNote is a note a syllable can go under, with its measure.
type lyricNote struct {
	n       *note
	measure int
}

// convertVoice converts one voice; left counts down the measures the score may still have.
func convertVoice(t *abc.Tune, v *abc.Voice, left *int) (*part, error) {
	w := &walker{t: t, sig: t.Header.Key.Signature(), unit: t.Header.UnitLength, meter: t.Header.Meter,
		voice: 1, ties: map[[2]int][]*note{}, slurFrom: map[int]*note{}, left: left}
	w.cur = &measure{}
	key := t.Header.Key
	clef := key.Clef
	name := ""
	if v.Def != nil {
		if v.Def.Clef.Name != "" {
			clef = v.Def.Clef
		}
		name = v.Def.Name
		if name == "" {
			name = v.Def.ID
		}
	}
	meter := t.Header.Meter
	w.cur.items = append(w.cur.items, &attributes{divisions: true, key: &key, meter: &meter, clef: &clef})
	if q := t.Header.Tempo; q != nil {
		if d := tempoDirection(q); d != nil {
			w.cur.items = append(w.cur.items, d)
		}
	}
	music := false
	for _, el := range v.Elements {
		w.follow(el)
		switch e := el.(type) {
		case *abc.Note, *abc.Chord, *abc.Rest:
			music = true
		case *abc.BarLine:
			w.bar(e)
		case *abc.Ending:
			w.ending(e)
		case *abc.InlineField:
			w.field(e)
		case *abc.Tuplet:
			w.tupLeft, w.tupP, w.tupQ, w.tupFirst = e.R, e.P, e.Q, true
		case *abc.Slur:
			w.slur(e)
		case *abc.Decoration:
			if len(w.decos) < 16 {
				w.decos = append(w.decos, e.Name)
			}
		case *abc.ChordSymbol:
			w.chordSymbol(e.Text)
		case *abc.Annotation:
			w.annotation(e)
		case *abc.GraceGroup:
			w.grace(e)
		case *abc.Lyrics:
			w.lyrics(e.Text)
			continue
		case *abc.Overlay:
			w.overlay()
		}
		switch el.(type) {
		case *abc.Note, *abc.Chord, *abc.Rest:
			w.timed(el)
			w.afterLyrics = false
		}
		if w.err != nil {
			return nil, w.err
		}
	}
	if !music {
		return nil, nil
	}
	w.dropTies(nil)
	w.dropSlurs()
	w.endBeam()
	if w.cur.hasMusic || len(w.measures) == 0 {
		w.push()
	} else if w.cur.left != nil && len(w.measures) > 0 {
		// A bar line with nothing after it: its left-hand marks have no measure to go on.
		w.cur.left = nil
	}
	if w.openEnding != "" {
		last := w.measures[len(w.measures)-1]
		if last.right == nil {
			last.right = &barline{}
		}
		if last.right.endingType == "" {
			last.right.endingNumber, last.right.endingType = w.openEnding, "discontinue"
		}
	}
	if len(w.measures) > MaxMeasures {
		return nil, fmt.Errorf("musicxml: a voice has %d bars, more than the %d allowed", len(w.measures), MaxMeasures)
	}
	return &part{name: name, measures: w.measures}, nil
}

// follow notes whether el comes right after the element before it, with no space between (a
// tied note's - is the one byte that may stand between): ABC beams the notes written so.
func (w *walker) follow(el abc.Element) {
	gap := el.Position().Offset - w.lastEnd
	if gap != 0 && !(gap == 1 && w.lastTie) {
		w.adjacent = false
	}
	w.lastEnd, w.lastTie = el.EndOffset(), false
	switch e := el.(type) {
	case *abc.LineBreak:
		w.adjacent = false
	case *abc.Note:
		w.lastTie = e.Tie
	case *abc.Chord:
		w.lastTie = e.Tie
	}
}

// beam adds the first note of a note or chord to the beamed run, or ends the run: a note of an
// eighth or shorter, written as one note, joins the run when it follows the last note with no
// space between in the same bar.
func (w *walker) beam(x *note, pieces int) {
	beamable := x != nil && !x.rest && pieces == 1 && !x.grace
	if beamable {
		switch x.typ {
		case "eighth", "16th", "32nd", "64th", "128th", "256th":
		default:
			beamable = false
		}
	}
	if !beamable || !w.adjacent || len(w.beamRun) > 0 && w.beamRun[0].voice != x.voice {
		w.endBeam()
	}
	if beamable {
		w.beamRun = append(w.beamRun, x)
	}
	w.adjacent = true
}

// endBeam writes the run of beamed notes, when it has two or more.
func (w *walker) endBeam() {
	if n := len(w.beamRun); n >= 2 {
		for i, x := range w.beamRun {
			switch i {
			case 0:
				x.beam = "begin"
			case n - 1:
				x.beam = "end"
			default:
				x.beam = "continue"
			}
		}
	}
	w.beamRun = w.beamRun[:0]
}

// impliedRun groups the notes of a tuplet the ABC leaves unsaid: a note of such a tuplet joins
// the run of the notes before it with the same ratio, and the run ends when its length is one
// that note values write (three 16ths of a triplet make an eighth), at any other note, or at a
// bar line.
func (w *walker) impliedRun(implied bool, p, q int, dur abc.Rat, first, last *note) {
	if !implied {
		w.endImplied()
		return
	}
	if w.impLast == nil || w.impP != p || w.impQ != q {
		w.endImplied()
		first.tupletStart = true
		w.impP, w.impQ, w.impLen = p, q, abc.Rat{Num: 0, Den: 1}
	}
	w.impLast = last
	w.impLen = w.impLen.Add(dur)
	if d := w.impLen.Den; d > 0 && d&(d-1) == 0 {
		w.endImplied()
	}
}

// endImplied ends the run of an unsaid tuplet, if one is open.
func (w *walker) endImplied() {
	if w.impLast != nil {
		w.impLast.tupletStop = true
		w.impLast = nil
	}
}

// push ends the current measure and starts the next.
func (w *walker) push() {
	w.endBeam()
	w.endImplied()
	w.cur.items = plainRests(w.cur.items)
	w.measures = append(w.measures, w.cur)
	w.cur = &measure{}
	w.barAcc, w.barSet = [7]int{}, [7]bool{}
	w.voice = 1
	*w.left--
	switch {
	case w.err != nil:
	case len(w.measures) > MaxMeasures:
		w.err = fmt.Errorf("musicxml: a voice has more than %d bars", MaxMeasures)
	case *w.left < 0:
		w.err = fmt.Errorf("musicxml: the voices have more than %d bars in all", MaxScoreMeasures)
	}
}

func (w *walker) bar(b *abc.BarLine) {
	style, repeatEnd, repeatStart := "", false, false
	switch b.Kind {
	case abc.BarDouble:
		style = "light-light"
	case abc.BarThinThick:
		style = "light-heavy"
	case abc.BarThickThin:
		style = "heavy-light"
	case abc.BarRepeatEnd:
		style, repeatEnd = "light-heavy", true
	case abc.BarRepeatBoth:
		style, repeatEnd, repeatStart = "light-heavy", true, true
	case abc.BarRepeatStart:
		repeatStart = true
	case abc.BarDotted:
		style = "dotted"
	case abc.BarInvisible:
		style = "none"
	}
	closes := b.Kind != abc.BarSingle && b.Kind != abc.BarDotted && b.Kind != abc.BarInvisible
	if !w.cur.hasMusic {
		// A bar line before any music of the measure (at the start, or doubled): only a repeat
		// start and the close of an ending have something to say.
		if closes && w.openEnding != "" && len(w.measures) > 0 {
			w.stopEnding(w.measures[len(w.measures)-1])
		}
		if repeatEnd && len(w.measures) > 0 {
			prev := w.measures[len(w.measures)-1]
			if prev.right == nil {
				prev.right = &barline{}
			}
			prev.right.style, prev.right.repeat = "light-heavy", "backward"
		}
		if repeatStart {
			w.cur.left = &barline{style: "heavy-light", repeat: "forward"}
		}
		return
	}
	if style != "" || repeatEnd {
		w.cur.right = &barline{style: style}
		if repeatEnd {
			w.cur.right.repeat = "backward"
		}
	}
	if closes && w.openEnding != "" {
		w.stopEnding(w.cur)
	}
	w.push()
	if repeatStart {
		w.cur.left = &barline{style: "heavy-light", repeat: "forward"}
	}
}

// stopEnding closes the open ending on m's right bar line.
func (w *walker) stopEnding(m *measure) {
	if m.right == nil {
		m.right = &barline{}
	}
	m.right.endingNumber, m.right.endingType = w.openEnding, "stop"
	w.openEnding = ""
}

func (w *walker) ending(e *abc.Ending) {
	var nums []string
	for _, n := range e.Numbers {
		if n < 1 || n > 999 {
			return
		}
		nums = append(nums, fmt.Sprint(n))
		if len(nums) > 16 {
			return
		}
	}
	if len(nums) == 0 {
		return
	}
	if w.openEnding != "" && len(w.measures) > 0 {
		w.stopEnding(w.measures[len(w.measures)-1])
	}
	if w.cur.left == nil {
		w.cur.left = &barline{}
	}
	w.cur.left.endingNumber, w.cur.left.endingType = strings.Join(nums, ", "), "start"
	w.openEnding = w.cur.left.endingNumber
}

func (w *walker) field(f *abc.InlineField) {
	switch {
	case f.Key != nil:
		k := *f.Key
		w.sig = k.Signature()
		w.barAcc, w.barSet = [7]int{}, [7]bool{}
		a := &attributes{key: &k}
		if k.Clef.Name != "" {
			c := k.Clef
			a.clef = &c
		}
		w.cur.items = append(w.cur.items, a)
	case f.Meter != nil:
		m := *f.Meter
		w.meter = m
		w.cur.items = append(w.cur.items, &attributes{meter: &m})
	case !f.Unit.IsZero():
		w.unit = f.Unit
	case f.Tempo != nil:
		if d := tempoDirection(f.Tempo); d != nil {
			w.cur.items = append(w.cur.items, d)
		}
	case f.Field.Name == 'P' && strings.TrimSpace(f.Field.Value) != "":
		// A part's label in the body (P:A) is a rehearsal mark.
		w.cur.items = append(w.cur.items, &direction{placement: "above", rehearsal: strings.TrimSpace(f.Field.Value)})
	}
}

func (w *walker) slur(s *abc.Slur) {
	if s.Open {
		n := 1
		for slicesContains(w.slurs, n) || slicesContains(w.pendingSlurs, n) {
			n++
		}
		if n > 6 { // the schema's number-level
			return
		}
		w.pendingSlurs = append(w.pendingSlurs, n)
		return
	}
	if len(w.pendingSlurs) > 0 { // () with no note inside
		w.pendingSlurs = w.pendingSlurs[:len(w.pendingSlurs)-1]
		return
	}
	if len(w.slurs) == 0 || len(w.lastNotes) == 0 {
		return
	}
	n := w.slurs[len(w.slurs)-1]
	w.slurs = w.slurs[:len(w.slurs)-1]
	from := w.slurFrom[n]
	delete(w.slurFrom, n)
	if from == w.lastNotes[0] {
		// A slur over one note ((B2)) slurs nothing: it is not written.
		from.slurStarts = slices.DeleteFunc(from.slurStarts, func(x int) bool { return x == n })
		return
	}
	w.lastNotes[0].slurStops = append(w.lastNotes[0].slurStops, n)
}

// startSlurs starts the slurs waiting for a note on x.
func (w *walker) startSlurs(x *note) {
	x.slurStarts = append(x.slurStarts, w.pendingSlurs...)
	for _, n := range w.pendingSlurs {
		w.slurFrom[n] = x
	}
	w.slurs = append(w.slurs, w.pendingSlurs...)
	w.pendingSlurs = nil
}

// dropSlurs takes back the start of every slur still open at the end of the voice: a slur the
// ABC never closes has no note to end on.
func (w *walker) dropSlurs() {
	for _, n := range w.slurs {
		if from := w.slurFrom[n]; from != nil {
			from.slurStarts = slices.DeleteFunc(from.slurStarts, func(x int) bool { return x == n })
		}
	}
	w.slurs, w.pendingSlurs = nil, nil
	clear(w.slurFrom)
}

func slicesContains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (w *walker) annotation(a *abc.Annotation) {
	text := strings.TrimSpace(a.Text)
	if text == "" {
		return
	}
	place := "above"
	if a.Placement == '_' {
		place = "below"
	}
	w.cur.items = append(w.cur.items, &direction{placement: place, words: text})
}

func (w *walker) chordSymbol(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if h := parseHarmony(text); h != nil {
		w.cur.items = append(w.cur.items, h)
		return
	}
	w.cur.items = append(w.cur.items, &direction{placement: "above", words: text})
}

func (w *walker) overlay() {
	if w.cur.elapsed.IsZero() {
		return
	}
	w.endBeam()
	w.endImplied()
	w.cur.items = append(w.cur.items, &backup{dur: w.cur.elapsed})
	w.voice = 2
}

// pitch spells n under the key and the bar's accidentals, recording its own accidental.
func (w *walker) pitch(n *abc.Note, x *note) {
	li := n.Letter - 'A'
	alter := w.sig[li]
	if n.Accidental != abc.NoAccidental {
		alter = n.Accidental.Semitones()
		w.barAcc[li], w.barSet[li] = alter, true
		x.accidental = accidentalNames[n.Accidental]
	} else if w.barSet[li] {
		alter = w.barAcc[li]
	}
	x.step, x.alter, x.octave = n.Letter, alter, 4+n.Octave
	x.octave = max(0, min(9, x.octave))
	x.voice = w.voice
}

var accidentalNames = map[abc.Accidental]string{
	abc.Natural: "natural", abc.Sharp: "sharp", abc.Flat: "flat",
	abc.DoubleSharp: "double-sharp", abc.DoubleFlat: "flat-flat",
}

func (w *walker) grace(g *abc.GraceGroup) {
	for _, el := range g.Notes {
		var ns []*abc.Note
		switch e := el.(type) {
		case *abc.Note:
			ns = []*abc.Note{e}
		case *abc.Chord:
			ns = e.Notes
		}
		for i, n := range ns {
			x := &note{grace: true, slash: g.Acciaccatura, chord: i > 0}
			w.pitch(n, x)
			if i == 0 {
				// A slur opened before the grace notes ({GA}B2) starts on the first of them.
				w.startSlurs(x)
			}
			x.typ = "eighth"
			if vs := values(n.Length.Mul(w.unit)); len(vs) == 1 {
				x.typ, x.dots = vs[0].typ, vs[0].dots
			}
			w.cur.items = append(w.cur.items, x)
		}
	}
}

// timed converts a note, chord or rest, splitting a value that no single note type writes into
// tied notes.
func (w *walker) timed(el abc.Element) {
	var (
		ns   []*abc.Note
		dur  abc.Rat
		rest *abc.Rest
		tie  bool
	)
	switch e := el.(type) {
	case *abc.Note:
		ns, dur, tie = []*abc.Note{e}, e.Duration, e.Tie
	case *abc.Chord:
		if len(e.Notes) == 0 {
			return
		}
		ns, dur, tie = e.Notes, e.Duration, e.Tie
	case *abc.Rest:
		rest, dur = e, e.Duration
	}
	if rest != nil && (rest.Kind == abc.RestMeasures || rest.Kind == abc.RestInvisibleMeasure) {
		w.dropTies(nil)
		w.measureRests(rest)
		return
	}
	if dur.Num <= 0 {
		w.decos = nil
		return
	}
	// The tuplet in force writes its notes at P/Q of their sounding value.
	actual, normal := 0, 0
	written := dur
	first, last := false, false
	if w.tupLeft > 0 {
		actual, normal = w.tupP, w.tupQ
		written = dur.Mul(abc.R(int64(actual), int64(normal)))
		first, last = w.tupFirst, w.tupLeft == 1
		w.tupFirst = false
		w.tupLeft--
	}
	pieces := values(written)
	implied := false
	if len(pieces) == 0 {
		// A length that no note type writes (a third of an eighth, B/3 under L:1/8) is a note of
		// a tuplet the ABC leaves unsaid: a 16th of a triplet. A notation program reads a note's
		// length from its type and time modification, and a note with no type as a quarter.
		if m, n := impliedTuplet(written); m > 0 {
			if vs := values(written.Mul(abc.R(m, n))); len(vs) > 0 {
				pieces = vs
				implied = actual == 0
				if actual == 0 {
					actual, normal = 1, 1
				}
				a, q := int64(actual)*m, int64(normal)*n
				g := gcd(a, q)
				actual, normal = int(a/g), int(q/g)
			}
		}
	}
	if len(pieces) == 0 {
		// No note type writes it: one note with its duration and no type.
		pieces = []value{{}}
	}
	var sounding []abc.Rat
	if len(pieces) == 1 {
		sounding = []abc.Rat{dur}
	} else {
		for _, p := range pieces {
			s := p.len
			if actual != 0 {
				s = s.Mul(abc.R(int64(normal), int64(actual)))
			}
			sounding = append(sounding, s)
		}
	}
	var firstNotes, lastNotes []*note
	// The spelled pitches, once per written note (the bar's accidentals change as they go).
	var spelled []note
	for _, n := range ns {
		var x note
		w.pitch(n, &x)
		spelled = append(spelled, x)
	}
	closed := map[[2]int]bool{} // the open ties this note or chord continues
	for pi, p := range pieces {
		var group []*note
		if rest != nil {
			x := &note{rest: true, invisible: rest.Kind == abc.RestInvisible, voice: w.voice}
			group = append(group, x)
		}
		for i := range ns {
			x := spelled[i]
			x.chord = i > 0
			if pi > 0 {
				x.accidental = ""
			}
			cp := x
			group = append(group, &cp)
		}
		for _, x := range group {
			x.dur, x.typ, x.dots = sounding[pi], p.typ, p.dots
			x.actual, x.normal = actual, normal
			if rest == nil {
				k := [2]int{int(x.step), x.octave*16 + x.alter + 8}
				if pi == 0 {
					if len(w.ties[k]) > 0 {
						x.tieStop = true
						closed[k] = true
					}
				} else {
					x.tieStop = true
				}
				if pi < len(pieces)-1 {
					x.tieStart = true
				}
			}
			w.cur.items = append(w.cur.items, x)
		}
		if pi == 0 {
			firstNotes = group
			w.dropTies(closed)
		}
		lastNotes = group
	}
	if rest == nil && tie {
		for _, x := range lastNotes {
			x.tieStart = true
			k := [2]int{int(x.step), x.octave*16 + x.alter + 8}
			w.ties[k] = append(w.ties[k], x)
		}
	}
	w.beam(firstNotes[0], len(pieces))
	if first {
		firstNotes[0].tupletStart = true
	}
	if last {
		lastNotes[0].tupletStop = true
	}
	w.impliedRun(implied, actual, normal, dur, firstNotes[0], lastNotes[0])
	if rest == nil {
		w.startSlurs(firstNotes[0])
		w.lastNotes = lastNotes
		w.marks(firstNotes[0])
		w.lyricNotes = append(w.lyricNotes, lyricNote{firstNotes[0], len(w.measures)})
	} else {
		w.marks(firstNotes[0])
	}
	w.decos = nil
	if w.voice == 1 {
		w.cur.elapsed = w.cur.elapsed.Add(dur)
	}
	w.cur.hasMusic = true
}

// plainRests writes a whole-measure rest (Z, X) that shares its voice's measure with other notes
// or rests ("x2 X|", "Z c|") as ordinary rests of its length: a reader takes a whole-measure rest
// to fill its measure and times the rest of the voice without it.
func plainRests(items []any) []any {
	var shared [3]bool // by voice: a whole-measure rest, and other notes or rests
	var whole [3]bool
	for _, it := range items {
		if x, ok := it.(*note); ok && !x.grace && !x.chord && x.voice >= 1 && x.voice <= 2 {
			if x.measureRest {
				whole[x.voice] = true
			} else {
				shared[x.voice] = true
			}
		}
	}
	if !(whole[1] && shared[1]) && !(whole[2] && shared[2]) {
		return items
	}
	out := make([]any, 0, len(items)+4)
	for _, it := range items {
		x, ok := it.(*note)
		if !ok || !x.measureRest || !shared[x.voice] {
			out = append(out, it)
			continue
		}
		vs := values(x.dur)
		if len(vs) == 0 {
			vs = []value{{len: x.dur}}
		}
		for _, v := range vs {
			out = append(out, &note{rest: true, invisible: x.invisible, voice: x.voice, dur: v.len, typ: v.typ, dots: v.dots, marks: x.marks})
			x.marks = nil
		}
	}
	return out
}

// dropTies ends the open ties, except those in keep: a tie to a note that does not come (a chord
// tied to one of its notes, a tie before a rest or at the end) is not written, as a reader
// would find it open.
func (w *walker) dropTies(keep map[[2]int]bool) {
	for k, ns := range w.ties {
		if !keep[k] {
			for _, x := range ns {
				x.tieStart = false
			}
		}
		delete(w.ties, k)
	}
}

// measureRests writes Z and X: one whole-measure rest in each of its bars.
func (w *walker) measureRests(r *abc.Rest) {
	w.endBeam()
	w.endImplied()
	n := max(r.Measures, 1)
	bar := w.meter.Value()
	if bar.IsZero() {
		bar = r.Duration.Div(abc.R(int64(n), 1))
	}
	if bar.Num <= 0 {
		bar = abc.R(1, 1)
	}
	for i := 0; i < n && w.err == nil; i++ {
		if i > 0 {
			w.push()
		}
		w.cur.items = append(w.cur.items, &note{rest: true, measureRest: true, invisible: r.Kind == abc.RestInvisibleMeasure,
			dur: bar, voice: w.voice})
		w.cur.elapsed = w.cur.elapsed.Add(bar)
		w.cur.hasMusic = true
	}
	w.decos = nil
}

// marks turns the decorations waiting for a note into notations or dynamics.
func (w *walker) marks(x *note) {
	for _, d := range w.decos {
		if m, ok := decorationMarks[d]; ok {
			if x.rest && m.group != "" {
				continue
			}
			x.marks = append(x.marks, m)
			continue
		}
		switch d {
		case "pppp", "ppp", "pp", "p", "mp", "mf", "f", "ff", "fff", "ffff", "sfz":
			// The dynamic goes before the note it marks.
			w.insertBefore(x, &direction{placement: "below", dynamic: d})
		case "crescendo(", "<(":
			w.insertBefore(x, &direction{placement: "below", wedge: "crescendo"})
		case "diminuendo(", ">(":
			w.insertBefore(x, &direction{placement: "below", wedge: "diminuendo"})
		case "crescendo)", "<)", "diminuendo)", ">)":
			// A hairpin ends where its closing mark stands, before the note after it.
			w.insertBefore(x, &direction{placement: "below", wedge: "stop"})
		case "segno", "coda":
			w.insertBefore(x, &direction{placement: "above", sign: d})
		}
	}
}

// insertBefore puts d just before x in the current measure.
func (w *walker) insertBefore(x *note, d *direction) {
	items := w.cur.items
	for i := len(items) - 1; i >= 0; i-- {
		if items[i] == any(x) {
			w.cur.items = append(items[:i], append([]any{d}, items[i:]...)...)
			return
		}
	}
	w.cur.items = append(items, d)
}

var decorationMarks = map[string]mark{
	"staccato": {"articulations", "staccato"}, "accent": {"articulations", "accent"},
	">": {"articulations", "accent"}, "emphasis": {"articulations", "accent"},
	"tenuto": {"articulations", "tenuto"}, "marcato": {"articulations", "strong-accent"},
	"wedge": {"articulations", "staccatissimo"}, "breath": {"articulations", "breath-mark"},
	"trill": {"ornaments", "trill-mark"}, "turn": {"ornaments", "turn"},
	"invertedturn": {"ornaments", "inverted-turn"}, "lowermordent": {"ornaments", "mordent"},
	"mordent": {"ornaments", "mordent"}, "uppermordent": {"ornaments", "inverted-mordent"},
	"pralltriller": {"ornaments", "inverted-mordent"},
	"upbow":        {"technical", "up-bow"}, "downbow": {"technical", "down-bow"},
	"open": {"technical", "open-string"}, "thumb": {"technical", "thumb-position"},
	"fermata": {"", "fermata"},
}
