package musicxml

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/abccorpus"
)

// Verovio, an engraving library that reads MusicXML 4.0 (the npm package verovio, pinned in
// package.json), opens the documents as a notation program would: tools/verovio.mjs loads each
// in Verovio's toolkit under the pinned node and prints what Verovio read. The tests hold that
// every document loads with no message from Verovio, is engraved on at least one page, and that
// the notes Verovio read are the notes the document has: as many, with the same pitches in the
// same order, at the same onsets.

const (
	verovioScript = "tools/verovio.mjs"
	verovioNode   = "node_modules/node/bin/node"
	verovioPkg    = "node_modules/verovio/package.json"
	// verovioBatch is the most documents one run of the script opens (one WebAssembly start).
	verovioBatch = 100
)

var (
	verovioOnce sync.Once
	verovioRoot string
	verovioWhy  string
)

// verovioTool returns the repository's root, or skips the test when the pinned node or the
// verovio package is not installed.
func verovioTool(t testing.TB) string {
	t.Helper()
	verovioOnce.Do(func() {
		root, err := repoRoot()
		if err != nil {
			verovioWhy = err.Error()
			return
		}
		for _, p := range []string{verovioNode, verovioPkg} {
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				verovioWhy = p + " is not installed: run npm ci --no-audit --no-fund at the repository root (.ci/run does)"
				return
			}
		}
		verovioRoot = root
	})
	if verovioWhy != "" {
		t.Skip("cannot open MusicXML in Verovio: " + verovioWhy)
	}
	return verovioRoot
}

// verovioFile is what tools/verovio.mjs says of one document.
type verovioFile struct {
	File     string     `json:"file"`
	Loaded   bool       `json:"loaded"`
	Log      []string   `json:"log"`
	Pages    int        `json:"pages"`
	SVGNotes int        `json:"svgNotes"`
	Notes    []readNote `json:"notes"`
	Error    string     `json:"error"`
}

// readNote is one note, as Verovio read it or as the document writes it: its measure's ordinal
// from 0, its staff (the part's place from 1), its layer (the voice), its MIDI key, its onset in
// quarter notes from the start, and whether it is a grace note.
type readNote struct {
	M     int      `json:"m"`
	Staff int      `json:"staff"`
	Layer int      `json:"layer"`
	Pitch *int     `json:"pitch"`
	Onset *float64 `json:"onset"`
	Grace bool     `json:"grace"`
}

func (n readNote) String() string {
	s := fmt.Sprintf("measure %d staff %d layer %d key ", n.M, n.Staff, n.Layer)
	if n.Pitch == nil {
		s += "none"
	} else {
		s += strconv.Itoa(*n.Pitch)
	}
	if n.Onset != nil {
		s += " at " + strconv.FormatFloat(*n.Onset, 'f', -1, 64)
	}
	if n.Grace {
		s += " (grace)"
	}
	return s
}

