package engrave

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os/exec"
	"strings"
	"testing"
)

const book = `X:1
T:Eight Bars
M:4/4
L:1/8
K:G
GABc defg|gfed cBAG|GABc defg|gfed cBAG|
GABc defg|gfed cBAG|GABc defg|gfed cBAG|]

X:2
T:One Line
M:4/4
L:1/8
K:D
DEFG ABcd|dcBA GFED|]

X:3
T:Three Lines
M:3/4
L:1/4
K:C
CDE|FGA|
Bcd|edc|
BAG|C3|]
`

func needPrograms(t *testing.T) {
	t.Helper()
	for _, p := range []string{"abcm2ps", "rsvg-convert"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is not installed: apt-get install abcm2ps librsvg2-bin (.ci/run installs them)", p)
		}
	}
}

func TestSystemsAndPNG(t *testing.T) {
	needPrograms(t)
	for _, c := range []struct {
		x, systems int
	}{{1, 2}, {2, 1}, {3, 3}} {
		s, err := Render(context.Background(), book, Options{X: c.x, Width: 800})
		if err != nil {
			t.Fatalf("X:%d: %v", c.x, err)
		}
		if s.Systems != c.systems {
			t.Errorf("X:%d has %d systems, want %d", c.x, s.Systems, c.systems)
		}
		img, err := png.Decode(bytes.NewReader(s.PNG))
		if err != nil {
			t.Fatalf("X:%d: the PNG does not decode: %v", c.x, err)
		}
		b := img.Bounds()
		if b.Dx() != 800 || b.Dy() != s.Height {
			t.Errorf("X:%d: PNG is %v, want 800 by %d", c.x, b, s.Height)
		}
		// Ink: dark pixels make up some but not most of the page, and the corner is white
		// paper.
		dark := 0
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if r, g, bl, _ := img.At(x, y).RGBA(); r+g+bl < 3*0x4000 {
					dark++
				}
			}
		}
		if frac := float64(dark) / float64(b.Dx()*b.Dy()); frac < 0.005 || frac > 0.3 {
			t.Errorf("X:%d: %.3f of the PNG is dark; a score has some ink on white", c.x, frac)
		}
		if r, g, bl, _ := img.At(0, 0).RGBA(); r != 0xffff || g != 0xffff || bl != 0xffff {
			t.Errorf("X:%d: the corner is not white paper", c.x)
		}
		if !bytes.Contains(s.SVG, []byte("<svg")) {
			t.Errorf("X:%d: the SVG has no svg element", c.x)
		}
	}
}

func TestNoSuchTune(t *testing.T) {
	needPrograms(t)
	_, err := Render(context.Background(), book, Options{X: 9})
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("X:9 gave %v, want an input error", err)
	}
}

func TestMissingProgramNamesThePackage(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Render(context.Background(), book, Options{X: 1})
	var me *MissingError
	if !errors.As(err, &me) || me.Package != "abcm2ps" || !strings.Contains(err.Error(), "apt-get install abcm2ps") {
		t.Fatalf("got %v, want abcm2ps named as missing", err)
	}
}

func TestRefusedInput(t *testing.T) {
	for _, abc := range []string{
		"%%abc-include /etc/passwd\nX:1\nK:C\nC|",
		"X:1\nK:C\n%%format /etc/hostname\nC|",
		"X:1\nI:abc-include x.abc\nK:C\nC|",
		"X:1\nK:C\nC\x00|",
		"X:1\nK:C\n" + strings.Repeat("C", MaxABC),
	} {
		var ie *InputError
		if err := CheckABC(abc); !errors.As(err, &ie) {
			t.Errorf("%.30q: got %v, want it refused", abc, err)
		}
	}
	if err := CheckABC(book); err != nil {
		t.Errorf("the book is refused: %v", err)
	}
	if _, err := Render(context.Background(), book, Options{Width: 50}); err == nil || !strings.Contains(err.Error(), "width 50") {
		t.Errorf("width 50: %v", err)
	}
}

