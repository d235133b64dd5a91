package abcmidi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// notesOf converts a one-voice tune body under M:C, L:1/8 with options and returns its
// notes as pitch@onset/duration in ticks, in order.
func notesOf(t *testing.T, header, body string, opts Options) []midi.Note {
	t.Helper()
	f := convert(t, "X:1\nM:C\nL:1/8\n"+header+"K:C\n"+body+"\n", opts)
	ns := midi.NoteEvents(f)
	midi.SortNotes(ns)
	return ns
}

// TestTrillNoteFollowsTempo holds abc2midi 4.84's trill lengths, measured: the longest
// quarter halved or doubled that lasts no more than a tenth of a second.
func TestTrillNoteFollowsTempo(t *testing.T) {
	for _, c := range []struct {
		q     string
		ticks int64
	}{
		{"", 60}, {"Q:1/4=74\n", 30}, {"Q:1/4=75\n", 60}, {"Q:1/4=149\n", 60}, {"Q:1/4=150\n", 120},
		{"Q:1/4=300\n", 240}, {"Q:1/4=37\n", 15}, {"Q:3/8=50\n", 60}, {"Q:1/2=38\n", 60},
	} {
		ns := notesOf(t, c.q, "TA4 c2 d2|", Options{MelodyOnly: true})
		if len(ns) < 3 || ns[0].DurTicks != c.ticks || ns[1].OnTick != c.ticks || ns[0].Pitch != 71 || ns[1].Pitch != 69 {
			t.Errorf("%q: trill starts %v, want B then A, %d ticks each", c.q, ns[:min(3, len(ns))], c.ticks)
		}
	}
}

// TestBrokenRhythmCancelled: a staccato dot or a fermata letter between > and the second
// note cancels the broken rhythm in abc2midi; a T, u or v does not, nor a dot between chords.
func TestBrokenRhythmCancelled(t *testing.T) {
	for _, c := range []struct {
		body       string
		first, dur int64 // the first note's length, the second's onset
	}{
		{"A>.c A2 z2 z2|", 240, 240},
		{"A<.c A2 z2 z2|", 240, 240},
		{"A>>.c A2 z2 z2|", 240, 240},
		{"A>Hc A2 z2 z2|", 240, 240},
		{"A>c A2 z2 z2|", 360, 360},
		{"A>Tc A2 z2 z2|", 360, 360},
		{"A>uc A2 z2 z2|", 360, 360},
	} {
		ns := notesOf(t, "", c.body, Options{MelodyOnly: true})
		if ns[0].DurTicks != c.first || ns[1].OnTick != c.dur {
			t.Errorf("%s: first note %d ticks, second at %d; want %d and %d", c.body, ns[0].DurTicks, ns[1].OnTick, c.first, c.dur)
		}
	}
}

// TestShortDecorationBeforeBarLine: abc2midi forgets H, T and ~ written just before a bar
// line; the note after the bar line plays plain.
func TestShortDecorationBeforeBarLine(t *testing.T) {
	for _, body := range []string{"A2 cd d2 H|defg|", "A2 cd d2 T|defg|", "A2 cd d2 ~|defg|", "A2 cd d2 H|:defg:|"} {
		ns := notesOf(t, "", body, Options{MelodyOnly: true})
		if len(ns) < 5 || ns[4].Pitch != 74 || ns[4].OnTick != 1440 || ns[4].DurTicks != 240 {
			t.Errorf("%s: after the bar line %v, want d at 1440 for 240 ticks", body, ns[4:min(6, len(ns))])
		}
	}
}

