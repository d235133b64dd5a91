package abcmidi

import (
	"sort"
	"strconv"
	"strings"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
)

// Guitar-chord accompaniment, as abc2midi 4.84 plays it by default. Every fact here was
// checked by converting small tunes with abc2midi and reading its output:
//
//   - A chord symbol ("G", "D7", "Em/B") sets the chord from where it is written; nothing is
//     played before the first one. Each voice with chord symbols gets a bass channel and a
//     chord channel, the lowest free ones after its own (voice 1 on channel 1, its bass on 2,
//     its chords on 3; voice 2 then on 4).
//   - A pattern of the meter (%%MIDI gchord) is played from every bar line: f plays the bass
//     note (the root, or the note after the slash) at C two octaves below middle C + root
//     (key 36 + 0..11), c the chord (key 48 + root + each interval), b both, z and x nothing,
//     g h i j one note of the chord, G H I J that note an octave lower. A digit after a letter
//     lengthens it; the whole pattern fills one bar (%%MIDI gchordbars n: n bars, for patterns
//     set after it). A pattern that runs out before the bar line waits for it; a repeat sign
//     after a bar shorter than the meter's is no bar line (as for beat stress), so the
//     pattern goes on into the pickup after it.
//   - The bass plays at velocity 80 and the chord at 75 (%%MIDI bassvol, chordvol), each note
//     for its whole slot; times are whole ticks, a slot lasting len*bar/units truncated.
//   - A lowercase root ("am") plays the bass only: c acts as f.
//   - A slash chord (G/B) plays the slash note in the bass; when that note is in the chord,
//     the chord notes before it go up an octave (G/B: B D G), else the chord is unchanged.
//   - Unknown chord names play the major triad of their root ("G(7)" is G, "Fine" is F
//     major); leading brackets are skipped; a symbol not starting with a note letter ("N.C.")
//     changes nothing. Roots keep their accidental without wrapping (Cb is key 35, B# 48).
//   - Default patterns: 2/2 and 4/4 fzczfzcz, 2/4 fzcz, 3/4 and 3/8 fzczcz, 6/4 fzczfzczfzcz,
//     6/8 fzcfzc, 9/8 fzcfzcfzc, 12/8 fzcfzcfzcfzc, 5/4 and 5/8 fzbcz, 7/4 and 7/8 fzbczcz; any
//     other meter (3/2, 6/2, ...) has none and plays nothing until %%MIDI gchord gives one. A
//     meter change takes the new meter's default, even after a %%MIDI gchord.
//   - Quirk copied: a g h i j (G H I J) beyond the chord's notes or before the first chord
//     plays the note held in the slot after the current chord's last, left
//     from an earlier, longer chord, or key 0 (abc2midi keeps the notes in one array).

// Accompaniment defaults of abc2midi 4.84.
const (
	BassBase      = 36 // key of the bass note of a C chord
	ChordBase     = 48 // key of the root of a C chord in the chord
	BassVelocity  = 80
	ChordVelocity = 75
)

// chordNames are abc2midi's chord names and their intervals above the root, in semitones.
// "sus4" is a major triad in abc2midi 4.84 (its "sus" is the suspended fourth), copied.
var chordNames = map[string][]int{
	"": {0, 4, 7}, "m": {0, 3, 7}, "7": {0, 4, 7, 10}, "m7": {0, 3, 7, 10},
	"m7b5": {0, 3, 6, 10}, "maj7": {0, 4, 7, 11}, "M7": {0, 4, 7, 11}, "6": {0, 4, 7, 9},
	"m6": {0, 3, 7, 9}, "aug": {0, 4, 8}, "+": {0, 4, 8}, "aug7": {0, 4, 8, 10},
	"dim": {0, 3, 6}, "dim7": {0, 3, 6, 9}, "9": {0, 4, 7, 10, 14}, "m9": {0, 3, 7, 10, 14},
	"maj9": {0, 4, 7, 11, 14}, "M9": {0, 4, 7, 11, 14}, "11": {0, 4, 7, 10, 14, 17},
	"dim9": {0, 3, 6, 9, 13}, "sus": {0, 5, 7}, "sus4": {0, 4, 7}, "sus9": {0, 2, 7},
	"sus2": {0, 2, 7}, "7sus2": {0, 2, 7, 10}, "7sus4": {0, 5, 7, 10}, "7sus9": {0, 2, 7, 10},
	"5": {0, 7},
}

