package musicxml

import (
	"bytes"
	"encoding/xml"
	"io"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/abccorpus"
)

// FuzzConvert checks that Convert never panics on what the parser makes of any text, and that
// every document it returns is well-formed XML within MaxBytes.
func FuzzConvert(f *testing.F) {
	if tunes, err := abccorpus.Tunes(); err == nil {
		for _, tu := range tunes {
			f.Add(tu.Text)
		}
	}
	for _, s := range []string{
		features, "", "X:1\nK:C\n", "X:1\nK:C\n&&&C|", "X:1\nK:C\n(3(3(3abc", "X:1\nK:C\nZ999999|",
		"X:1\nK:C\n\"\x01\"\x00C\xff|\nw:\x02-_*|~\\", "X:1\nM:0/0\nL:1/8\nK:C\nA|", "X:1\nK:C\n|1|2|3::|]|[1,2",
		"X:1\nK:C\n((((((((a))))))))", "X:1\nV:1\nV:2\nK:C\nV:2\n{/ab}c[ceg]/3-[ceg]", "X:1\nQ:\"Slow\"\nK:C\n[Q:1/4=60]C",
		"X:1\nL:1/8\nK:C\nB/3c/3z/3 d/5(3e/3f/3g/3 A/7-A/7|", "X:1\nK:C\n({GA}B2) (c) (d|[DFd]2-|d2 c-|z", "X:1\nM:5/8\nK:C\nx2 X|Z c|c & Z|",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		book, _ := abc.Parse(src, abc.Options{})
		for _, tu := range book.Tunes {
			s, err := Convert(tu)
			if err != nil {
				continue
			}
			b := s.Doc
			if len(b) > MaxBytes {
				t.Fatalf("document of %d bytes", len(b))
			}
			d := xml.NewDecoder(bytes.NewReader(b))
			for {
				_, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("not well-formed: %v\n%s", err, b)
				}
			}
		}
	})
}

// FuzzParseHarmony checks that any chord symbol text is read without a panic into a root and
// bass that MusicXML takes (a letter A to G, at most two semitones off), or refused.
func FuzzParseHarmony(f *testing.F) {
	for _, s := range []string{"G", "Am7", "F#m7b5/C#", "Bb/D", "(D7)", "N.C.", "C♯dim7", "Gbb", "A##", "/", "()", "D.C.", "Eb7(b9)", "G/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h := parseHarmony(s)
		if h == nil || h.kind == "none" {
			return
		}
		if h.rootStep < 'A' || h.rootStep > 'G' || h.rootAlter < -2 || h.rootAlter > 2 || h.kind == "" {
			t.Fatalf("parseHarmony(%q) = %+v", s, h)
		}
		if h.hasBass && (h.bassStep < 'A' || h.bassStep > 'G' || h.bassAlter < -2 || h.bassAlter > 2) {
			t.Fatalf("parseHarmony(%q) bass = %+v", s, h)
		}
	})
}

// FuzzLyricTokens checks that any w: line splits without a panic into tokens whose text all
// comes from the line.
func FuzzLyricTokens(f *testing.F) {
	for _, s := range []string{"lo-ve me_ * | well~done a\\-b --x", "", "-", "\\", "___", "a-b-c-", "|||"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		total := 0
		for _, tk := range lyricTokens(s) {
			if tk.kind == 'w' && tk.text == "" {
				t.Fatalf("empty syllable from %q", s)
			}
			total += len(tk.text)
		}
		if total > len(s) {
			t.Fatalf("%d bytes of syllables from %d bytes of %q", total, len(s), s)
		}
	})
}