// TestUnknownChordsOnly: a tune none of whose chord symbols abc2midi knows gets no
// accompaniment; one known symbol brings it back, unknown names playing as major triads.
func TestUnknownChordsOnly(t *testing.T) {
	if ns := notesOf(t, "", `"Cry of the hounds"FDED FDED|"Fine"FDED FDED|`, Options{}); len(ns) != 16 {
		t.Errorf("unknown symbols only: %d notes, want the 16 of the melody", len(ns))
	}
	if ns := notesOf(t, "", `FDED FDED|"fine"FDED FDED|"D.C."FDED FDED|`, Options{}); len(ns) != 24 {
		t.Errorf("\"fine\" and \"D.C.\" only: %d notes, want the 24 of the melody", len(ns))
	}
	if ns := notesOf(t, "", `"G"FDED FDED|"Cry"FDED FDED|`, Options{}); len(ns) <= 16 {
		t.Errorf("a known symbol: %d notes, want an accompaniment besides the melody", len(ns))
	}
}

// TestTupletsAsABC2MIDI: (5, (7 and (9 take the time of three in any meter whose numerator
// is a multiple of 3 (3/4, 3/8 too), and a note's start and length lose their fraction of a
// tick, as abc2midi plays them.
func TestTupletsAsABC2MIDI(t *testing.T) {
	f := convert(t, "X:1\nM:3/4\nL:1/8\nK:C\n(5cdefg z|\n", Options{MelodyOnly: true})
	ns := midi.NoteEvents(f)
	midi.SortNotes(ns)
	if len(ns) != 5 || ns[1].OnTick != 144 || ns[4].OnTick != 576 || ns[0].DurTicks != 144 {
		t.Errorf("(5 in 3/4: %v, want five notes of 144 ticks", ns)
	}
	f = convert(t, "X:1\nM:2/4\nL:1/8\nK:C\n(7cdefgab z2|\n", Options{MelodyOnly: true})
	ns = midi.NoteEvents(f)
	midi.SortNotes(ns)
	want := []int64{0, 68, 137, 205, 274, 342, 411}
	for i, n := range ns {
		if i < len(want) && (n.OnTick != want[i] || n.DurTicks != 68) {
			t.Errorf("(7 in 2/4: note %d at %d for %d, want %d for 68", i, n.OnTick, n.DurTicks, want[i])
		}
	}
}

// TestUnequalBrokenRhythm: abc2midi plays a broken rhythm between two notes of unequal
// written length as written (it reports it); between a chord and a note it applies it.
func TestUnequalBrokenRhythm(t *testing.T) {
	for _, c := range []struct {
		body string
		want []int64 // onsets of the first three notes
	}{
		{"A2>B c2 z2|", []int64{0, 480, 720}},
		{"A>B/ c2 z2|", []int64{0, 240, 360}},
		{"A/>B c2 z2|", []int64{0, 120, 360}},
		{"A>B c2 z2|", []int64{0, 360, 480}},
		{"[AC]>B/ c2 z2|", []int64{0, 0, 360}},
	} {
		f := convert(t, "X:1\nM:2/4\nL:1/8\nK:C\n"+c.body+"\n", Options{MelodyOnly: true, Straight: true})
		ns := midi.NoteEvents(f)
		midi.SortNotes(ns)
		for i, w := range c.want {
			if i >= len(ns) || ns[i].OnTick != w {
				t.Errorf("%s: notes %v, want onsets %v", c.body, ns, c.want)
				break
			}
		}
	}
}

// TestTrillAfterGrace: a grace note before a trilled note takes its time first; the trill
// fills the rest, starting above ({B}TA4 plays B for 60 ticks, then B A B A ... from 60),
// its notes halved until they fill it evenly (at 152 bpm 900 ticks take 60-tick notes).
func TestTrillAfterGrace(t *testing.T) {
	fast := notesOf(t, "Q:1/2=76\n", "{B}TA4 c2 d2|", Options{MelodyOnly: true})
	if len(fast) < 3 || fast[1].DurTicks != 60 || fast[2].OnTick != 120 {
		t.Errorf("{B}TA4 at 152 bpm: %v, want 60-tick trill notes from 60", fast[:min(3, len(fast))])
	}
	ns := notesOf(t, "", "{B}TA4 c2 d2|", Options{MelodyOnly: true})
	if len(ns) < 3 || ns[0].Pitch != 71 || ns[0].DurTicks != 60 || ns[1].Pitch != 71 || ns[1].OnTick != 60 || ns[2].Pitch != 69 || ns[2].OnTick != 120 {
		t.Errorf("{B}TA4: %v, want the grace B for 60 ticks, then the trill from B at 60", ns[:min(3, len(ns))])
	}
}

