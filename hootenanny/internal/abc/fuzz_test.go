package abc

import (
	"testing"
)

// The fuzzers check that Parse, Events, ExpandRepeats (and Strict), PlayOrder (and Strict) and Transpose never panic, and that what
// they return stays within the source. Time stays linear by construction (see Parse and
// Transpose); the fuzzers would flag a run that stalls.

func addSeeds(f *testing.F) {
	for _, s := range allTunes {
		f.Add(s)
	}
	f.Add(book)
	for _, s := range []string{
		"", "X:", "X:1\nK:", "K:C\n[", "X:1\nK:C\n{", "X:1\nK:C\n(3", "X:1\nK:C\n[K:", "X:1\nK:C\n!",
		"X:1\nK:C\nC/0", "X:1\nK:C\n|1|2|:|::|]", "X:1\nM:C|\nK:C\nZ4|", "X:1\nV:1\nK:C\nV:2\n&C|",
		"X:1\nK:C exp ^f\n\"Am/G\"a>>>b<<<c", "\ufeffX:1\r\nK:D\r\nABc\\\r\nd|\r\n",
		"X:1\nP:(AB)2C\nK:C\nE|\nP:A\n|:C:|\nP:B\n[P:C]D|]\n",
		"X:1\nK:C\nA||:cd|ef H[|]:|ga [|] :|bc ||:|\n", "X:1\nK:C\n(A>.c)(E>HG) d2 T|~|.|[|]:", "X:1\nK:C\n[f3a\n3] [C\r\nE]2 [\"x\"\n[K:D]\n]|[1\n", "X:1\nP:AB\nK:C\nP:A\nC|[1D:|[2E::F|1G:|2A|3B:|\nP:B\nd>e/ (5cdefg|\n",
		"X:1\nM:6/8\nK:C\nL:1/8\n[E(e]c) [(C)E] d2 H[|]:|\n| (f/e/) \\\n|d3 (3ABA) +E3A3+ !Segno!|\n",
		"X:1\nV:1 merge down midi\nK:H\nC:x\nABcd|\nAB\nc|",
	} {
		f.Add(s)
	}
}

func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		b, diags := Parse(src, Options{})
		lines := 1
		for i := 0; i < len(src); i++ {
			if src[i] == '\n' {
				lines++
			}
		}
		for _, d := range diags {
			if d.Line < 1 || d.Line > lines || d.Col < 1 || d.Message == "" {
				t.Fatalf("diagnostic out of range: %+v", d)
			}
		}
		if len(diags) > DefaultMaxDiagnostics+1 {
			t.Fatalf("%d diagnostics", len(diags))
		}
		for _, tu := range b.Tunes {
			for _, v := range tu.Voices {
				for _, e := range v.Elements {
					p := e.Position()
					if p.Offset < 0 || p.Offset > len(src) || e.EndOffset() < p.Offset || e.EndOffset() > len(src) {
						t.Fatalf("element %T %+v end %d outside source of %d bytes", e, p, e.EndOffset(), len(src))
					}
				}
				_, _ = tu.Events(v.ID)
				bars, err := tu.Bars(v.ID)
				if err == nil {
					if order := ExpandRepeats(bars); len(order) > 16*len(bars)+16 {
						t.Fatalf("playing order of %d bars for %d bars", len(order), len(bars))
					}
					for _, po := range [][]int{PlayOrder(bars, tu.Header.Parts), PlayOrderStrict(bars, tu.Header.Parts), ExpandRepeatsStrict(bars)} {
						if len(po) > 16*len(bars)+16 {
							t.Fatalf("part order of %d bars for %d bars", len(po), len(bars))
						}
						for _, b := range po {
							if b < 0 || b >= len(bars) {
								t.Fatalf("part order plays bar %d of %d", b, len(bars))
							}
						}
					}
				}
			}
		}
	})
}

func FuzzTranspose(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		for _, s := range []int{5, -7} {
			out, err := Transpose(src, s)
			if err != nil {
				return
			}
			// Clean input moves by exactly s semitones, note for note.
			b, diags := Parse(src, Options{})
			if len(diags) != 0 {
				continue
			}
			b2, diags2 := Parse(out, Options{})
			if len(diags2) != 0 {
				t.Fatalf("transposed text has problems %+v:\n%q\n->\n%q", diags2, src, out)
			}
			if len(b.Tunes) != len(b2.Tunes) {
				t.Fatalf("tunes %d -> %d", len(b.Tunes), len(b2.Tunes))
			}
			for i, tu := range b.Tunes {
				for _, v := range tu.Voices {
					e1, err1 := tu.Events(v.ID)
					e2, err2 := b2.Tunes[i].Events(v.ID)
					if err1 != nil || err2 != nil {
						continue
					}
					if len(e1) != len(e2) {
						t.Fatalf("%d events -> %d:\n%q\n->\n%q", len(e1), len(e2), src, out)
					}
					for j := range e1 {
						if e2[j].Pitch != e1[j].Pitch+s {
							t.Fatalf("event %d: %d -> %d by %d:\n%q\n->\n%q", j, e1[j].Pitch, e2[j].Pitch, s, src, out)
						}
					}
				}
			}
		}
	})
}