// defaultPattern returns abc2midi's pattern for a meter, or "x" (silent) when it has none.
func defaultPattern(num, den int) string {
	switch {
	case num == 2 && den == 2, num == 4 && den == 4:
		return "fzczfzcz"
	case num == 2 && den == 4:
		return "fzcz"
	case num == 6 && den == 4:
		return "fzczfzczfzcz"
	case num == 3 && (den == 8 || den == 4):
		return "fzczcz"
	case num == 5 && (den == 8 || den == 4):
		return "fzbcz"
	case num == 7 && (den == 8 || den == 4):
		return "fzbczcz"
	case num == 6 && den == 8:
		return "fzcfzc"
	case num == 9 && den == 8:
		return "fzcfzcfzc"
	case num == 12 && den == 8:
		return "fzcfzcfzcfzc"
	}
	return "x"
}

// maxChordNotes bounds a chord (abc2midi allows 10 notes a chord name).
const maxChordNotes = 10

// guitarChord is a parsed chord symbol.
type guitarChord struct {
	root      int   // semitones above C, -1..12
	intervals []int // nil for a lowercase root: bass only
	bass      int   // the slash note, when slash
	slash     bool
	unknown   bool // the name is not in the table: played as the major triad
}

var letterSemitones = map[byte]int{'C': 0, 'D': 2, 'E': 4, 'F': 5, 'G': 7, 'A': 9, 'B': 11}

// notePitch reads a note letter (either case) and one accidental (# or b) from s.
func notePitch(s string) (semis int, lower bool, rest string, ok bool) {
	if s == "" {
		return 0, false, s, false
	}
	c := s[0]
	lower = c >= 'a' && c <= 'z'
	if lower {
		c -= 'a' - 'A'
	}
	semis, ok = letterSemitones[c]
	if !ok {
		return 0, false, s, false
	}
	s = s[1:]
	if s != "" && s[0] == '#' {
		semis++
		s = s[1:]
	} else if s != "" && s[0] == 'b' {
		semis--
		s = s[1:]
	}
	return semis, lower, s, true
}

// parseGuitarChord reads a chord symbol as abc2midi does (see the comment at the top).
func parseGuitarChord(text string, names map[string][]int) (guitarChord, bool) {
	s := strings.TrimLeftFunc(text, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z')
	})
	root, lower, s, ok := notePitch(s)
	if !ok {
		return guitarChord{}, false
	}
	g := guitarChord{root: root}
	end := strings.IndexAny(s, "/() ")
	name := s
	if end >= 0 {
		name = s[:end]
	}
	iv, ok := names[name]
	g.unknown = !ok // a lowercase root too: "fine" names no chord abc2midi knows
	if !lower {
		if !ok {
			iv = names[""]
		}
		g.intervals = iv
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		if b, _, _, ok := notePitch(s[i+1:]); ok {
			g.bass, g.slash = b, true
		}
	}
	return g, true
}

// voicing returns the chord's notes above the chord base: with a slash note in the chord, the
// notes before it go up an octave.
func (g guitarChord) voicing() []int {
	from := 0
	if g.slash {
		for j, iv := range g.intervals {
			if ((g.root+iv)%12+12)%12 == ((g.bass%12)+12)%12 {
				from = j
			}
		}
	}
	out := make([]int, len(g.intervals))
	for j, iv := range g.intervals {
		out[j] = g.root + iv
		if j < from {
			out[j] += 12
		}
	}
	return out
}

// Directive is one %%MIDI line of a tune, with where it is written. A directive takes effect
// at the first note, chord or rest after it in its voice, each time that is played; lines
// before the first V: line go with the first voice that has music.
type Directive struct {
	// Voice is the id of the last V: line before it, "" before any.
	Voice string
	// Offset is the byte offset of the line in the text the tune was parsed from.
	Offset int
	// Name is the first word after %%MIDI; Args the others.
	Name string
	Args []string
}

// maxDirectives bounds the %%MIDI lines read from one tune.
const maxDirectives = 4096

