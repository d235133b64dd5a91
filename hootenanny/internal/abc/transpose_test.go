package abc

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// pitches returns the MIDI pitches of every voice of every tune.
func pitches(t *testing.T, src string) [][]int {
	t.Helper()
	b, d := Parse(src, Options{})
	if e := errorsOnly(d); len(e) != 0 {
		t.Fatalf("diagnostics %+v in\n%s", e, src)
	}
	var out [][]int
	for _, tu := range b.Tunes {
		for _, v := range tu.Voices {
			ev, err := tu.Events(v.ID)
			if err != nil {
				t.Fatal(err)
			}
			var ps []int
			for _, e := range ev {
				ps = append(ps, e.Pitch)
			}
			out = append(out, ps)
		}
	}
	return out
}

func TestTransposeSpelling(t *testing.T) {
	src := "X:1\nT:Up Two\nM:4/4\nL:1/8\nK:D\nDEFG ABcd|\"D\"f2 \"A7/C#\"e2 d4|]\n"
	got, err := Transpose(src, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := "X:1\nT:Up Two\nM:4/4\nL:1/8\nK:E\nEFGA Bcde|\"E\"g2 \"B7/D#\"f2 e4|]\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestTransposeCases(t *testing.T) {
	cases := []struct {
		name string
		in   string
		s    int
		want string
	}{
		{"down a fifth keeps comments", "K:G % in G\nGAB=F ^F2|f % top\n", -7, "K:C % in G\nCDE_B, =B,2|B % top\n"},
		{"accidental carried in the bar", "K:C\n^F G F|F\n", 1, "K:Db\n=G A G|G\n"},
		{"courtesy accidentals stay", "K:D\n^F|\n", 2, "K:E\n^G|\n"},
		{"minor mode and inline key", "K:Am\nA[K:Dm]d ^c|\n", 3, "K:Cm\nc[K:Fm]f =e|\n"},
		{"octaves", "K:C\nB, b' C,,\n", 1, "K:Db\nC c'' D,,\n"},
		{"keyless", "K:none\nC ^C D\n", 1, "K:none\n^C =D ^D\n"},
		{"explicit key accidentals", "K:D exp ^f ^c\nF c\n", 2, "K:E exp ^g ^d\nG d\n"},
		{"chord symbols, not words", "K:C\n\"Fine\"C \"Am7\"A \"Bbmaj7/D\"B \"(Gsus4)\"G \"N.C.\"z\n", 2, "K:D\n\"Fine\"D \"Bm7\"B \"Cmaj7/E\"c \"(Asus4)\"A \"N.C.\"z\n"},
		{"no tonic written", "K:clef=bass\nC E G\n", 2, "K:clef=bass\nD ^F A\n"},
		{"grace notes and chords", "K:G\n{ga}[GBd]2\n", 2, "K:A\n{ab}[Ace]2\n"},
	}
	for _, c := range cases {
		got, err := Transpose("X:1\n"+c.in, c.s)
		if err != nil {
			t.Fatal(err)
		}
		if want := "X:1\n" + c.want; got != want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, want)
		}
		// The sounding pitches move by exactly c.s.
		a, b := pitches(t, "X:1\n"+c.in), pitches(t, got)
		for i := range a {
			for j := range a[i] {
				if b[i][j] != a[i][j]+c.s {
					t.Errorf("%s: note %d sounds %d, want %d", c.name, j, b[i][j], a[i][j]+c.s)
				}
			}
		}
	}
}

func TestTransposeRoundTrip(t *testing.T) {
	for _, s := range []int{5, 2, -3, 7, 12} {
		up, err := Transpose(book, s)
		if err != nil {
			t.Fatal(err)
		}
		down, err := Transpose(up, -s)
		if err != nil {
			t.Fatal(err)
		}
		orig, back := pitches(t, book), pitches(t, down)
		moved := pitches(t, up)
		for i := range orig {
			for j := range orig[i] {
				if back[i][j] != orig[i][j] || moved[i][j] != orig[i][j]+s {
					t.Fatalf("shift %d: voice %d note %d: orig %d, up %d, back %d", s, i, j, orig[i][j], moved[i][j], back[i][j])
				}
			}
		}
		if s == 5 && down != book {
			t.Errorf("+5 -5 changed the text:\n%s", down)
		}
		if strings.Count(up, "%") != strings.Count(book, "%") || strings.Count(up, "\n") != strings.Count(book, "\n") {
			t.Errorf("shift %d lost comments or lines", s)
		}
	}
}

func TestTransposeToKey(t *testing.T) {
	got, err := TransposeToKey(reel, "A")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "\nK:A\n") || !strings.Contains(got, "|:\"A\"E2CE A,ECE|\"D\"") {
		t.Errorf("to A:\n%s", got)
	}
	got, err = TransposeToKey(jig, "Bb")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "\nK:Bb\n") {
		t.Errorf("to Bb:\n%s", got)
	}
	a, b := pitches(t, jig), pitches(t, got)
	if b[0][0] != a[0][0]+3 {
		t.Errorf("G to Bb should go up 3: %d -> %d", a[0][0], b[0][0])
	}
	if _, err := TransposeToKey(reel, "H"); err == nil {
		t.Error("bad key: no error")
	}
	if _, err := Transpose("X:1\nK:C\nb''''''\n", 5); err == nil {
		t.Error("out of range: no error")
	}
	if _, err := Transpose(reel, 100); err == nil {
		t.Error("too far: no error")
	}
}

// A book the parser does not read whole is refused, not transposed in part.
func TestTransposeRefusesTruncated(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 1; b.Len() < 400_000; i++ {
		fmt.Fprintf(&b, "X:%d\nL:1/16\nK:G\n%s|\n\n", i, strings.Repeat("G", 300))
	}
	book, diags := Parse(b.String(), Options{})
	if !book.Truncated || !strings.Contains(TruncatedBecause(diags), "elements") {
		t.Fatalf("Truncated = %v (%s), want a parse cut short by the element limit", book.Truncated, TruncatedBecause(diags))
	}
	if _, err := Transpose(b.String(), 2); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "elements") {
		t.Errorf("Transpose = %v, want ErrTooLarge naming the element limit", err)
	}
	if _, err := TransposeToKey(b.String(), "D"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("TransposeToKey = %v, want ErrTooLarge", err)
	}
	if small, _ := Parse("X:1\nK:C\nCDEF|\n", Options{}); small.Truncated {
		t.Error("a small tune is marked truncated")
	}
}
