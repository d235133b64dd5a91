package abcmidi

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// The expected velocities below are abc2midi 4.84's output for the same tunes.

func velocities(f *midi.File) []int {
	var out []int
	for _, n := range midi.NoteEvents(f) {
		out = append(out, n.Velocity)
	}
	return out
}

func wantVelocities(t *testing.T, src string, want ...int) {
	t.Helper()
	if got := velocities(convert(t, src, Options{})); !reflect.DeepEqual(got, want) {
		t.Errorf("%s\nvelocities\n got %v\nwant %v", src, got, want)
	}
}

// TestBeatStress plays one bar of sixteenth notes in each meter and checks which positions
// (in sixteenths) are stressed: 105 on the first, 95 on the other strong beats.
func TestBeatStress(t *testing.T) {
	for _, c := range []struct {
		meter  string
		strong []int
	}{
		{"4/4", []int{8}}, {"C", []int{8}}, {"C|", nil}, {"2/4", nil}, {"3/4", nil}, {"5/4", nil},
		{"6/8", []int{6}}, {"9/8", []int{6, 12}}, {"12/8", []int{6, 12, 18}}, {"6/4", []int{12}},
		{"3/8", nil}, {"7/8", nil}, {"10/8", []int{4, 8, 12, 16}}, {"12/16", []int{3, 6, 9}},
		{"8/8", []int{4, 8, 12}}, {"4/2", []int{16}}, {"9/4", []int{12, 24}}, {"2+2/8", []int{4}},
		{"none", []int{8}},
	} {
		t.Run(c.meter, func(t *testing.T) {
			bar := map[string]int{"C": 16, "C|": 16, "none": 16}[c.meter]
			if bar == 0 {
				var n, d int
				if a, b, ok := strings.Cut(c.meter, "/"); ok {
					for _, x := range strings.Split(a, "+") {
						var v int
						fmt.Sscan(x, &v)
						n += v
					}
					fmt.Sscan(b, &d)
				}
				bar = n * 16 / d
			}
			src := fmt.Sprintf("X:1\nM:%s\nL:1/16\nK:C\n%s|\n", c.meter, strings.Repeat("C", bar))
			want := make([]int, bar)
			for i := range want {
				want[i] = StressOther
			}
			want[0] = StressFirst
			for _, p := range c.strong {
				want[p] = StressStrong
			}
			wantVelocities(t, src, want...)
		})
	}
}

func TestStressFollowsPlaying(t *testing.T) {
	// A chord takes the velocity of its beat, stagger or not; a grace note on the beat takes
	// the stress and the note it delays does not; a tied note sounds once; triplets and
	// broken rhythm count where they fall.
	wantVelocities(t, "X:1\nM:4/4\nL:1/8\nK:C\n[CEG]2 cd [CEG]2 c2-|c2 {/g}A2 .B2 .c2|[CE]4 {ga}[DF]4|(3CDE z2 z4|\n",
		105, 105, 105, 80, 80, 95, 95, 95, 80, 80, 80, 95, 80, 105, 105, 95, 80, 80, 80, 105, 80, 80)
	wantVelocities(t, "X:1\nM:4/4\nL:1/8\nK:C\nA>B c>d e<f g<a|\n", 105, 80, 80, 80, 95, 80, 80, 80)
	// A meter change mid-bar counts from the same bar line with the new meter.
	wantVelocities(t, "X:1\nM:4/4\nL:1/8\nK:C\nDE FG\nM:3/4\nAB|C2D2E2|\n", 105, 80, 80, 80, 80, 80, 105, 80, 80)
}

func TestDynamics(t *testing.T) {
	bar := "CDEF GABc|"
	var src strings.Builder
	src.WriteString("X:1\nM:4/4\nL:1/8\nK:C\n")
	var want []int
	for _, c := range []struct {
		mark           string
		first, on, off int // first beat, other quarter beats, off the beat
	}{
		{"", 105, 80, 80}, // (the half bar gets 95, set below)
		{"!pppp!", 105, 80, 80},
		{"!ppp!", 30, 20, 10}, {"!pp!", 45, 35, 20}, {"!p!", 60, 50, 35}, {"!mp!", 75, 65, 50},
		{"!mf!", 90, 80, 65}, {"!f!", 105, 95, 80}, {"!ff!", 120, 110, 95}, {"!fff!", 127, 125, 110},
		{"!p!!ffff!!sfz!!accent!", 60, 50, 35},
	} {
		src.WriteString(c.mark + bar)
		b := []int{c.first, c.off, c.on, c.off, c.on, c.off, c.on, c.off}
		if c.mark == "" || c.mark == "!pppp!" {
			b[4] = StressStrong
		}
		want = append(want, b...)
	}
	wantVelocities(t, src.String()+"\n", want...)

	// Hairpin marks step by 15, each where it is written; each step stops at 127.
	wantVelocities(t, "X:1\nM:4/4\nL:1/4\nK:C\n!p!CDEF|!<(!CD!<)!EF|!f!C!>(!DEF|!>)!CDEF|!ff!!<(!!<(!C!>(!DEF|\n",
		60, 50, 50, 50, 75, 65, 80, 80, 105, 80, 80, 80, 75, 65, 65, 65, 127, 112, 112, 112)
	// Without a dynamics mark, a hairpin keeps the meter's strong beats.
	wantVelocities(t, "X:1\nM:4/4\nL:1/4\nK:C\n!crescendo(!CDEF|\n", 120, 95, 110, 95)
	// A mark on a rest counts from the next note; the voices keep their own velocities
	// (listed in time order: V:1 z C D | C3, V:2 C D E | C3).
	wantVelocities(t, "X:1\nM:3/4\nL:1/4\nK:C\nV:1\n!p!z CD|C3|\nV:2\nCDE|C3|\n", 105, 50, 80, 50, 80, 60, 105)
	// A mark before grace notes applies from the first grace; one on the continuation of a
	// tied note from the next note.
	wantVelocities(t, "X:1\nM:4/4\nL:1/8\nK:C\nC2 !p!{g}A2 !f!{ag}B2 c2|C8|\n", 105, 50, 35, 95, 80, 80, 95, 105)
	wantVelocities(t, "X:1\nM:4/4\nL:1/8\nK:C\nC2 c2- !p!c2 d2|C8|\n", 105, 80, 50, 60)
	// A meter change ends "every beat strong".
	wantVelocities(t, "X:1\nM:4/4\nL:1/8\nK:C\n!p!CDEF GABc|[M:6/8]CDE FGA|\n",
		60, 35, 50, 35, 50, 35, 50, 35, 60, 35, 35, 50, 35, 35)
	// Options.Velocity overrides all of it.
	f := convert(t, "X:1\nM:4/4\nL:1/8\nK:C\n!ff!CDEF GABc|\n", Options{Velocity: 64})
	for _, v := range velocities(f) {
		if v != 64 {
			t.Fatalf("velocities %v with Options.Velocity 64", velocities(f))
		}
	}
}