// Directives returns the %%MIDI lines of tune t in src, the text it was parsed from, in order
// (at most maxDirectives). The parser skips %% lines as comments; the converter places each at
// the first note after it in its voice.
func Directives(src string, t *abc.Tune) []Directive {
	if t == nil || t.Pos.Offset < 0 || t.End > len(src) || t.Pos.Offset > t.End {
		return nil
	}
	var out []Directive
	voice := ""
	off := t.Pos.Offset
	for _, line := range strings.SplitAfter(src[t.Pos.Offset:t.End], "\n") {
		at := off
		off += len(line)
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "V:") {
			if f := strings.Fields(line[2:]); len(f) > 0 {
				voice = f[0]
			}
			continue
		}
		rest, ok := strings.CutPrefix(line, "%%MIDI")
		if !ok {
			continue
		}
		if i := strings.IndexByte(rest, '%'); i >= 0 {
			rest = rest[:i]
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		if len(out) == maxDirectives {
			break
		}
		out = append(out, Directive{Voice: voice, Offset: at, Name: f[0], Args: f[1:]})
	}
	return out
}

// chordNamesFor returns abc2midi's chord names with the tune's %%MIDI chordname lines
// (chordname NAME n1 n2 ...: up to 10 semitone offsets) added, wherever they are written.
func chordNamesFor(dirs []Directive) map[string][]int {
	names := chordNames
	for _, d := range dirs {
		if d.Name != "chordname" || len(d.Args) < 2 || len(d.Args[0]) > 7 || len(d.Args) > maxChordNotes+1 {
			continue
		}
		var iv []int
		for _, a := range d.Args[1:] {
			n, err := strconv.Atoi(a)
			if err != nil || n < -48 || n > 48 {
				iv = nil
				break
			}
			iv = append(iv, n)
		}
		if iv == nil {
			continue
		}
		if len(names) == len(chordNames) {
			names = make(map[string][]int, len(chordNames)+1)
			for k, v := range chordNames {
				names[k] = v
			}
		}
		names[d.Args[0]] = iv
	}
	return names
}

// gslot is one step of a pattern; a drum hit has its key and velocity.
type gslot struct {
	action byte
	length int
	key    uint8
	vel    uint8
}

// sequence is a pattern being played: abc2midi's gchord and drum queues, which start again
// at every bar line it counts (or go on across them, for patterns of several bars) and stop
// when the pattern runs out before one.
type sequence struct {
	slots   []gslot
	unit    [3]int // meter numerator, denominator and bars when the pattern was set
	ptr     int
	pending int64 // tick of the next step; -1 when waiting for a bar line
}

func (q *sequence) set(slots []gslot, num, den, bars int) {
	q.slots, q.unit = slots, [3]int{num, den, bars}
	if q.ptr >= len(slots) {
		// abc2midi finds its step past the new pattern's end: nothing more plays until the
		// next bar line starts the pattern again.
		q.ptr, q.pending = 0, -1
	}
}

// ticks is the length of a step of length n: n/units of the pattern's bars, truncated to whole
// ticks as abc2midi's queue does.
func (q *sequence) ticks(n int) int64 {
	units := 0
	for _, s := range q.slots {
		units += s.length
	}
	return int64(n) * int64(q.unit[0]) * 4 * int64(q.unit[2]) * TicksPerQuarter / (int64(q.unit[1]) * int64(units))
}

// barLine starts the pattern again at tick (a pattern of several bars goes on).
func (q *sequence) barLine(tick int64) {
	if len(q.slots) == 0 {
		return
	}
	if q.unit[2] < 2 || q.ptr >= len(q.slots) {
		q.ptr = 0
	}
	q.pending = tick
}

// fireUntil plays the pending steps that start before limit.
func (q *sequence) fireUntil(limit int64, play func(s gslot, at, d int64)) {
	for q.pending >= 0 && q.pending < limit {
		s := q.slots[q.ptr]
		d := q.ticks(s.length)
		play(s, q.pending, d)
		q.ptr++
		q.pending += d
		if d <= 0 || q.ptr >= len(q.slots) {
			q.ptr, q.pending = 0, -1 // wait for the next bar line
		}
	}
}

// maxSlots bounds a pattern (abc2midi stops at 39 steps).
const maxSlots = 39

// parsePattern reads a %%MIDI gchord pattern; a pattern without steps is one silent step.
func parsePattern(s string) []gslot {
	var out []gslot
	for i := 0; i < len(s) && len(out) < maxSlots; {
		c := s[i]
		if !strings.ContainsRune("zcfbghijGHIJx", rune(c)) {
			break
		}
		i++
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && n < 1000 {
			n = n*10 + int(s[i]-'0')
			i++
		}
		if n == 0 {
			n = 1
		}
		out = append(out, gslot{action: c, length: n})
	}
	if len(out) == 0 {
		out = []gslot{{action: 'z', length: 1}}
	}
	return out
}

