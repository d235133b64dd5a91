package abccorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DevCorpusEnv names the environment variable that points at the development corpus, a
// folder of real tune books (see DevCorpusDir).
const DevCorpusEnv = "ABC_DEV_CORPUS"

// devCorpusRel is where the development corpus sits beside the repository: a folder
// shared/corpora/abc-music21 in the repository's directory or one of its parents.
const devCorpusRel = "shared/corpora/abc-music21"

// DevCorpusDir returns the folder of the development corpus: ABC_DEV_CORPUS when set, else
// the first shared/corpora/abc-music21 found in the working directory or one of its
// parents. ok is false when there is none (the corpus is not part of the repository and may
// be absent; tests that read it skip).
func DevCorpusDir() (dir string, ok bool) {
	if d := os.Getenv(DevCorpusEnv); d != "" {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d, true
		}
		return "", false
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; {
		cand := filepath.Join(d, devCorpusRel)
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand, true
		}
		up := filepath.Dir(d)
		if up == d {
			return "", false
		}
		d = up
	}
}

// DevFile is one tune book of the development corpus.
type DevFile struct {
	// Collection is the folder the file is in (ryansMammoth, essenFolksong, ...).
	Collection string
	// Name is the file name inside the collection.
	Name string
	// Tunes are the file's tunes in order, each from its X: line to the blank line that
	// ends it.
	Tunes []string
	// Refs are the X: numbers as written (not unique in every file).
	Refs []string
}

// DevTuneID names tune i of f: collection/file#n, n counting the file's tunes from 1 (the
// X: numbers of a file are not always unique).
func (f DevFile) DevTuneID(i int) string {
	return fmt.Sprintf("%s/%s#%d", f.Collection, strings.TrimSuffix(f.Name, ".abc"), i+1)
}

// maxDevFile bounds the size of a corpus file read into memory.
const maxDevFile = 16 << 20

// DevFiles reads every .abc file under dir, one folder per collection, in sorted order.
func DevFiles(dir string) ([]DevFile, error) {
	cols, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []DevFile
	for _, c := range cols {
		if !c.IsDir() {
			continue
		}
		ents, err := os.ReadDir(filepath.Join(dir, c.Name()))
		if err != nil {
			return nil, err
		}
		var names []string
		for _, e := range ents {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".abc") {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		for _, n := range names {
			p := filepath.Join(dir, c.Name(), n)
			st, err := os.Stat(p)
			if err != nil {
				return nil, err
			}
			if st.Size() > maxDevFile {
				return nil, fmt.Errorf("%s: %d bytes, more than the %d read", p, st.Size(), maxDevFile)
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			f := DevFile{Collection: c.Name(), Name: n}
			f.Tunes, f.Refs = SplitTunes(string(src))
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Collection < out[j].Collection })
	return out, nil
}

// SplitTunes cuts an ABC file into its tunes: each from a line starting "X:" to the first
// blank line (empty or only spaces) after it, as abc2midi ends a tune. Text between tunes is
// dropped. refs holds each tune's X: value as written.
func SplitTunes(src string) (tunes, refs []string) {
	var body []string
	in := false
	flush := func() {
		if in {
			tunes = append(tunes, strings.Join(body, "\n")+"\n")
		}
		body, in = nil, false
	}
	for _, line := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		if strings.HasPrefix(line, "X:") {
			flush()
			in = true
			refs = append(refs, strings.TrimSpace(line[2:]))
		}
		if !in {
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		body = append(body, line)
	}
	flush()
	return tunes, refs
}

// Renumbered returns the tunes as one ABC file whose tunes are numbered X:1, X:2, ... in
// order, blank lines between them, so that a converter can select each by its number.
func Renumbered(tunes []string) string {
	var b strings.Builder
	for i, t := range tunes {
		_, rest, _ := strings.Cut(t, "\n")
		fmt.Fprintf(&b, "X:%d\n%s\n", i+1, rest)
	}
	return b.String()
}
