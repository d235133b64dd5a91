package abcmidi

import (
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// TestChordNotesTakeFirstLength holds abc2midi 4.84's figures for chords of unequal notes
// (La Belle Catherine in the development corpus writes [F4d2]c2): every note sounds as long as
// the chord's first, and the chord takes that time.
func TestChordNotesTakeFirstLength(t *testing.T) {
	ns := notesOf(t, "", "[F4d2]c2 [d2F4]c2|", Options{MelodyOnly: true})
	want := []struct {
		pitch   int
		on, off int64
	}{{65, 0, 960}, {74, 10, 960}, {72, 960, 1440}, {74, 1440, 1920}, {65, 1450, 1920}, {72, 1920, 2400}}
	if len(ns) != len(want) {
		t.Fatalf("%d notes, want %d: %v", len(ns), len(want), ns)
	}
	for i, w := range want {
		n := ns[i]
		if n.Pitch != w.pitch || n.OnTick != w.on || n.OnTick+n.DurTicks != w.off {
			t.Errorf("note %d: pitch %d %d to %d, want %d %d to %d", i, n.Pitch, n.OnTick, n.OnTick+n.DurTicks, w.pitch, w.on, w.off)
		}
	}
}

// TestGraceChord holds abc2midi 4.84's figures for a chord among grace notes ({[Ge]} in La
// Belle Catherine): its notes start together, 10 ticks apart, and take a quarter of its first
// note's length from the note that follows, once for the chord.
func TestGraceChord(t *testing.T) {
	f := convert(t, "X:1\nM:2/4\nL:1/16\nK:C\n[F4d4] {[Ge]}[Af][Ge] {g[Ge]}[Fd] z2|\n", Options{MelodyOnly: true})
	ns := midi.NoteEvents(f)
	midi.SortNotes(ns)
	want := []struct {
		pitch   int
		on, off int64
	}{{65, 0, 480}, {74, 10, 480}, {67, 480, 510}, {76, 490, 510}, {69, 510, 600}, {77, 520, 600}, {67, 600, 720},
		{76, 610, 720}, {79, 720, 750}, {67, 750, 780}, {76, 760, 780}, {65, 780, 840}, {74, 790, 840}}
	if len(ns) != len(want) {
		t.Fatalf("%d notes, want %d: %v", len(ns), len(want), ns)
	}
	for i, w := range want {
		if n := ns[i]; n.Pitch != w.pitch || n.OnTick != w.on || n.OnTick+n.DurTicks != w.off {
			t.Errorf("note %d: pitch %d %d to %d, want %d %d to %d", i, n.Pitch, n.OnTick, n.OnTick+n.DurTicks, w.pitch, w.on, w.off)
		}
	}
}

// TestLengthOnNextLine holds abc2midi 4.84's figures for a chord read across lines whose note's
// length starts the next line ([F / 2A2] in La Belle Catherine): abc2midi drops the 2
// ("Unrecognized character"), so F is one unit long and the chord with it.
func TestLengthOnNextLine(t *testing.T) {
	f := convert(t, "X:1\nM:2/4\nL:1/16\nK:C\n[D2F2][F\n2A2] [F2A2][D2G2]|\n", Options{MelodyOnly: true})
	ns := midi.NoteEvents(f)
	midi.SortNotes(ns)
	want := []struct {
		pitch   int
		on, off int64
	}{{62, 0, 240}, {65, 10, 240}, {65, 240, 360}, {69, 250, 360}, {65, 360, 600}, {69, 370, 600}, {62, 600, 840}, {67, 610, 840}}
	if len(ns) != len(want) {
		t.Fatalf("%d notes, want %d: %v", len(ns), len(want), ns)
	}
	for i, w := range want {
		if n := ns[i]; n.Pitch != w.pitch || n.OnTick != w.on || n.OnTick+n.DurTicks != w.off {
			t.Errorf("note %d: pitch %d %d to %d, want %d %d to %d", i, n.Pitch, n.OnTick, n.OnTick+n.DurTicks, w.pitch, w.on, w.off)
		}
	}
}