// accEvent is something that happens to the accompaniment at a played tick.
type accEvent struct {
	tick  int64
	rank  int // order at one tick: meter, directive, chord symbol, bar line
	kind  byte
	meter abc.Meter
	dir   *Directive
	chord guitarChord
}

const (
	accMeter byte = iota
	accDirective
	accChord
	accBar
)

// accompanist plays the accompaniment of one voice from its events in played order.
type accompanist struct {
	names               map[string][]int
	gchord, drum        sequence
	bars, drumBars      int // %%MIDI gchordbars and drumbars, for patterns set from now on
	num, den            int // the meter
	on, started, drumOn bool
	bassVel, chordVel   uint8
	bassBase, chordBase int
	transpose           int // %%MIDI transpose and rtranspose; not the drums
	chord               guitarChord
	notes               [maxChordNotes + 1]int // abc2midi's note array: stale past size
	size                int
	bass, chords, drums []playedNote
	programs            []programAt
}

type programAt struct {
	tick  int64
	bass  bool
	value uint8
}

func newAccompanist(m abc.Meter, names map[string][]int) *accompanist {
	a := &accompanist{names: names, bars: 1, drumBars: 1, on: true, bassVel: BassVelocity, chordVel: ChordVelocity,
		bassBase: BassBase, chordBase: ChordBase}
	a.gchord.pending, a.drum.pending = -1, -1
	a.num, a.den = meterParts(m)
	a.setPattern(defaultPattern(a.num, a.den))
	return a
}

// setPattern sets the pattern; its steps take their length from the meter and gchordbars in
// force now (a later gchordbars or meter change does not change them).
func (a *accompanist) setPattern(p string) {
	a.gchord.set(parsePattern(p), a.num, a.den, a.bars)
}

// fireUntil plays the steps of both patterns that start before limit.
func (a *accompanist) fireUntil(limit int64) {
	a.gchord.fireUntil(limit, func(s gslot, at, d int64) { a.play(s.action, at, d) })
	a.drum.fireUntil(limit, func(s gslot, at, d int64) {
		if s.action == 'd' && a.drumOn && d > 0 && s.vel > 0 {
			a.drums = append(a.drums, playedNote{on: at, off: at + d, pitch: s.key, vel: s.vel})
		}
	})
}

func (a *accompanist) play(action byte, at, d int64) {
	if d <= 0 || !a.on {
		return
	}
	if action >= 'g' && action <= 'j' || action >= 'G' && action <= 'J' {
		// One note of the chord, g h i j or an octave lower G H I J. Past the chord's notes
		// or before the first chord, abc2midi plays the note held in the slot after the
		// chord's last (0 before any chord): copied.
		lower := action <= 'J'
		i := int(action - 'g')
		if lower {
			i = int(action - 'G')
		}
		p := a.notes[min(a.size, maxChordNotes)]
		if i < a.size && a.started {
			p = a.notes[i]
			if lower {
				p -= 12
			}
		}
		a.chords = append(a.chords, playedNote{on: at, off: at + d, pitch: clampKey(p + a.transpose), vel: a.chordVel})
		return
	}
	if !a.started {
		return
	}
	bassNote := func() {
		p := a.chord.root
		if a.chord.slash {
			p = a.chord.bass
		}
		a.bass = append(a.bass, playedNote{on: at, off: at + d, pitch: clampKey(a.bassBase + p + a.transpose), vel: a.bassVel})
	}
	chordNotes := func() {
		for _, n := range a.notes[:a.size] {
			a.chords = append(a.chords, playedNote{on: at, off: at + d, pitch: clampKey(n + a.transpose), vel: a.chordVel})
		}
	}
	if action == 'c' && a.chord.intervals == nil {
		action = 'f'
	}
	switch action {
	case 'f':
		bassNote()
	case 'c':
		chordNotes()
	case 'b':
		bassNote()
		chordNotes()
	}
}

func clampKey(p int) uint8 { return uint8(max(0, min(127, p))) }

func (a *accompanist) apply(e accEvent) {
	switch e.kind {
	case accMeter:
		a.num, a.den = meterParts(e.meter)
		// abc2midi sets the meter's default pattern again, even over a %%MIDI gchord one.
		a.setPattern(defaultPattern(a.num, a.den))
		// (the step pointer goes on: abc2midi starts the pattern again at bar lines only)
	case accChord:
		a.chord, a.started = e.chord, true
		if e.chord.intervals != nil {
			v := e.chord.voicing()
			a.size = min(len(v), maxChordNotes)
			for i := 0; i < a.size; i++ {
				a.notes[i] = a.chordBase + v[i]
			}
		}
	case accBar:
		a.gchord.barLine(e.tick)
		a.drum.barLine(e.tick)
	case accDirective:
		a.directive(e.tick, e.dir)
	}
}

