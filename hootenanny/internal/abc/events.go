package abc

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Event is one sounding note of a voice, in written order (repeats not expanded).
type Event struct {
	// Onset and Duration are fractions of a whole note from the start of the voice.
	Onset, Duration Rat
	// Pitch is the MIDI note number (middle C, written C, is 60) after the key signature,
	// accidentals within the bar, and ties. Clef transpose= is not applied.
	Pitch int
	// Grace marks grace notes. They are given the onset of the note they ornament and their
	// written duration: the converter decides how much time they take from it.
	Grace        bool
	Acciaccatura bool
	// Bar is the index of the bar in Bars.
	Bar int
	// Pos is where the note (the first one, for tied notes) is written.
	Pos Pos
	// Decorations written before the note or its chord (names as in Decoration).
	Decorations []string
	// RestDecorations were written before rests, or before the continuations of tied notes,
	// between the previous note and this one (a dynamics mark there, !p!z or c2-!p!c2, takes
	// effect from this note on).
	RestDecorations []string
	// Slurred marks a note under a slur that goes on after it (not the slur's last note);
	// Tied one that a tie joined to the notes after it.
	Slurred, Tied bool
	// Upper is the pitch of the next note letter up, in the key and the bar's accidentals: the
	// other note of a trill; Lower that of the next letter down.
	Upper, Lower int
	// Roll marks a note written with the roll shorthand ~ (not !roll!, which abc2midi ignores).
	Roll bool
	// Written is the note's own sounding length, before ties joined later notes to it; Plain
	// its length from L: and its multiplier alone, before broken rhythm and tuplets; Unit the
	// unit note length (L:) where it is written: all fractions of a whole note.
	Written, Plain, Unit Rat
}

// Change is a mid-tune change of tempo, meter, key or unit length (an InlineField), at the
// onset where it takes effect.
type Change struct {
	Onset Rat
	Field *InlineField
}

// Bar is one bar of a voice, as written.
type Bar struct {
	Start, End  Rat // onsets, as in Event
	First, Last int // element indexes [First, Last) in the voice
	// Endings are the ending numbers when the bar starts an ending ([1, :|2).
	Endings []int
	// InEnding are the numbers of the ending this bar belongs to, started here or earlier.
	InEnding    []int
	RepeatStart bool // the bar line before it starts a repeated section
	RepeatEnd   bool // the bar line after it ends a repeated section
	SectionEnd  bool // the bar line after it is ||, |], [| or a repeat sign
	// Part is the label of the body P: field that the bar's music follows in the source (in
	// any voice, so one P: line before the voices' sections labels them all), or "".
	Part string
}

// EventOptions tune how Events reads the music.
type EventOptions struct {
	// OctaveAccidentals limits an accidental to notes of the same octave for the rest of the
	// bar. By default it applies to that letter in every octave, as abc2midi does by default.
	OctaveAccidentals bool
	// Fermata doubles the length of a note, chord or rest marked with a fermata (H,
	// !fermata!), moving what follows, as abc2midi plays it; by default the written time
	// line is kept.
	Fermata bool
	// ABC2MIDI reads the music as abc2midi does where it departs from the standard: a broken
	// rhythm (A>B) applies only between two notes of the same written length, a fermata
	// counting double and a staccato dot half (d>B/, HA>B, A>.B play as written, .A>.B
	// takes the rhythm); a one-letter decoration (H, T, ~, .)
	// before a bar line, slur, chord symbol or grace notes is forgotten. By default the
	// standard's reading is kept. Chords take broken rhythm either way.
	ABC2MIDI bool
}

// ErrNoVoice is returned for a voice id that the tune does not have.
var ErrNoVoice = errors.New("abc: no such voice")

// Events returns the notes of a voice as a flat list: ties merged, chord notes as simultaneous
// events, grace notes marked. Voice "" is a tune's only voice when it has no V: fields.
func (t *Tune) Events(voice string) ([]Event, error) {
	w, err := t.walk(voice, EventOptions{})
	return w.events, err
}

