package abc

import "testing"

// TestABC2MIDIReading: EventOptions.ABC2MIDI plays d>B/, HA>B and a T before a slur as
// abc2midi does; the default keeps the standard's reading.
func TestABC2MIDIReading(t *testing.T) {
	book, _ := Parse("X:1\nM:C\nL:1/8\nK:C\nd>B/ Hc>A B2 T(AG) z|\n", Options{})
	tu := book.Tunes[0]
	std, err := tu.Events("")
	if err != nil {
		t.Fatal(err)
	}
	as, err := tu.EventsWith("", EventOptions{ABC2MIDI: true, Fermata: true})
	if err != nil {
		t.Fatal(err)
	}
	// standard: d 3/16, B 1/32; abc2midi: d 1/8, B 1/16
	if std[0].Duration != R(3, 16) || std[1].Duration != R(1, 32) {
		t.Errorf("standard d>B/: %v %v", std[0].Duration, std[1].Duration)
	}
	if as[0].Duration != R(1, 8) || as[1].Duration != R(1, 16) || as[1].Onset != R(1, 8) {
		t.Errorf("abc2midi d>B/: %v %v at %v", as[0].Duration, as[1].Duration, as[1].Onset)
	}
	// Hc>A: c doubled from 1/8, A as written 1/8 after it
	if as[2].Duration != R(1, 4) || as[3].Onset != R(7, 16) || as[3].Duration != R(1, 8) {
		t.Errorf("abc2midi Hc>A: c %v, A at %v for %v", as[2].Duration, as[3].Onset, as[3].Duration)
	}
	for _, e := range as[5:] {
		for _, d := range e.Decorations {
			if d == "trill" {
				t.Errorf("abc2midi T(AG): the trill reached %d", e.Pitch)
			}
		}
	}
	if hasTrill := func() bool {
		for _, e := range std {
			for _, d := range e.Decorations {
				if d == "trill" {
					return true
				}
			}
		}
		return false
	}(); !hasTrill {
		t.Error("standard T(AG): the trill was dropped")
	}
}
