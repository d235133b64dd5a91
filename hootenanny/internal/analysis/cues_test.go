package analysis

import (
	"math"
	"slices"
	"sort"
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
	// Of the six moves, only A-B rises a whole tone; B-C and G#-A rise a semitone, and the
	// falls count for nothing.
	for pc, share := range c.RisesTone {
		if w := map[int]float64{11: 1.0 / 6}[pc]; math.Abs(share-w) > 1e-9 {
			t.Errorf("rises a tone into %d: %.3f, want %.3f", pc, share, w)
		}
	}
}

// A tune on C major's notes that ends on A and whose G# rises into A in one move of fifty reads
// as A minor (as in TestModalRaisedSeventh); when the melody also climbs from G to A, a rising tone,
// in half of its moves, A is a degree it passes through and the tune reads as C major: a tonic
// is reached falling from the second or rising from the leading tone, not climbed through.
func TestModalRisingToneIntoTheCandidate(t *testing.T) {
	hist := [12]float64{0: 5, 2: 2, 4: 5, 5: 1, 7: 3, 8: 0.5, 9: 4, 11: 2}
	c := noCues
	c.Final, c.Opening, c.Lowest, c.FirstDownbeat = 9, 9, 0, 0
	c.RisesInto[0], c.RisesInto[9] = 0.2, 0.02
	if got := Modal(hist, c, Keys(hist)[0]); got.Name() != "A minor" {
		t.Fatalf("without the rising tones: %s, want A minor (the rising tone is what is tested)", got.Name())
	}
	c.RisesTone[9] = 0.5
	if got := Modal(hist, c, Keys(hist)[0]); got.Name() != "C major" {
		t.Errorf("A reached by a rising tone in half the moves: %s, want C major", got.Name())
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

// A reel's melody in G over abc2midi's accompaniment: a bass on every beat and a chord between,
// each in a track of its own. The chord symbols end on C (as a quoted "C" or a dynamic read as
// one would), so the lowest note of the last onset is the bass's C, not the melody's G.
func accompaniedReel() (melody, all []midi.Note) {
	n := func(track, ch, p int, on, dur float64) midi.Note {
		return midi.Note{Track: track, Channel: ch, Pitch: p, OnTick: int64(on * tpq), DurTicks: int64(dur * tpq)}
	}
	// D5 pickup, then two bars of eighths, then a held G4 on the fourth bar's downbeat reached
	// from A4.
	melody = []midi.Note{n(0, 0, 74, 0, 1)}
	line := []int{67, 71, 74, 71, 67, 71, 74, 71, 72, 76, 74, 72, 71, 74, 69, 71}
	for i, p := range line {
		melody = append(melody, n(0, 0, p, 1+float64(i)/2, 0.5))
	}
	melody = append(melody, n(0, 0, 69, 9, 4), n(0, 0, 67, 13, 4))
	all = append(all, melody...)
	for beat := 1; beat < 17; beat++ {
		root := 43 // G2
		if beat >= 13 {
			root = 48 // C3
		}
		all = append(all, n(1, 1, root, float64(beat), 0.5))
		for _, iv := range []int{12, 16, 19} {
			all = append(all, n(2, 2, root+iv, float64(beat)+0.5, 0.5))
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].OnTick < all[j].OnTick })
	return melody, all
}

func TestMelodyPart(t *testing.T) {
	melody, all := accompaniedReel()
	if got := melodyPart(all); !slices.Equal(got, melody) {
		t.Errorf("the melody part has %d notes, want the %d of track 0", len(got), len(melody))
	}
	// A file of one part is its own melody, chords and all: the very notes given.
	chords := append(slices.Clone(melody), midi.Note{Pitch: 40, OnTick: melody[3].OnTick, DurTicks: tpq})
	sort.SliceStable(chords, func(i, j int) bool { return chords[i].OnTick < chords[j].OnTick })
	if got := melodyPart(chords); len(got) != len(chords) || &got[0] != &chords[0] {
		t.Errorf("one part: %d notes back of %d, or a copy", len(got), len(chords))
	}
	// A high drone that sounds once is not the melody, however high; nor is a part with a
	// quarter of the melody's onsets.
	drone := midi.Note{Track: 3, Channel: 3, Pitch: 100, OnTick: tpq, DurTicks: 16 * tpq}
	sparse := []midi.Note{
		{Track: 4, Channel: 4, Pitch: 96, OnTick: tpq, DurTicks: tpq},
		{Track: 4, Channel: 4, Pitch: 96, OnTick: 5 * tpq, DurTicks: tpq},
		{Track: 4, Channel: 4, Pitch: 96, OnTick: 9 * tpq, DurTicks: tpq},
	}
	more := append(append(slices.Clone(all), drone), sparse...)
	sort.SliceStable(more, func(i, j int) bool { return more[i].OnTick < more[j].OnTick })
	if got := melodyPart(more); !slices.Equal(got, melody) {
		t.Errorf("with a drone and a sparse high part: %d notes, want the melody's %d", len(got), len(melody))
	}
	if got := melodyPart(nil); len(got) != 0 {
		t.Errorf("no notes: %d back", len(got))
	}
}

func TestCuesOfReadTheMelody(t *testing.T) {
	melody, all := accompaniedReel()
	alone := cuesOf(melody, tpq, 4*tpq, tpq, 0)
	with := cuesOf(all, tpq, 4*tpq, tpq, 0)
	if alone.Final != 7 || !alone.FinalLong || !alone.FinalOnDownbeat || !alone.FinalByStep || alone.Opening != 2 {
		t.Fatalf("the melody alone: %+v, want a held G on the downbeat, reached from A, opening on D", alone)
	}
	// The ending, the opening and the lowest note are the melody's, accompanied or not.
	if with.Final != alone.Final || with.FinalLong != alone.FinalLong || with.FinalOnDownbeat != alone.FinalOnDownbeat ||
		with.FinalByStep != alone.FinalByStep || with.Opening != alone.Opening || with.Lowest != alone.Lowest ||
		with.OpeningShare != alone.OpeningShare {
		t.Errorf("accompanied: final %d long %v downbeat %v step %v opening %d lowest %d opening share %v;\n"+
			"alone: final %d long %v downbeat %v step %v opening %d lowest %d opening share %v",
			with.Final, with.FinalLong, with.FinalOnDownbeat, with.FinalByStep, with.Opening, with.Lowest, with.OpeningShare,
			alone.Final, alone.FinalLong, alone.FinalOnDownbeat, alone.FinalByStep, alone.Opening, alone.Lowest, alone.OpeningShare)
	}
	// The first downbeat is heard in every part: the bass's G2 under the melody's G4.
	if with.FirstDownbeat != 7 {
		t.Errorf("the first downbeat, accompanied: %d, want 7 (the bass's G)", with.FirstDownbeat)
	}
	// Every part's phrase ends count: the accompaniment's C chord takes a share.
	if with.PhraseEnds == alone.PhraseEnds {
		t.Errorf("the phrase ends are the melody's alone: %v", with.PhraseEnds)
	}
}
