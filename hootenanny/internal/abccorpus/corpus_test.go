package abccorpus

import (
	"strings"
	"testing"
)

func TestCorpus(t *testing.T) {
	tunes, err := Tunes()
	if err != nil {
		t.Fatal(err)
	}
	if len(tunes) < 20 {
		t.Fatalf("corpus has %d tunes, want at least 20", len(tunes))
	}
	ids := map[string]bool{}
	kinds := map[string]bool{}
	for _, tu := range tunes {
		if ids[tu.ID()] {
			t.Errorf("duplicate tune id %s", tu.ID())
		}
		ids[tu.ID()] = true
		if tu.Name == "" || tu.Kind == "" || tu.Exercises == "" {
			t.Errorf("%s: missing tune/kind/exercises comment", tu.File)
		}
		if tu.Title == "" {
			t.Errorf("%s: no T: field", tu.ID())
		}
		for _, field := range []string{"\nM:", "\nL:", "\nK:"} {
			if !strings.Contains(tu.Text, field) {
				t.Errorf("%s: no %s field", tu.ID(), strings.TrimSpace(field))
			}
		}
		kinds[tu.Rhythm] = true
	}
	for _, k := range []string{"reel", "jig", "hornpipe", "polka", "slip jig", "waltz", "march", "slide"} {
		if !kinds[k] {
			t.Errorf("no tune with R:%s", k)
		}
	}
}

func TestBookSplits(t *testing.T) {
	tunes, err := Tunes()
	if err != nil {
		t.Fatal(err)
	}
	var refs []int
	for _, tu := range tunes {
		if tu.File == "book.abc" {
			refs = append(refs, tu.Ref)
			if strings.Count(tu.Text, "X:") != 1 {
				t.Errorf("book tune %d text holds %d X: lines", tu.Ref, strings.Count(tu.Text, "X:"))
			}
		}
	}
	if len(refs) != 3 || refs[0] != 1 || refs[2] != 3 {
		t.Fatalf("book refs = %v", refs)
	}
}

func TestParseFileErrors(t *testing.T) {
	if _, err := parseFile("x.abc", "% tune: none\nT:no x\n"); err == nil {
		t.Fatal("file without X: accepted")
	}
	if _, err := parseFile("x.abc", "X:one\nT:t\n"); err == nil {
		t.Fatal("bad X: accepted")
	}
}
