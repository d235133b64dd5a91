package abcmidi

import (
	"strings"
	"testing"
)

// TestOpenChordAsABC2MIDI holds abc2midi 4.84's reading of H[| (measured with -NGUI): the H
// opens a chord whose first "note" is the bar line, and every note played after it is a note
// of that chord, chordattack ticks apart, all taking the first one's length. The figures are
// abc2midi's: the note-off of the first 50 (its queue's size) and the end of its track, where
// the notes past the 50th, never ended, stop; each from the end of C D at tick 480.
func TestOpenChordAsABC2MIDI(t *testing.T) {
	fives := func(k int) string { return strings.Repeat("G A B c d ", k) }
	for _, c := range []struct {
		first    string
		n        int    // notes in the chord
		close    string // [|]|] closes it after the last note, |] leaves it open
		off, end int64
	}{
		{"G/", 20, "[|]|]", 720, 746},
		{"G/", 20, "|]", 786, 816},
		{"G/", 60, "[|]|]", 1076, 1130},
		{"G/", 60, "|]", 1076, 1196},
		{"G", 20, "[|]|]", 960, 986},
		{"G", 20, "|]", 770, 800},
		{"G", 60, "[|]|]", 1188, 1242},
		{"G", 60, "|]", 1188, 1196},
		{"G4", 20, "[|]|]", 2400, 2426},
		{"G4", 20, "|]", 2210, 2240},
		{"G4", 60, "[|]|]", 2500, 2554},
		{"G4", 60, "|]", 1910, 2036},
	} {
		body := "C D H[| " + c.first + " A B c d " + fives(c.n/5-1) + c.close
		ns := notesOf(t, "", body, Options{MelodyOnly: true})
		if len(ns) != c.n+2 {
			t.Errorf("%s %d %s: %d notes, want %d", c.first, c.n, c.close, len(ns), c.n+2)
			continue
		}
		for k, n := range ns[2:] {
			wantOff := c.off
			if k >= abc2midiQueue {
				wantOff = c.end
			}
			if n.OnTick != 480+10*int64(k) || n.OnTick+n.DurTicks != wantOff || n.Velocity != StressFirst {
				t.Errorf("%s %d %s: chord note %d at %d to %d velocity %d, want %d to %d velocity %d", c.first, c.n, c.close,
					k, n.OnTick, n.OnTick+n.DurTicks, n.Velocity, 480+10*k, wantOff, StressFirst)
				break
			}
		}
	}
}

// TestOpenChordAcrossRepeat: a :| after H[|] goes back to the start inside the chord, so the
// repeat and all after it are one chord; the notes before the H that the chord takes keep
// their own length (240), the ones after it are doubled by the H (G: 480, the chord's time).
func TestOpenChordAcrossRepeat(t *testing.T) {
	ns := notesOf(t, "", "C D E F H[|]:| G A B c [|]|]", Options{MelodyOnly: true})
	want := []int64{0, 240, 480, 720, 960, 970, 980, 990, 1000, 1010, 1020, 1030}
	if len(ns) != len(want) {
		t.Fatalf("%d notes, want %d: %v", len(ns), len(want), ns)
	}
	for i, n := range ns {
		end := n.OnTick + n.DurTicks
		wantEnd := want[i] + 240
		if i >= 4 {
			wantEnd = 1200 // abc2midi: 961 + 70 + (239 - 70)
		}
		if n.OnTick != want[i] || end != wantEnd {
			t.Errorf("note %d at %d to %d, want %d to %d", i, n.OnTick, end, want[i], wantEnd)
		}
	}
}

// TestOpenChordLetters: each one-letter decoration opens the chord; what it does to the notes
// and to the chord's time, measured: the chord's notes end at 720 and the track at 746 for u
// (no change), at 600 and 746 for a staccato dot (notes halved), at 600 and 626 for T and ~
// (both halved), at 960 and 986 for H (both doubled).
func TestOpenChordLetters(t *testing.T) {
	for _, c := range []struct {
		letter string
		off    int64
	}{{"u", 720}, {"v", 720}, {"L", 720}, {"M", 720}, {"O", 720}, {"P", 720}, {"S", 720}, {".", 600}, {"T", 600}, {"~", 600}, {"H", 960}} {
		ns := notesOf(t, "", "C D "+c.letter+"[| G A B c d e f g [|]|]", Options{MelodyOnly: true})
		if len(ns) != 10 {
			t.Errorf("%s: %d notes, want 10", c.letter, len(ns))
			continue
		}
		for k, n := range ns[2:] {
			if n.OnTick != 480+10*int64(k) || n.OnTick+n.DurTicks != c.off {
				t.Errorf("%s: chord note %d at %d to %d, want %d to %d", c.letter, k, n.OnTick, n.OnTick+n.DurTicks, 480+10*k, c.off)
				break
			}
		}
	}
}

