package abc

import (
	"fmt"
	"strings"
	"testing"
)

// eventText writes events as "onset+duration:pitch", grace notes with a g.
func eventText(ev []Event) string {
	var b strings.Builder
	for i, e := range ev {
		if i > 0 {
			b.WriteByte(' ')
		}
		if e.Grace {
			b.WriteByte('g')
		}
		fmt.Fprintf(&b, "%v+%v:%d", e.Onset, e.Duration, e.Pitch)
	}
	return b.String()
}

func TestEvents(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		{"key signature and octaves", "M:4/4\nL:1/4\nK:D\nF c f' C,|", "0+1/4:66 1/4+1/4:73 1/2+1/4:90 3/4+1/4:49"},
		{"bar accidentals", "M:4/4\nL:1/4\nK:C\n^F F f =F|F4|", "0+1/4:66 1/4+1/4:66 1/2+1/4:78 3/4+1/4:65 1+1:65"},
		{"broken rhythm", "M:4/4\nL:1/8\nK:C\nC>D E<F G>>A B<<c|", "0+3/16:60 3/16+1/16:62 1/4+1/16:64 5/16+3/16:65 1/2+7/32:67 23/32+1/32:69 3/4+1/32:71 25/32+7/32:72"},
		{"triplet", "M:2/4\nL:1/8\nK:C\n(3CDE F2|", "0+1/12:60 1/12+1/12:62 1/6+1/12:64 1/4+1/4:65"},
		{"tuplet p:q:r", "M:4/4\nL:1/8\nK:C\n(3:2:2C2D E4 z2|", "0+1/6:60 1/6+1/12:62 1/4+1/2:64"},
		{"quintuplet compound", "M:6/8\nL:1/8\nK:C\n(5CDEFG z3|", "0+3/40:60 3/40+3/40:62 3/20+3/40:64 9/40+3/40:65 3/10+3/40:67"},
		{"default unit length below 3/4", "M:2/4\nK:C\nC4 D4|", "0+1/4:60 1/4+1/4:62"},
		{"ties merged across a bar", "M:2/4\nL:1/4\nK:F\nB2-|B C-|C D|", "0+3/4:70 3/4+1/2:60 5/4+1/4:62"},
		{"chord and tie", "M:4/4\nL:1/4\nK:C\n[CEG]2-[CEG] [^FA]|", "0+3/4:60 0+3/4:64 0+3/4:67 3/4+1/4:66 3/4+1/4:69"},
		{"grace notes", "M:4/4\nL:1/8\nK:G\n{f}g2 {/ag}f2 z4|", "g0+1/8:78 0+1/4:79 g1/4+1/8:81 g1/4+1/8:79 1/4+1/4:78"},
		{"key change resets", "M:4/4\nL:1/4\nK:G\nF [K:F] F B ^F|", "0+1/4:66 1/4+1/4:65 1/2+1/4:70 3/4+1/4:66"},
		{"rests advance time", "M:3/4\nL:1/4\nK:C\nz C x|Z|C3|", "1/4+1/4:60 3/2+3/4:60"},
		{"explicit key accidentals", "M:3/4\nL:1/4\nK:D exp ^c\nF c d|", "0+1/4:65 1/4+1/4:73 1/2+1/4:74"},
	}
	for _, c := range cases {
		b, d := Parse("X:1\n"+c.body+"\n", Options{})
		if len(errorsOnly(d)) != 0 {
			t.Errorf("%s: diagnostics %+v", c.name, d)
		}
		ev, err := b.Tunes[0].Events("")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := eventText(ev); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func TestDecorationsAndChanges(t *testing.T) {
	tu, _ := parseOne(t, "X:1\nM:2/4\nL:1/4\nK:C\n!mf!.C [Q:1/4=90]!fermata![CE]|[M:3/4]D E F|\n")
	ev, _ := tu.Events("")
	if fmt.Sprint(ev[0].Decorations, ev[1].Decorations, ev[2].Decorations, ev[3].Decorations) != "[mf staccato] [fermata] [fermata] []" {
		t.Errorf("decorations %v %v %v", ev[0].Decorations, ev[1].Decorations, ev[3].Decorations)
	}
	ch, _ := tu.Changes("")
	if len(ch) != 2 || ch[0].Onset != R(1, 4) || ch[0].Field.Tempo.BPM != 90 || ch[1].Onset != R(1, 2) || ch[1].Field.Meter.Value() != R(3, 4) {
		t.Errorf("changes %+v", ch)
	}
}

func TestEventsOctaveAccidentals(t *testing.T) {
	b, _ := Parse("X:1\nM:2/4\nL:1/4\nK:C\n^F f|\n", Options{})
	ev, _ := b.Tunes[0].EventsWith("", EventOptions{OctaveAccidentals: true})
	if got := eventText(ev); got != "0+1/4:66 1/4+1/4:77" {
		t.Errorf("got %s", got)
	}
	if _, err := b.Tunes[0].Events("nope"); err == nil {
		t.Error("unknown voice: no error")
	}
}

func TestMultiVoiceEvents(t *testing.T) {
	tu, _ := parseOne(t, multiVoice)
	s, err := tu.Events("S")
	if err != nil {
		t.Fatal(err)
	}
	bass, _ := tu.Events("B")
	if len(s) != 9 || len(bass) != 9 {
		t.Fatalf("events %d %d", len(s), len(bass))
	}
	// After [K:Bb] the B is flat.
	if s[5].Pitch != 70 || s[5].Onset != R(6, 4) {
		t.Errorf("soprano B after key change: %+v", s[5])
	}
	if bass[0].Pitch != 41 || bass[len(bass)-1].Onset != R(9, 4) {
		t.Errorf("bass %+v", bass)
	}
}

func TestExpandRepeats(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		{"simple", "A|B:|C|", "[0 1 0 1 2]"},
		{"start", "A|:B|C:|D|", "[0 1 2 1 2 3]"},
		{"endings", "|:A|B|1C:|2D|E|]", "[0 1 2 0 1 3 4]"},
		{"ending brackets", "|:A|[1B:|[2C||D|", "[0 1 0 2 3]"},
		{"three endings", "|:A|[1B:|[2C:|[3D||", "[0 1 0 2 0 3]"},
		{"double repeat", "|:A:|:B:|", "[0 0 1 1]"},
		{"two sections without starts", "A:|B:|", "[0 0 1 1]"},
		{"ending list", "|:A|[1,2B:|[3C|]", "[0 1 0 1 0 2]"},
		// A second |: before the first is closed repeats the first once, as abc2midi does
		// (Ryan's "Molly Bawn's": |: ... |] |: ... :|).
		{"unclosed start", "|:A|B|]|:C|D:|", "[0 1 0 1 2 3 2 3]"},
		// Not when a section began after the |: (an ending abc2midi does not read as one).
		{"start after a new section", "|:A|[1B:|C|:D:|", "[0 1 0 2 3 3]"},
	}
	for _, c := range cases {
		b, d := Parse("X:1\nL:1/4\nK:C\n"+c.body+"\n", Options{})
		if len(errorsOnly(d)) != 0 {
			t.Errorf("%s: %+v", c.name, d)
		}
		bars, err := b.Tunes[0].Bars("")
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(ExpandRepeats(bars)); got != c.want {
			t.Errorf("%s: got %s want %s", c.name, got, c.want)
		}
	}
	tu, _ := parseOne(t, jig)
	bars, _ := tu.Bars("")
	if got := fmt.Sprint(ExpandRepeats(bars)); got != "[0 1 2 3 0 1 2 4 5 6 7 8 5 6 7 9]" {
		t.Errorf("jig: %s", got)
	}
}

func TestRat(t *testing.T) {
	if R(2, 4) != R(1, 2) || R(1, -2) != R(-1, 2) || R(1, 0) != R(0, 1) {
		t.Error("normalising")
	}
	if R(1, 3).Add(R(1, 6)) != R(1, 2) || R(3, 4).Sub(R(1, 4)) != R(1, 2) || R(2, 3).Mul(R(3, 4)) != R(1, 2) || R(1, 2).Div(R(1, 4)) != R(2, 1) {
		t.Error("arithmetic")
	}
	if R(1, 2).Div(Rat{}) != R(0, 1) || R(1, 3).String() != "1/3" || R(4, 2).String() != "2" {
		t.Error("edges")
	}
	big := R(1, 1<<40+1)
	_ = big.Add(R(1, 1<<40-1)).Add(R(1, 1<<39+7)) // must not panic
}
