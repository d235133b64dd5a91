package analysis

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// tuneWithReturn is a tune in A minor in 4/4 whose first strain comes to rest on a held A at
// bar 4 (the Fine) and whose second strain ends on C, the relative major's tonic, before the
// D.C. sends the player back to end at the Fine.
func tuneWithReturn() []note {
	var ns []note
	add := func(at float64, dur float64, ps ...int) float64 {
		for _, p := range ps {
			ns = append(ns, note{pitch: p, on: at, dur: dur})
			at += dur
		}
		return at
	}
	at := add(0, 1, 69, 72, 76, 72, 74, 72, 71, 69, 72, 71, 74, 71)
	at = add(at, 4, 69) // bar 4: the Fine, after it
	at = add(at, 1, 72, 76, 79, 76, 77, 76, 74, 72, 74, 76, 74, 71)
	add(at, 4, 72) // bar 8: the D.C.
	return ns
}

// withMarkers adds marker meta events (text at a tick in quarter notes) to f's first track.
func withMarkers(f *midi.File, marks ...any) *midi.File {
	var evs []midi.Event
	var last int64
	for _, e := range f.Tracks[0].Events {
		if !e.IsMeta(midi.MetaEndOfTrack) {
			evs = append(evs, e)
			last = max(last, e.Tick)
		}
	}
	for i := 0; i+1 < len(marks); i += 2 {
		e := midi.TextEvent(int64(marks[i+1].(float64)*tpq), midi.MetaMarker, marks[i].(string))
		evs = append(evs, e)
		last = max(last, e.Tick)
	}
	sortEvents(evs)
	evs = append(evs, midi.EndOfTrack(last))
	return &midi.File{Format: f.Format, TicksPerQuarter: f.TicksPerQuarter, Tracks: []midi.Track{{Events: evs}}}
}

func TestMusicEnd(t *testing.T) {
	plain := fileWith(4, 4, 0, tuneWithReturn())
	for _, tc := range []struct {
		name  string
		marks []any
		want  float64 // quarter notes
	}{
		{"no markers", nil, 0},
		{"D.C. al Fine", []any{"Fine", 16.0, "D.C.", 32.0}, 16},
		{"spelt otherwise", []any{" fine ", 16.0, "Da Capo al Fine", 32.0}, 16},
		{"D.S. after a segno", []any{"Segno", 0.0, "Fine", 16.0, "D.S.", 32.0}, 16},
		{"the last Fine before the return", []any{"Fine", 8.0, "Fine", 16.0, "D.C.", 32.0, "Fine", 40.0}, 16},
		{"a Fine and no return", []any{"Fine", 16.0}, 0},
		{"a return and no Fine", []any{"D.C.", 32.0}, 0},
		{"a Fine after the return", []any{"D.C.", 8.0, "Fine", 16.0}, 0},
		{"al Coda: the coda is played to the end", []any{"Fine", 16.0, "D.S. al Coda", 32.0}, 0},
		{"other markers", []any{"Verse", 0.0, "Chorus", 16.0, "Finale", 20.0, "D.Cx", 32.0}, 0},
		{"a marker too long to be a direction", []any{"Fine", 16.0, "D.C." + strings.Repeat(" ", maxMarkerText), 32.0}, 0},
		{"not UTF-8", []any{"Fine", 16.0, "D.\xff.", 32.0}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := musicEnd(withMarkers(plain, tc.marks...)); got != int64(tc.want*tpq) {
				t.Errorf("musicEnd %d, want %d", got, int64(tc.want*tpq))
			}
		})
	}
	// Only the first maxRoadMarkers directions are read: a file that floods them is read no
	// further.
	var flood []any
	for range maxRoadMarkers {
		flood = append(flood, "Fine", 1.0)
	}
	flood = append(flood, "D.C.", 32.0)
	f := withMarkers(plain, flood...)
	if got := musicEnd(f); got != 0 {
		t.Errorf("after %d directions, musicEnd %d, want 0", maxRoadMarkers, got)
	}
}

// A file without a road map is read as before; with one, only the ending cues move: the final is
// the last note before the Fine.
func TestRoadMapEndsTheMusic(t *testing.T) {
	plain := fileWith(4, 4, 0, tuneWithReturn())
	before := analyze(t, plain, Options{})
	for _, marks := range [][]any{
		{"Verse", 0.0, "Chorus", 16.0},
		{"Fine", 16.0},
		{"Fine", 16.0, "D.C. al Coda", 32.0},
	} {
		if got := analyze(t, withMarkers(plain, marks...), Options{}); !reflect.DeepEqual(got, before) {
			t.Errorf("with the markers %v the analysis changed:\n got %+v\nwant %+v", marks, got, before)
		}
	}
	after := analyze(t, withMarkers(plain, "Fine", 16.0, "D.C.", 32.0), Options{})
	if after.Histogram != before.Histogram || after.Key != before.Key || !reflect.DeepEqual(after.Chords, before.Chords) {
		t.Errorf("the road map moved more than the ending: histogram, profiles' key or chords differ")
	}
	if before.Modal.Name() != "C major" || after.Modal.Name() != "A minor" {
		t.Errorf("ending on C, then at the Fine on A: %s then %s, want C major then A minor", before.Modal.Name(), after.Modal.Name())
	}
	if c := cuesOf(midi.NoteEvents(plain), tpq, 4*tpq, 0, 16*tpq); c.Final != 9 || !c.FinalLong || !c.FinalOnDownbeat || !c.FinalByStep {
		t.Errorf("the cues at the Fine: final %d long %v on the downbeat %v by step %v, want 9 (A), all true",
			c.Final, c.FinalLong, c.FinalOnDownbeat, c.FinalByStep)
	}
}
