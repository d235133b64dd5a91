package abc

import (
	"strings"
	"testing"
)

func TestPositions(t *testing.T) {
	tu, _ := parseOne(t, "X:1\nK:G\nab ^c'2|[K:D]\"Em\"E,\n")
	els := tu.Voices[0].Elements
	n := els[2].(*Note)
	if n.Pos != (Pos{Line: 3, Col: 4, Offset: 11}) || n.PitchEnd != 14 || n.End != 15 || n.Accidental != Sharp || n.Octave != 2 || n.Length != R(2, 1) {
		t.Errorf("note %+v", n)
	}
	f := els[4].(*InlineField)
	if !f.Inline || f.Key == nil || f.Key.Tonic != 'D' || f.Pos.Col != 9 || f.Key.TonicStart != 19 {
		t.Errorf("inline field %+v", f)
	}
	if cs := els[5].(*ChordSymbol); cs.Text != "Em" || cs.Pos.Col != 14 {
		t.Errorf("chord symbol %+v", cs)
	}
}

func TestValidate(t *testing.T) {
	if d := Validate(book); len(d) != 0 {
		t.Errorf("clean book: %+v", d)
	}
	d := Validate("X:1\nK:C\nCDEF|GAB[c|\n\nX:2\nT:Second\nK:D\n!fermatta!D8|]\n")
	if len(d) != 2 || d[0].Line != 3 || d[1].Line != 8 || d[1].Severity != Warning || !strings.Contains(d[1].Suggestion, "!fermata!") {
		t.Errorf("diagnostics %+v", d)
	}
}

func TestTransposeMultiVoice(t *testing.T) {
	got, err := Transpose(multiVoice, -2)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nK:Eb\n", "[K:Ab]A G F|E3|]", "E,, B,, E,|A,,2 E,|", "V:S clef=treble name=\"Soprano\" snm=\"S\"", "w:Sing a song"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

func TestKeyAccidentalsTogether(t *testing.T) {
	// Accidentals may be written against the tonic or each other (K:C^f^c^a).
	for _, k := range []string{"C^f^c^a", "C ^f^c ^a"} {
		b, _ := Parse("X:1\nK:"+k+"\nC\n", Options{})
		if got := b.Tunes[0].Header.Key.Signature(); got != [7]int{1, 0, 1, 0, 0, 1, 0} {
			t.Errorf("K:%s signature %v, want A C F sharp", k, got)
		}
	}
}