// EventsWith is Events with options.
func (t *Tune) EventsWith(voice string, opts EventOptions) ([]Event, error) {
	w, err := t.walk(voice, opts)
	return w.events, err
}

// Bars returns the bars of a voice in written order, each with its repeat marks and endings.
func (t *Tune) Bars(voice string) ([]Bar, error) {
	w, err := t.walk(voice, EventOptions{})
	return w.bars, err
}

// Changes returns the fields in a voice's body that change tempo, meter, key or unit length,
// with their onsets (on the voice's written time line, as in Event).
func (t *Tune) Changes(voice string) ([]Change, error) {
	w, err := t.walk(voice, EventOptions{})
	return w.changes, err
}

// Timeline returns what Events, Bars and Changes return for a voice, from one reading of it.
func (t *Tune) Timeline(voice string) ([]Event, []Bar, []Change, error) {
	w, err := t.walk(voice, EventOptions{})
	return w.events, w.bars, w.changes, err
}

type walked struct {
	events  []Event
	bars    []Bar
	changes []Change
	cues    []Cue
}

// Cue is a place on a voice's written time line: a chord symbol ("G", "D7" above the notes),
// or a note, chord or rest, with the byte offset where it is written. A converter uses the
// chord symbols to play an accompaniment, and the others to find where a directive written
// between the notes (a %%MIDI line, which the parser skips) takes effect.
type Cue struct {
	Offset int
	Onset  Rat
	// Bar is the index of the bar in Bars.
	Bar int
	// Symbol is the text of a chord symbol; IsSymbol tells a chord symbol from a note.
	Symbol   string
	IsSymbol bool
}

// TimelineCues returns what Timeline returns for a voice and its cues: the chord symbols,
// notes, chords and rests in written order, with their onsets (as in Event) and bars.
func (t *Tune) TimelineCues(voice string) ([]Event, []Bar, []Change, []Cue, error) {
	return t.TimelineCuesWith(voice, EventOptions{})
}

// TimelineCuesWith is TimelineCues with options.
func (t *Tune) TimelineCuesWith(voice string, opts EventOptions) ([]Event, []Bar, []Change, []Cue, error) {
	w, err := t.walk(voice, opts)
	return w.events, w.bars, w.changes, w.cues, err
}

var letterSemitone = [7]int{9, 11, 0, 2, 4, 5, 7} // A B C D E F G

// MIDIPitch is the MIDI number of a letter ('A'..'G'), octave (as in Note) and alteration.
func MIDIPitch(letter byte, octave, alter int) int {
	return 60 + 12*octave + letterSemitone[letter-'A'] + alter
}

type tieKey struct {
	letter byte
	octave int
}

