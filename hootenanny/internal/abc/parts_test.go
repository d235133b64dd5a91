package abc

import (
	"reflect"
	"strings"
	"testing"
)

func TestPartSequence(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"AABB", "AABB"}, {"A2B", "AAB"}, {"(AB)2C", "ABABC"}, {"A.B.A.C", "ABAC"}, {"((AB)2C)2", "ABABCABABC"},
		{"", ""}, {"2", ""}, {"A0B", "AB"}, {"(A", "A"}, {"A)B", "A"},
	} {
		if got := strings.Join(partSequence(c.in), ""); got != c.want {
			t.Errorf("partSequence(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if n := len(partSequence("(((A999)999)999)999")); n > 257 {
		t.Errorf("sequence of %d parts is not capped", n)
	}
}

// playedPitches returns the pitches of a single-voice tune in PlayOrder.
func playedPitches(t *testing.T, src string) []int {
	t.Helper()
	book, _ := Parse(src, Options{})
	tu := book.Tunes[0]
	id := tu.Voices[len(tu.Voices)-1].ID
	ev, err := tu.Events(id)
	if err != nil {
		t.Fatal(err)
	}
	bars, _ := tu.Bars(id)
	var out []int
	for _, b := range PlayOrder(bars, tu.Header.Parts) {
		for _, e := range ev {
			if e.Bar == b {
				out = append(out, e.Pitch)
			}
		}
	}
	return out
}

func TestPlayOrder(t *testing.T) {
	// The orders abc2midi plays: an intro before the first P:, then the parts, each with its
	// repeats.
	src := "X:1\nM:4/4\nL:1/4\nP:(AB)2C\nK:C\nE4|\nP:A\n|:C4:|\nP:B\nD4|\nP:C\nG4|]\n"
	if got, want := playedPitches(t, src), []int{64, 60, 60, 62, 60, 60, 62, 67}; !reflect.DeepEqual(got, want) {
		t.Errorf("parts: got %v, want %v", got, want)
	}
	// Without a header order the body P: labels change nothing.
	src = "X:1\nM:4/4\nL:1/4\nK:C\nP:A\nC4|\nP:B\nD4|\n"
	if got, want := playedPitches(t, src), []int{60, 62}; !reflect.DeepEqual(got, want) {
		t.Errorf("no order: got %v, want %v", got, want)
	}
	// One P: line before the voices labels the bars of every voice; a missing part is skipped.
	src = "X:1\nM:4/4\nL:1/4\nP:BAXB\nK:C\nP:A\nV:1\nC4|\nV:2\nC,4|\nP:B\nV:1\nD4|\nV:2\nD,4|\n"
	if got, want := playedPitches(t, src), []int{50, 48, 50}; !reflect.DeepEqual(got, want) {
		t.Errorf("voices: got %v, want %v", got, want)
	}
	book, _ := Parse(src, Options{})
	bars, _ := book.Tunes[0].Bars("1")
	if len(bars) != 2 || bars[0].Part != "A" || bars[1].Part != "B" {
		t.Errorf("voice 1 bars %+v", bars)
	}
	// The order is bounded however large the counts.
	src = "X:1\nM:4/4\nL:1/4\nP:A99999\nK:C\nP:A\n|:C4:|\n"
	if n := len(playedPitches(t, src)); n == 0 || n > 16*1+16 {
		t.Errorf("%d bars played", n)
	}
}

func TestTimelineMatchesParts(t *testing.T) {
	for _, src := range allTunes {
		book, _ := Parse(src, Options{})
		for _, tu := range book.Tunes {
			for _, v := range tu.Voices {
				ev, bars, ch, err := tu.Timeline(v.ID)
				ev2, err2 := tu.Events(v.ID)
				bars2, _ := tu.Bars(v.ID)
				ch2, _ := tu.Changes(v.ID)
				if (err == nil) != (err2 == nil) || !reflect.DeepEqual(ev, ev2) || !reflect.DeepEqual(bars, bars2) || !reflect.DeepEqual(ch, ch2) {
					t.Fatalf("tune %d voice %q: Timeline differs from Events, Bars and Changes", tu.Header.X, v.ID)
				}
			}
		}
	}
}

func TestRestDecorations(t *testing.T) {
	book, _ := Parse("X:1\nM:4/4\nL:1/4\nK:C\n!p!z !mf!C c- !f!c !<(![DF]|\n", Options{})
	ev, err := book.Tunes[0].Events("")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ev {
		got = append(got, strings.Join(e.RestDecorations, ",")+"/"+strings.Join(e.Decorations, ","))
	}
	// The rest's mark and the tied continuation's go to the next new note, once per chord.
	if want := []string{"p/mf", "/", "f/<(", "f/<("}; !reflect.DeepEqual(got, want) {
		t.Errorf("rest/note decorations %q, want %q", got, want)
	}
	if &ev[2].RestDecorations[0] != &ev[3].RestDecorations[0] {
		t.Errorf("the notes of a chord should share their decorations")
	}
}
