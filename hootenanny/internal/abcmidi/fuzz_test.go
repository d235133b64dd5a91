package abcmidi

import (
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/abccorpus"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// FuzzConvert checks that Convert never panics on what Parse accepts, and that every note it
// writes has a velocity of 1..127.
func FuzzConvert(f *testing.F) {
	tunes, err := abccorpus.Tunes()
	if err != nil {
		f.Fatal(err)
	}
	for _, tu := range tunes {
		f.Add(tu.Text)
	}
	for _, s := range []string{
		"X:1\nM:7/8\nL:1/8\nK:C\n!ppp!!>(!!>(!C!fff!!<(!D|:E:|\n",
		"X:1\nM:2+3/0\nK:C\n[M:999999/1]C/3D//[M:none]E|\n",
		"X:1\nP:(AB)9C\nK:C\nP:A\nV:1\n!p!z|:C:|\nV:2\n%%MIDI channel 10\n{g}C,,\nP:B\n[P:C]D|]\n",
		"X:1\nM:4/4\nL:1/8\n%%MIDI gchord fzc2ghijGHIJbx\n%%MIDI chordname sus4 0 5 7\n%%MIDI bassprog 33 octave=-1\nK:C\n" +
			"\"G7\"c8|\"Csus4/F\"c8|\"am\"c4[M:5/8]\"Bb/d\"c5|\n%%MIDI gchordoff\n\"(N.C.)\"c|\n%%MIDI gchordbars 3\n%%MIDI gchord f999\n\"Cb\"c:|\n",
		"X:1\nR:hornpipe\nM:C|\nL:1/8\nK:C^f^c\n%%MIDI ratio 2 1\n%%MIDI trim 1/5\n%%MIDI drum dzd2 35 38 90\n%%MIDI drumon\n(A>B) TcA-A>B T[CE]|\n",
		"X:1\nR:hornpipe\nM:C\nL:1/8\nP:(AB)2\nK:D\n%%MIDI beat 110 100 90 0\n%%MIDI chordattack 500\n%%MIDI drone 0 200 33 -1 90\n%%MIDI droneon\nP:A\n" +
			"~A3 ~c/ H[CE]2 !arpeggio![CEG] B<A|\n%%MIDI transpose -60\n%%MIDI rtranspose 99\nHz ~A>B||\n%%MIDI beatmod -200\nP:B\n%%MIDI nobeataccents\n\"C7\"C\n%%MIDI droneoff\n",
		"X:1\nM:2/4\nL:1/8\nK:C\nV:1\n|:A B & c & d e [K:D] & f|1 g:|2 &a||\nV:2\n&\n(5 d>B/ .A>~c e>.f {g}TA4 [f3a\n3]|\n",
		// abc2midi's open chord (openchord.go): across repeats, closed mid-tune by a chord, again
		"X:1\nR:hornpipe\nM:2/4\nL:1/16\nK:G\nvBA|GD~B,D {g}TGFGA H[|]:|\n|:vAG|FAfe (3dcB e[eG][eG]:|\nC D H[|]E>F [|] G.A :[|]|]\n",
		"X:1\nM:C\nL:1/8\nK:C\n%%MIDI chordattack 0\nC D .[|]:| E F [F\n2A2] {[Ge]}c [|]:| T[| G4 z ~c2|\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		book, _ := abc.Parse(src, abc.Options{})
		for _, tu := range book.Tunes {
			out, err := Convert(tu, Options{Voices: MIDIDirectives(src, tu), Directives: Directives(src, tu)})
			if err != nil {
				continue
			}
			for _, n := range midi.NoteEvents(out) {
				if n.Velocity < 1 || n.Velocity > 127 {
					t.Fatalf("note %+v", n)
				}
			}
		}
	})
}

// FuzzGuitarChord checks that chord symbols, gchord and drum patterns of any text decode
// within their bounds.
func FuzzGuitarChord(f *testing.F) {
	for _, s := range []string{"G", "Em/B", "am", "Am7/G", "(G)", "N.C.", "Cb", "B#m7b5/Fb", "G/", "fzc2ghijGHIJbx", "d2zdd2d2", "f999999999", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if g, ok := parseGuitarChord(s, chordNames); ok {
			v := g.voicing()
			if g.root < -1 || g.root > 12 || len(v) > maxChordNotes || g.slash && (g.bass < -1 || g.bass > 12) {
				t.Fatalf("%q: %+v voicing %v", s, g, v)
			}
		}
		for _, p := range [][]gslot{parsePattern(s), parseDrums([]string{s, "1", "2"})} {
			if len(p) == 0 || len(p) > maxSlots {
				t.Fatalf("%q: %d steps", s, len(p))
			}
			for _, st := range p {
				if st.length < 1 || st.length > 10000 {
					t.Fatalf("%q: step %+v", s, st)
				}
			}
		}
	})
}