func (t *Tune) walk(voice string, opts EventOptions) (walked, error) {
	v := t.Voice(voice)
	if v == nil {
		return walked{}, fmt.Errorf("%w %q", ErrNoVoice, voice)
	}
	var changes []Change
	var decos, restDecos []string
	var decoShort []bool // which of decos were written as one letter (H, T, ~, .)
	marks := t.partMarks()
	sig := t.Header.Key.Signature()
	var (
		events    []Event
		bars      []Bar
		now       Rat
		barAcc    [7]int
		barSet    [7]bool
		octAcc    = map[tieKey]int{}
		open      = map[tieKey]int{} // tied notes waiting for their continuation: event index
		content   bool
		cur       = Bar{First: 0}
		cues      []Cue
		slurs     int   // slurs open
		lastAt    = -1  // index in events of the last note or chord's first event
		roll      bool  // a ~ before the next note
		prev      *Note // the last element, when a note
		prevScale Rat   // how abc2midi's marks scale prev before it compares a broken pair (lengthMark)
		unbreak   Rat   // the next note's broken-rhythm factor to undo (ABC2MIDI), or zero
		rollUnit  Rat   // the factor of the next note's unit for its roll (ABC2MIDI), or zero
		unit      = t.Header.UnitLength
	)
	resetBar := func() {
		barAcc, barSet = [7]int{}, [7]bool{}
		clear(octAcc)
	}
	alter := func(n *Note) int {
		li := n.Letter - 'A'
		k := tieKey{n.Letter, n.Octave}
		if n.Accidental != NoAccidental {
			a := n.Accidental.Semitones()
			if opts.OctaveAccidentals {
				octAcc[k] = a
			} else {
				barAcc[li], barSet[li] = a, true
			}
			return a
		}
		if opts.OctaveAccidentals {
			if a, ok := octAcc[k]; ok {
				return a
			}
		} else if barSet[li] {
			return barAcc[li]
		}
		return sig[li]
	}
	// carry keeps decorations that no new event took for the next one.
	carry := func() {
		for _, d := range decos {
			if len(restDecos) < 16 {
				restDecos = append(restDecos, d)
			}
		}
		decos, decoShort = nil, nil
	}
	// dropShort forgets the one-letter decorations (H, T, ~, .) waiting for a note, as
	// abc2midi does when a bar line, slur, chord symbol or grace note comes first; a !name!
	// one goes on to the next note.
	dropShort := func() {
		if !opts.ABC2MIDI {
			return
		}
		roll = false
		for k := len(decos) - 1; k >= 0; k-- {
			if decoShort[k] {
				decos = slices.Delete(decos, k, k+1)
				decoShort = slices.Delete(decoShort, k, k+1)
			}
		}
	}
	// sound adds a note at onset, merging it into a tied note of the same letter and octave
	// that ends there; it reports whether it added an event, and records in stillOpen the keys
	// still tied after it.
	// held is how long a note, chord or rest of duration d lasts: twice d under a fermata
	// when opts.Fermata asks for it.
	held := func(d Rat) Rat {
		if opts.Fermata && slices.Contains(decos, "fermata") {
			return d.Mul(R(2, 1))
		}
		return d
	}
	sound := func(n *Note, onset Rat, barIdx int, stillOpen map[tieKey]int) bool {
		dur := held(n.Duration)
		k := tieKey{n.Letter, n.Octave}
		if idx, ok := open[k]; ok {
			e := &events[idx]
			if e.Onset.Add(e.Duration).Cmp(onset) == 0 {
				if n.Accidental != NoAccidental {
					alter(n) // an explicit accidental on the continuation still counts for the bar
				}
				if opts.ABC2MIDI && staccatoDot(decos, decoShort) {
					// abc2midi halves a staccato continuation and ends the tie there: D2-.D2
					// sounds three quarters of its length.
					e.Duration = e.Duration.Add(dur.Mul(R(1, 2)))
					e.Tied = true
					return false
				}
				e.Duration = e.Duration.Add(dur)
				e.Tied = true
				if n.Tie {
					stillOpen[k] = idx
				}
				return false
			}
		}
		pitch := MIDIPitch(n.Letter, n.Octave, alter(n))
		ul, uo := n.Letter+1, n.Octave
		switch n.Letter {
		case 'G':
			ul = 'A'
		case 'B':
			ul, uo = 'C', n.Octave+1
		}
		ll, lo := n.Letter-1, n.Octave
		switch n.Letter {
		case 'A':
			ll = 'G'
		case 'C':
			ll, lo = 'B', n.Octave-1
		}
		inKey := func(l byte, o int) int { // the accidental of a letter in the key and the bar
			a := sig[l-'A']
			if !opts.OctaveAccidentals && barSet[l-'A'] {
				a = barAcc[l-'A']
			} else if b, ok := octAcc[tieKey{l, o}]; ok && opts.OctaveAccidentals {
				a = b
			}
			return a
		}
		u := unit
		if !rollUnit.IsZero() {
			u = unit.Mul(rollUnit)
		}
		events = append(events, Event{Onset: onset, Duration: dur, Pitch: pitch, Bar: barIdx, Pos: n.Pos,
			Decorations: decos, RestDecorations: restDecos, Slurred: slurs > 0,
			Upper: MIDIPitch(ul, uo, inKey(ul, uo)), Lower: MIDIPitch(ll, lo, inKey(ll, lo)),
			Roll: roll, Written: dur, Plain: n.Length.Mul(unit), Unit: u})
		if n.Tie && !(opts.ABC2MIDI && staccatoDot(decos, decoShort)) {
			stillOpen[k] = len(events) - 1
		}
		return true
	}
	closeBar := func(last int) {
		cur.End, cur.Last = now, last
		bars = append(bars, cur)
	}
	for i, el := range v.Elements {
		switch el.(type) {
		case *Note, *Chord, *Rest, *GraceGroup:
			if !content && marks != nil {
				cur.Part = partAt(marks, el.Position().Offset)
			}
		}
		switch e := el.(type) {
		case *ChordSymbol:
			cues = append(cues, Cue{Offset: e.Pos.Offset, Onset: now, Bar: len(bars), Symbol: e.Text, IsSymbol: true})
		case *Note, *Chord, *Rest:
			cues = append(cues, Cue{Offset: el.Position().Offset, Onset: now, Bar: len(bars)})
		}
		switch e := el.(type) {
		case *Note:
			if !unbreak.IsZero() {
				plain := *e
				plain.Duration = e.Duration.Div(unbreak)
				e, unbreak = &plain, Rat{}
			}
			prev, prevScale = e, R(1, 1)
			for k, name := range decos {
				prevScale = prevScale.Mul(lengthMark(name, decoShort[k]))
			}
			next := map[tieKey]int{}
			lastAt = len(events)
			d := held(e.Duration)
			added := sound(e, now, len(bars), next)
			roll, rollUnit = false, Rat{}
			if added {
				decos, decoShort, restDecos = nil, nil, nil
			} else {
				carry()
			}
			open = next
			now = now.Add(d)
			content = true
		case *Chord:
			if opts.ABC2MIDI {
				e = lengthsOnThisLine(e)
			}
			prev, unbreak, rollUnit = nil, Rat{}, Rat{}
			next := map[tieKey]int{}
			added := false
			lastAt = len(events)
			d := held(e.Duration)
			for _, n := range e.Notes {
				added = sound(n, now, len(bars), next) || added
			}
			roll = false
			if added {
				decos, decoShort, restDecos = nil, nil, nil
			} else {
				carry()
			}
			open = next
			now = now.Add(d)
			content = true
		case *Slur:
			if e.Open {
				dropShort()
				slurs = min(slurs+1, 64)
			} else if slurs > 0 {
				slurs--
				if slurs == 0 && lastAt >= 0 {
					for i := lastAt; i < len(events); i++ {
						events[i].Slurred = false // the slur's last note
					}
				}
			}
		case *Decoration:
			if len(decos) < 16 {
				decos = append(decos, e.Name)
				decoShort = append(decoShort, e.Short)
			}
			roll = roll || e.Short && e.Name == "roll"
		case *Rest:
			prev, unbreak, rollUnit = nil, Rat{}, Rat{}
			clear(open)
			d := held(e.Duration)
			carry()
			roll = false
			now = now.Add(d)
			content = true
		case *ChordSymbol, *Annotation:
			dropShort()
		case *GraceGroup:
			dropShort()
			for _, g := range e.Notes {
				var notes []*Note
				switch g := g.(type) {
				case *Note:
					notes = []*Note{g}
				case *Chord:
					notes = g.Notes
				}
				for _, n := range notes {
					events = append(events, Event{Onset: now, Duration: n.Duration, Pitch: MIDIPitch(n.Letter, n.Octave, alter(n)),
						Grace: true, Acciaccatura: e.Acciaccatura, Bar: len(bars), Pos: n.Pos})
				}
			}
		case *InlineField:
			if e.Key != nil {
				sig = e.Key.Signature()
				resetBar()
			}
			if !e.Unit.IsZero() {
				unit = e.Unit
			}
			if e.Key != nil || e.Meter != nil || e.Tempo != nil || !e.Unit.IsZero() {
				changes = append(changes, Change{Onset: now, Field: e})
			}
		case *BrokenRhythm:
			if opts.ABC2MIDI && prev != nil && lastAt < len(events) && e.Count >= 1 && e.Count <= 3 {
				short := R(1, int64(1)<<e.Count)
				f1, f2 := R(2, 1).Sub(short), short
				if e.Dir == '<' {
					f1, f2 = f2, f1
				}
				held := R(1, 1) // a fermata doubled the first note
				if opts.Fermata && slices.Contains(events[lastAt].Decorations, "fermata") {
					held = R(2, 1)
				}
				n, scale, rolled := nextNote(v.Elements[i+1:])
				var delta Rat
				switch {
				case n == nil:
				case n.Length.Mul(scale).Cmp(prev.Length.Mul(prevScale)) != 0:
					// unequal for abc2midi: both notes as written
					delta = prev.Duration.Sub(prev.Duration.Div(f1)).Mul(held)
					unbreak = f2
				case rolled:
					// a ~ on the second note makes abc2midi scale the first by the second's
					// factor too (A>~c: A for 180 ticks, not 360) and the roll's unit with it
					delta = prev.Duration.Sub(prev.Duration.Mul(f2)).Mul(held)
					rollUnit = f2
				}
				if !delta.IsZero() {
					for k := lastAt; k < len(events); k++ {
						events[k].Duration = events[k].Duration.Sub(delta)
						events[k].Written = events[k].Written.Sub(delta)
					}
					now = now.Sub(delta)
				}
			}
			prev = nil
		case *Overlay:
			return walked{}, fmt.Errorf("abc: voice overlay & at line %d is not supported yet", e.Pos.Line)
		case *BarLine:
			resetBar()
			dropShort()
			if content {
				cur.RepeatEnd = playedRepeatEnd(e)
				cur.SectionEnd = e.sectionEnd()
				closeBar(i)
				cur = Bar{Start: now, First: i + 1}
				content = false
			} else {
				cur.First = i + 1
				if n := len(bars); n > 0 && playedRepeatEnd(e) && !bars[n-1].RepeatEnd && cur.Endings == nil {
					// a repeat sign right after another bar line ([|]:|, || :|) ends the
					// bar before them
					bars[n-1].RepeatEnd, bars[n-1].SectionEnd = true, true
				}
			}
			// abc2midi reads ||: as || and a stray colon: a section line, not a repeat.
			cur.RepeatStart = cur.RepeatStart || e.RepeatStart() && !(e.Kind == BarRepeatStart && strings.HasPrefix(e.Text, "||"))
		case *Ending:
			if content {
				closeBar(i)
				cur = Bar{Start: now, First: i + 1}
				content = false
			}
			cur.Endings = e.Numbers
		}
	}
	if content {
		closeBar(len(v.Elements))
	}
	var active []int
	for i := range bars {
		if bars[i].Endings != nil {
			active = bars[i].Endings
		} else if bars[i].RepeatStart {
			active = nil // a |: ends an ending even after a plain bar line (|2 ... | / |: ...)
		}
		bars[i].InEnding = active
		if bars[i].SectionEnd {
			active = nil
		}
	}
	return walked{events, bars, changes, cues}, nil
}

