package abc

import (
	"fmt"
	"strings"
	"testing"
)

func parseOne(t *testing.T, src string) (*Tune, []Diagnostic) {
	t.Helper()
	b, d := Parse(src, Options{})
	if len(b.Tunes) != 1 {
		t.Fatalf("got %d tunes, want 1; diagnostics %v", len(b.Tunes), d)
	}
	return b.Tunes[0], d
}

func errorsOnly(d []Diagnostic) []Diagnostic {
	var out []Diagnostic
	for _, x := range d {
		if x.Severity == Error {
			out = append(out, x)
		}
	}
	return out
}

func TestTunesParseClean(t *testing.T) {
	for i, src := range allTunes {
		_, d := Parse(src, Options{})
		if len(d) != 0 {
			t.Errorf("tune %d: unexpected diagnostics %+v", i+1, d)
		}
	}
	b, d := Parse(book, Options{})
	if len(d) != 0 || len(b.Tunes) != len(allTunes) {
		t.Fatalf("book: %d tunes, diagnostics %+v", len(b.Tunes), d)
	}
	for i, tu := range b.Tunes {
		if tu.Header.X != i+1 {
			t.Errorf("tune %d has X:%d", i+1, tu.Header.X)
		}
	}
}

func count[T any](els []Element) int {
	n := 0
	for _, e := range els {
		if _, ok := e.(T); ok {
			n++
		}
	}
	return n
}

func TestHeader(t *testing.T) {
	tu, _ := parseOne(t, reel)
	h := tu.Header
	if h.Titles[0] != "The Lantern Road" || h.Composers[0] != "Test Composer" || h.Origin != "Nowhere" || h.Rhythm != "reel" {
		t.Errorf("text fields: %+v", h)
	}
	if h.Meter.Kind != MeterFraction || h.Meter.Value() != R(1, 1) || h.UnitLength != R(1, 8) {
		t.Errorf("meter %+v unit %v", h.Meter, h.UnitLength)
	}
	if h.Tempo == nil || len(h.Tempo.Beats) != 1 || h.Tempo.Beats[0] != R(1, 4) || h.Tempo.BPM != 112 {
		t.Errorf("tempo %+v", h.Tempo)
	}
	if h.Key.Tonic != 'D' || h.Key.Mode != Major || h.Key.Fifths() != 2 {
		t.Errorf("key %+v", h.Key)
	}

	mv, _ := parseOne(t, multiVoice)
	if mv.Header.Tempo.Text != "Andante" || mv.Header.Tempo.BPM != 80 {
		t.Errorf("tempo %+v", mv.Header.Tempo)
	}
	if len(mv.Header.Voices) != 2 || mv.Header.Voices[0].Name != "Soprano" || mv.Header.Voices[0].Subname != "S" || mv.Header.Voices[1].Clef.Name != "bass" {
		t.Errorf("voices %+v", mv.Header.Voices)
	}
	if len(mv.Voices) != 2 || mv.Voices[0].ID != "S" || mv.Voices[1].ID != "B" || mv.Voices[0].Def == nil {
		t.Fatalf("body voices %+v", mv.Voices)
	}
	if n := count[*Lyrics](mv.Voices[0].Elements); n != 1 {
		t.Errorf("lyrics lines: %d", n)
	}

	lt, _ := parseOne(t, lyrics)
	if len(lt.Words) != 1 || lt.Words[0] != "Words printed after the tune" {
		t.Errorf("W: %q", lt.Words)
	}
}