// TestStrictRepeats: in a tune with several voices or a header P:, abc2midi guesses no
// section starts: a :| without |: goes back to the start, a later one no further than the
// last |: or ::, and after the passes it allows it does not repeat. Measured with abc2midi.
func TestStrictRepeats(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"C D:|E F:|", "C D C D E F"},
		{"|:C D:|E F|G A:|", "C D C D E F G A"},
		{"C D::E F:|G A:|", "C D C D E F E F G A"},
		{"C D|[1E F:|[2G A||B c|d e:|", "C D E F C D G A B c d e C D B c d e"},
		{"|:C D|[1E F:|[2G A:|B c|", "C D E F C D G A C D B c"},
	} {
		f := convert(t, "X:1\nM:2/4\nL:1/4\nP:A\nK:C\nP:A\n"+c.body+"\n", Options{MelodyOnly: true})
		var got []string
		for _, n := range midi.NoteEvents(f) {
			name := []string{"C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"}[n.Pitch%12]
			if n.Pitch >= 72 {
				name = strings.ToLower(name)
			}
			got = append(got, name)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("P:A %s\n got %s\nwant %s", c.body, g, c.want)
		}
		two := convert(t, "X:1\nM:2/4\nL:1/4\nK:C\nV:1\n"+c.body+"\nV:2\n"+c.body+"\n", Options{MelodyOnly: true})
		if n, want := len(midi.NoteEvents(two)), 2*len(strings.Fields(c.want)); n != want {
			t.Errorf("two voices %s: %d notes, want %d", c.body, n, want)
		}
	}
}

// TestBrokenRhythmAfterFermata: abc2midi compares a broken pair's lengths after a fermata
// doubles and a staccato dot halves them (HA>B plays as written, A doubled; .A>.B takes
// the rhythm), and a one-letter
// decoration before a slur, a chord symbol or grace notes is forgotten (T(BA), T"G"B, T{c}B).
func TestBrokenRhythmAfterFermata(t *testing.T) {
	for _, c := range []struct {
		body  string
		notes []string // pitch@onset/duration in ticks of the first notes
	}{
		{"Hg>f e2 z4|", []string{"79@0/480", "77@480/240", "76@720/480"}},
		{"!fermata!g>f e2 z4|", []string{"79@0/480", "77@480/240", "76@720/480"}},
		{".g>f e2 z4|", []string{"79@0/120", "77@240/240", "76@480/480"}},
		{"Tg>f e2 z4|", []string{"81@0/60"}},
		{"B2 T(BA) BGEF|", []string{"71@0/480", "71@480/240", "69@720/240"}},
		// marked alike, the notes are equal again for abc2midi and take the rhythm
		{".A>.B c2 z4|", []string{"69@0/180", "71@360/60", "72@480/480"}},
		{"HA>HB c2 z4|", []string{"69@0/720", "71@720/240", "72@960/480"}},
		{"HA>.B c2 z4|", []string{"69@0/480", "71@480/120", "72@720/480"}},
		{"B2 T\"G\"BA BGEF|", []string{"71@0/480", "71@480/240", "69@720/240"}},
		{"B2 H(BA) BGEF|", []string{"71@0/480", "71@480/240", "69@720/240"}},
	} {
		ns := notesOf(t, "", c.body, Options{MelodyOnly: true})
		for i, w := range c.notes {
			got := ""
			if i < len(ns) {
				got = fmt.Sprintf("%d@%d/%d", ns[i].Pitch, ns[i].OnTick, ns[i].DurTicks)
			}
			if got != w {
				t.Errorf("%s: note %d is %s, want %s", c.body, i, got, w)
			}
		}
	}
}

