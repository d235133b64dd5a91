// Package abccorpus holds a corpus of traditional tunes in ABC notation and
// the harness that compares MIDI renderings of them note for note.
//
// Every file under tunes/ starts with comment lines naming the tune, its kind
// and what it exercises:
//
//	% tune: Cooley's Reel
//	% kind: reel
//	% exercises: first and second endings, ...
//
// Files brought in from a package add a % source: line (package, version, path,
// licence); tunes/README.md lists them.
//
// A file may hold several tunes (a tune book); Tunes returns one entry per
// X: reference number. Compare (compare.go) matches the note events of a
// reference rendering against ours; the reference side, which runs abc2midi
// from Debian's abcmidi package, is built only with the tag abc2midi:
//
//	apt-get install -y abcmidi
//	go test -tags abc2midi -v -run Reference ./internal/abccorpus
//
// renders every tune, decodes it with package midi and logs a summary per
// tune (format, tracks, notes, pitch range, bars, seconds, tempo); -run
// Agreement prints how far abcmidi agrees with abc2midi per tune and overall
// (notes, velocities, tempo; docs/abc2midi.md explains the figures), and
// -bench Corpus times both converters on the corpus. Without the tag nothing
// here needs abc2midi.
package abccorpus

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed tunes/*.abc
var tuneFS embed.FS

// Tune is one X: tune of the corpus.
type Tune struct {
	// File is the corpus file name, e.g. "cooleys.abc".
	File string
	// Ref is the X: reference number, which selects the tune in its file.
	Ref int
	// Title is the first T: field.
	Title string
	// Rhythm is the R: field, if any.
	Rhythm string
	// Name, Kind and Exercises come from the file's leading comments.
	Name      string
	Kind      string
	Exercises string
	// Text is the tune itself, from its X: line to the end of the tune.
	Text string
}

// ID names the tune uniquely: the file stem, with "#ref" for files holding
// several tunes.
func (t Tune) ID() string {
	stem := strings.TrimSuffix(t.File, ".abc")
	if t.Ref != 1 {
		return fmt.Sprintf("%s#%d", stem, t.Ref)
	}
	return stem
}

// Files returns the corpus file names in order.
func Files() []string {
	ents, err := fs.ReadDir(tuneFS, "tunes")
	if err != nil {
		panic(err) // the embedded directory always exists
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// Source returns the full text of a corpus file.
func Source(file string) ([]byte, error) {
	return tuneFS.ReadFile("tunes/" + file)
}

// Tunes returns every tune of the corpus, in file order then X: order.
func Tunes() ([]Tune, error) {
	var out []Tune
	for _, name := range Files() {
		src, err := Source(name)
		if err != nil {
			return nil, err
		}
		ts, err := parseFile(name, string(src))
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	return out, nil
}

// parseFile splits a file into tunes and reads the header comments.
func parseFile(name, src string) ([]Tune, error) {
	var head Tune
	var tunes []Tune
	var cur *Tune
	var body []string
	flush := func() {
		if cur != nil {
			cur.Text = strings.TrimRight(strings.Join(body, "\n"), "\n") + "\n"
			tunes = append(tunes, *cur)
			cur, body = nil, nil
		}
	}
	for _, line := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur == nil && strings.HasPrefix(trimmed, "%") {
			k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(trimmed, "%")), ":")
			if ok {
				v = strings.TrimSpace(v)
				switch strings.TrimSpace(k) {
				case "tune":
					head.Name = v
				case "kind":
					head.Kind = v
				case "exercises":
					if head.Exercises != "" {
						head.Exercises += " "
					}
					head.Exercises += v
				}
			}
			continue
		}
		if strings.HasPrefix(line, "X:") {
			flush()
			n, err := strconv.Atoi(strings.TrimSpace(line[2:]))
			if err != nil {
				return nil, fmt.Errorf("%s: bad reference line %q", name, line)
			}
			t := head
			t.File, t.Ref = name, n
			cur = &t
		}
		if cur == nil {
			continue
		}
		if trimmed == "" {
			flush()
			continue
		}
		body = append(body, line)
		if strings.HasPrefix(line, "T:") && cur.Title == "" {
			cur.Title = strings.TrimSpace(line[2:])
		}
		if strings.HasPrefix(line, "R:") && cur.Rhythm == "" {
			cur.Rhythm = strings.TrimSpace(line[2:])
		}
	}
	flush()
	if len(tunes) == 0 {
		return nil, fmt.Errorf("%s: no X: tune", name)
	}
	return tunes, nil
}
