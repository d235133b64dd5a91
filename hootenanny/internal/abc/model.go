// Package abc parses ABC music notation (standard 2.1) into a typed tune model, checks it, and
// transposes it in place, keeping comments and layout. It also gives the timing a MIDI converter
// needs: a flat event list per voice with exact rational onsets and durations, and the playing
// order of bars with repeats and first and second endings.
//
// Every element carries its source position, so that rewriting (transposition) touches only the
// bytes of the pitches and keys it changes.
//
// Entry points: Parse and Validate; Transpose and TransposeToKey; (*Tune).Events, Bars and
// Changes (or Timeline, all three at once), and ExpandRepeats and PlayOrder (repeats, then the header P: order of the parts
// that body P: fields label), for playback.
//
// Not modelled yet: voice overlays (& is kept as an element, and Events refuses the voice),
// microtonal accidentals (^/), lyric alignment (w: text is kept whole), symbol lines (s:),
// macros (m:) and redefinable symbols (U:), %% directives (skipped as comments), and the old
// + chord syntax. Events does not apply clef transpose= or
// the hornpipe swing that some players add for R:hornpipe.
package abc

// Pos is a place in the source: Line and Col are 1-based (Col counts bytes), Offset is the
// 0-based byte offset.
type Pos struct {
	Line, Col, Offset int
}

// Severity of a diagnostic.
type Severity int

