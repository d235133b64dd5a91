package midiabc_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/abccorpus"
	"github.com/hootenanny/hoot/hootenanny/internal/abcmidi"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
	"github.com/hootenanny/hoot/hootenanny/internal/midiabc"
)

// play converts ABC text (one tune) to MIDI with the project's converter; strict refuses ABC
// with errors (what midiabc writes has none).
func play(t testing.TB, text string, melody, strict bool) *midi.File {
	t.Helper()
	book, diags := abc.Parse(text, abc.Options{})
	for _, d := range diags {
		if strict && d.Severity == abc.Error {
			t.Fatalf("the ABC has an error at %d:%d: %s\n%s", d.Line, d.Col, d.Message, text)
		}
	}
	if len(book.Tunes) != 1 {
		t.Fatalf("%d tunes in\n%s", len(book.Tunes), text)
	}
	tune := book.Tunes[0]
	f, err := abcmidi.Convert(tune, abcmidi.Options{
		Voices: abcmidi.MIDIDirectives(text, tune), Directives: abcmidi.Directives(text, tune), MelodyOnly: melody,
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// notes builds a format 0 file at 480 ticks a quarter from (onset, pitch, length) triples in
// quarters, on channel ch, with the given meta events first.
func notes(ch uint8, meta []midi.Event, ns ...[3]float64) *midi.File {
	evs := append([]midi.Event(nil), meta...)
	for _, n := range ns {
		on, off := int64(n[0]*480), int64((n[0]+n[2])*480)
		evs = append(evs, midi.NoteOn(on, ch, uint8(n[1]), 90), midi.NoteOff(off, ch, uint8(n[1]), 0))
	}
	sortEvents(evs)
	return &midi.File{Format: 0, TicksPerQuarter: 480, Tracks: []midi.Track{{Events: evs}}}
}

func sortEvents(evs []midi.Event) {
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evs[j].Tick < evs[j-1].Tick; j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
}

func header(num, den uint8, sharps int8, minor bool) []midi.Event {
	return []midi.Event{midi.TimeSignature(0, num, den, 24, 8), midi.KeySignature(0, sharps, minor), midi.Tempo(0, 500000)}
}

func convert(t *testing.T, f *midi.File, opts midiabc.Options) *midiabc.Result {
	t.Helper()
	r, err := midiabc.Convert(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// body is the ABC after the K: line and the voice's %%MIDI lines.
func body(abcText string) string {
	var out []string
	past := false
	for _, l := range strings.Split(abcText, "\n") {
		if past && !strings.HasPrefix(l, "%%") && !strings.HasPrefix(l, "V:") {
			out = append(out, l)
		}
		if strings.HasPrefix(l, "K:") {
			past = true
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func TestConvertWrites(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		f     *midi.File
		want  string
		check func(*testing.T, *midiabc.Result)
	}{
		{
			// F major: B natural needs its sign, and keeps it to the bar's end; the next bar
			// starts from the key again. A note over the bar line is tied.
			name: "accidentals and ties",
			f:    notes(0, header(2, 4, -1, false), [3]float64{0, 71, 0.5}, [3]float64{0.5, 71, 0.5}, [3]float64{1, 70, 1.5}, [3]float64{2.5, 70, 0.5}, [3]float64{3, 73, 1}),
			want: "=BB _B2-| BB _d2|]",
		},
		{
			name: "triplet",
			f:    notes(0, header(2, 4, 0, false), [3]float64{0, 60, 1.0 / 3}, [3]float64{1.0 / 3, 62, 1.0 / 3}, [3]float64{2.0 / 3, 64, 1.0 / 3}, [3]float64{1, 65, 1}),
			want: "(3C2D2E2 F4|]",
			check: func(t *testing.T, r *midiabc.Result) {
				if r.GridPerQuarter != 3 || r.Grid != "eighth-note triplets" {
					t.Errorf("grid %d %q", r.GridPerQuarter, r.Grid)
				}
			},
		},
		{
			// A 2:1 swung pair and a dotted rhythm.
			name: "swing and dots",
			f:    notes(0, header(2, 4, 0, false), [3]float64{0, 67, 2.0 / 3}, [3]float64{2.0 / 3, 65, 1.0 / 3}, [3]float64{1, 64, 0.75}, [3]float64{1.75, 62, 0.25}),
			want: "(3:2:2G2F E3/2D/|]",
			check: func(t *testing.T, r *midiabc.Result) {
				if r.Unit != "1/8" {
					t.Errorf("unit %q", r.Unit)
				}
			},
		},
		{
			name: "quintuplet",
			f: notes(0, header(2, 4, 0, false), [3]float64{0, 60, 0.2}, [3]float64{0.2, 62, 0.2}, [3]float64{0.4, 64, 0.2}, [3]float64{0.6, 65, 0.2},
				[3]float64{0.8, 67, 0.2}, [3]float64{1, 72, 1}),
			want: "(5:4:5CDEFG c4|]",
		},
		{
			// Two notes at once that end apart go to two voices; a chord stays one.
			name: "chords and overlaps",
			f:    notes(0, header(2, 4, 0, false), [3]float64{0, 60, 2}, [3]float64{0, 64, 1}, [3]float64{0, 67, 1}, [3]float64{1, 65, 1}),
			want: "C4|]\n[EG]2 F2|]",
			check: func(t *testing.T, r *midiabc.Result) {
				if len(r.Voices) != 2 || r.Voices[0].Lane != 0 || r.Voices[1].Lane != 1 || r.Voices[0].Notes != 1 || r.Voices[1].Channel != 0 || r.Notes != 4 {
					t.Errorf("voices %+v, notes %d", r.Voices, r.Notes)
				}
			},
		},
		{
			name: "rests and octaves",
			f:    notes(0, header(3, 4, 2, false), [3]float64{1, 50, 1}, [3]float64{2, 86, 1}, [3]float64{4, 39, 1}),
			want: "z2 D,2 d'2| z2 ^D,,2 z2|]",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := convert(t, c.f, midiabc.Options{})
			if got := body(r.ABC); got != c.want {
				t.Errorf("got\n%s\nwant\n%s\nfrom\n%s", got, c.want, r.ABC)
			}
			if c.check != nil {
				c.check(t, r)
			}
			// What was written plays back as the file played.
			back := play(t, r.ABC, true, true)
			res := abccorpus.Compare(c.name, abccorpus.SideOf(c.f), abccorpus.SideOf(back), abccorpus.Options{IgnoreChannel: true})
			if res.Agreement() != 1 {
				t.Errorf("played back, %d of %d notes agree: %v", res.Agreeing, res.RefNotes, res.Diffs)
			}
		})
	}
}

func TestConvertChoosesKeyMeterAndPickup(t *testing.T) {
	t.Parallel()
	// No key or time signature: a tune in E minor in 6/8 with a pickup of one eighth, each bar
	// a dotted quarter and three eighths.
	var ns [][3]float64
	ns = append(ns, [3]float64{0, 71, 0.5}) // B, the pickup
	bar := [][2]float64{{64, 1.5}, {66, 0.5}, {67, 0.5}, {71, 0.5}}
	pitches := [][4]int{{64, 66, 67, 71}, {67, 66, 64, 62}, {64, 67, 71, 76}, {71, 67, 66, 64}}
	for b := 0; b < 8; b++ {
		at := 0.5 + 3*float64(b)
		for i, n := range bar {
			ns = append(ns, [3]float64{at, float64(pitches[b%4][i]), n[1]})
			at += n[1]
		}
	}
	f := notes(0, nil, ns...)
	r := convert(t, f, midiabc.Options{Title: "Jig"})
	if r.Key != "Em" || !strings.HasPrefix(r.KeySource, "estimated from the notes") {
		t.Errorf("key %q (%s)", r.Key, r.KeySource)
	}
	if r.Meter != "6/8" || r.MeterSource != "estimated from onsets" || r.Pickup != "" && r.Pickup != "1" {
		t.Errorf("meter %q (%s), pickup %q", r.Meter, r.MeterSource, r.Pickup)
	}
	if r.BPM != 0 || strings.Contains(r.ABC, "Q:") || !strings.Contains(r.ABC, "T:Jig\n") {
		t.Errorf("tempo %g in\n%s", r.BPM, r.ABC)
	}
	back := play(t, r.ABC, true, true)
	if res := abccorpus.Compare("jig", abccorpus.SideOf(f), abccorpus.SideOf(back), abccorpus.Options{IgnoreChannel: true}); res.Agreement() != 1 {
		t.Errorf("played back, %d of %d notes agree: %v\n%s", res.Agreeing, res.RefNotes, res.Diffs, r.ABC)
	}

	// With a time signature, the pickup found by the analysis starts the bars: the file starts
	// with the bar's last eighth.
	g := notes(0, header(6, 8, 1, true), ns...)
	r = convert(t, g, midiabc.Options{})
	if r.Key != "Em" || r.KeySource != "key signature event" || r.Meter != "6/8" || r.Pickup != "1" || !strings.HasPrefix(body(r.ABC), "B| E3 FGB| G3 FED|") {
		t.Errorf("key %q (%s), meter %q, pickup %q:\n%s", r.Key, r.KeySource, r.Meter, r.Pickup, r.ABC)
	}
}

func TestConvertWarnsAndRefuses(t *testing.T) {
	t.Parallel()
	meta := header(4, 4, 0, false)
	// Drums are left out, with a warning; on request they get a voice on channel 10.
	f := notes(0, meta, [3]float64{0, 60, 1}, [3]float64{1, 62, 1})
	f.Tracks[0].Events = append(f.Tracks[0].Events, midi.NoteOn(0, 9, 36, 100), midi.NoteOff(240, 9, 36, 0))
	sortEvents(f.Tracks[0].Events)
	r := convert(t, f, midiabc.Options{})
	if r.DrumNotesLeftOut != 1 || len(r.Voices) != 1 || !strings.Contains(strings.Join(r.Warnings, "\n"), "1 drum notes (channel 10) left out") {
		t.Errorf("drums left out %d, voices %+v, warnings %q", r.DrumNotesLeftOut, r.Voices, r.Warnings)
	}
	r = convert(t, f, midiabc.Options{Drums: true})
	if len(r.Voices) != 2 || !r.Voices[1].Drums || !strings.Contains(r.ABC, "%%MIDI channel 10\n") {
		t.Errorf("voices %+v:\n%s", r.Voices, r.ABC)
	}

	// More than MaxLanes notes overlapping in one channel: the soonest to end is cut.
	var ns [][3]float64
	for i := 0; i <= midiabc.MaxLanes; i++ {
		ns = append(ns, [3]float64{float64(i) * 0.5, float64(60 + i), 4})
	}
	r = convert(t, notes(0, meta, ns...), midiabc.Options{})
	if len(r.Voices) != midiabc.MaxLanes || !strings.Contains(strings.Join(r.Warnings, "\n"), "cut short where more than") {
		t.Errorf("%d voices, warnings %q", len(r.Voices), r.Warnings)
	}

	// A played file: onsets off any grid are moved to sixteenths, and said so.
	var played [][3]float64
	for i := 0; i < 40; i++ {
		played = append(played, [3]float64{float64(i)*0.5 + float64((i*37)%11*7)/480, 60 + float64(i%12), 0.4})
	}
	r = convert(t, notes(0, meta, played...), midiabc.Options{})
	if r.GridPerQuarter != 4 || !strings.Contains(strings.Join(r.Warnings, "\n"), "follow no grid") {
		t.Errorf("grid %d, warnings %q", r.GridPerQuarter, r.Warnings)
	}

	// A tempo change is written before the note it falls on, a key change at its bar line; a
	// tempo change after the last note is said to be lost.
	tf := notes(0, append(header(2, 4, 0, false), midi.Tempo(960, 400000), midi.KeySignature(960, 2, false), midi.Tempo(4800, 300000)),
		[3]float64{0, 66, 2}, [3]float64{2, 66, 1}, [3]float64{3, 72, 1})
	r = convert(t, tf, midiabc.Options{})
	if got := body(r.ABC); got != "^F4| [K:D] [Q:1/4=150]F2 =c2|]" || r.KeyChanges != 1 || r.TempoChanges != 2 ||
		!strings.Contains(strings.Join(r.Warnings, "\n"), "1 tempo changes after the last note not written") {
		t.Errorf("key changes %d, tempo changes %d, warnings %q:\n%s", r.KeyChanges, r.TempoChanges, r.Warnings, r.ABC)
	}
	back := play(t, r.ABC, true, true)
	if res := abccorpus.Compare("changes", abccorpus.SideOf(tf), abccorpus.SideOf(back), abccorpus.Options{IgnoreChannel: true}); res.Agreement() != 1 {
		t.Errorf("played back: %d of %d notes agree: %v", res.Agreeing, res.RefNotes, res.Diffs)
	}
	if tm := midi.TempoMap(back); len(tm) != 2 || tm[1].Tick != 2*int64(back.TicksPerQuarter) || tm[1].BPM < 149.9 || tm[1].BPM > 150.1 {
		t.Errorf("played back, the tempo map is %+v", tm)
	}

	// Refusals.
	if _, err := midiabc.Convert(notes(0, meta), midiabc.Options{}); !errors.Is(err, midiabc.ErrNoNotes) {
		t.Errorf("no notes: %v", err)
	}
	only := notes(9, meta, [3]float64{0, 36, 1})
	if _, err := midiabc.Convert(only, midiabc.Options{}); !errors.Is(err, midiabc.ErrOnlyDrums) {
		t.Errorf("only drums: %v", err)
	}
	var long [][3]float64
	for i := 0; i < 400; i++ {
		long = append(long, [3]float64{float64(i), 60 + float64(i%24), 1})
	}
	var tooLong *midiabc.TooLongError
	if _, err := midiabc.Convert(notes(0, meta, long...), midiabc.Options{MaxBytes: 1000}); !errors.As(err, &tooLong) || tooLong.Max != 1000 {
		t.Errorf("too long: %v", err)
	}
	many := &midi.File{Format: 0, TicksPerQuarter: 96, Tracks: []midi.Track{{}}}
	for i := 0; i <= midiabc.MaxNotes; i++ {
		many.Tracks[0].Events = append(many.Tracks[0].Events, midi.NoteOn(int64(i), 0, 60, 90))
	}
	var tooMany *midiabc.TooManyNotesError
	if _, err := midiabc.Convert(many, midiabc.Options{}); !errors.As(err, &tooMany) || tooMany.Notes != midiabc.MaxNotes+1 {
		t.Errorf("too many: %v", err)
	}
}

// TestConvertCorpus writes every tune of the project's corpus, as the project's converter plays
// it (with the chord accompaniment, and the melody only), back to ABC, and plays that again: the
// notes must come back (pitch, onset within a tick, length within a tick) for at least
// MinCorpusRoundTrip of them. The same loop through abc2midi, beside midi2abc, is
// abccorpus.TestRoundtrip (build tag abc2midi).
func TestConvertCorpus(t *testing.T) {
	t.Parallel()
	tunes, err := abccorpus.Tunes()
	if err != nil {
		t.Fatal(err)
	}
	opts := abccorpus.Options{OnsetTolerance: 1.0 / 480, DurationTolerance: 1.0 / 480, PairWindow: 0.25, IgnoreChannel: true}
	for _, melody := range []bool{false, true} {
		var rep abccorpus.Report
		for _, tu := range tunes {
			f := play(t, tu.Text, melody, false)
			r, err := midiabc.Convert(f, midiabc.Options{Drums: true})
			if err != nil {
				t.Errorf("%s: %v", tu.ID(), err)
				continue
			}
			back := play(t, r.ABC, false, true)
			rep.Results = append(rep.Results, abccorpus.Compare(tu.ID(), abccorpus.SideOf(f), abccorpus.SideOf(back), opts))
		}
		agree, _ := rep.Overall()
		t.Logf("melody only %v: %.2f%% of the notes come back from %d tunes", melody, 100*agree, len(rep.Results))
		if agree < MinCorpusRoundTrip {
			var worst strings.Builder
			for _, x := range rep.Results {
				if x.Agreement() < 0.95 {
					worst.WriteString(x.Name + " ")
				}
			}
			t.Errorf("melody only %v: %.2f%% of the notes come back, below %.1f%%; worst: %s", melody, 100*agree, 100*MinCorpusRoundTrip, worst.String())
		}
	}
}

// MinCorpusRoundTrip is the share of corpus notes that must survive MIDI -> ABC -> MIDI through
// the project's own converter.
const MinCorpusRoundTrip = 0.99

// TestConvertBoundsFarNotes: a note far from the others (days of rests between) would make
// more ABC than MaxBytes; the writing stops there and says so, without writing it all first.
func TestConvertBoundsFarNotes(t *testing.T) {
	t.Parallel()
	f := notes(0, header(4, 4, 0, false), [3]float64{0, 60, 1})
	far := int64(midi.MaxVLQ) * 64 // 64 of the longest deltas a file can hold, in ticks
	f.Tracks[0].Events = append(f.Tracks[0].Events, midi.NoteOn(far, 0, 62, 90), midi.NoteOff(far+480, 0, 62, 0))
	var tooLong *midiabc.TooLongError
	if _, err := midiabc.Convert(f, midiabc.Options{}); !errors.As(err, &tooLong) || tooLong.Max != midiabc.DefaultMaxBytes {
		t.Fatalf("err = %v, want the ABC refused as longer than %d bytes", err, midiabc.DefaultMaxBytes)
	}
	// One long note over many bars is tied bar to bar and bounded the same way.
	g := notes(0, header(4, 4, 0, false), [3]float64{0, 60, float64(far) / 480})
	if _, err := midiabc.Convert(g, midiabc.Options{MaxBytes: 4096}); !errors.As(err, &tooLong) || tooLong.Max != 4096 {
		t.Fatalf("err = %v, want the ABC refused as longer than 4096 bytes", err)
	}
}

// TestConvertFindsPickups: a file made from a tune with a pickup starts its first full bar
// after it, though the MIDI has no bar lines; over the corpus (melody only) the pickup written
// must be the tune's for at least 90% of the tunes that have one, and appear in at most 2% of
// those that have none.
func TestConvertFindsPickups(t *testing.T) {
	t.Parallel()
	tunes, err := abccorpus.Tunes()
	if err != nil {
		t.Fatal(err)
	}
	var with, right, without, wrong int
	for _, tu := range tunes {
		book, _ := abc.Parse(tu.Text, abc.Options{})
		bars, err := book.Tunes[0].Bars("")
		if err != nil || len(bars) < 2 {
			continue
		}
		first, full := bars[0].End.Sub(bars[0].Start), bars[1].End.Sub(bars[1].Start)
		r, err := midiabc.Convert(play(t, tu.Text, true, false), midiabc.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tu.ID(), err)
		}
		got := abc.Rat{}
		if r.Pickup != "" {
			var n, d, unit int64 = 0, 1, 8
			if _, err := fmt.Sscanf(r.Pickup, "%d/%d", &n, &d); err != nil {
				d = 1
				if _, err := fmt.Sscanf(r.Pickup, "%d", &n); err != nil {
					t.Fatalf("%s: pickup %q", tu.ID(), r.Pickup)
				}
			}
			if _, err := fmt.Sscanf(r.Unit, "1/%d", &unit); err != nil {
				t.Fatalf("%s: unit %q", tu.ID(), r.Unit)
			}
			got = abc.R(n, d*unit)
		}
		if first.Cmp(full) < 0 && !first.IsZero() {
			with++
			if got == first {
				right++
			} else {
				t.Logf("%s: pickup %s, the tune's %s", tu.ID(), got, first)
			}
		} else {
			without++
			if !got.IsZero() {
				wrong++
				t.Logf("%s: pickup %s, the tune has none", tu.ID(), got)
			}
		}
	}
	t.Logf("pickups: %d of %d found; %d written in %d tunes without one", right, with, wrong, without)
	if with == 0 || float64(right) < 0.9*float64(with) || float64(wrong) > 0.02*float64(without) {
		t.Errorf("pickups: %d of %d found, %d of %d written where there is none", right, with, wrong, without)
	}
}