// TestHornpipeStaccatoPair: in a hornpipe abc2midi swings a pair of sixteenths (2/4) only
// when both or neither are staccato: .B(F=EF) plays B and F even.
func TestHornpipeStaccatoPair(t *testing.T) {
	f := convert(t, "X:1\nR:hornpipe\nM:2/4\nL:1/16\nK:Bb\ndBcA .BF=EF|\n", Options{MelodyOnly: true})
	ns := midi.NoteEvents(f)
	midi.SortNotes(ns)
	if len(ns) < 6 || ns[4].OnTick != 480 || ns[4].DurTicks != 60 || ns[5].OnTick != 600 {
		t.Errorf(".BF in a hornpipe: %v, want B at 480 for 60 ticks (halved) and F at 600", ns)
	}
	if ns[0].DurTicks != 160 || ns[1].OnTick != 160 {
		t.Errorf("dB in a hornpipe: %v, want swung 160 and 80", ns[:2])
	}
}

// TestRollAfterBrokenRhythm: abc2midi scales the first note of A>~c by the second's factor
// as well (A for 180 ticks, not 360) and the roll's unit with it (the upper note for 30
// ticks), so what follows comes 180 ticks early; abcmidi copies it (docs/abc2midi.md).
func TestRollAfterBrokenRhythm(t *testing.T) {
	for _, c := range []struct {
		body  string
		notes []string
	}{
		{"A>~c A2 z4|", []string{"69@0/180", "74@180/30", "72@210/90", "69@300/480"}},
		{"A<~c A2 z4|", []string{"69@0/180", "74@180/90", "72@270/270", "69@540/480"}},
		{"A2>~c2 A2 z2|", []string{"69@0/360", "74@360/30", "72@390/210", "69@600/480"}},
	} {
		ns := notesOf(t, "", c.body, Options{MelodyOnly: true})
		for i, w := range c.notes {
			got := ""
			if i < len(ns) {
				got = fmt.Sprintf("%d@%d/%d", ns[i].Pitch, ns[i].OnTick, ns[i].DurTicks)
			}
			if got != w {
				t.Errorf("%s: note %d is %s, want %s", c.body, i, got, w)
			}
		}
	}
}

// TestOverlays: the music after & in a bar plays as a voice of its own from the bar's start,
// on the channel after its voice's (before the next voice's), as abc2midi plays it; a bar
// without an overlay is a rest in that voice, and a short overlay is not filled out.
func TestOverlays(t *testing.T) {
	f := convert(t, "X:1\nM:2/4\nL:1/4\nK:C\nV:1\nC D & E F|G A|\nV:2\nC, D,|E, F, & G, A,|\n", Options{MelodyOnly: true})
	got := map[int][]string{}
	for _, n := range midi.NoteEvents(f) {
		got[n.Channel] = append(got[n.Channel], fmt.Sprintf("%d@%d", n.Pitch, n.OnTick))
	}
	want := map[int]string{0: "60@0 62@480 67@960 69@1440", 1: "64@0 65@480", 2: "48@0 50@480 52@960 53@1440", 3: "55@960 57@1440"}
	for ch, w := range want {
		if g := strings.Join(got[ch], " "); g != w {
			t.Errorf("channel %d: %s, want %s", ch, g, w)
		}
	}
	ns := notesOf(t, "", "A B c d & F2|e f g a|d4 & F G A B|", Options{MelodyOnly: true})
	var over []string
	for _, n := range ns {
		if n.Channel == 1 {
			over = append(over, fmt.Sprintf("%d@%d", n.Pitch, n.OnTick))
		}
	}
	if g := strings.Join(over, " "); g != "65@0 65@1440 67@1680 69@1920 71@2160" {
		t.Errorf("short overlay: %s", g)
	}
}