// TestOpenChordClosedMidTune holds abc2midi's figures (note-on less its one tick, note-off)
// where music follows the ] that closes the chord: the time goes on from the chord's end;
// a chord closing it ([cA]) plays its notes one after the other when met again outside the
// chord, and its ] then waits the chord's time (480: the G after the H, doubled); notes played
// in the chord keep its length (C: 240) when played again.
func TestOpenChordClosedMidTune(t *testing.T) {
	type nt struct {
		pitch   int
		on, off int64
	}
	for _, c := range []struct {
		body string
		want []nt
	}{
		{"C D H[|] E F G A [|] B c|", []nt{{60, 0, 240}, {62, 240, 480}, {64, 480, 960}, {65, 490, 960}, {67, 500, 960},
			{69, 510, 960}, {71, 960, 1200}, {72, 1200, 1440}}},
		{"C D E F H[|]:| G A B c e[cA] [cA] :| d e|", []nt{{60, 0, 240}, {62, 240, 480}, {64, 480, 720}, {65, 720, 960},
			{60, 960, 1200}, {62, 970, 1200}, {64, 980, 1200}, {65, 990, 1200}, {67, 1000, 1200}, {69, 1010, 1200},
			{71, 1020, 1200}, {72, 1030, 1200}, {76, 1040, 1200}, {72, 1050, 1200}, {69, 1060, 1200},
			{72, 1440, 1680}, {69, 1450, 1680}, {67, 1680, 1920}, {69, 1920, 2160}, {71, 2160, 2400}, {72, 2400, 2640},
			{76, 2640, 2880}, {72, 2880, 3120}, {69, 3120, 3360}, {72, 3840, 4080}, {69, 3850, 4080}, {74, 4080, 4320},
			{76, 4320, 4560}}},
	} {
		ns := notesOf(t, "", c.body, Options{MelodyOnly: true})
		if len(ns) != len(c.want) {
			t.Errorf("%s: %d notes, want %d", c.body, len(ns), len(c.want))
			continue
		}
		for i, w := range c.want {
			if n := ns[i]; n.Pitch != w.pitch || n.OnTick != w.on || n.OnTick+n.DurTicks != w.off {
				t.Errorf("%s: note %d pitch %d %d to %d, want %d %d to %d", c.body, i, n.Pitch, n.OnTick, n.OnTick+n.DurTicks, w.pitch, w.on, w.off)
			}
		}
	}
}

// TestOpenChordNotCopied: a space between the letter and the [ opens no chord; the notes play
// as written.
func TestOpenChordNotCopied(t *testing.T) {
	ns := notesOf(t, "", "C D H [|] G A B c|", Options{MelodyOnly: true})
	for i, n := range ns {
		if n.OnTick != 240*int64(i) || n.DurTicks != 240 {
			t.Errorf("note %d at %d for %d, want %d for 240", i, n.OnTick, n.DurTicks, 240*i)
		}
	}
}

// TestABC2MIDIChordQueue checks the queue model on its own: a chord of three quarter notes
// closed by a quarter ends them together, 479 - 20 ticks after the last note-on, and owes one
// tick to what follows; one of 53 never closed holds all but 50 of its notes to the end.
func TestABC2MIDIChordQueue(t *testing.T) {
	offs, pos, delta, ok := abc2midiChordClosed(3, 480, 480, 10)
	if !ok || offs[0] != 479 || offs[1] != 479 || offs[2] != 479 || pos != 479 || delta != 1 {
		t.Errorf("closed: offs %v, last event %d, owed %d, emptied %v; want 479 x3, 479, 1, true", offs, pos, delta, ok)
	}
	if _, _, _, ok := abc2midiChordClosed(3, 960, 480, 10); ok {
		t.Error("a chord longer than its time left no notes waiting")
	}
	offs, _ = abc2midiChordOpen(abc2midiQueue+3, 480, 10)
	for k, o := range offs {
		if (k < abc2midiQueue) != (o >= 0) {
			t.Errorf("open chord of %d: note %d ends at %d", abc2midiQueue+3, k, o)
		}
	}
	if wrapDelta(-11) != 117 || wrapDelta(-251) != 5 || wrapDelta(-1294) != 114 || wrapDelta(40) != 40 {
		t.Error("wrapDelta does not read negative deltas as abc2midi's files do")
	}
}

// TestOpenChordOrnaments: in the chord a roll or a trill plays its note alone, for half its
// length, and grace notes are notes of the chord (abc2midi: G A B c e d from 481, 10 apart,
// all ending at 960, the track at 986).
func TestOpenChordOrnaments(t *testing.T) {
	ns := notesOf(t, "", "C D H[| ~G2 A TB c {e}d [|]|]", Options{MelodyOnly: true})
	want := []int{67, 69, 71, 72, 76, 74}
	if len(ns) != 2+len(want) {
		t.Fatalf("%d notes, want %d: %v", len(ns), 2+len(want), ns)
	}
	for k, n := range ns[2:] {
		if n.Pitch != want[k] || n.OnTick != 480+10*int64(k) || n.OnTick+n.DurTicks != 960 {
			t.Errorf("chord note %d: pitch %d %d to %d, want %d %d to 960", k, n.Pitch, n.OnTick, n.OnTick+n.DurTicks, want[k], 480+10*k)
		}
	}
}
