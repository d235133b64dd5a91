package abcmidi

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/abccorpus"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

func parseTune(t testing.TB, src string) *abc.Tune {
	t.Helper()
	book, _ := abc.Parse(src, abc.Options{})
	if len(book.Tunes) != 1 {
		t.Fatalf("parsed %d tunes", len(book.Tunes))
	}
	return book.Tunes[0]
}

func convert(t *testing.T, src string, opts Options) *midi.File {
	t.Helper()
	f, err := Convert(parseTune(t, src), opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// note is pitch@onset+duration in ticks.
func notes(f *midi.File) []string {
	var out []string
	for _, n := range midi.NoteEvents(f) {
		out = append(out, fmt.Sprintf("%d@%d+%d", n.Pitch, n.OnTick, n.DurTicks))
	}
	return out
}

func wantNotes(t *testing.T, f *midi.File, want ...string) {
	t.Helper()
	if got := notes(f); !reflect.DeepEqual(got, want) {
		t.Errorf("notes\n got %v\nwant %v", got, want)
	}
}

func tempos(f *midi.File) []string {
	var out []string
	for _, tr := range f.Tracks {
		for _, e := range tr.Events {
			if us, ok := e.TempoValue(); ok {
				out = append(out, fmt.Sprintf("%d@%d", us, e.Tick))
			}
		}
	}
	return out
}

func TestExactTicks(t *testing.T) {
	f := convert(t, "X:1\nM:4/4\nL:1/8\nK:D\nDEF^G A2 c2|d4 z4|\n", Options{})
	if f.Format != 0 || f.TicksPerQuarter != 480 || len(f.Tracks) != 1 {
		t.Fatalf("format %d tpq %d tracks %d", f.Format, f.TicksPerQuarter, len(f.Tracks))
	}
	wantNotes(t, f, "62@0+240", "64@240+240", "66@480+240", "68@720+240", "69@960+480", "73@1440+480", "74@1920+960")
	if got := tempos(f); !reflect.DeepEqual(got, []string{"500000@0"}) {
		t.Errorf("tempo %v, want the default 120 bpm", got)
	}
	var ts, ks bool
	for _, e := range f.Tracks[0].Events {
		if n, d, _, _, ok := e.TimeSignatureValue(); ok {
			ts = n == 4 && d == 4 && e.Tick == 0
		}
		if s, minor, ok := e.KeySignatureValue(); ok {
			ks = s == 2 && !minor && e.Tick == 0
		}
	}
	if !ts || !ks {
		t.Errorf("time signature ok %v, key signature ok %v", ts, ks)
	}
	wantVel := []int{105, 80, 80, 80, 95, 80, 105} // beat stress: bar start, half bar, others
	for i, n := range midi.NoteEvents(f) {
		if n.Velocity != wantVel[i] || n.Channel != 0 {
			t.Errorf("note %+v: want velocity %d on channel 0", n, wantVel[i])
		}
	}
}

func TestRepeatWithEndings(t *testing.T) {
	f := convert(t, "X:1\nM:2/4\nL:1/4\nK:C\n|:CD|1E2:|2F2|G2|]\n", Options{})
	wantNotes(t, f, "60@0+480", "62@480+480", "64@960+960", "60@1920+480", "62@2400+480", "65@2880+960", "67@3840+960")
}

func TestTuplet(t *testing.T) {
	f := convert(t, "X:1\nM:2/4\nL:1/8\nK:C\n(3CDE F2 (3:2:2G2A|\n", Options{})
	wantNotes(t, f, "60@0+160", "62@160+160", "64@320+160", "65@480+480", "67@960+320", "69@1280+160")
}

func TestTempo(t *testing.T) {
	for _, c := range []struct {
		q    string
		opts Options
		want string
	}{
		{"Q:3/8=60\n", Options{}, "666667@0"}, // 90 quarters a minute
		{"Q:1/2=100\n", Options{}, "300000@0"},
		{"Q:240\n", Options{}, "250000@0"}, // a bare Q: counts quarter notes
		{"", Options{}, "500000@0"},
		{"Q:3/8=60\n", Options{BPM: 100}, "600000@0"},
	} {
		f := convert(t, "X:1\nM:6/8\nL:1/8\n"+c.q+"K:C\nCDE FGA|\n", c.opts)
		if got := tempos(f); !reflect.DeepEqual(got, []string{c.want}) {
			t.Errorf("%q %+v: tempo %v, want %s", c.q, c.opts, got, c.want)
		}
	}
}

func TestChanges(t *testing.T) {
	f := convert(t, "X:1\nM:2/4\nL:1/4\nQ:1/4=60\nK:C\nCD|[M:3/4][Q:1/4=120][K:A]CDE|]\n", Options{})
	if got, want := tempos(f), []string{"1000000@0", "500000@960"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tempos %v, want %v", got, want)
	}
	var sigs []string
	for _, e := range f.Tracks[0].Events {
		if n, d, _, _, ok := e.TimeSignatureValue(); ok {
			sigs = append(sigs, fmt.Sprintf("%d/%d@%d", n, d, e.Tick))
		}
		if s, _, ok := e.KeySignatureValue(); ok {
			sigs = append(sigs, fmt.Sprintf("K%d@%d", s, e.Tick))
		}
	}
	if want := []string{"2/4@0", "K0@0", "3/4@960", "K3@960"}; !reflect.DeepEqual(sigs, want) {
		t.Errorf("signatures %v, want %v", sigs, want)
	}
	wantNotes(t, f, "60@0+480", "62@480+480", "61@960+480", "62@1440+480", "64@1920+480")
}

func TestPerformance(t *testing.T) {
	// Grace notes take a quarter of their written length from the note after them.
	f := convert(t, "X:1\nM:4/4\nL:1/8\nK:C\n{g}A2 {GdG}c2 z2 {a}z2|\n", Options{})
	wantNotes(t, f, "79@0+60", "69@60+420", "67@480+60", "74@540+60", "67@600+60", "72@660+300")
	f = convert(t, "X:1\nM:4/4\nL:1/8\nK:C\n{g}A2 {GdG}c2 z2 {a}z2|\n", Options{NoGrace: true})
	wantNotes(t, f, "69@0+480", "72@480+480")

	// Chords are staggered unless tied; staccato halves a note.
	f = convert(t, "X:1\nM:4/4\nL:1/8\nK:C\n[CEG]2 .c2 [CE]2-[CE]2|\n", Options{})
	wantNotes(t, f, "60@0+480", "64@10+470", "67@20+460", "72@480+240", "60@960+960", "64@960+960")
	f = convert(t, "X:1\nM:4/4\nL:1/8\nK:C\n[CEG]2 .c2 [CE]2-[CE]2|\n", Options{Straight: true})
	wantNotes(t, f, "60@0+480", "64@0+480", "67@0+480", "72@480+480", "60@960+960", "64@960+960")

	// Hornpipes swing pairs of eighths on the beat 2:1, dotted or not.
	src := "X:1\nR:hornpipe\nM:4/4\nL:1/8\nK:C\nCD E>F G2 (3ABc|\n"
	wantNotes(t, convert(t, src, Options{}), "60@0+320", "62@320+160", "64@480+320", "65@800+160", "67@960+480",
		"69@1440+160", "71@1600+160", "72@1760+160")
	wantNotes(t, convert(t, src, Options{Straight: true}), "60@0+240", "62@240+240", "64@480+360", "65@840+120", "67@960+480",
		"69@1440+160", "71@1600+160", "72@1760+160")
}

func TestVoices(t *testing.T) {
	f := convert(t, "X:1\nT:Duet\nM:2/4\nL:1/4\nK:C\nV:1 name=\"Top\"\ncd|e2|]\nV:2\nCD|E2|]\n", Options{Transpose: 2})
	if f.Format != 1 || len(f.Tracks) != 3 {
		t.Fatalf("format %d with %d tracks, want format 1 with 3", f.Format, len(f.Tracks))
	}
	for _, e := range f.Tracks[1].Events {
		if e.Kind == midi.KindNoteOn || e.Kind == midi.KindNoteOff || e.IsMeta(midi.MetaTempo) {
			continue
		}
		if s, ok := e.Text(); ok && s != "Top" {
			t.Errorf("track name %q, want Top", s)
		}
	}
	var got []string
	for _, n := range midi.NoteEvents(f) {
		got = append(got, fmt.Sprintf("t%d ch%d %d@%d", n.Track, n.Channel, n.Pitch, n.OnTick))
	}
	want := []string{"t1 ch0 74@0", "t2 ch1 62@0", "t1 ch0 76@480", "t2 ch1 64@480", "t1 ch0 78@960", "t2 ch1 66@960"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("notes\n got %v\nwant %v", got, want)
	}
	if len(tempos(f)) != 1 || len(midi.NoteEvents(&midi.File{Tracks: f.Tracks[:1]})) != 0 {
		t.Errorf("the first track should hold the tempo and no notes")
	}
}

func TestErrors(t *testing.T) {
	if _, err := Convert(parseTune(t, "X:1\nL:1/4\nK:C\nc''''CD|\n"), Options{Transpose: 40}); err == nil || !strings.Contains(err.Error(), "MIDI range") {
		t.Errorf("out of range: err %v", err)
	}
	if _, err := Convert(nil, Options{}); !errors.Is(err, ErrNoVoices) {
		t.Errorf("nil tune: err %v", err)
	}
	if _, err := Convert(parseTune(t, "X:1\nK:C\nC|\n"), Options{Velocity: 200}); err == nil {
		t.Errorf("velocity 200 accepted")
	}
	// The slowest tempo a MIDI file states is about 3.58 bpm: slower is refused, not clamped.
	if _, err := Convert(parseTune(t, "X:1\nK:C\nC|\n"), Options{BPM: 3.5}); err == nil || !strings.Contains(err.Error(), "slowest tempo") {
		t.Errorf("BPM 3.5: err %v", err)
	}
	if _, err := Convert(parseTune(t, "X:1\nK:C\nC|\n"), Options{BPM: 3.6}); err != nil {
		t.Errorf("BPM 3.6: %v", err)
	}
}

func corpusTunes(t testing.TB) []*abc.Tune {
	t.Helper()
	ts, err := abccorpus.Tunes()
	if err != nil {
		t.Fatal(err)
	}
	var out []*abc.Tune
	for _, c := range ts {
		out = append(out, parseTune(t, c.Text))
	}
	return out
}

// TestRoundTrip converts every corpus tune, encodes and decodes it, and checks the notes and
// tempo survive.
func TestRoundTrip(t *testing.T) {
	for i, tu := range corpusTunes(t) {
		f, err := Convert(tu, Options{})
		if err != nil {
			t.Fatalf("tune %d: %v", i, err)
		}
		if len(midi.NoteEvents(f)) == 0 {
			t.Errorf("tune %d: no notes", i)
		}
		data, err := midi.Encode(*f)
		if err != nil {
			t.Fatalf("tune %d: encode: %v", i, err)
		}
		g, err := midi.Decode(data)
		if err != nil {
			t.Fatalf("tune %d: decode: %v", i, err)
		}
		if !reflect.DeepEqual(notes(f), notes(g)) || !reflect.DeepEqual(tempos(f), tempos(g)) || g.Format != f.Format {
			t.Errorf("tune %d: round trip changed the file", i)
		}
	}
}

func BenchmarkConvertCorpus(b *testing.B) {
	tunes := corpusTunes(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, tu := range tunes {
			if _, err := Convert(tu, Options{}); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tunes/s")
}

func TestMIDIDirectives(t *testing.T) {
	src := "X:1\nM:2/4\nL:1/4\nK:C\n%%MIDI program 20\nV:1\n%%MIDI program 73\nCD|]\nV:2\n%%MIDI channel 4 % bass\nC,D,|]\nV:3\n%%MIDI transpose 2\nCD|]\n"
	tu := parseTune(t, src)
	d := MIDIDirectives(src, tu)
	want := map[string]VoiceMIDI{"": {Program: 20}, "1": {Program: 73}, "2": {Channel: 4, Program: -1}}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("directives %+v, want %+v", d, want)
	}
	f, err := Convert(tu, Options{Voices: d})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, tr := range f.Tracks {
		for _, e := range tr.Events {
			if e.Kind == midi.KindProgramChange {
				got = append(got, fmt.Sprintf("t%d ch%d p%d", i, e.Channel, e.Data1))
			}
		}
	}
	// Voice 2 takes the header's program on its own channel; voice 3 the header's on the
	// lowest channel left, 1.
	if w := []string{"t1 ch0 p73", "t2 ch3 p20", "t3 ch1 p20"}; !reflect.DeepEqual(got, w) {
		t.Errorf("program changes %v, want %v", got, w)
	}
	for _, n := range midi.NoteEvents(f) {
		if n.Track == 2 && n.Channel != 3 {
			t.Errorf("voice 2 note on channel %d, want 3", n.Channel)
		}
	}
}

func TestDrumChannel(t *testing.T) {
	// Checked against abc2midi: a voice on channel 10 plays its notes as written (GM drum
	// keys); voices without a channel take the lowest channel no earlier voice has.
	src := "X:1\nM:4/4\nL:1/4\nK:C\nV:1\nCDEF|\nV:2 clef=perc\n%%MIDI channel 10\nC,,^F,,D,,^F,,|\nV:3\nGABc|\n" +
		"V:4\n%%MIDI channel 1\nc4|\nV:5\nC4|\n"
	tu := parseTune(t, src)
	f := convert(t, src, Options{Voices: MIDIDirectives(src, tu)})
	chans := map[int]int{}
	var drums []int
	for _, n := range midi.NoteEvents(f) {
		chans[n.Track] = n.Channel
		if n.Channel == 9 {
			drums = append(drums, n.Pitch)
		}
	}
	if want := map[int]int{1: 0, 2: 9, 3: 1, 4: 0, 5: 2}; !reflect.DeepEqual(chans, want) {
		t.Errorf("channels by track %v, want %v", chans, want)
	}
	if want := []int{36, 42, 38, 42}; !reflect.DeepEqual(drums, want) {
		t.Errorf("drum keys %v, want %v", drums, want)
	}
	// A tune without voices can be all drums.
	src = "X:1\nM:4/4\nL:1/4\nK:C\n%%MIDI channel 10\nC,,D,,|\n"
	f = convert(t, src, Options{Voices: MIDIDirectives(src, parseTune(t, src))})
	for _, n := range midi.NoteEvents(f) {
		if n.Channel != 9 {
			t.Errorf("note %+v not on the drum channel", n)
		}
	}
}

func TestParts(t *testing.T) {
	// Checked against abc2midi: the P: line before the voices gives no track of its own and
	// labels both voices; the parts play B A B.
	src := "X:1\nM:4/4\nL:1/4\nP:BAB\nK:C\nP:A\nV:1\nCDEF|\nV:2\nC,4|\nP:B\nV:1\ncBAG|\nV:2\nG,4|\n"
	f := convert(t, src, Options{})
	if len(f.Tracks) != 3 {
		t.Fatalf("%d tracks, want a conductor and two voices", len(f.Tracks))
	}
	var got []string
	for _, n := range midi.NoteEvents(f) {
		got = append(got, fmt.Sprintf("t%d ch%d %d@%d", n.Track, n.Channel, n.Pitch, n.OnTick))
	}
	want := []string{
		"t1 ch0 72@0", "t2 ch1 55@0", "t1 ch0 71@480", "t1 ch0 69@960", "t1 ch0 67@1440",
		"t1 ch0 60@1920", "t2 ch1 48@1920", "t1 ch0 62@2400", "t1 ch0 64@2880", "t1 ch0 65@3360",
		"t1 ch0 72@3840", "t2 ch1 55@3840", "t1 ch0 71@4320", "t1 ch0 69@4800", "t1 ch0 67@5280",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("notes\n got %v\nwant %v", got, want)
	}
	// A tempo given before the first V: line still counts.
	f = convert(t, "X:1\nM:4/4\nL:1/4\nK:C\nQ:1/4=60\nV:1\nC4|\nV:2\nC,4|\n", Options{})
	if got := tempos(f); len(got) == 0 || got[len(got)-1] != "1000000@0" {
		t.Errorf("tempos %v", got)
	}
}

func TestMusicBeforeFirstVoice(t *testing.T) {
	// Checked against abc2midi: the first voice plays what comes before the first V: line.
	f := convert(t, "X:1\nM:4/4\nL:1/4\nK:C\nCDEF|\nV:1\ncBAG|\nV:2\nC,4|\n", Options{})
	var got []string
	for _, n := range midi.NoteEvents(f) {
		got = append(got, fmt.Sprintf("t%d ch%d %d@%d", n.Track, n.Channel, n.Pitch, n.OnTick))
	}
	want := []string{"t1 ch0 60@0", "t2 ch1 48@0", "t1 ch0 62@480", "t1 ch0 64@960", "t1 ch0 65@1440",
		"t1 ch0 72@1920", "t1 ch0 71@2400", "t1 ch0 69@2880", "t1 ch0 67@3360"}
	if len(f.Tracks) != 3 || !reflect.DeepEqual(got, want) {
		t.Errorf("%d tracks, notes\n got %v\nwant %v", len(f.Tracks), got, want)
	}
}