func TestStressAcrossRepeats(t *testing.T) {
	// A section ending on a short bar runs on into the repeated pickup (80, 80) and into the
	// next section's pickup; a full bar or a plain bar line starts afresh, and so does the
	// tune's opening pickup.
	wantVelocities(t, "X:1\nM:4/4\nL:1/8\nK:C\n|:CD|EFGA Bcde|1 fgab c2:|2 fgab c'2|]\n",
		105, 80, 105, 80, 80, 80, 95, 80, 80, 80, 105, 80, 80, 80, 95,
		80, 80, 105, 80, 80, 80, 95, 80, 80, 80, 105, 80, 80, 80, 95)
	wantVelocities(t, "X:1\nM:4/4\nL:1/8\nK:C\nCDEF GABc|CDEF GA|:Bc CDEF GA:|Bc DEFG ABcd|\n",
		105, 80, 80, 80, 95, 80, 80, 80,
		105, 80, 80, 80, 95, 80, 80, 80, 95, 80, 80, 80, 95, 80,
		105, 80, 80, 80, 95, 80, 80, 80,
		105, 80, 80, 80, 95, 80, 80, 80, 95, 80)
	wantVelocities(t, "X:1\nM:4/4\nL:1/8\nK:C\nD|:EFGA Bcde:|\n", 105, 105, 80, 80, 80, 95, 80, 80, 80, 105, 80, 80, 80, 95, 80, 80, 80)
}

func TestBeatDirectives(t *testing.T) {
	// %%MIDI beat a b c n sets the first-beat, strong-beat and other velocities and makes
	// every nth beat strong (0: the numerator, so the first only); beatmod adds to all three;
	// nobeataccents gives every note the strong velocity. A line in a repeated section acts
	// again each time it is played. (abc2midi 4.84's figures.)
	src := "X:1\nM:4/4\nL:1/8\nK:C\n" +
		"CDEF GABc|\n%%MIDI beat 110 100 90 4\nC2D2 E2F2|\n%%MIDI beat 70 60 50 2\nC2D2 E2F2|\n" +
		"%%MIDI beatmod 7\nC2D2 E2F2|\n%%MIDI nobeataccents\nC2D2 E2F2|\n%%MIDI beataccents\nC2D2 E2F2|\n" +
		"|:C2D2 E2F2|\n%%MIDI beatmod -20\nC2D2 E2F2:|\n"
	f := convertWith(t, src, Options{})
	var got []string
	for _, n := range midi.NoteEvents(f) {
		got = append(got, fmt.Sprint(n.Velocity))
	}
	want := "105 80 80 80 95 80 80 80 " + // the default model
		"110 90 90 90 " + // beat 110 100 90 4: only the first beat is strong
		"70 50 60 50 " + // beat 70 60 50 2: beats 1 and 3
		"77 57 67 57 " + // beatmod 7
		"67 67 67 67 " + // nobeataccents
		"77 57 67 57 " + // beataccents
		"77 57 67 57 57 37 47 37 " + // beatmod -20 after the first pass...
		"57 37 47 37 37 17 27 17" // ...and again after the second
	if g := strings.Join(got, " "); g != want {
		t.Errorf("velocities\n got %s\nwant %s", g, want)
	}
}

func TestStressAcrossParts(t *testing.T) {
	// When the parts go on from music that ends without a bar line in a short bar, the bar
	// goes on into the next part's pickup, as after a repeat sign: the second A's pickup is
	// off the beat. The tune's first bar counts on its own. (abc2midi 4.84's figures.)
	f := convert(t, "X:1\nM:4/4\nL:1/8\nP:(AB)2\nK:C\nP:A\ng2|e8|c6\nP:B\ne2|g8|d2c4\n", Options{})
	var got []string
	for _, n := range midi.NoteEvents(f) {
		got = append(got, fmt.Sprint(n.Velocity))
	}
	if want := "105 105 105 80 105 105 80 80 105 105 80 105 105 80"; strings.Join(got, " ") != want {
		t.Errorf("velocities %s, want %s", strings.Join(got, " "), want)
	}
}