func TestFieldValues(t *testing.T) {
	p := &parser{line: 1}
	for _, c := range []struct {
		in   string
		kind MeterKind
		v    Rat
	}{{"C", MeterCommon, R(1, 1)}, {"C|", MeterCut, R(1, 1)}, {"none", MeterNone, Rat{}}, {"2+3/8", MeterFraction, R(5, 8)}, {"6/8", MeterFraction, R(3, 4)}} {
		m, ok := p.parseMeter(c.in, Pos{})
		if !ok || m.Kind != c.kind || m.Value().Cmp(c.v) != 0 {
			t.Errorf("M:%s = %+v %v", c.in, m, m.Value())
		}
	}
	for _, c := range []struct {
		in     string
		fifths int
		mode   Mode
	}{{"G", 1, Major}, {"Em", 1, Minor}, {"A mixolydian", 2, Mixolydian}, {"Ador", 1, Dorian}, {"F#m", 3, Minor}, {"Bb", -2, Major}, {"Eb Lydian", -2, Lydian}, {"C locrian", -5, Locrian}, {"HP", 2, Major}, {"none", 0, Major}} {
		k := p.parseKey(c.in, 0, Pos{})
		if k.Fifths() != c.fifths || k.Mode != c.mode {
			t.Errorf("K:%s = fifths %d mode %v", c.in, k.Fifths(), k.Mode)
		}
	}
	k := p.parseKey("D exp _b _e ^f clef=bass transpose=-12", 0, Pos{})
	sig := k.Signature()
	if !k.Exp || len(k.Explicit) != 3 || sig['B'-'A'] != -1 || sig['C'-'A'] != 0 || sig['F'-'A'] != 1 || k.Clef.Name != "bass" || k.Clef.Transpose != -12 {
		t.Errorf("explicit key %+v sig %v", k, sig)
	}
	if sig := p.parseKey("D _b", 0, Pos{}).Signature(); sig['C'-'A'] != 1 || sig['B'-'A'] != -1 {
		t.Errorf("added accidental: %v", sig)
	}
	tp := p.parseTempo(`1/4 3/8=50`, Pos{})
	if len(tp.Beats) != 2 || tp.BPM != 50 {
		t.Errorf("tempo %+v", tp)
	}
	if len(p.diags) != 0 {
		t.Errorf("diagnostics: %+v", p.diags)
	}
	if u := DefaultUnitLength(Meter{Kind: MeterFraction, Num: []int{2}, Den: 4}); u != R(1, 16) {
		t.Errorf("default L for 2/4: %v", u)
	}
	if u := DefaultUnitLength(Meter{Kind: MeterFraction, Num: []int{3}, Den: 4}); u != R(1, 8) {
		t.Errorf("default L for 3/4: %v", u)
	}
}

func TestBodyElements(t *testing.T) {
	tu, _ := parseOne(t, jig)
	els := tu.Voices[0].Elements
	var kinds []BarKind
	var endings [][]int
	graces, acc, decos := 0, 0, 0
	for _, e := range els {
		switch e := e.(type) {
		case *BarLine:
			kinds = append(kinds, e.Kind)
		case *Ending:
			endings = append(endings, e.Numbers)
		case *GraceGroup:
			graces++
			if e.Acciaccatura {
				acc++
			}
		case *Decoration:
			decos++
			if e.Name != "roll" || !e.Short {
				t.Errorf("decoration %+v", e)
			}
		}
	}
	want := []BarKind{BarRepeatStart, BarSingle, BarSingle, BarSingle, BarRepeatEnd, BarDouble, BarRepeatStart, BarSingle, BarSingle, BarSingle, BarRepeatEnd, BarThinThick}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("bars %v, want %v", kinds, want)
	}
	if fmt.Sprint(endings) != "[[1] [2] [1] [2]]" || graces != 2 || acc != 1 || decos != 1 {
		t.Errorf("endings %v graces %d acc %d decos %d", endings, graces, acc, decos)
	}
	if n := count[*Slur](els); n != 2 {
		t.Errorf("slurs %d", n)
	}
	if n := count[*ChordSymbol](els); n != 3 {
		t.Errorf("chord symbols %d", n)
	}
	// M:6/8 without L: takes 1/8.
	if tu.Header.UnitLength != R(1, 8) {
		t.Errorf("unit %v", tu.Header.UnitLength)
	}

	src := "X:1\nK:C\n\"^above\"!trill!.C \"_below\"[V:2] x2 Z3 X|[M:3/4][L:1/4][Q:1/4=90]C&D|\n"
	tu, d := parseOne(t, src)
	if len(d) != 0 {
		t.Errorf("diagnostics %+v", d)
	}
	v1, v2 := tu.Voice(""), tu.Voice("2")
	if v1 == nil || v2 == nil {
		t.Fatalf("voices %+v", tu.Voices)
	}
	if a, ok := v1.Elements[0].(*Annotation); !ok || a.Placement != '^' || a.Text != "above" {
		t.Errorf("annotation %+v", v1.Elements[0])
	}
	if n := count[*InlineField](v2.Elements); n != 4 {
		t.Errorf("inline fields in voice 2: %d", n)
	}
	var rests []RestKind
	for _, e := range v2.Elements {
		if r, ok := e.(*Rest); ok {
			rests = append(rests, r.Kind)
		}
	}
	if string(rests) != "xZX" {
		t.Errorf("rests %q", string(rests))
	}
}

