package analysis

import (
	"math"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// A song in G that dwells on its dominant's notes (D, F#, A): by the time on each pitch class
// alone it reads as D mixolydian; opening on D and ending on G, it is in G major.
var dominantHist = [12]float64{0: 1, 2: 5, 4: 1, 6: 3, 7: 2, 9: 3, 11: 2}

func TestModalProfileAloneHearsTheDominant(t *testing.T) {
	none := Cues{Final: -1, Opening: -1, Lowest: -1}
	best := Keys(dominantHist)[0]
	if got := Modal(dominantHist, none, best); got.Tonic != 2 {
		t.Fatalf("without cues the profile reads %s; the cues below have nothing to correct", got.Name())
	}
}

func TestModalCuesFindTheTonic(t *testing.T) {
	c := Cues{Final: 7, Opening: 2, Lowest: 2}
	c.OpeningShare[2], c.OpeningShare[7] = 0.5, 0.5
	if got := Modal(dominantHist, c, Keys(dominantHist)[0]); got.Name() != "G major" {
		t.Errorf("ending on G and opening on D: %s, want G major", got.Name())
	}
}

func TestModalFinalAlone(t *testing.T) {
	// The same notes ending on D and opening on D stay in D: the cues weigh, they do not decide.
	c := Cues{Final: 2, Opening: 2, Lowest: 2}
	c.OpeningShare[2] = 1
	if got := Modal(dominantHist, c, Keys(dominantHist)[0]); got.Tonic != 2 {
		t.Errorf("ending on D: %s, want D as the tonic", got.Name())
	}
}

func TestCuesOf(t *testing.T) {
	n := func(p int, on, dur float64) midi.Note {
		return midi.Note{Pitch: p, OnTick: int64(on * tpq), DurTicks: int64(dur * tpq)}
	}
	// An upbeat D4, then G3 B3 D4 in the first four quarter notes, ... ending on a G chord.
	ns := []midi.Note{n(62, 0, 1), n(55, 1, 1), n(59, 2, 2), n(57, 5, 1), n(43, 6, 2), n(67, 6, 2)}
	c := cuesOf(ns, tpq)
	if c.Final != 7 || c.Opening != 2 || c.Lowest != 7 {
		t.Errorf("final %d opening %d lowest %d, want 7 2 7", c.Final, c.Opening, c.Lowest)
	}
	want := map[int]float64{2: 0.25, 7: 0.25, 11: 0.5}
	for pc, share := range c.OpeningShare {
		if math.Abs(share-want[pc]) > 1e-9 {
			t.Errorf("opening share of %d: %.3f, want %.3f", pc, share, want[pc])
		}
	}
	if c := cuesOf(nil, tpq); c.Final != -1 || c.Opening != -1 || c.Lowest != -1 {
		t.Errorf("no notes: %+v", c)
	}
}
