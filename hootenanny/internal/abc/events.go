package abc

import (
	"errors"
	"fmt"
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
}

// EventOptions tune how Events reads the music.
type EventOptions struct {
	// OctaveAccidentals limits an accidental to notes of the same octave for the rest of the
	// bar. By default it applies to that letter in every octave, as abc2midi does by default.
	OctaveAccidentals bool
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

type walked struct {
	events  []Event
	bars    []Bar
	changes []Change
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
	var decos []string
	sig := t.Header.Key.Signature()
	var (
		events  []Event
		bars    []Bar
		now     Rat
		barAcc  [7]int
		barSet  [7]bool
		octAcc  = map[tieKey]int{}
		open    = map[tieKey]int{} // tied notes waiting for their continuation: event index
		content bool
		cur     = Bar{First: 0}
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
	// sound adds a note at onset, merging it into a tied note of the same letter and octave
	// that ends there; it returns the keys still tied after it.
	sound := func(n *Note, onset Rat, barIdx int, stillOpen map[tieKey]int) {
		k := tieKey{n.Letter, n.Octave}
		if idx, ok := open[k]; ok {
			e := &events[idx]
			if e.Onset.Add(e.Duration).Cmp(onset) == 0 {
				if n.Accidental != NoAccidental {
					alter(n) // an explicit accidental on the continuation still counts for the bar
				}
				e.Duration = e.Duration.Add(n.Duration)
				if n.Tie {
					stillOpen[k] = idx
				}
				return
			}
		}
		events = append(events, Event{Onset: onset, Duration: n.Duration, Pitch: MIDIPitch(n.Letter, n.Octave, alter(n)), Bar: barIdx, Pos: n.Pos, Decorations: decos})
		if n.Tie {
			stillOpen[k] = len(events) - 1
		}
	}
	closeBar := func(last int) {
		cur.End, cur.Last = now, last
		bars = append(bars, cur)
	}
	for i, el := range v.Elements {
		switch e := el.(type) {
		case *Note:
			next := map[tieKey]int{}
			sound(e, now, len(bars), next)
			open, decos = next, nil
			now = now.Add(e.Duration)
			content = true
		case *Chord:
			next := map[tieKey]int{}
			for _, n := range e.Notes {
				sound(n, now, len(bars), next)
			}
			open, decos = next, nil
			now = now.Add(e.Duration)
			content = true
		case *Decoration:
			if len(decos) < 16 {
				decos = append(decos, e.Name)
			}
		case *Rest:
			clear(open)
			decos = nil
			now = now.Add(e.Duration)
			content = true
		case *GraceGroup:
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
			if e.Key != nil || e.Meter != nil || e.Tempo != nil || !e.Unit.IsZero() {
				changes = append(changes, Change{Onset: now, Field: e})
			}
		case *Overlay:
			return walked{}, fmt.Errorf("abc: voice overlay & at line %d is not supported yet", e.Pos.Line)
		case *BarLine:
			resetBar()
			if content {
				cur.RepeatEnd = e.RepeatEnd()
				cur.SectionEnd = e.sectionEnd()
				closeBar(i)
				cur = Bar{Start: now, First: i + 1}
				content = false
			} else {
				cur.First = i + 1
			}
			cur.RepeatStart = cur.RepeatStart || e.RepeatStart()
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
		}
		bars[i].InEnding = active
		if bars[i].SectionEnd {
			active = nil
		}
	}
	return walked{events, bars, changes}, nil
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// ExpandRepeats returns the playing order of bars (indexes into bars): repeated sections are
// played twice, or as many times as their endings are numbered, and each pass takes only its
// ending. A :| without |: repeats from the start of the tune or from the end of the previous
// repeated section. The result is at most 16 times as long as bars.
func ExpandRepeats(bars []Bar) []int {
	limit := 16*len(bars) + 16
	order := make([]int, 0, 2*len(bars))
	start, pass, jumpedFrom := 0, 1, -1
	for i, steps := 0, 0; i < len(bars) && len(order) < limit && steps < 2*limit; steps++ {
		b := bars[i]
		if i > jumpedFrom {
			if b.RepeatStart {
				start, pass, jumpedFrom = i, 1, -1
			} else if jumpedFrom >= 0 && b.InEnding == nil {
				start, pass, jumpedFrom = i, 1, -1
			}
		}
		if b.InEnding != nil && !contains(b.InEnding, pass) {
			i++
			continue
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
			if pass < passes && pass < 99 {
				pass++
				jumpedFrom = max(jumpedFrom, i)
				i = start
				continue
			}
		}
		i++
	}
	return order
}