func TestDiagnostics(t *testing.T) {
	cases := []struct {
		name, src string
		line, col int
		sev       Severity
		msg, sugg string
	}{
		{"K before C", "X:1\nK:G\nC:Trad\nGABc|\n", 3, 1, Warning, "C: at line 3 comes after K:, which must end the header", "move this C: line above the K: line (line 2)"},
		{"missing X", "T:No Number\nK:C\nCDEF|\n", 1, 1, Warning, "no X:", "X:1"},
		{"missing K", "X:1\nT:Keyless\nCDEF|\n", 3, 1, Error, "missing K:", "K:C"},
		{"unknown header field", "X:1\nY:what\nK:C\nC|\n", 2, 1, Warning, "unknown header field \"Y:\"", "check the letter"},
		{"unclosed chord", "X:1\nK:C\nC [CEG D|\n", 3, 3, Error, "chord [ is not closed", "]"},
		{"unclosed slur", "X:1\nK:C\nC (DE F|\n", 3, 3, Warning, "never closed", ")"},
		{"unclosed grace", "X:1\nK:C\nC {ga\n", 3, 3, Error, "grace notes { are not closed", "}"},
		{"wrong beats", "X:1\nM:4/4\nL:1/4\nK:C\nCDEF|CDE F2|CDEF|\n", 5, 6, Warning, "bar 2 (line 5, column 6) is too long: it has 5/4, M:4/4 needs 4/4", "it has 1/4 too much: take notes worth 1/4 (a z) out of it"},
		{"bar line missing at a line end", "X:1\nM:2/4\nL:1/8\nK:C\nCDEF|CDEF\nGA|\n", 5, 6, Warning, "bar 2 (line 5, column 6) is too long: it has 3/4", "full at the end of line 5: end that line with |"},
		{"short bar", "X:1\nM:3/4\nL:1/4\nK:C\nCDE|CD|CDE|\n", 5, 5, Warning, "bar 2 (line 5, column 5) is too short: it has 2/4", "it lacks 1/4: add a note or a rest of that length (z)"},
		{"short bar in eighths", "X:1\nM:6/8\nL:1/16\nK:C\nC4D4E4|C4D4E2|C4D4E4|\n", 5, 8, Warning, "bar 2 (line 5, column 8) is too short: it has 5/8", "it lacks 1/8: add a note or a rest of that length (z2)"},
		{"unknown decoration", "X:1\nK:C\n!tril!C|\n", 3, 1, Warning, "unknown decoration !tril! at line 3, column 1", "did you mean !trill!?"},
		{"decoration in capitals", "X:1\nK:C\n!Segno!C|\n", 3, 1, Warning, "unknown decoration !Segno!", "lower case: !segno!"},
		{"chord of ABC 1.6", "X:1\nK:C\n+E3A3+ cBA|\n", 3, 1, Warning, "unknown decoration +E3A3+", "write the chord as [E3A3]"},
		{"line break of ABC 1.6", "X:1\nK:C\nABc|!dBA|cde!\n", 3, 5, Warning, "enclose music, not a decoration name", "remove it"},
		{"unknown voice word", "X:1\nV:1 midi program 74\nK:C\nC|\n", 2, 5, Warning, "unknown word \"midi\" in V: at line 2, column 5", "%%MIDI program 74"},
		{"German key name", "X:1\nK:H\nC|\n", 2, 3, Warning, "unknown word \"H\" in K:", "K:B"},
		{"divide by zero", "X:1\nK:C\nC/0 D|\n", 3, 1, Error, "division by zero", "/2"},
		{"sharp after", "X:1\nK:C\nF# G|\n", 3, 2, Error, "unexpected character '#'", "^F"},
		{"tie alone", "X:1\nK:C\nC - D|\n", 3, 3, Error, "tie -", ""},
		{"bad mode", "X:1\nK:Gxyz\nC|\n", 2, 4, Error, "unknown mode", "K:Gm"},
		{"stray close", "X:1\nK:C\nC) D|\n", 3, 2, Warning, ") at line 3, column 2 closes no slur", "open the slur with ("},
		{"tuplet taken for a slur", "X:1\nK:C\nC (3DEF) G|\n", 3, 8, Warning, "the tuplet (3 at line 3, column 3 opens none", "write ((3 at line 3, column 3"},
		{"bad meter", "X:1\nM:x/4\nK:C\nC|\n", 2, 1, Error, "bad meter numerator", "6/8"},
		{"X not a number", "X:abc\nK:C\nC|\n", 1, 1, Warning, "X: at line 1 takes the tune's number, not \"abc\"; this tune counts as X:0", "X:1"},
		{"X with words after", "X:3 (reel)\nK:C\nC|\n", 1, 1, Warning, "counts as X:3", "X:1"},
	}
	for _, c := range cases {
		_, d := Parse(c.src, Options{})
		found := false
		for _, x := range d {
			if x.Line == c.line && x.Col == c.col && x.Severity == c.sev && strings.Contains(x.Message, c.msg) && strings.Contains(x.Suggestion, c.sugg) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: want %d:%d %v %q (%q), got %+v", c.name, c.line, c.col, c.sev, c.msg, c.sugg, d)
		}
	}
}

