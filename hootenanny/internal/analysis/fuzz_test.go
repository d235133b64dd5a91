package analysis

import (
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// FuzzAnalyze analyses whatever decodes as MIDI: it must not panic, and what it returns must
// stay within its bounds.
func FuzzAnalyze(f *testing.F) {
	for _, ns := range [][]note{
		line(60, 62, 64, 65, 67, 69, 71, 72),
		waltz(4),
		{{pitch: 36, on: 0, dur: 1, ch: 9}, {pitch: 60, on: 0.25, dur: 0, ch: 0}},
	} {
		b, err := midi.Encode(*fileOf(ns))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false, uint8(3))
	}
	// A road map: a Fine and a D.C. as marker meta events.
	b, err := midi.Encode(*withMarkers(fileWith(4, 4, 0, tuneWithReturn()), "Segno", 0.0, "Fine", 16.0, "D.C.", 32.0))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, true, uint8(8))
	f.Fuzz(func(t *testing.T, b []byte, perBeat bool, maxChords uint8) {
		file, err := midi.DecodeWith(b, midi.Limits{MaxBytes: 1 << 16, MaxTracks: 16, MaxEvents: 1 << 12})
		if err != nil {
			return
		}
		r, err := Analyze(file, Options{PerBeat: perBeat, MaxChords: int(maxChords)})
		if err != nil {
			return
		}
		limit := int(maxChords)
		if limit == 0 {
			limit = DefaultMaxChords
		}
		if len(r.Chords) > limit || len(r.Chords) > r.ChordsTotal {
			t.Fatalf("%d chords listed of %d, limit %d", len(r.Chords), r.ChordsTotal, limit)
		}
		if r.Key.Tonic < 0 || r.Key.Tonic > 11 || r.Modal.Tonic < 0 || r.Modal.Tonic > 11 {
			t.Fatalf("key %+v, modal %+v", r.Key, r.Modal)
		}
		for _, v := range r.Voices {
			if v.Lowest > v.Median || v.Median > v.Highest || v.Polyphony < 1 {
				t.Fatalf("voice %+v", v)
			}
		}
	})
}