func TestTimeout(t *testing.T) {
	needPrograms(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Render(ctx, book, Options{X: 1}); err == nil {
		t.Fatal("an ended context still engraved")
	}
}

func FuzzSVG(f *testing.F) {
	f.Add([]byte(`<svg xmlns="http://www.w3.org/2000/svg" width="816.00px" height="178.00px"><path d="m67.20 85.00
	h681.60
	M67.20 79.00
	h681.60
	M67.20 73.00
	h681.60
	M67.20 67.00
	h681.60
	M67.20 61.00
	h681.60
	" class="stroke"/>`))
	f.Add([]byte(book))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n := CountSystems(b); n < 0 || n > len(b) {
			t.Fatalf("%d systems", n)
		}
		if w, h, ok := SVGSize(b); ok && (w < 1 || h < 1) {
			t.Fatalf("size %g by %g", w, h)
		}
		_ = CheckABC(string(b))
	})
}

// TestAttackABCIncludeAfterCR: abcm2ps ends a line at a CR, so a directive after a CR starts a
// line of its own there, and must be refused as one.
func TestAttackABCIncludeAfterCR(t *testing.T) {
	for _, abc := range []string{
		"X:1\rT:t\r%%abc-include /etc/passwd\rK:C\rC|",
		"X:1\r\nK:C\r\n%%abc-include /etc/passwd\r\nC|",
		"X:1\nK:C\nC|\r%%EPS /etc/passwd\rD|",
		"X:1\nK:C\nC|\r  %%format /etc/hostname\r",
		"X:1\nK:C\nC|\r\t%%Format /etc/hostname\r",
		"X:1\nK:C\nC|\rI: abc-include /etc/passwd\r",
		"X:1\nK:C\n[I:format /etc/hostname]CDE|\n",
		"X:1\nK:C\n%%abcm2ps -F /etc/hostname\nC|",
	} {
		var ie *InputError
		if err := CheckABC(abc); !errors.As(err, &ie) || !strings.Contains(ie.Problem, "another file") {
			t.Errorf("%q: got %v, want it refused as reading another file", abc, err)
		}
		if _, err := Render(context.Background(), abc, Options{}); !errors.As(err, &ie) {
			t.Errorf("%q: Render gave %v, want it refused", abc, err)
		}
	}
	// Text that only looks alike is engraved.
	if err := CheckABC("X:1\r\nT:Informal Dances\r\nK:C\r\nCDE|\r\n"); err != nil {
		t.Errorf("a CRLF tune is refused: %v", err)
	}
}

// TestAttackABCLogCarriesNoOtherFile: abcm2ps quotes the lines it complains about; of any
// other file it read, neither its messages nor its lines reach the log.
func TestAttackABCLogCarriesNoOtherFile(t *testing.T) {
	log := strings.Join([]string{
		"abcm2ps-8.14.14 (2022-12-19)",
		"File tune.abc",
		"File /etc/passwd",
		"tune.abc:4:4: error: Bad start of voice overlay",
		"   4 C|&&&$$ D|",
		"         ^",
		"/etc/passwd:1:1: error: Bad character 'r'",
		"   1 root:x:0:0:root:/root:/bin/bash",
		"      ^",
		"Output written on score001.svg (2263 bytes)",
	}, "\n")
	got := ownLines(log, "tune.abc")
	for _, secret := range []string{"root:x", "/etc/passwd", "Bad character 'r'"} {
		if strings.Contains(got, secret) {
			t.Errorf("the log keeps %q:\n%s", secret, got)
		}
	}
	for _, own := range []string{"tune.abc:4:4: error: Bad start of voice overlay", "   4 C|&&&$$ D|", "Output written"} {
		if !strings.Contains(got, own) {
			t.Errorf("the log lost %q:\n%s", own, got)
		}
	}
}

// TestCRLinesEngraveAsLF: a tune with CR line ends engraves as the same tune with LF ends.
func TestCRLinesEngraveAsLF(t *testing.T) {
	needPrograms(t)
	cr := strings.ReplaceAll(book, "\n", "\r")
	a, err := Render(context.Background(), book, Options{X: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Render(context.Background(), cr, Options{X: 3})
	if err != nil {
		t.Fatal(err)
	}
	if a.Systems != b.Systems || a.Systems != 3 {
		t.Errorf("LF: %d systems, CR: %d; want 3 both", a.Systems, b.Systems)
	}
}