// openInVerovio opens docs in Verovio, verovioBatch at a time, and returns its summaries in
// the order of docs.
func openInVerovio(t testing.TB, docs [][]byte) []verovioFile {
	t.Helper()
	root := verovioTool(t)
	dir := t.TempDir()
	var out []verovioFile
	for start := 0; start < len(docs); start += verovioBatch {
		end := min(start+verovioBatch, len(docs))
		args := []string{filepath.Join(root, verovioScript)}
		for i := start; i < end; i++ {
			p := filepath.Join(dir, fmt.Sprintf("doc%d.musicxml", i))
			if err := os.WriteFile(p, docs[i], 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, p)
		}
		// A bound on a stuck run, not a measure of speed: a hundred documents take seconds.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		cmd := exec.CommandContext(ctx, filepath.Join(root, verovioNode), args...)
		cmd.Dir = root
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("tools/verovio.mjs: %v\n%s", err, firstLines(stderr.String(), 10))
		}
		var res struct {
			Version string        `json:"version"`
			Files   []verovioFile `json:"files"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("tools/verovio.mjs printed no summary (%v): %s", err, firstLines(stdout.String(), 5))
		}
		if len(res.Files) != end-start || !strings.HasPrefix(res.Version, "6.3.0") {
			t.Fatalf("tools/verovio.mjs: Verovio %q summarized %d documents, want version 6.3.0 and %d", res.Version, len(res.Files), end-start)
		}
		for i, f := range res.Files {
			if f.File != args[i+1] {
				t.Fatalf("tools/verovio.mjs: summary %d is of %s, want %s", i, f.File, args[i+1])
			}
		}
		out = append(out, res.Files...)
	}
	return out
}

var stepKeys = map[string]int{"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}

// writtenNotes reads the notes of a document as a MusicXML reader must: parts in order, each
// measure's notes with their voices, a chord's notes at the onset of its first, grace notes at
// the onset of the note they lead to, backup moving back in time. A measure lasts as long as its
// longest voice in any part, as Verovio times it.
func writtenNotes(t testing.TB, b []byte) []readNote {
	t.Helper()
	doc := parseDoc(t, b)
	type timed struct {
		n     readNote
		local int64 // divisions from the measure's start
	}
	var notes []timed
	var lengths []int64
	div := int64(0)
	for pi, p := range doc.all("part") {
		for mi, m := range p.all("measure") {
			if d := m.get("attributes/divisions"); d != "" {
				v, err := strconv.ParseInt(d, 10, 64)
				if err != nil || v <= 0 {
					t.Fatalf("divisions %q", d)
				}
				div = v
			}
			var cursor, last, longest int64
			for _, k := range m.kids {
				switch k.name {
				case "backup", "forward":
					d, err := strconv.ParseInt(k.get("duration"), 10, 64)
					if err != nil {
						t.Fatalf("%s duration %q", k.name, k.get("duration"))
					}
					if k.name == "backup" {
						cursor -= d
					} else {
						cursor += d
					}
				case "note":
					onset := cursor
					if k.has("chord") {
						onset = last
					}
					if !k.has("chord") && !k.has("grace") {
						d, err := strconv.ParseInt(k.get("duration"), 10, 64)
						if err != nil {
							t.Fatalf("note duration %q", k.get("duration"))
						}
						cursor += d
					}
					last = onset
					longest = max(longest, cursor)
					if k.has("rest") {
						continue
					}
					voice, _ := strconv.Atoi(k.get("voice"))
					octave, _ := strconv.Atoi(k.get("pitch/octave"))
					alter, _ := strconv.Atoi(k.get("pitch/alter"))
					key := 12*(octave+1) + stepKeys[k.get("pitch/step")] + alter
					notes = append(notes, timed{readNote{M: mi, Staff: pi + 1, Layer: voice, Pitch: &key, Grace: k.has("grace")}, onset})
				}
			}
			for len(lengths) <= mi {
				lengths = append(lengths, 0)
			}
			lengths[mi] = max(lengths[mi], longest)
		}
	}
	starts := make([]int64, len(lengths))
	for i := 1; i < len(lengths); i++ {
		starts[i] = starts[i-1] + lengths[i-1]
	}
	out := make([]readNote, len(notes))
	for i, x := range notes {
		on := float64(starts[x.n.M]+x.local) / float64(div)
		x.n.Onset = &on
		out[i] = x.n
	}
	return out
}

// sortNotes puts notes in the order of Verovio's MEI: by measure, staff and layer, keeping the
// order within a layer.
func sortNotes(ns []readNote) []readNote {
	ns = slices.Clone(ns)
	sort.SliceStable(ns, func(i, j int) bool {
		a, b := ns[i], ns[j]
		if a.M != b.M {
			return a.M < b.M
		}
		if a.Staff != b.Staff {
			return a.Staff < b.Staff
		}
		return a.Layer < b.Layer
	})
	return ns
}

// verovioProblems compares what Verovio read of a document with what the document writes, and
// returns each problem as a cause (the same for the same fault in different tunes) and a detail.
func verovioProblems(t testing.TB, doc []byte, f verovioFile) (causes, details []string) {
	t.Helper()
	add := func(cause, detail string) {
		causes = append(causes, cause)
		details = append(details, detail)
	}
	if f.Error != "" {
		add("not read: "+f.Error, "")
		return
	}
	if !f.Loaded {
		add("Verovio did not load the document", strings.Join(f.Log, "; "))
		return
	}
	for _, l := range f.Log {
		if !verovioLimit(l) {
			add("Verovio said: "+logCause(l), l)
		}
	}
	if f.Pages < 1 {
		add("no page engraved", "")
	}
	want := sortNotes(writtenNotes(t, doc))
	got := sortNotes(f.Notes)
	if len(got) != len(want) {
		add("Verovio read a different number of notes", fmt.Sprintf("%d notes read, %d written", len(got), len(want)))
	}
	if f.SVGNotes != len(want) {
		add("Verovio drew a different number of notes", fmt.Sprintf("%d notes drawn, %d written", f.SVGNotes, len(want)))
	}
	// Verovio plays a grace note by taking time from a note beside it, which one depending on
	// where the grace note stands (at a measure's start, the note after the one it leads to): in
	// a measure's layer with grace notes, the onsets are not compared.
	type layer struct{ m, staff, layer int }
	graced := map[layer]bool{}
	for _, n := range want {
		if n.Grace {
			graced[layer{n.M, n.Staff, n.Layer}] = true
		}
	}
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		switch {
		case g.M != w.M || g.Staff != w.Staff || g.Layer != w.Layer:
			add("a note in another measure, staff or layer", fmt.Sprintf("note %d: read %v, written %v", i+1, g, w))
		case g.Grace != w.Grace:
			add("a grace note read as a note or the other way round", fmt.Sprintf("note %d: read %v, written %v", i+1, g, w))
		case g.Pitch == nil || *g.Pitch != *w.Pitch:
			add("a different pitch", fmt.Sprintf("note %d: read %v, written %v", i+1, g, w))
		case graced[layer{w.M, w.Staff, w.Layer}]:
			continue
		case g.Onset == nil || math.Abs(*g.Onset-*w.Onset) > 1e-6:
			add("a different onset", fmt.Sprintf("note %d: read %v, written %v", i+1, g, w))
		default:
			continue
		}
		break // the first difference: what follows it may differ only because of it
	}
	return causes, details
}

// verovioLimits are Verovio's messages about valid MusicXML that it does not take in: MEI, its
// own encoding, has no bar line thick then thin that is not a repeat's start, so it reports the
// bar-style heavy-light written for ABC's [| on a measure's right (and draws a single bar line).
var verovioLimits = []string{"[Warning] MusicXML import: Unsupported bar-style 'heavy-light'"}

func verovioLimit(l string) bool { return slices.Contains(verovioLimits, l) }

// logCause is a message of Verovio's without what names one place: numbers, quoted text and
// the ids of Verovio's MEI ("[Warning] slur with @xml:id x1y2 will not ...").
func logCause(l string) string {
	words := strings.Fields(l)
	for i, w := range words {
		switch {
		case i > 0 && words[i-1] == "@xml:id", strings.ContainsAny(w, "0123456789'\""):
			words[i] = "…"
		}
	}
	return strings.Join(words, " ")
}

// checkInVerovio opens docs in Verovio and reports every problem, counted by cause, with the
// first tune that shows it.
func checkInVerovio(t *testing.T, ids []string, docs [][]byte) {
	t.Helper()
	files := openInVerovio(t, docs)
	byCause := map[string][]string{}
	bad := 0
	for i, f := range files {
		causes, details := verovioProblems(t, docs[i], f)
		if len(causes) > 0 {
			bad++
		}
		seen := map[string]bool{}
		for j, c := range causes {
			if !seen[c] {
				seen[c] = true
				byCause[c] = append(byCause[c], ids[i]+": "+details[j])
			}
		}
	}
	t.Logf("%d documents opened in Verovio: %d read as written, %d not", len(docs), len(docs)-bad, bad)
	var keys []string
	for k := range byCause {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Errorf("%d documents: %s\n  e.g. %s", len(byCause[k]), k, byCause[k][0])
	}
}

// TestVerovioReadsFeatures opens the documents of the feature tests in Verovio.
func TestVerovioReadsFeatures(t *testing.T) {
	verovioTool(t)
	var docs [][]byte
	var ids []string
	for i, src := range featureTunes {
		docs = append(docs, convertText(t, src))
		ids = append(ids, fmt.Sprintf("feature tune %d", i))
	}
	checkInVerovio(t, ids, docs)
}

// TestVerovioLimits shows that the messages Verovio is allowed are its own and that they are
// still said: a thick-thin bar line ([|) draws one, and the rest of the tune reads as written.
func TestVerovioLimits(t *testing.T) {
	doc := convertText(t, "X:1\nT:L\nM:2/4\nL:1/8\nK:C\nCDEF[|GABc|]\n")
	f := openInVerovio(t, [][]byte{doc})[0]
	if !slices.Equal(f.Log, verovioLimits) {
		t.Errorf("Verovio said %q, want %q", f.Log, verovioLimits)
	}
	if causes, details := verovioProblems(t, doc, f); len(causes) != 0 {
		t.Errorf("problems: %q %q", causes, details)
	}
}

// TestVerovioCatchesMisreadings shows the comparison fails where Verovio reads otherwise than
// written: notes with no type (the converter's old way with B/3), and a part missing from the
// part list.
func TestVerovioCatchesMisreadings(t *testing.T) {
	good := convertText(t, "X:1\nT:M\nM:2/4\nL:1/8\nK:C\nB/3c/3d/3 e f2|g4|]\n")
	typeless := regexp.MustCompile(`(?s)<type>16th</type>\s*<time-modification>.*?</time-modification>`).ReplaceAll(good, nil)
	unlisted := bytes.Replace(good, []byte(`<part id="P1">`), []byte(`<part id="P9">`), 1)
	if bytes.Equal(typeless, good) || bytes.Equal(unlisted, good) {
		t.Fatal("the document was not changed")
	}
	files := openInVerovio(t, [][]byte{good, typeless, unlisted})
	for i, want := range []string{"", "a different onset", "Verovio read a different number of notes"} {
		causes, _ := verovioProblems(t, [][]byte{good, typeless, unlisted}[i], files[i])
		if want == "" && len(causes) != 0 || want != "" && !slices.Contains(causes, want) {
			t.Errorf("document %d: %q, want %q", i, causes, want)
		}
	}
}

// TestVerovioReadsProjectSettings opens every tune of the project's own settings in Verovio.
func TestVerovioReadsProjectSettings(t *testing.T) {
	verovioTool(t)
	tunes, err := abccorpus.Tunes()
	if err != nil {
		t.Fatal(err)
	}
	var docs [][]byte
	var ids []string
	for _, tu := range tunes {
		docs = append(docs, convertText(t, tu.Text))
		ids = append(ids, tu.ID())
	}
	if len(docs) < 40 {
		t.Fatalf("only %d settings", len(docs))
	}
	checkInVerovio(t, ids, docs)
}

// verovioSample is how many tunes of the development corpus TestVerovioReadsDevCorpusSample
// opens, spread evenly over each collection.
const verovioSample = 60

// TestVerovioReadsDevCorpusSample opens a sample of the development corpus in Verovio: as many
// tunes from each collection, evenly spaced through it. VEROVIO_DEV_EVERY=N opens every Nth tune
// of every collection instead (1 for all of them).
func TestVerovioReadsDevCorpusSample(t *testing.T) {
	files := abccorpus.DevFilesOrSkip(t, "")
	verovioTool(t)
	type tune struct{ id, src string }
	var cols []string
	byCol := map[string][]tune{}
	for _, f := range files {
		if _, ok := byCol[f.Collection]; !ok {
			cols = append(cols, f.Collection)
		}
		for i, src := range f.Tunes {
			byCol[f.Collection] = append(byCol[f.Collection], tune{f.DevTuneID(i), src})
		}
	}
	every := 0
	if s := os.Getenv("VEROVIO_DEV_EVERY"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("VEROVIO_DEV_EVERY=%q: want a whole number from 1 (1 opens every tune)", s)
		}
		every = n
	}
	var docs [][]byte
	var ids []string
	empty := 0
	for _, c := range cols {
		ts := byCol[c]
		step := every
		if step == 0 {
			step = max(1, len(ts)*len(cols)/verovioSample)
		}
		for i := step / 2; i < len(ts); i += step {
			book, _ := abc.Parse(ts[i].src, abc.Options{})
			if len(book.Tunes) != 1 {
				continue
			}
			s, err := Convert(book.Tunes[0])
			if errors.Is(err, ErrNoMusic) {
				empty++ // a header with no music after it
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", ts[i].id, err)
				continue
			}
			docs = append(docs, s.Doc)
			ids = append(ids, ts[i].id)
		}
	}
	t.Logf("%d collections, %d tunes converted, %d with no music", len(cols), len(docs), empty)
	if every == 0 && len(docs) < verovioSample*9/10 {
		t.Fatalf("only %d tunes of the corpus converted, want about %d", len(docs), verovioSample)
	}
	checkInVerovio(t, ids, docs)
}