func intArg(args []string, i, lo, hi int) (int, bool) {
	if i >= len(args) {
		return 0, false
	}
	n, err := strconv.Atoi(args[i])
	if err != nil || n < lo || n > hi {
		return 0, false
	}
	return n, true
}

// octaveArg reads octave=n (-2..2) from a chordprog or bassprog line.
func octaveArg(args []string) (int, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "octave="); ok {
			n, err := strconv.Atoi(v)
			if err == nil && n > -3 && n < 3 {
				return n, true
			}
		}
	}
	return 0, false
}

func (a *accompanist) directive(tick int64, d *Directive) {
	switch d.Name {
	case "gchord":
		if len(d.Args) > 0 {
			a.setPattern(d.Args[0])
		}
	case "drum":
		if len(d.Args) > 0 {
			a.drum.set(parseDrums(d.Args), a.num, a.den, a.drumBars)
		}
	case "drumon":
		a.drumOn = true
	case "drumoff":
		a.drumOn = false
	case "drumbars":
		if n, ok := intArg(d.Args, 0, 1, 64); ok {
			a.drumBars = n
		}
	case "gchordon":
		a.on = true
	case "gchordoff":
		a.on = false
	case "gchordbars":
		if n, ok := intArg(d.Args, 0, 1, 64); ok {
			a.bars = n
		}
	case "chordvol":
		if n, ok := intArg(d.Args, 0, 0, 127); ok {
			a.chordVel = uint8(n)
		}
	case "bassvol":
		if n, ok := intArg(d.Args, 0, 0, 127); ok {
			a.bassVel = uint8(n)
		}
	case "transpose", "rtranspose":
		a.transpose = transposeBy(*d, a.transpose)
	case "chordprog", "bassprog":
		bass := d.Name == "bassprog"
		if n, ok := intArg(d.Args, 0, 0, 127); ok {
			a.programs = append(a.programs, programAt{tick: tick, bass: bass, value: uint8(n)})
		}
		if o, ok := octaveArg(d.Args); ok {
			if bass {
				a.bassBase = BassBase + 12*o
			} else {
				a.chordBase = ChordBase + 12*o
			}
		}
	}
}

// run plays the events (sorted here) up to end, the played length of the voice.
func (a *accompanist) run(evs []accEvent, end int64) {
	sort.SliceStable(evs, func(i, j int) bool {
		if evs[i].tick != evs[j].tick {
			return evs[i].tick < evs[j].tick
		}
		return evs[i].rank < evs[j].rank
	})
	// abc2midi's note array is shared by its tracks: the melody's track, written first, sets
	// it for every chord symbol with no octave base (chord notes 0 + root + interval), and the
	// accompaniment starts with what that pass left. Only the slots past a chord's notes and
	// before the first chord show it (g h i j there play it).
	for _, e := range evs {
		if e.kind == accChord && e.chord.intervals != nil {
			v := e.chord.voicing()
			a.size = min(len(v), maxChordNotes)
			copy(a.notes[:a.size], v)
		}
	}
	for _, e := range evs {
		a.fireUntil(e.tick)
		a.apply(e)
	}
	a.fireUntil(end)
}

// gchordDirective reports whether a %%MIDI directive concerns the accompaniment.
func gchordDirective(name string) bool {
	switch name {
	case "gchord", "gchordon", "gchordoff", "gchordbars", "chordvol", "bassvol", "chordprog", "bassprog",
		"drum", "drumon", "drumoff", "drumbars", "transpose", "rtranspose":
		return true
	}
	return false
}

// writtenEvent is an accompaniment event at its written onset.
type writtenEvent struct {
	onset abc.Rat
	ev    accEvent
}

// accompaniment holds a voice's accompaniment events by written bar, ready to be placed in
// playing order.
type accompaniment struct {
	names  map[string][]int
	byBar  [][]writtenEvent
	chords bool // the voice has chord symbols: it gets bass and chord channels
}