// nextNote returns the note that a broken rhythm's second half is, the first note, chord or
// rest in els past decorations, chord symbols, grace notes, slurs and line ends, when it is a
// note, how the marks on the way scale it for abc2midi (lengthMark), and whether one is the
// roll shorthand ~.
func nextNote(els []Element) (n *Note, scale Rat, rolled bool) {
	scale = R(1, 1)
	for _, el := range els {
		switch e := el.(type) {
		case *Note:
			return e, scale, rolled
		case *Decoration:
			scale = scale.Mul(lengthMark(e.Name, e.Short))
			rolled = rolled || e.Short && e.Name == "roll"
		case *ChordSymbol, *Annotation, *GraceGroup, *Slur, *LineBreak:
		default:
			return nil, scale, false
		}
	}
	return nil, scale, false
}

// lengthMark is how abc2midi scales a note's length for a decoration before it compares the
// two notes of a broken rhythm: a fermata doubles it, a staccato dot halves it (!staccato!
// does not), so that HA>B and .A>B are unequal and play as written while HA>HB and .A>.B
// take the rhythm.
func lengthMark(name string, short bool) Rat {
	switch {
	case name == "fermata":
		return R(2, 1)
	case name == "staccato" && short:
		return R(1, 2)
	}
	return R(1, 1)
}

