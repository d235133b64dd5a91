package abccorpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplitTunes(t *testing.T) {
	src := "% a book\nT:not a tune\n\nX:1\nT:A\nK:C\nCDE|\n  \ntext between\nX:1\nT:B\r\nK:G\nGAB|\nX: 7\nT:C\nK:D\nD|"
	tunes, refs := SplitTunes(src)
	if len(tunes) != 3 || strings.Join(refs, ",") != "1,1,7" {
		t.Fatalf("got %d tunes, refs %v; want 3 tunes, refs 1,1,7", len(tunes), refs)
	}
	if tunes[0] != "X:1\nT:A\nK:C\nCDE|\n" || !strings.HasPrefix(tunes[1], "X:1\nT:B\nK:G") || !strings.HasSuffix(tunes[2], "D|\n") {
		t.Errorf("tunes %q", tunes)
	}
	r := Renumbered(tunes)
	if !strings.Contains(r, "X:1\nT:A") || !strings.Contains(r, "X:2\nT:B") || !strings.Contains(r, "X:3\nT:C") || strings.Contains(r, "X: 7") {
		t.Errorf("renumbered %q", r)
	}
}

func TestDevCorpusDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "reels"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "reels", "a.abc"), []byte("X:1\nT:A\nK:C\nC|\n\nX:2\nT:B\nK:C\nD|\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(DevCorpusEnv, dir)
	got, ok := DevCorpusDir()
	if !ok || got != dir {
		t.Fatalf("DevCorpusDir = %q, %v; want %q", got, ok, dir)
	}
	files, err := DevFiles(got)
	if err != nil || len(files) != 1 || files[0].Collection != "reels" || len(files[0].Tunes) != 2 || files[0].DevTuneID(1) != "reels/a#2" {
		t.Fatalf("DevFiles = %+v, %v", files, err)
	}
	t.Setenv(DevCorpusEnv, filepath.Join(dir, "absent"))
	if _, ok := DevCorpusDir(); ok {
		t.Error("a missing folder was accepted")
	}
}