// newAccompaniment gathers the chord symbols, meter changes and accompaniment directives of
// voice id by bar; it returns nil when the voice has neither chord symbols (or they are not
// played: Options.MelodyOnly) nor a %%MIDI drum pattern.
func newAccompaniment(t *abc.Tune, id string, bars []abc.Bar, changes []abc.Change, cues []abc.Cue, opts Options) *accompaniment {
	acc := &accompaniment{names: chordNamesFor(opts.Directives), byBar: make([][]writtenEvent, len(bars))}
	add := func(bar int, onset abc.Rat, ev accEvent) {
		if bar >= 0 && bar < len(bars) {
			acc.byBar[bar] = append(acc.byBar[bar], writtenEvent{onset, ev})
		}
	}
	chords, known := false, false
	for _, c := range cues {
		if !c.IsSymbol || opts.MelodyOnly {
			continue
		}
		if g, ok := parseGuitarChord(c.Symbol, acc.names); ok {
			chords, known = true, known || !g.unknown
			add(c.Bar, c.Onset, accEvent{rank: 2, kind: accChord, chord: g})
		}
	}
	if chords && !known {
		// abc2midi plays no accompaniment in a tune none of whose chord symbols it knows
		// ("Cry of the hounds", "Fine" alone): it reports them and plays the melody.
		chords = false
		acc.byBar = make([][]writtenEvent, len(bars))
	}
	// Lines before the first V: line go with the first voice that has music, as abc2midi
	// plays them.
	first := firstMusicVoice(t)
	mine := func(d Directive) bool { return d.Voice == id || d.Voice == "" && id == first }
	drums := false
	for _, d := range opts.Directives {
		drums = drums || d.Name == "drum" && mine(d)
	}
	if !chords && !drums {
		return nil
	}
	acc.chords = chords
	for i := range opts.Directives {
		d := &opts.Directives[i]
		if !gchordDirective(d.Name) || !mine(*d) {
			continue
		}
		j := sort.Search(len(cues), func(j int) bool { return cues[j].Offset > d.Offset })
		if j == len(cues) {
			continue // after the last note: nothing left to play
		}
		add(cues[j].Bar, cues[j].Onset, accEvent{rank: 1, kind: accDirective, dir: d})
	}
	for _, c := range changes {
		if c.Field.Meter == nil {
			continue
		}
		// The bar it starts in: the last bar starting at or before it (bars are in order).
		b := sort.Search(len(bars), func(b int) bool { return bars[b].Start.Cmp(c.Onset) > 0 }) - 1
		if b >= 0 && c.Onset.Cmp(bars[b].End) < 0 {
			add(b, c.Onset, accEvent{rank: 0, kind: accMeter, meter: *c.Field.Meter})
		}
	}
	return acc
}

// bar appends the events of written bar b, played from tick start with its written onsets
// moved by shift, to evs; lineBefore says whether abc2midi counts a bar line before it (see
// playVoice), where the pattern starts again.
func (acc *accompaniment) bar(evs []accEvent, b int, start int64, shift abc.Rat, lineBefore bool) []accEvent {
	if lineBefore {
		evs = append(evs, accEvent{tick: start, rank: 3, kind: accBar})
	}
	for _, w := range acc.byBar[b] {
		e := w.ev
		e.tick = ticks(w.onset.Add(shift))
		evs = append(evs, e)
	}
	return evs
}

// parseDrums reads a %%MIDI drum line: a pattern of d (hit) and z (rest), each with an
// optional length, then the key of each hit and then its velocity (default key 35, the
// acoustic bass drum, and velocity 80).
func parseDrums(args []string) []gslot {
	var out []gslot
	p := args[0]
	for i := 0; i < len(p) && len(out) < maxSlots; {
		c := p[i]
		if c != 'd' && c != 'z' {
			break
		}
		i++
		n := 0
		for i < len(p) && p[i] >= '0' && p[i] <= '9' && n < 1000 {
			n = n*10 + int(p[i]-'0')
			i++
		}
		if n == 0 {
			n = 1
		}
		out = append(out, gslot{action: c, length: n, key: 35, vel: 80})
	}
	if len(out) == 0 {
		return []gslot{{action: 'z', length: 1}}
	}
	var hits []int
	for i, s := range out {
		if s.action == 'd' {
			hits = append(hits, i)
		}
	}
	for k, a := range args[1:] {
		n, err := strconv.Atoi(a)
		if err != nil {
			break
		}
		switch {
		case k < len(hits):
			if n >= 0 && n <= 127 {
				out[hits[k]].key = uint8(n)
			}
		case k < 2*len(hits):
			if n >= 1 && n <= 127 {
				out[hits[k-len(hits)]].vel = uint8(n)
			}
		}
	}
	return out
}