type partMark struct {
	offset int
	label  string
}

// partMarks returns the body P: fields of every voice in source order, or nil.
func (t *Tune) partMarks() []partMark {
	var marks []partMark
	for _, v := range t.Voices {
		for _, el := range v.Elements {
			if f, ok := el.(*InlineField); ok && f.Field.Name == 'P' {
				marks = append(marks, partMark{f.Field.Pos.Offset, strings.TrimSpace(f.Field.Value)})
			}
		}
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i].offset < marks[j].offset })
	return marks
}

// partAt returns the label of the last mark before offset.
func partAt(marks []partMark, offset int) string {
	i := sort.Search(len(marks), func(i int) bool { return marks[i].offset >= offset })
	if i == 0 {
		return ""
	}
	return marks[i-1].label
}

// PlayOrder returns the playing order of bars for a tune whose header P: field gives the order
// of its parts (parts, e.g. "AABB", "A2B", "(AB)3C"; letters name parts, a number repeats the
// part or bracketed group before it, other characters are ignored): the bars before the first
// body P: field, then each part in turn with its repeats expanded (ExpandRepeats). Without a
// header order or body P: fields it is ExpandRepeats(bars). Parts the body does not have are
// skipped. The result is at most 16 times as long as bars.
func PlayOrder(bars []Bar, parts string) []int {
	return playOrder(bars, parts, ExpandRepeats)
}

