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
	// The profile alone prefers D to G; the mode prior and the cues below have that to correct.
	if d, g := correlate(dominantHist, kkMajor, 2), correlate(dominantHist, kkMajor, 7); d <= g {
		t.Fatalf("the major profile on D %.3f, on G %.3f: the cues below have nothing to correct", d, g)
	}
}

func TestModalCuesFindTheTonic(t *testing.T) {
	c := noCues
	c.Final, c.Opening, c.Lowest = 7, 2, 2
	c.OpeningShare[2], c.OpeningShare[7] = 0.5, 0.5
	if got := Modal(dominantHist, c, Keys(dominantHist)[0]); got.Name() != "G major" {
		t.Errorf("ending on G and opening on D: %s, want G major", got.Name())
	}
}

func TestModalFinalAlone(t *testing.T) {
	// The same notes ending on D and opening on D stay in D: the cues weigh, they do not decide.
	c := noCues
	c.Final, c.Opening, c.Lowest = 2, 2, 2
	c.OpeningShare[2] = 1
	if got := Modal(dominantHist, c, Keys(dominantHist)[0]); got.Tonic != 2 {
		t.Errorf("ending on D: %s, want D as the tonic", got.Name())
	}
}

func TestCuesOf(t *testing.T) {
	n := func(p int, on, dur float64) midi.Note {
		return midi.Note{Pitch: p, OnTick: int64(on * tpq), DurTicks: int64(dur * tpq)}
	}
	// In 4/4 after a quarter-note upbeat D4: G3 B3 D4 in the first four quarter notes, a rest,
	// then A3 and a held G chord on the third bar's downbeat.
	ns := []midi.Note{n(62, 0, 1), n(55, 1, 1), n(59, 2, 2), n(57, 5, 1), n(43, 9, 4), n(67, 9, 4)}
	c := cuesOf(ns, tpq, 4*tpq, tpq, 0)
	if c.Final != 7 || c.Opening != 2 || c.Lowest != 7 || c.FirstDownbeat != 7 {
		t.Errorf("final %d opening %d lowest %d first downbeat %d, want 7 2 7 7", c.Final, c.Opening, c.Lowest, c.FirstDownbeat)
	}
	if !c.FinalLong || !c.FinalOnDownbeat || !c.FinalByStep {
		t.Errorf("the held G on the downbeat after A: long %v, on the downbeat %v, by step %v; want all true",
			c.FinalLong, c.FinalOnDownbeat, c.FinalByStep)
	}
	want := map[int]float64{2: 0.25, 7: 0.25, 11: 0.5}
	for pc, share := range c.OpeningShare {
		if math.Abs(share-want[pc]) > 1e-9 {
			t.Errorf("opening share of %d: %.3f, want %.3f", pc, share, want[pc])
		}
	}
	// The phrase ends (the median note is a quarter): B3 (a half note), A3 (before a rest of
	// three quarters) and the held G chord (long, and last): 2 + 1 + 8 quarters.
	want = map[int]float64{11: 2.0 / 11, 9: 1.0 / 11, 7: 8.0 / 11}
	for pc, share := range c.PhraseEnds {
		if math.Abs(share-want[pc]) > 1e-9 {
			t.Errorf("phrase-end share of %d: %.3f, want %.3f", pc, share, want[pc])
		}
	}
	// Ending on a short G off the beat, leapt to from D: none of the three.
	ns = []midi.Note{n(62, 0, 1), n(55, 1, 1), n(59, 2, 1), n(62, 3, 1), n(67, 4.5, 0.5)}
	c = cuesOf(ns, tpq, 4*tpq, 0, 0)
	if c.FinalLong || c.FinalOnDownbeat || c.FinalByStep {
		t.Errorf("a short G off the beat after D: long %v, on the downbeat %v, by step %v; want all false",
			c.FinalLong, c.FinalOnDownbeat, c.FinalByStep)
	}
	if c := cuesOf(nil, tpq, 4*tpq, 0, 0); c != noCues {
		t.Errorf("no notes: %+v", c)
	}
}

// A song in A minor that opens on A and ends on a held A reached from B: the cues of a real
// ending outweigh the relative major's better fit of the profile, where a short final off the
// beat does not.
func TestModalEndingDecidesRelativeMinor(t *testing.T) {
	// C major's notes, C and E most (the profile hears C major), ending on A.
	hist := [12]float64{0: 5, 2: 2, 4: 5, 5: 1, 7: 3, 9: 4, 11: 2}
	c := noCues
	c.Final, c.Opening, c.Lowest, c.FirstDownbeat = 9, 9, 0, 0
	if got := Modal(hist, c, Keys(hist)[0]); got.Name() != "C major" {
		t.Fatalf("ending on a short A: %s, want C major (the cues of a real ending are what is tested)", got.Name())
	}
	c.FinalLong, c.FinalOnDownbeat, c.FinalByStep = true, true, true
	c.PhraseEnds[9], c.PhraseEnds[4] = 0.6, 0.4
	if got := Modal(hist, c, Keys(hist)[0]); got.Name() != "A minor" {
		t.Errorf("ending on a held A on the downbeat, reached by step: %s, want A minor", got.Name())
	}
}

