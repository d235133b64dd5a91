package analysis

import "testing"

// TestFrameOf: the frame is Analyze's key, meter and first downbeat, without the chords.
func TestFrameOf(t *testing.T) {
	t.Parallel()
	// E minor, drums apart; no key or time signature.
	notes := line(64, 66, 67, 71, 72, 71, 67, 66, 64, 59, 64, 71, 64, 67, 64)
	notes = append(notes, note{pitch: 36, on: 0, dur: 1, ch: 9})
	f := fileOf(notes)
	fr, r := FrameOf(f), analyze(t, f, Options{})
	if !fr.Sounding || fr.Key != r.Key || fr.Meter != r.Meter || fr.Key.Name() != "E minor" || fr.Key.Sharps() != 1 {
		t.Errorf("frame %+v, analysis key %+v meter %+v", fr, r.Key, r.Meter)
	}
	if k := (Key{Tonic: 2, Mode: "dorian"}); k.Sharps() != 0 {
		t.Errorf("D dorian: %d sharps", k.Sharps())
	}
	if k := (Key{Tonic: 10, Mode: "major"}); k.Sharps() != -2 {
		t.Errorf("Bb major: %d sharps", k.Sharps())
	}
	// Drums alone sound no key.
	if fr := FrameOf(fileOf([]note{{pitch: 36, on: 0, dur: 1, ch: 9}})); fr.Sounding || fr.Key.Mode != "major" {
		t.Errorf("drums alone: %+v", fr)
	}
}
