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

// TestChordAcrossLines: a chord left open at the end of a line goes on on the next, as
// abc2midi reads it; a length after the line end is the note's in the standard reading (marked
// LengthNextLine: abc2midi drops it, and EventOptions.ABC2MIDI with it); positions keep their
// lines.
func TestChordAcrossLines(t *testing.T) {
	book, diags := Parse("X:1\nM:C\nL:1/8\nK:C\n[f3a\n3] [C\nE]2 G|\n", Options{})
	for _, d := range diags {
		if d.Severity == Error {
			t.Errorf("diagnostic %+v", d)
		}
	}
	v := book.Tunes[0].Voices[0]
	var chords []*Chord
	for _, el := range v.Elements {
		if c, ok := el.(*Chord); ok {
			chords = append(chords, c)
		}
	}
	if len(chords) != 2 || len(chords[0].Notes) != 2 || len(chords[1].Notes) != 2 {
		t.Fatalf("chords %+v", chords)
	}
	if a := chords[0].Notes[1]; a.Duration != R(3, 8) || a.Pos.Line != 5 || a.Pos.Col != 4 || !a.LengthNextLine {
		t.Errorf("a3 across the line: %v at %d:%d, marked %v", a.Duration, a.Pos.Line, a.Pos.Col, a.LengthNextLine)
	}
	evs, err := book.Tunes[0].EventsWith("", EventOptions{ABC2MIDI: true})
	if err != nil || len(evs) < 2 || evs[1].Duration != R(1, 8) || evs[0].Duration != R(3, 8) {
		t.Errorf("abc2midi's reading: %+v %v, want f 3/8 and a 1/8", evs, err)
	}
	if e := chords[1].Notes[1]; e.Pos.Line != 7 || e.Pos.Col != 1 || chords[1].Duration != R(1, 4) {
		t.Errorf("E on the next line at %d:%d, chord %v", e.Pos.Line, e.Pos.Col, chords[1].Duration)
	}
	// the line after the joined ones keeps its number
	book, _ = Parse("X:1\nK:C\n[C\nE] D|\nF G|\n", Options{})
	for _, el := range book.Tunes[0].Voices[0].Elements {
		if n, ok := el.(*Note); ok && n.Letter == 'F' && n.Pos.Line != 5 {
			t.Errorf("F at line %d, want 5", n.Pos.Line)
		}
	}
}

// TestStaccatoCutsTies: with EventOptions.ABC2MIDI a staccato dot on a tied note ends the tie
// there, as abc2midi plays it (Ryan's "Mardi Gras", .[D2F2]-.[D2F2]): .D2-D2 strikes D twice,
// D2-.D2 sounds three quarters of its length, and !staccato! or the standard reading ties on.
func TestStaccatoCutsTies(t *testing.T) {
	cases := []struct {
		body string
		opts EventOptions
		want []Rat // the events' durations, in whole notes
	}{
		{".D2-D2 z4|", EventOptions{ABC2MIDI: true}, []Rat{R(1, 8), R(1, 8)}},
		{"D2-.D2 z4|", EventOptions{ABC2MIDI: true}, []Rat{R(3, 16)}},
		{".[D2F2]-.[D2F2] z4|", EventOptions{ABC2MIDI: true}, []Rat{R(1, 8), R(1, 8), R(1, 8), R(1, 8)}},
		{"!staccato!D2-D2 z4|", EventOptions{ABC2MIDI: true}, []Rat{R(1, 4)}},
		{".D2-D2 z4|", EventOptions{}, []Rat{R(1, 4)}},
	}
	for _, c := range cases {
		book, _ := Parse("X:1\nM:2/4\nL:1/16\nK:C\n"+c.body+"\n", Options{})
		evs, err := book.Tunes[0].EventsWith("", c.opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []Rat
		for _, e := range evs {
			got = append(got, e.Duration)
		}
		if len(got) != len(c.want) {
			t.Errorf("%s (abc2midi %v): durations %v, want %v", c.body, c.opts.ABC2MIDI, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s (abc2midi %v): durations %v, want %v", c.body, c.opts.ABC2MIDI, got, c.want)
				break
			}
		}
	}
}
