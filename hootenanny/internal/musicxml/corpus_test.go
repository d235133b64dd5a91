package musicxml

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/abccorpus"
)

// convertText parses one tune and converts it.
func convertText(t testing.TB, src string) []byte {
	t.Helper()
	book, _ := abc.Parse(src, abc.Options{})
	if len(book.Tunes) != 1 {
		t.Fatalf("want one tune, got %d", len(book.Tunes))
	}
	s, err := Convert(book.Tunes[0])
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	return s.Doc
}

// TestProjectSettingsValidate converts every tune of the project's own settings and checks each
// document against the MusicXML schema.
func TestProjectSettingsValidate(t *testing.T) {
	tunes, err := abccorpus.Tunes()
	if err != nil {
		t.Fatal(err)
	}
	var docs [][]byte
	var ids []string
	for _, tu := range tunes {
		book, _ := abc.Parse(tu.Text, abc.Options{})
		if len(book.Tunes) != 1 {
			t.Fatalf("%s: %d tunes", tu.ID(), len(book.Tunes))
		}
		s, err := Convert(book.Tunes[0])
		if err != nil {
			t.Errorf("%s: %v", tu.ID(), err)
			continue
		}
		docs = append(docs, s.Doc)
		ids = append(ids, tu.ID())
	}
	if len(docs) < 40 {
		t.Fatalf("only %d settings converted", len(docs))
	}
	for i, msg := range validate(t, docs) {
		if msg != "" {
			t.Errorf("%s is not valid MusicXML:\n%s", ids[i], firstLines(msg, 5))
		}
	}
}

// TestDevCorpusSampleValidates converts a sample of the development corpus (every 20th tune of
// every collection; every tune with -run DevCorpusAll) and validates each document, counting the
// failures by cause.
func TestDevCorpusSampleValidates(t *testing.T) {
	devCorpus(t, 20)
}

// TestDevCorpusAllValidates is the whole development corpus; it is skipped in -short runs.
func TestDevCorpusAllValidates(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole development corpus takes a while: run without -short")
	}
	devCorpus(t, 1)
}

func devCorpus(t *testing.T, every int) {
	files := abccorpus.DevFilesOrSkip(t, "")
	schema(t)
	var (
		docs   [][]byte
		ids    []string
		causes = map[string][]string{}
		n      int
		empty  int
		valid  int
	)
	check := func() {
		for i, msg := range validate(t, docs) {
			if msg == "" {
				valid++
			}
			if msg != "" {
				c := cause(msg)
				causes[c] = append(causes[c], ids[i]+": "+firstLines(msg, 2))
			}
		}
		docs, ids = nil, nil
	}
	for _, f := range files {
		for i, src := range f.Tunes {
			n++
			if n%every != 0 {
				continue
			}
			book, _ := abc.Parse(src, abc.Options{})
			if len(book.Tunes) != 1 {
				continue
			}
			s, err := Convert(book.Tunes[0])
			id := f.DevTuneID(i)
			if err != nil {
				if errors.Is(err, ErrNoMusic) {
					empty++ // a header with no music after it
					continue
				}
				causes["convert: "+err.Error()] = append(causes["convert: "+err.Error()], id)
				continue
			}
			docs = append(docs, s.Doc)
			ids = append(ids, id)
			if len(docs) == 200 {
				check()
			}
		}
	}
	check()
	total := n / every
	failed := 0
	var keys []string
	for k, v := range causes {
		keys = append(keys, k)
		failed += len(v)
	}
	sort.Strings(keys)
	t.Logf("%d tunes read: %d valid MusicXML documents, %d with no music to write, %d failed", total, valid, empty, failed)
	for _, k := range keys {
		t.Errorf("%d tunes: %s\n  e.g. %s", len(causes[k]), k, causes[k][0])
	}
}

// cause is the schema complaint without the file, line and values.
func cause(msg string) string {
	line := strings.SplitN(msg, "\n", 2)[0]
	if i := strings.Index(line, "Schemas validity error : "); i >= 0 {
		line = line[i+len("Schemas validity error : "):]
	}
	if i := strings.Index(line, ": "); i >= 0 && strings.HasPrefix(line, "Element") {
		// "Element 'x': ..." keeps the element and the complaint.
		return line
	}
	return line
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("... (%d more lines)", len(lines)-n))
	}
	return strings.Join(lines, "\n")
}