// PlayOrderStrict is PlayOrder with ExpandRepeatsStrict: as abc2midi plays a tune with several
// voices or a header P: field.
func PlayOrderStrict(bars []Bar, parts string) []int {
	return playOrder(bars, parts, ExpandRepeatsStrict)
}

func playOrder(bars []Bar, parts string, expand func([]Bar) []int) []int {
	labelled := false
	for _, b := range bars {
		labelled = labelled || b.Part != ""
	}
	seq := partSequence(parts)
	if !labelled || len(seq) == 0 {
		return expand(bars)
	}
	limit := 16*len(bars) + 16
	byPart := map[string][]int{}
	for i, b := range bars {
		byPart[b.Part] = append(byPart[b.Part], i)
	}
	play := func(order []int, label string) []int {
		idx := byPart[label]
		sub := make([]Bar, len(idx))
		for i, j := range idx {
			sub[i] = bars[j]
		}
		for _, k := range expand(sub) {
			if len(order) >= limit {
				break
			}
			order = append(order, idx[k])
		}
		return order
	}
	order := play(nil, "")
	for _, label := range seq {
		if len(order) >= limit {
			break
		}
		order = play(order, label)
	}
	return order
}

// partSequence expands a P: play order into part labels: "A2(BC)2" is A A B C B C. Counts are
// capped so that the sequence stays short.
func partSequence(s string) []string {
	const maxLen = 256
	var parse func(i int) ([]string, int)
	parse = func(i int) ([]string, int) {
		var out []string
		var last []string // the item a following count repeats
		for i < len(s) {
			c := s[i]
			switch {
			case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
				last = []string{string(c)}
				out = append(out, last...)
				i++
			case c == '(':
				var group []string
				group, i = parse(i + 1)
				last = group
				out = append(out, group...)
			case c == ')':
				return out, i + 1
			case c >= '0' && c <= '9':
				n := 0
				for i < len(s) && s[i] >= '0' && s[i] <= '9' {
					n = min(n*10+int(s[i]-'0'), maxLen)
					i++
				}
				for k := 1; k < n && len(out) < maxLen; k++ {
					out = append(out, last...)
				}
			default:
				i++
			}
			if len(out) > maxLen {
				out = out[:maxLen]
			}
		}
		return out, i
	}
	out, _ := parse(0)
	return out
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// staccatoDot reports a staccato written as a dot (.A), which abc2midi lets cut a tie: .A2-A2
// plays a short A and strikes the next A anew, and A2-.A2 sounds the continuation for half its
// length and ties no further.
func staccatoDot(decos []string, short []bool) bool {
	for i, d := range decos {
		if d == "staccato" && i < len(short) && short[i] {
			return true
		}
	}
	return false
}

// ExpandRepeats returns the playing order of bars (indexes into bars): repeated sections are
// played twice, or as many times as their endings are numbered, and each pass takes only its
// ending. A :| without |: repeats from the start of the tune or from the end of the previous
// repeated section; after a repeated section, a ||, |] or [| outside any |: section also
// starts the next one, as abc2midi plays them (before the first repeat it does not: C|D||E:|
// repeats from C). The result is at most 16 times as long as bars.
//
// Endings follow abc2midi's pass count. Playing an ending on pass p allows p+1 passes of its
// section (up to 4), so a :| after a second ending, or a later :| with no |: or :: between,
// goes back to the section's start once more; that pass skips every ending not numbered for
// it, and after it no :| repeats and no || starts a section until the next |: or ::. Endings
// met before that jump are chosen by the pass still counted (2: C|[1D:|[2E||F|[1G:|[2A||
// plays F A). A :: after a repeated pass starts the next section without going back. A |: while
// an earlier |: is still open (no :| between) goes back to it once first, as :: would.
func ExpandRepeats(bars []Bar) []int {
	limit := 16*len(bars) + 16
	order := make([]int, 0, 2*len(bars))
	start, pass, jumpedFrom := 0, 1, -1
	maxPass := 2                     // passes the section allows, raised by the endings played
	opened, repeated := false, false // an explicit |: is open; a section has been repeated
	section := func(at int) {
		start, pass, jumpedFrom, maxPass = at, 1, -1, 2
		opened = false // a |: read before the section began no longer waits for its :|
	}
	for i, steps := 0, 0; i < len(bars) && len(order) < limit && steps < 2*limit; steps++ {
		b := bars[i]
		if i > jumpedFrom {
			if b.RepeatStart && opened && pass == 1 && i > start {
				// A |: while one is open ends its section as :: would: abc2midi says
				// "found another |: after a |:" and repeats the section once.
				pass++
				jumpedFrom = i - 1
				i = start
				continue
			}
			if b.RepeatStart {
				section(i)
				opened = true
			} else if jumpedFrom >= 0 && b.InEnding == nil && maxPass <= 2 {
				section(i)
			}
		}
		if b.InEnding != nil && !contains(b.InEnding, pass) {
			i++
			continue
		}
		if b.Endings != nil && maxPass < 4 {
			maxPass = pass + 1
		}
		order = append(order, i)
		if b.RepeatEnd {
			passes := 2
			if b.InEnding != nil {
				for j := i; j < len(bars) && j < i+64 && bars[j].InEnding != nil; j++ {
					for _, n := range bars[j].InEnding {
						passes = max(passes, n)
					}
					if bars[j].SectionEnd && !bars[j].RepeatEnd {
						break
					}
				}
			}
			double := i+1 < len(bars) && bars[i+1].RepeatStart // :: after a repeated pass goes on
			if (pass < passes || pass < maxPass && !(double && pass > 1)) && pass < 99 {
				pass++
				jumpedFrom = max(jumpedFrom, i)
				i = start
				continue
			}
			opened, repeated = false, true
			if b.InEnding == nil && maxPass <= 2 {
				// The section is done: the next begins here, even with an ending
				// (C|D:|[1E:|[2F plays C D C D E, then from [1 again: F).
				section(i + 1)
			}
		} else if b.SectionEnd && repeated && !opened && b.InEnding == nil && i > jumpedFrom && i+1 < len(bars) && maxPass <= 2 {
			section(i + 1)
		}
		i++
	}
	return order
}

// ExpandRepeatsStrict returns the playing order of bars as abc2midi plays a tune with several
// voices or a header P: field, where it guesses no section starts: only a :| or :: before any
// |: repeats from the start (of the voice, or of the part). A |: starts a section; a :| goes
// back to it once, or once more for each ending played (up to four passes); a :: goes back
// on the first pass and starts the next section after a repeated one; an ending not numbered
// for the pass is skipped up to the next ||, |], [|, :| or |:. The result is at most 16 times
// as long as bars.
func ExpandRepeatsStrict(bars []Bar) []int {
	limit := 16*len(bars) + 16
	order := make([]int, 0, 2*len(bars))
	start, pass, maxPass, expect := 0, 1, 2, false
	for _, b := range bars { // a missing |: is placed at the start
		if b.RepeatStart {
			break
		}
		if b.RepeatEnd {
			expect = true
			break
		}
	}
	resumed := -1 // the bar a jump went back to: its |: is not read again
	skipping := false
	for i, steps := 0, 0; i < len(bars) && len(order) < limit && steps < 2*limit; steps++ {
		b := bars[i]
		if b.RepeatStart && i != resumed && !(i > 0 && bars[i-1].RepeatEnd) {
			start, pass, maxPass, expect = i, 1, 2, true
		}
		resumed = -1
		if b.Endings != nil {
			n := 1
			if expect || pass > 1 {
				n = pass
			}
			skipping = !contains(b.Endings, n)
			if !skipping && maxPass < 4 {
				maxPass = pass + 1
			}
		}
		if skipping {
			if b.SectionEnd && !(b.RepeatEnd && i+1 < len(bars) && bars[i+1].RepeatStart) { // :: does not end it
				skipping = false
			}
			i++
			continue
		}
		order = append(order, i)
		if b.RepeatEnd {
			double := i+1 < len(bars) && bars[i+1].RepeatStart
			switch {
			case double && pass > 1, double && !expect:
				start, pass, maxPass, expect = i+1, 1, 2, true
				resumed = i + 1
			case pass == 1 && expect, pass > 1 && pass < maxPass:
				pass++
				expect = false
				i, resumed = start, start
				continue
			}
		}
		i++
	}
	return order
}

// lengthsOnThisLine returns the chord as abc2midi reads it when a length of one of its notes
// starts the next line ([f3a / 3]): it drops the length, so the note is one unit long (and the
// chord, when it is the first note, one unit).
func lengthsOnThisLine(c *Chord) *Chord {
	if !slices.ContainsFunc(c.Notes, func(n *Note) bool { return n.LengthNextLine }) {
		return c
	}
	cc := *c
	cc.Notes = make([]*Note, len(c.Notes))
	for i, n := range c.Notes {
		if n.LengthNextLine && !n.Length.IsZero() {
			nn := *n
			nn.Duration = n.Duration.Div(n.Length)
			nn.Length = R(1, 1)
			n = &nn
		}
		cc.Notes[i] = n
	}
	cc.Duration = cc.Notes[0].Duration
	return &cc
}

// playedRepeatEnd reports a bar line that ends a repeated section as abc2midi plays it: a colon
// right before [| (:[|], "Abitha Muggins' Favorite Reel") is a dotted bar line to abc2midi, and
// the [| after it no repeat.
func playedRepeatEnd(b *BarLine) bool {
	return b.RepeatEnd() && !strings.HasPrefix(b.Text, ":[")
}
