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
