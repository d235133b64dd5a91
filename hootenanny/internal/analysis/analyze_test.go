package analysis

import (
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

const tpq = 480

// note is a test note: pitch, onset and length in quarter notes, channel.
type note struct {
	pitch    int
	on, dur  float64
	ch       uint8
	velocity uint8
}

// file makes a one-track file of notes, with a time signature when num > 0 and a tempo when
// bpm > 0.
func file(t *testing.T, num, den int, bpm float64, notes []note) *midi.File {
	t.Helper()
	return fileWith(num, den, bpm, notes)
}

// fileOf makes a one-track file of notes without a time signature or tempo.
func fileOf(notes []note) *midi.File { return fileWith(0, 0, 0, notes) }

func fileWith(num, den int, bpm float64, notes []note) *midi.File {
	var evs []midi.Event
	if num > 0 {
		evs = append(evs, midi.TimeSignature(0, uint8(num), uint8(den), 24, 8))
	}
	if bpm > 0 {
		evs = append(evs, midi.Tempo(0, uint32(60e6/bpm)))
	}
	for _, n := range notes {
		v := n.velocity
		if v == 0 {
			v = 90
		}
		on := int64(n.on * tpq)
		evs = append(evs, midi.NoteOn(on, n.ch, uint8(n.pitch), v), midi.NoteOff(on+int64(n.dur*tpq), n.ch, uint8(n.pitch), 0))
	}
	// Sorting by tick keeps a note-off before a note-on at the same tick only if it came first.
	sortEvents(evs)
	var last int64
	for _, e := range evs {
		last = max(last, e.Tick)
	}
	evs = append(evs, midi.EndOfTrack(last))
	return &midi.File{Format: 0, TicksPerQuarter: tpq, Tracks: []midi.Track{{Events: evs}}}
}

func sortEvents(evs []midi.Event) {
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && (evs[j].Tick < evs[j-1].Tick || (evs[j].Tick == evs[j-1].Tick && offFirst(evs[j], evs[j-1]))); j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
}

func offFirst(a, b midi.Event) bool {
	isOff := func(e midi.Event) bool {
		return e.Kind == midi.KindNoteOff || (e.Kind == midi.KindNoteOn && e.Data2 == 0)
	}
	return isOff(a) && !isOff(b)
}

// line makes a melody of one note per quarter note.
func line(pitches ...int) []note {
	out := make([]note, len(pitches))
	for i, p := range pitches {
		out[i] = note{pitch: p, on: float64(i), dur: 1}
	}
	return out
}

func analyze(t *testing.T, f *midi.File, opts Options) *Result {
	t.Helper()
	r, err := Analyze(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCMajorScale(t *testing.T) {
	t.Parallel()
	// C D E F G A B C, ending on a long C.
	ns := line(60, 62, 64, 65, 67, 69, 71, 72)
	ns[7].dur = 4
	r := analyze(t, file(t, 4, 4, 100, ns), Options{})
	if got := r.Key.Name(); got != "C major" {
		t.Fatalf("key = %s (%.3f), want C major; runner-up %s", got, r.Key.Score, r.RunnerUp.Name())
	}
	if r.RunnerUp.Name() == r.Key.Name() || r.RunnerUp.Score > r.Key.Score {
		t.Errorf("runner-up %s %.3f against key %.3f", r.RunnerUp.Name(), r.RunnerUp.Score, r.Key.Score)
	}
	if got := r.Modal.Name(); got != "C major" {
		t.Errorf("modal = %s, want C major", got)
	}
	if r.Tempo.BPM < 99.9 || r.Tempo.BPM > 100.1 || r.Tempo.Source != "tempo event" {
		t.Errorf("tempo = %+v, want 100 from a tempo event", r.Tempo)
	}
	if r.Meter.Numerator != 4 || r.Meter.Denominator != 4 || r.Meter.Source != "time signature event" {
		t.Errorf("meter = %+v", r.Meter)
	}
}

func TestAHarmonicMinor(t *testing.T) {
	t.Parallel()
	// A B C D E F G# A, down again, and a long A.
	ns := line(57, 59, 60, 62, 64, 65, 68, 69, 68, 65, 64, 62, 60, 59, 57)
	ns[len(ns)-1].dur = 4
	r := analyze(t, file(t, 0, 0, 0, ns), Options{})
	if got := r.Key.Name(); got != "A minor" {
		t.Fatalf("key = %s (%.3f), want A minor; runner-up %s", got, r.Key.Score, r.RunnerUp.Name())
	}
	if r.Tempo.Source != "default 120 (no tempo event)" || r.Tempo.BPM != 120 {
		t.Errorf("tempo = %+v, want the default", r.Tempo)
	}
	// A tempo event that comes late: the default holds until it, and the answer says so.
	f := file(t, 0, 0, 0, ns)
	f.Tracks[0].Events = append([]midi.Event{midi.Tempo(4*tpq, 500000*2)}, f.Tracks[0].Events...)
	sortEvents(f.Tracks[0].Events)
	r = analyze(t, f, Options{})
	if r.Tempo.BPM != 120 || r.Tempo.MinBPM != 60 || r.Tempo.Changes != 1 || r.Tempo.Source != "default 120 until the first tempo event, at tick 1920" {
		t.Errorf("late tempo = %+v", r.Tempo)
	}
}

// chords makes whole-note block chords, one per 4/4 bar, each with its bass an octave down.
func chords(bass []int, triads ...[]int) []note {
	var ns []note
	for i, tr := range triads {
		ns = append(ns, note{pitch: bass[i], on: float64(4 * i), dur: 4})
		for _, p := range tr {
			ns = append(ns, note{pitch: p, on: float64(4 * i), dur: 4})
		}
	}
	return ns
}

func TestProgressionChordsPerBar(t *testing.T) {
	t.Parallel()
	ns := chords([]int{48, 53, 43, 43, 52, 48},
		[]int{60, 64, 67},     // C
		[]int{60, 65, 69},     // F
		[]int{59, 62, 67},     // G
		[]int{59, 62, 65, 67}, // G7
		[]int{60, 64, 67},     // C over E
		[]int{57, 60, 64},     // Am over C: C A C E reads as Am/C
	)
	r := analyze(t, file(t, 4, 4, 0, ns), Options{})
	var got []string
	for _, c := range r.Chords {
		got = append(got, c.Name)
	}
	want := "C F G G7 C/E Am/C"
	if strings.Join(got, " ") != want {
		t.Fatalf("chords = %q, want %q", strings.Join(got, " "), want)
	}
	if r.Chords[1].Bar != 2 || r.Chords[1].Beat != 0 || r.Chords[1].Tick != 4*tpq {
		t.Errorf("second chord at %+v", r.Chords[1])
	}
	if r.ChordsTotal != 6 || r.DurationBars != 6 {
		t.Errorf("total %d chords over %.2f bars, want 6 and 6", r.ChordsTotal, r.DurationBars)
	}
}

func TestChordsPerBeatAndCap(t *testing.T) {
	t.Parallel()
	// Bar 1: C for two beats, then F, then G; bar 2: silence, which is N.C.
	ns := []note{
		{pitch: 48, on: 0, dur: 2}, {pitch: 64, on: 0, dur: 2}, {pitch: 67, on: 0, dur: 2},
		{pitch: 53, on: 2, dur: 1}, {pitch: 57, on: 2, dur: 1}, {pitch: 60, on: 2, dur: 1},
		{pitch: 55, on: 3, dur: 1}, {pitch: 59, on: 3, dur: 1}, {pitch: 62, on: 3, dur: 1},
		{pitch: 60, on: 7.5, dur: 0.5},
	}
	r := analyze(t, file(t, 4, 4, 0, ns), Options{PerBeat: true})
	var got []string
	for _, c := range r.Chords {
		got = append(got, c.Name)
	}
	if want := "C C F G N.C. N.C. N.C. C"; strings.Join(got, " ") != want {
		t.Errorf("per beat = %q, want %q", strings.Join(got, " "), want)
	}
	if c := r.Chords[6]; c.Bar != 2 || c.Beat != 3 {
		t.Errorf("seventh chord at bar %d beat %d, want 2 and 3", c.Bar, c.Beat)
	}
	r = analyze(t, file(t, 4, 4, 0, ns), Options{PerBeat: true, MaxChords: 3})
	if len(r.Chords) != 3 || r.ChordsTotal != 8 {
		t.Errorf("capped: %d listed of %d, want 3 of 8", len(r.Chords), r.ChordsTotal)
	}
}

// waltz is bars of bass on the downbeat (long and loud) and a chord on beats 2 and 3.
func waltz(bars int) []note {
	var ns []note
	for b := range bars {
		on := float64(3 * b)
		ns = append(ns, note{pitch: 43, on: on, dur: 1, velocity: 110})
		for _, beat := range []float64{1, 2} {
			for _, p := range []int{59, 62, 67} {
				ns = append(ns, note{pitch: p, on: on + beat, dur: 0.5, velocity: 70})
			}
		}
	}
	return ns
}

func TestThreeFour(t *testing.T) {
	t.Parallel()
	// The last chord ends half a beat before the bar does: 7 and 5/6 bars.
	r := analyze(t, file(t, 3, 4, 0, waltz(8)), Options{})
	if r.Meter.Numerator != 3 || r.Meter.Denominator != 4 || r.Meter.Source != "time signature event" {
		t.Fatalf("meter = %+v, want 3/4 from the event", r.Meter)
	}
	if r.DurationBars < 7.8 || r.DurationBars > 7.9 || len(r.Chords) != 8 || r.Chords[0].Name != "G" {
		t.Errorf("%.2f bars, chords %+v", r.DurationBars, r.Chords)
	}
	// Without the time signature the onsets say 3/4.
	r = analyze(t, file(t, 0, 0, 0, waltz(8)), Options{})
	if r.Meter.Numerator != 3 || r.Meter.Denominator != 4 || r.Meter.Source != "estimated from onsets" {
		t.Errorf("estimated meter = %+v, want 3/4 estimated from onsets", r.Meter)
	}
	if r.Tempo.BeatsPerMinute != 120 {
		t.Errorf("beats per minute = %v, want 120", r.Tempo.BeatsPerMinute)
	}
}

func TestSixEightEstimated(t *testing.T) {
	t.Parallel()
	// A jig: eighth notes in threes, the first of each three accented, the bar's first most.
	var ns []note
	for b := range 8 {
		for i := range 6 {
			v := uint8(70)
			switch i {
			case 0:
				v = 110
			case 3:
				v = 95
			}
			ns = append(ns, note{pitch: 62 + i%3*2, on: float64(b)*3 + float64(i)*0.5, dur: 0.5, velocity: v})
		}
	}
	r := analyze(t, file(t, 0, 0, 0, ns), Options{})
	if r.Meter.Numerator != 6 || r.Meter.Denominator != 8 {
		t.Errorf("estimated meter = %+v, want 6/8", r.Meter)
	}
	if r.Tempo.BeatsPerMinute != 80 {
		t.Errorf("beats per minute = %v, want 80 dotted quarters", r.Tempo.BeatsPerMinute)
	}
}

func TestVoicesAndDrums(t *testing.T) {
	t.Parallel()
	ns := []note{
		{pitch: 60, on: 0, dur: 2}, {pitch: 64, on: 0, dur: 2}, {pitch: 67, on: 1, dur: 2}, {pitch: 72, on: 3, dur: 1},
		{pitch: 36, on: 0, dur: 1, ch: 2}, {pitch: 43, on: 1, dur: 1, ch: 2},
		{pitch: 36, on: 0, dur: 0.25, ch: 9}, {pitch: 38, on: 1, dur: 0.25, ch: 9},
	}
	f := file(t, 4, 4, 0, ns)
	f.Tracks[0].Events = append([]midi.Event{midi.TrackName(0, "band"), midi.ProgramChange(0, 2, 32)}, f.Tracks[0].Events...)
	r := analyze(t, f, Options{})
	if len(r.Voices) != 3 {
		t.Fatalf("voices = %+v", r.Voices)
	}
	v := r.Voices[0]
	if v.Channel != 0 || v.Notes != 4 || v.Lowest != 60 || v.Highest != 72 || v.Median != 64 || v.Polyphony != 3 || v.Name != "band" || v.Program != -1 {
		t.Errorf("voice 0 = %+v", v)
	}
	if v := r.Voices[1]; v.Channel != 2 || v.Program != 32 || v.Polyphony != 1 || PitchName(v.Lowest) != "C2" {
		t.Errorf("voice 1 = %+v", v)
	}
	if v := r.Voices[2]; !v.Drums || v.Channel != 9 || v.Notes != 2 {
		t.Errorf("drums = %+v", v)
	}
	if r.Notes != 6 {
		t.Errorf("pitched notes = %d, want 6 (drums apart)", r.Notes)
	}
}

func TestTooManyNotes(t *testing.T) {
	t.Parallel()
	evs := make([]midi.Event, 0, 2*MaxNotes+4)
	for i := range MaxNotes + 1 {
		evs = append(evs, midi.NoteOn(int64(i), 0, 60, 90), midi.NoteOff(int64(i)+1, 0, 60, 0))
	}
	_, err := Analyze(&midi.File{TicksPerQuarter: tpq, Tracks: []midi.Track{{Events: evs}}}, Options{})
	if _, ok := err.(*TooManyNotesError); !ok {
		t.Fatalf("err = %v, want TooManyNotesError", err)
	}
}

func TestEmptyFile(t *testing.T) {
	t.Parallel()
	r := analyze(t, &midi.File{TicksPerQuarter: tpq, Tracks: []midi.Track{{Events: []midi.Event{midi.EndOfTrack(0)}}}}, Options{})
	if r.Notes != 0 || len(r.Chords) != 0 || r.Meter.Source != "default 4/4" {
		t.Errorf("empty = %+v", r)
	}
}

func TestFarOffNoteIsCountedNotWalked(t *testing.T) {
	t.Parallel()
	const far = int64(1) << 40
	f := &midi.File{TicksPerQuarter: tpq, Tracks: []midi.Track{{Events: []midi.Event{
		midi.TimeSignature(0, 4, 4, 24, 8),
		midi.NoteOn(0, 0, 60, 90), midi.NoteOff(tpq, 0, 60, 0),
		midi.NoteOn(far, 0, 67, 90), midi.NoteOff(far+tpq, 0, 67, 0),
		midi.EndOfTrack(far + tpq),
	}}}}
	r := analyze(t, f, Options{PerBeat: true})
	// Whole bars of four beats, then the beats the last part bar starts.
	end := far + tpq
	want := end/(4*tpq)*4 + (end%(4*tpq)+tpq-1)/tpq
	if len(r.Chords) != DefaultMaxChords || int64(r.ChordsTotal) != want {
		t.Errorf("%d chords listed of %d, want %d of %d", len(r.Chords), r.ChordsTotal, DefaultMaxChords, want)
	}
	// A lone C: N.C., or a chord on C whose third the key decides.
	if r.Chords[0].Name != "N.C." && r.Chords[0].Root != 0 {
		t.Errorf("first beat = %+v", r.Chords[0])
	}
}

func TestSectionKeys(t *testing.T) {
	t.Parallel()
	// Two bars of C major up and down, then two of E major, then a silent bar and a C.
	c := []int{60, 62, 64, 65, 67, 69, 71, 72, 72, 71, 69, 67, 65, 64, 62, 60}
	var ns []note
	for i, p := range c {
		ns = append(ns, note{pitch: p, on: float64(i) * 0.5, dur: 0.5})
		ns = append(ns, note{pitch: p + 4, on: 8 + float64(i)*0.5, dur: 0.5})
	}
	ns = append(ns, note{pitch: 60, on: 20, dur: 4})
	r := analyze(t, file(t, 4, 4, 0, ns), Options{SectionBars: 2})
	if len(r.Sections) != 3 {
		t.Fatalf("sections = %+v, want 3", r.Sections)
	}
	want := []struct {
		first, last int
		key         string
	}{{1, 2, "C major"}, {3, 4, "E major"}, {5, 6, "C major"}}
	for i, w := range want {
		s := r.Sections[i]
		if s.FirstBar != w.first || s.LastBar != w.last || s.Key.Name() != w.key || !s.Sounding {
			t.Errorf("section %d = bars %d-%d %s (sounding %v), want bars %d-%d %s", i, s.FirstBar, s.LastBar, s.Key.Name(), s.Sounding, w.first, w.last, w.key)
		}
	}
	if r := analyze(t, file(t, 4, 4, 0, ns), Options{}); len(r.Sections) != 0 {
		t.Errorf("sections without asking: %+v", r.Sections)
	}
}

// TestPickupWithTimeSignature: a 4/4 file that opens with a quarter-note pickup and sets its
// time signature at tick 0 all the same. The downbeats (loud, after the pickup) start the bars,
// so each bar holds one chord; without a pickup the bars stay where the time signature puts
// them.
func TestPickupWithTimeSignature(t *testing.T) {
	t.Parallel()
	ns := []note{{pitch: 67, on: 0, dur: 1, velocity: 60}} // the pickup, G
	prog := [][]int{{48, 60, 64, 67}, {53, 60, 65, 69}, {43, 59, 62, 67}, {48, 60, 64, 67}}
	for bar, ch := range prog {
		at := 1 + 4*float64(bar)
		for i, p := range ch {
			ns = append(ns, note{pitch: p, on: at, dur: 1, velocity: 110})
			ns = append(ns, note{pitch: ch[(i+1)%4], on: at + 1 + float64(i%3), dur: 1, velocity: 70})
		}
	}
	r := analyze(t, file(t, 4, 4, 0, ns), Options{})
	var got []string
	for _, c := range r.Chords {
		got = append(got, c.Name)
	}
	if want := "G C F G C"; strings.Join(got, " ") != want {
		t.Fatalf("chords = %q, want %q (a pickup bar, then one chord a bar)", strings.Join(got, " "), want)
	}
	if r.Chords[0].Tick != 0 || r.Chords[1].Tick != tpq || r.Chords[1].Bar != 2 {
		t.Errorf("pickup %+v, first bar %+v: want ticks 0 and %d", r.Chords[0], r.Chords[1], tpq)
	}
	// Per beat, the pickup is the bar's last beat.
	r = analyze(t, file(t, 4, 4, 0, ns), Options{PerBeat: true})
	if c := r.Chords[0]; c.Bar != 1 || c.Beat != 4 || c.Tick != 0 || r.Chords[1].Bar != 2 || r.Chords[1].Beat != 1 || r.Chords[1].Tick != tpq {
		t.Errorf("per beat: pickup %+v, then %+v; want bar 1 beat 4 at 0, bar 2 beat 1 at %d", c, r.Chords[1], tpq)
	}
	// The same bars without the pickup keep their downbeat at tick 0.
	for i := range ns {
		ns[i].on--
	}
	r = analyze(t, file(t, 4, 4, 0, ns[1:]), Options{})
	if r.Chords[0].Tick != 0 || r.Chords[0].Name != "C" || r.Chords[1].Tick != 4*tpq {
		t.Errorf("without a pickup: %+v then %+v, want C at 0 and the next bar at %d", r.Chords[0], r.Chords[1], 4*tpq)
	}
}

// TestAccompanimentHeldThroughRests: an accompaniment that plays a C chord only on the
// off-beats (bass on beats 1 and 3, the chord on 2 and 4, each an eighth note, as abc2midi's
// fzczfzcz) under a melody of passing notes. Each accompaniment note is heard until the next
// in its part, so the bar is C; counting only the eighths it sounds, the melody's D and F
// outweigh it. The hold stops at the bar line: the next bar's chord is named from its own
// notes.
func TestAccompanimentHeldThroughRests(t *testing.T) {
	t.Parallel()
	ns := []note{
		{pitch: 74, on: 0, dur: 1, ch: 0}, {pitch: 77, on: 1, dur: 1, ch: 0},
		{pitch: 74, on: 2, dur: 1, ch: 0}, {pitch: 77, on: 3, dur: 1, ch: 0},
		// The next bar: F major, struck on the downbeat and held.
		{pitch: 53, on: 4, dur: 4, ch: 1}, {pitch: 65, on: 4, dur: 4, ch: 2}, {pitch: 69, on: 4, dur: 4, ch: 2}, {pitch: 72, on: 4, dur: 4, ch: 2},
	}
	for _, beat := range []float64{0, 2} {
		ns = append(ns, note{pitch: 36, on: beat, dur: 0.5, ch: 1})
		for _, p := range []int{48, 52, 55} {
			ns = append(ns, note{pitch: p, on: beat + 1, dur: 0.5, ch: 2})
		}
	}
	r := analyze(t, file(t, 4, 4, 0, ns), Options{})
	checkChordNames(t, r, "C F")
}

// TestPassingSeventh: a C chord held for the bar under a melody that lingers on B for half of
// it is C, the B a passing note; the same chord with B held as long as its other notes is
// Cmaj7.
func TestPassingSeventh(t *testing.T) {
	t.Parallel()
	bar := func(at float64, seventhHeld bool) []note {
		ns := []note{
			{pitch: 36, on: at, dur: 4, ch: 1},
			{pitch: 48, on: at, dur: 4, ch: 2}, {pitch: 52, on: at, dur: 4, ch: 2}, {pitch: 55, on: at, dur: 4, ch: 2},
			{pitch: 71, on: at, dur: 2}, {pitch: 72, on: at + 2, dur: 1}, {pitch: 76, on: at + 3, dur: 1},
		}
		if seventhHeld {
			ns = append(ns, note{pitch: 59, on: at, dur: 4, ch: 2})
		}
		return ns
	}
	r := analyze(t, file(t, 4, 4, 0, append(bar(0, false), bar(4, true)...)), Options{})
	checkChordNames(t, r, "C Cmaj7")
}

// TestOpenFifthTakesTheKeysThird: a bar of A and E alone, with no third, reads as A minor or A
// major alike; the key's scale decides: Am after a tune in A minor, A after one in A major.
func TestOpenFifthTakesTheKeysThird(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		scale []int
		want  string
	}{
		{[]int{57, 59, 60, 62, 64, 65, 67, 69, 67, 65, 64, 62, 60, 59, 57, 57}, "Am"},
		{[]int{57, 59, 61, 62, 64, 66, 68, 69, 68, 66, 64, 62, 61, 59, 57, 57}, "A"},
	} {
		ns := line(c.scale...)
		ns = append(ns, note{pitch: 45, on: 16, dur: 4}, note{pitch: 52, on: 16, dur: 4}, note{pitch: 57, on: 16, dur: 4})
		r := analyze(t, file(t, 4, 4, 0, ns), Options{})
		if got := r.Chords[len(r.Chords)-1].Name; got != c.want {
			t.Errorf("in %s: open fifth named %s, want %s", r.Key.Name(), got, c.want)
		}
	}
}

// TestAddedSixthIsNotRelativeMinorSeventh: a C chord held for the bar under a melody on A for
// its first five eighths (then G) holds C E G A, which Am7/C spells too; the A, sounding for
// less than two thirds of the chord's other notes, is not the root of a seventh chord, and the
// bar is C.
func TestAddedSixthIsNotRelativeMinorSeventh(t *testing.T) {
	t.Parallel()
	ns := []note{
		{pitch: 48, on: 0, dur: 4, ch: 2}, {pitch: 52, on: 0, dur: 4, ch: 2}, {pitch: 55, on: 0, dur: 4, ch: 2},
		{pitch: 69, on: 0, dur: 2.5}, {pitch: 67, on: 2.5, dur: 1.5},
	}
	r := analyze(t, file(t, 4, 4, 0, ns), Options{})
	if got := r.Chords[0].Name; got != "C" {
		t.Errorf("chord = %s, want C", got)
	}
}

// TestSeventhChordNeedsAllItsNotes: a bass C under a melody B names no seventh chord: Cmaj7's
// E and G do not sound, and a seventh chord is named only when all four of its notes do.
func TestSeventhChordNeedsAllItsNotes(t *testing.T) {
	t.Parallel()
	ns := []note{{pitch: 36, on: 0, dur: 4, ch: 1}, {pitch: 71, on: 0, dur: 3}, {pitch: 72, on: 3, dur: 1}}
	r := analyze(t, file(t, 4, 4, 0, ns), Options{})
	if got := r.Chords[0]; got.Name != "C" {
		t.Errorf("chord = %+v, want C", got)
	}
}

// TestAddedSixthOverItsRoot: C E G A held alike is C6 over a bass C and Am7 over a bass A.
func TestAddedSixthOverItsRoot(t *testing.T) {
	t.Parallel()
	var ns []note
	for i, bass := range []int{36, 45} {
		at := float64(4 * i)
		ns = append(ns, note{pitch: bass, on: at, dur: 4, ch: 1})
		for _, p := range []int{60, 64, 67, 69} {
			ns = append(ns, note{pitch: p, on: at, dur: 4, ch: 2})
		}
	}
	r := analyze(t, file(t, 4, 4, 0, ns), Options{})
	var got []string
	for _, c := range r.Chords {
		got = append(got, c.Name+" "+c.Quality)
	}
	if want := "C6 6, Am7 m7"; strings.Join(got, ", ") != want {
		t.Errorf("chords = %q, want %q", strings.Join(got, ", "), want)
	}
}

// checkChordNames fails t unless r names the chords want, space-separated, in order.
func checkChordNames(t *testing.T, r *Result, want string) {
	t.Helper()
	var got []string
	for _, c := range r.Chords {
		got = append(got, c.Name)
	}
	if strings.Join(got, " ") != want {
		t.Errorf("chords = %q, want %q", strings.Join(got, " "), want)
	}
}
