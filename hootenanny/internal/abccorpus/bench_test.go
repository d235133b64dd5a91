package abccorpus

import (
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/abcmidi"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// BenchmarkCorpusConvert parses, converts and encodes every corpus tune in process, as the
// agreement test does, and reports tunes/s. BenchmarkCorpusABC2MIDI (build tag abc2midi) runs
// abc2midi on the same tunes for comparison.
func BenchmarkCorpusConvert(b *testing.B) {
	tunes, err := Tunes()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, tu := range tunes {
			book, _ := abc.Parse(tu.Text, abc.Options{})
			if len(book.Tunes) != 1 {
				b.Fatalf("%s: parsed %d tunes", tu.ID(), len(book.Tunes))
			}
			t := book.Tunes[0]
			f, err := abcmidi.Convert(t, abcmidi.Options{Voices: abcmidi.MIDIDirectives(tu.Text, t), Directives: abcmidi.Directives(tu.Text, t)})
			if err != nil {
				b.Fatalf("%s: %v", tu.ID(), err)
			}
			if _, err := midi.Encode(*f); err != nil {
				b.Fatalf("%s: %v", tu.ID(), err)
			}
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tunes/s")
}
