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