const (
	// Error means the text is not valid ABC; the parser skipped or guessed.
	Error Severity = iota
	// Warning means the text is valid but probably not what was meant.
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one problem found in the source.
type Diagnostic struct {
	Line, Col  int
	Severity   Severity
	Message    string
	Suggestion string // how to fix it, or ""
}

// Book is a parsed ABC file: an optional file header and any number of tunes.
type Book struct {
	// FileHeader holds the fields that come before the first tune.
	FileHeader []Field
	Tunes      []*Tune
	// Truncated is set when the input went past a limit of Options (bytes, tunes or elements)
	// and Parse stopped reading: the last tune may be cut short and later ones are missing. A
	// diagnostic says which limit.
	Truncated bool
}

// Field is one information field, in the header, on its own line in the body, or inline ([K:G]).
type Field struct {
	Name  byte   // 'K', 'M', 'w', ...
	Value string // the text after the colon, trimmed, without comment
	Pos   Pos    // of the field letter (for inline fields, of the '[')
	End   int    // byte offset just after the field (after ']' for inline fields)
	// ValueOffset is the byte offset of Value in the source.
	ValueOffset int
}

// Tune is one tune, from X: to the blank line that ends it.
type Tune struct {
	Pos    Pos
	End    int // byte offset just after the tune's last line
	Header Header
	// Voices in order of first appearance; a tune without V: fields has one voice with ID "".
	Voices []*Voice
	// Words holds W: lines (lyrics printed after the tune), from header and body.
	Words []string
}

// Voice returns the voice with the given id, or nil.
func (t *Tune) Voice(id string) *Voice {
	for _, v := range t.Voices {
		if v.ID == id {
			return v
		}
	}
	return nil
}

// Header holds the tune's header fields, typed.
type Header struct {
	Fields    []Field // every header field in order, including unknown ones
	X         int
	Titles    []string
	Composers []string
	Origin    string
	Rhythm    string
	Meter     Meter // Kind MeterAbsent when there is no M:
	// UnitLength is L: or, when absent, the default from the meter (1/16 if the meter is below
	// 3/4, else 1/8).
	UnitLength Rat
	Tempo      *Tempo // nil when there is no Q:
	Key        Key
	Voices     []VoiceDef // V: definitions in the header
	Parts      string     // P: in the header: the play order, e.g. "AABB" (see PlayOrder)
}

// MeterKind says how the meter was written.
type MeterKind int

// Meter kinds.
const (
	MeterAbsent   MeterKind = iota // no M: field: free meter
	MeterFraction                  // M:6/8, M:2+3/8
	MeterCommon                    // M:C (4/4)
	MeterCut                       // M:C| (2/2)
	MeterNone                      // M:none: free meter
)

// Meter is a time signature.
type Meter struct {
	Kind MeterKind
	Num  []int // numerator terms: M:2+3/8 has [2 3]
	Den  int
	Text string
}

// Value is the length of a bar as a fraction of a whole note; 0 for free meter.
func (m Meter) Value() Rat {
	switch m.Kind {
	case MeterCommon:
		return R(1, 1)
	case MeterCut:
		return R(1, 1)
	case MeterFraction:
		n := 0
		for _, x := range m.Num {
			n += x
		}
		return R(int64(n), int64(m.Den))
	}
	return Rat{0, 1}
}

// DefaultUnitLength is the L: that applies when a tune has none.
func DefaultUnitLength(m Meter) Rat {
	v := m.Value()
	if !v.IsZero() && v.Cmp(R(3, 4)) < 0 {
		return R(1, 16)
	}
	return R(1, 8)
}

// Tempo is a Q: field: Q:1/4=120, Q:"Allegro" 3/8=60, Q:1/4 3/8=60.
type Tempo struct {
	Beats []Rat // beat units; their sum is one beat
	BPM   int   // 0 when only text is given
	Text  string
}

// Mode of a key.
type Mode int

// Modes.
const (
	Major Mode = iota // also Ionian
	Minor             // also Aeolian
	Mixolydian
	Dorian
	Phrygian
	Lydian
	Locrian
)

var modeNames = [...]string{"major", "minor", "mixolydian", "dorian", "phrygian", "lydian", "locrian"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "major"
}

// Accidental on a note or in a key signature.
type Accidental int

// Accidentals. The numeric values of sharps and flats are not semitones; use Semitones.
const (
	NoAccidental Accidental = iota
	Natural
	Sharp
	DoubleSharp
	Flat
	DoubleFlat
)

// Semitones is the alteration: +1 for a sharp, -2 for a double flat, 0 for a natural or none.
func (a Accidental) Semitones() int {
	switch a {
	case Sharp:
		return 1
	case DoubleSharp:
		return 2
	case Flat:
		return -1
	case DoubleFlat:
		return -2
	}
	return 0
}

func (a Accidental) String() string {
	return [...]string{"", "=", "^", "^^", "_", "__"}[a]
}

// KeyAccidental is one explicit accidental of a K: field, as in K:D exp _b _e ^f.
type KeyAccidental struct {
	Letter     byte // 'A'..'G'
	Accidental Accidental
	Offset     int // byte offset in the source
}

// Key is a K: field.
type Key struct {
	Tonic      byte       // 'A'..'G'; 0 for K:none, K:HP, K:Hp or an absent key
	TonicAcc   Accidental // NoAccidental, Sharp or Flat
	Mode       Mode
	None       bool // K:none
	Highland   bool // K:HP or K:Hp (played as A mixolydian: F# and C#)
	Exp        bool // "exp": only the explicit accidentals apply
	Explicit   []KeyAccidental
	Clef       Clef
	Text       string
	TonicStart int // byte offset of the tonic in the source, or -1
	TonicEnd   int
}

// Clef and its transposition, from K: or V:.
type Clef struct {
	Name      string // "treble", "bass", "alto", "tenor", "perc", "none" or "" (treble)
	Transpose int    // transpose=, in semitones (for playback)
	Octave    int    // octave=
	Middle    string // middle=
}

// VoiceDef is a V: field's definition.
type VoiceDef struct {
	ID       string
	Name     string
	Subname  string
	Clef     Clef
	Stem     string
	Props    map[string]string // every key=value, as written
	Pos      Pos
	InHeader bool
}

// Voice is one voice's body.
type Voice struct {
	ID       string
	Def      *VoiceDef // nil when the voice is never defined
	Elements []Element
}

// Element is one thing in a tune body.
type Element interface {
	Position() Pos
	// EndOffset is the byte offset just after the element.
	EndOffset() int
}

// Span is the source range of an element.
type Span struct {
	Pos Pos
	End int
}

// Position returns the element's start.
func (s Span) Position() Pos { return s.Pos }

// EndOffset returns the byte offset just after the element.
func (s Span) EndOffset() int { return s.End }

// Note is one note.
type Note struct {
	Span
	Letter     byte // 'A'..'G'
	Accidental Accidental
	// Octave is 0 for C..B (middle C is C), 1 for c..b, +1 per ' and -1 per ,.
	Octave int
	// Length is the written multiplier of the unit note length: C3/2 has 3/2.
	Length Rat
	// Duration is the sounding length as a fraction of a whole note, after L:, broken rhythm
	// and tuplets. In a chord each note keeps its own.
	Duration Rat
	Tie      bool
	// PitchEnd is the byte offset just after the octave marks: Pos.Offset..PitchEnd is the
	// accidental, letter and octave marks.
	PitchEnd int
	// LengthNextLine marks, in a chord read across lines ([f3a / 3]), a note whose length was
	// written at the start of the next line; abc2midi drops that length ("Unrecognized
	// character") and EventOptions.ABC2MIDI reads the note as one unit long.
	LengthNextLine bool
}

// RestKind says how a rest was written.
type RestKind byte

// Rest kinds.
const (
	RestVisible          RestKind = 'z'
	RestInvisible        RestKind = 'x'
	RestMeasures         RestKind = 'Z'
	RestInvisibleMeasure RestKind = 'X'
)

// Rest is z, x (invisible), or Z / X (whole measures).
type Rest struct {
	Span
	Kind     RestKind
	Length   Rat // for z and x
	Measures int // for Z and X
	Duration Rat
}

// Chord is [CEG] with its length.
type Chord struct {
	Span
	Notes []*Note
	// Length is the multiplier written after ']'.
	Length Rat
	// Duration is the chord's sounding length: its first note's.
	Duration Rat
	Tie      bool
}

// BarKind classifies bar lines.
type BarKind int

// Bar line kinds.
const (
	BarSingle      BarKind = iota // |
	BarDouble                     // ||
	BarThinThick                  // |]
	BarThickThin                  // [|
	BarRepeatStart                // |:
	BarRepeatEnd                  // :|
	BarRepeatBoth                 // :: :|: :||:
	BarDotted                     // .|
	BarInvisible                  // [|]
)

// BarLine is a bar line. A bar line written with an ending number (|1, :|2) is followed by an
// Ending element.
type BarLine struct {
	Span
	Kind BarKind
	Text string
}

// RepeatEnd reports whether the bar line ends a repeated section.
func (b *BarLine) RepeatEnd() bool { return b.Kind == BarRepeatEnd || b.Kind == BarRepeatBoth }

// RepeatStart reports whether the bar line starts a repeated section.
func (b *BarLine) RepeatStart() bool { return b.Kind == BarRepeatStart || b.Kind == BarRepeatBoth }

// sectionEnd reports bar lines that close an ending: ||, |], [|, :|.
func (b *BarLine) sectionEnd() bool {
	switch b.Kind {
	case BarDouble, BarThinThick, BarThickThin, BarRepeatEnd, BarRepeatBoth, BarRepeatStart:
		return true
	}
	return false
}

// Ending is a first, second, ... ending: [1, |1, :|2, [1,3, [1-3.
type Ending struct {
	Span
	Numbers []int
}

// Tuplet is (p:q:r: the next R notes take the time of Q.
type Tuplet struct {
	Span
	P, Q, R int
}

// GraceGroup is {..} or, for an acciaccatura, {/..}.
type GraceGroup struct {
	Span
	Acciaccatura bool
	Notes        []Element // *Note and *Chord
}

// Decoration is !name! or a one-character shorthand such as . ~ T H.
type Decoration struct {
	Span
	Name  string
	Short bool
}

// ChordSymbol is a quoted chord name such as "Am7" or "G/B".
type ChordSymbol struct {
	Span
	Text string
}

// Annotation is quoted text with a placement: "^above", "_below", "<left", ">right", "@free".
type Annotation struct {
	Span
	Placement byte
	Text      string
}

// Slur is ( or ).
type Slur struct {
	Span
	Open   bool
	Dotted bool
}

// BrokenRhythm is > >> >>> < << <<< between two notes.
type BrokenRhythm struct {
	Span
	Dir   byte // '>' or '<'
	Count int
}

// InlineField is a field in the body, inline ([K:G]) or on its own line (K:G). Key, Meter,
// Unit, Tempo and Voice are set for K:, M:, L:, Q: and V:.
type InlineField struct {
	Span
	Field  Field
	Inline bool
	Key    *Key
	Meter  *Meter
	Unit   Rat
	Tempo  *Tempo
	Voice  string
}

// LineBreak marks the end of a music line that is not continued with \.
type LineBreak struct {
	Span
}

// Lyrics is a w: line, aligned with the notes before it.
type Lyrics struct {
	Span
	Text string
}

// Overlay is the voice-overlay symbol &. Its notes are kept in the voice; the timing of
// overlays is not modelled (see Events).
type Overlay struct {
	Span
}

// Spacer is y.
type Spacer struct {
	Span
}
