package synth

import (
	"context"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/abccorpus"
	"github.com/hootenanny/hoot/hootenanny/internal/abcmidi"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// BenchmarkCorpusRender renders the first tune of four corpus files (a reel on piano, an air
// for flute and bass, a march on clarinet, a tune with drums) with the General MIDI SoundFont
// at 44.1 kHz with reverb and chorus, as midi_render does by default, and reports how many
// times faster than real time it plays.
func BenchmarkCorpusRender(b *testing.B) {
	sf := loadDefault(b)
	tunes, err := abccorpus.Tunes()
	if err != nil {
		b.Fatal(err)
	}
	want := map[string]bool{"cooleys.abc": true, "greensleeves.abc": true, "british_grenadiers.abc": true, "rocky_road_drums.abc": true}
	var files []*midi.File
	for _, tu := range tunes {
		if !want[tu.File] {
			continue
		}
		delete(want, tu.File)
		book, _ := abc.Parse(tu.Text, abc.Options{})
		f, err := abcmidi.Convert(book.Tunes[0], abcmidi.Options{Voices: abcmidi.MIDIDirectives(tu.Text, book.Tunes[0])})
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
	}
	var seconds float64
	for b.Loop() {
		for _, f := range files {
			buf, err := sf.Render(context.Background(), f, Options{SampleRate: 44100, Tail: DefaultTail})
			if err != nil {
				b.Fatal(err)
			}
			seconds += buf.Duration()
		}
	}
	b.ReportMetric(seconds/b.Elapsed().Seconds(), "x-realtime")
	b.ReportMetric(seconds/float64(b.N), "audio-s/op")
}