// TestValidWithoutWarnings holds ABC that the standard, abcm2ps and abc2midi accept as meant,
// each found warned about in real tune books: none may draw a diagnostic.
func TestValidWithoutWarnings(t *testing.T) {
	for _, c := range []struct{ name, src string }{
		// M:, L:, Q: and R: may stand in the body (ABC 2.1, 3.1).
		{"L: after K:", "X:1\nM:2/4\nK:D\nL:1/16\nd2e2f2g2|\n"},
		{"Q: after K:", "X:1\nM:4/4\nL:1/8\nK:G\nQ:1/4=96 \"Slow\"\nGABc dedc|\n"},
		{"M: and R: after K:", "X:1\nK:G\nM:3/4\nR:waltz\nL:1/4\nGAB|\n"},
		// A short bar before two bar lines that end a section: [|] then :| are one bar line.
		{"short bar before [|]:|", "X:1\nM:6/8\nL:1/8\nK:D\nA|eAA edc|fdc d2 H[|]:|\nf|eAA edc|fdc d3|]\n"},
		{"short bar before |] ||", "X:1\nM:2/4\nL:1/8\nK:G\nB|GABc|d3|]||\n"},
		// A pickup after stacked bar lines that end a section: :| then | on the next line.
		{"pickup after :| and |", "X:1\nM:6/8\nL:1/8\nK:D\nA|dfa dfa|d3 d2:|\n| (f/e/) \\\n| d>fa d>fa|d3 d2|]\n"},
		// The last bar of a tune may be short, completing the pickup.
		{"short last bar", "X:1\nM:3/4\nL:1/4\nK:C\nC|DEF|G2|\n"},
		// A slur may start on one note of a chord.
		{"slur from a chord's note", "X:1\nM:4/4\nL:1/8\nK:C\nefge defd|[E4(e4]c2) z2|\n"},
		{"abcm2ps decorations", "X:1\nK:C\n!8va(!ABcd!8va)! !ped!c!ped-up!|\n"},
		{"abcm2ps voice words", "X:1\nV:1\nV:2 merge down\nK:C\nV:1\nC|\nV:2\nE|\n"},
	} {
		if _, d := Parse(c.src, Options{}); len(d) != 0 {
			t.Errorf("%s: diagnostics %+v", c.name, d)
		}
	}
}

func TestRecovery(t *testing.T) {
	// A bad token in bar 2 loses nothing after it.
	src := "X:1\nM:4/4\nL:1/4\nK:C\nCDEF|C#DEF|GABc|\n"
	tu, d := parseOne(t, src)
	if len(errorsOnly(d)) != 1 {
		t.Errorf("diagnostics %+v", d)
	}
	if n := count[*Note](tu.Voices[0].Elements); n != 12 {
		t.Errorf("notes %d, want 12", n)
	}
	// Two tunes, the first broken, the second intact.
	b, _ := Parse("X:1\nK:C\n[[[{{{!!!\"\n\nX:2\nK:G\nGABc|\n", Options{})
	if len(b.Tunes) != 2 || count[*Note](b.Tunes[1].Voices[0].Elements) != 4 {
		t.Errorf("second tune lost: %+v", b.Tunes)
	}
}

func TestLimits(t *testing.T) {
	big := "X:1\nK:C\n" + strings.Repeat("C", DefaultMaxBytes)
	_, d := Parse(big, Options{})
	if len(d) != 1 || !strings.Contains(d[0].Message, "limit") {
		t.Errorf("big input: %+v", d)
	}
	if _, err := Transpose(big, 2); err == nil {
		t.Error("Transpose of a big input: no error")
	}
	b, d := Parse(strings.Repeat("X:1\nK:C\nC\n\n", 20), Options{MaxTunes: 5})
	if len(b.Tunes) != 5 || len(d) != 1 {
		t.Errorf("tunes %d diagnostics %+v", len(b.Tunes), d)
	}
	_, d = Parse("X:1\nK:C\n"+strings.Repeat("C ", 100), Options{MaxElements: 10})
	if len(d) != 1 {
		t.Errorf("element limit: %+v", d)
	}
	_, d = Parse("X:1\nK:C\n"+strings.Repeat("# ", 100), Options{MaxDiagnostics: 10})
	if len(d) != 11 {
		t.Errorf("diagnostic limit: %d", len(d))
	}
}