// The upbeat from the fifth counts in full when the first downbeat resolves it to the tonic or
// holds the opening note, and less when the tune moves on elsewhere.
func TestCuesUpbeatFromTheFifth(t *testing.T) {
	c := noCues
	c.Opening = 7 // G: the fifth of C
	score := func(downbeat int) float64 {
		c.FirstDownbeat = downbeat
		return c.score(0)
	}
	resolved, held, away := score(0), score(7), score(11)
	if math.Abs(resolved-(openingFifthWeight+firstDownbeatWeight)) > 1e-9 {
		t.Errorf("G then C on the downbeat: %.3f for C, want the fifth's and the downbeat's %.3f", resolved, openingFifthWeight+firstDownbeatWeight)
	}
	if math.Abs(held-openingFifthWeight) > 1e-9 {
		t.Errorf("G held over the downbeat: %.3f for C, want the fifth's %.3f", held, openingFifthWeight)
	}
	if math.Abs(away-(openingFifthWeight-openingFifthAway)) > 1e-9 {
		t.Errorf("G then B on the downbeat: %.3f for C, want %.3f", away, openingFifthWeight-openingFifthAway)
	}
}

// A candidate whose flat seventh sounds on the first downbeat loses; the tonic on it gains.
func TestCuesFirstDownbeatSubtonic(t *testing.T) {
	c := noCues
	c.FirstDownbeat = 2 // D
	if got := c.score(4); math.Abs(got+firstDownbeatSubtonic) > 1e-9 {
		t.Errorf("D on the first downbeat, for E: %.3f, want %.3f", got, -firstDownbeatSubtonic)
	}
	if got := c.score(2); math.Abs(got-firstDownbeatWeight) > 1e-9 {
		t.Errorf("D on the first downbeat, for D: %.3f, want %.3f", got, firstDownbeatWeight)
	}
	if got := c.score(7); got != 0 {
		t.Errorf("D on the first downbeat, for G: %.3f, want 0", got)
	}
}

// The moves that rise a semitone are counted part by part, from each onset's lowest note, and
// only where the pitch class changes.
func TestCuesRisesInto(t *testing.T) {
	n := func(track, p int, on float64) midi.Note {
		return midi.Note{Track: track, Pitch: p, OnTick: int64(on * tpq), DurTicks: tpq}
	}
	// The melody (track 1): A4 A4 B4 C5 G#4 A4, the last with E5 above it; the bass (track 2):
	// A2 G#2 A2. Moves: A-B, B-C (a rise into C), C-G#, G#-A (a rise into A); in the bass A-G#,
	// G#-A (a rise into A). The repeated A and the E above the last A are not moves.
	ns := []midi.Note{
		n(1, 69, 0), n(2, 45, 0), n(1, 69, 1), n(1, 71, 2), n(2, 44, 2), n(1, 72, 3),
		n(1, 68, 4), n(2, 45, 4), n(1, 69, 5), n(1, 76, 5),
	}
	c := cuesOf(ns, tpq, 4*tpq, 0, 0)
	want := map[int]float64{0: 1.0 / 6, 9: 2.0 / 6}
	for pc, share := range c.RisesInto {
		if math.Abs(share-want[pc]) > 1e-9 {
			t.Errorf("rises into %d: %.3f, want %.3f", pc, share, want[pc])
		}
	}
}

// A tune on C major's notes that the profile hears in C major reads as A minor when a G#,
// outside the scale, rises into A often enough: the raised seventh resolving is A's leading
// tone. A rise into C from B, which lies in the scale, says nothing.
func TestModalRaisedSeventh(t *testing.T) {
	hist := [12]float64{0: 5, 2: 2, 4: 5, 5: 1, 7: 3, 8: 0.5, 9: 4, 11: 2}
	c := noCues
	c.Final, c.Opening, c.Lowest, c.FirstDownbeat = 9, 9, 0, 0
	c.RisesInto[0] = 0.2
	if got := Modal(hist, c, Keys(hist)[0]); got.Name() != "C major" {
		t.Fatalf("without the raised seventh: %s, want C major (the leading tone is what is tested)", got.Name())
	}
	c.RisesInto[9] = 0.1
	if got := Modal(hist, c, Keys(hist)[0]); got.Name() != "A minor" {
		t.Errorf("G# rising into A in one move of ten: %s, want A minor", got.Name())
	}
	if !inScale(0, 11) || inScale(0, 8) || !inScale(7, 6) || inScale(7, 5) {
		t.Error("inScale: B lies in C major's scale and G# does not; F# in G major's and F does not")
	}
}
