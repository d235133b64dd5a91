package abcmidi

import "testing"

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
