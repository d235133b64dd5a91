package abccorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
)

// A warningKind is one kind of warning of abc.Parse (what abc_parse and abc_validate report),
// recognised by its message, with the most the development corpus may draw.
type warningKind struct {
	name    string
	message *regexp.Regexp
	// ceiling is the most warnings of this kind over the whole development corpus: what the
	// survey counted (docs/abc-warnings.md), so that a new false alarm shows as a failure.
	ceiling int
}

// warningKinds are every kind of warning the parser gives, with their ceilings. Each count was
// read against the tunes' text (docs/abc-warnings.md): all are real problems of the tunes.
var warningKinds = []warningKind{
	{"bar too long", regexp.MustCompile(`^bar \d+ \(line \d+, column \d+\) is too long`), 15768},
	{"bar too short", regexp.MustCompile(`^bar \d+ \(line \d+, column \d+\) is too short`), 1461},
	{"slur never closed", regexp.MustCompile(`^the slur \( at line \d+, column \d+ is never closed`), 30},
	{"tuplet's ( taken for a slur", regexp.MustCompile(`^\) at .* closes no slur: the tuplet`), 16},
	{") closes no slur", regexp.MustCompile(`^\) at line \d+, column \d+ closes no slur$`), 8},
	{"unknown decoration", regexp.MustCompile(`^unknown decoration `), 23},
	{"music between ! signs", regexp.MustCompile(`enclose music, not a decoration name$`), 2},
	{"unknown word in V:", regexp.MustCompile(`^unknown word ".*" in V:`), 4},
	{"unknown word in K:", regexp.MustCompile(`^unknown word ".*" in K:`), 2},
	{"unknown K: property", regexp.MustCompile(`^unknown K: property`), 0},
	{"header field after K:", regexp.MustCompile(`^.: at line \d+ comes after K:`), 0},
	{"unknown header field", regexp.MustCompile(`^unknown header field`), 0},
	{"unknown field", regexp.MustCompile(`^unknown field`), 0},
	{"tune without X:", regexp.MustCompile(`^the tune at line \d+ has no X: field`), 0},
	{"X: not a number", regexp.MustCompile(`^X: at line \d+ takes the tune's number`), 0},
	{"tuplet missing notes", regexp.MustCompile(`^the tuplet \(\d+ at .* is missing`), 0},
}

// maxErrors is the most errors (text that is not valid ABC) over the development corpus: what
// the survey counted. Errors are counted by message with numbers and quoted text left out.
const maxErrors = 957

// errorKind names an error by its message without the numbers, quoted text and characters that
// vary: "unexpected character '_'".
var errorKind = regexp.MustCompile(`"[^"]*"|'[^']*'|\d+`)

// TestDevCorpusWarnings parses every tune book of the development corpus (DevCorpusDir) as
// abc_validate reads it, counts the warnings by kind and collection, and fails when a kind
// goes past its ceiling, when a warning of a kind the survey does not know appears, or when
// the errors go past maxErrors. ABC_WARNINGS_SAMPLE=n prints n warnings of each kind, spread
// over the corpus, with their tune's line; ABC_WARNINGS_KIND=name narrows that to one kind.
func TestDevCorpusWarnings(t *testing.T) {
	dir, ok := DevCorpusDir()
	if !ok {
		t.Skipf("no development corpus: set %s or place it at ../%s; the parser's own tests still run", DevCorpusEnv, devCorpusRel)
	}
	type hit struct {
		file string
		d    abc.Diagnostic
		text string
	}
	counts := map[string]map[string]int{} // kind -> collection -> count
	hits := map[string][]hit{}
	errCounts := map[string]int{}
	var collections []string
	errors := 0
	cols, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cols {
		if !c.IsDir() {
			continue
		}
		collections = append(collections, c.Name())
		files, err := filepath.Glob(filepath.Join(dir, c.Name(), "*.abc"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(files)
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(src) > maxDevFile {
				t.Fatalf("%s: %d bytes, more than the %d read", f, len(src), maxDevFile)
			}
			lines := strings.Split(string(src), "\n")
			// All the diagnostics, not the first thousand that abc_validate returns.
			_, diags := abc.Parse(string(src), abc.Options{MaxBytes: maxDevFile, MaxElements: 1 << 24, MaxDiagnostics: 1 << 20})
			for _, d := range diags {
				if d.Severity == abc.Error {
					errors++
					errCounts[errorKind.ReplaceAllString(d.Message, "_")]++
					continue
				}
				kind := ""
				for _, k := range warningKinds {
					if k.message.MatchString(d.Message) {
						kind = k.name
						break
					}
				}
				if kind == "" {
					t.Errorf("%s:%d:%d: a warning of a kind the survey does not know: %q; read it against the tune, and add its kind to warningKinds with a ceiling", f, d.Line, d.Col, d.Message)
					continue
				}
				if counts[kind] == nil {
					counts[kind] = map[string]int{}
				}
				counts[kind][c.Name()]++
				text := ""
				if d.Line >= 1 && d.Line <= len(lines) {
					text = lines[d.Line-1]
				}
				hits[kind] = append(hits[kind], hit{c.Name() + "/" + filepath.Base(f), d, text})
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "warnings of abc_validate over %s, by kind and collection:\n%-28s", dir, "kind")
	for _, c := range collections {
		fmt.Fprintf(&b, " %14s", c)
	}
	fmt.Fprintf(&b, " %8s %8s\n", "total", "ceiling")
	all := 0
	for _, k := range warningKinds {
		fmt.Fprintf(&b, "%-28s", k.name)
		n := 0
		for _, c := range collections {
			fmt.Fprintf(&b, " %14d", counts[k.name][c])
			n += counts[k.name][c]
		}
		all += n
		fmt.Fprintf(&b, " %8d %8d\n", n, k.ceiling)
		if n > k.ceiling {
			t.Errorf("%d warnings %q, more than the ceiling of %d: read the new ones against their tunes (ABC_WARNINGS_SAMPLE=20 ABC_WARNINGS_KIND=%q) and fix a false alarm at its cause", n, k.name, k.ceiling, k.name)
		}
	}
	fmt.Fprintf(&b, "%d warnings; %d errors (text that is not ABC 2.1), the most frequent:\n", all, errors)
	type ec struct {
		kind string
		n    int
	}
	var ecs []ec
	for k, n := range errCounts {
		ecs = append(ecs, ec{k, n})
	}
	sort.Slice(ecs, func(i, j int) bool { return ecs[i].n > ecs[j].n || ecs[i].n == ecs[j].n && ecs[i].kind < ecs[j].kind })
	for i, e := range ecs {
		if i == 12 {
			break
		}
		fmt.Fprintf(&b, "  %6d  %s\n", e.n, e.kind)
	}
	t.Log(b.String())
	if errors > maxErrors {
		t.Errorf("%d errors, more than the %d counted by the survey: a new error on the corpus is a false alarm until read", errors, maxErrors)
	}
	if n, _ := strconv.Atoi(os.Getenv("ABC_WARNINGS_SAMPLE")); n > 0 {
		only := os.Getenv("ABC_WARNINGS_KIND")
		for _, k := range warningKinds {
			hs := hits[k.name]
			if len(hs) == 0 || only != "" && only != k.name {
				continue
			}
			var s strings.Builder
			fmt.Fprintf(&s, "%s: %d of %d\n", k.name, min(n, len(hs)), len(hs))
			for i := 0; i < n && i < len(hs); i++ {
				h := hs[i*len(hs)/min(n, len(hs))]
				fmt.Fprintf(&s, "  %s:%d:%d %s (%s)\n      %s\n", h.file, h.d.Line, h.d.Col, h.d.Message, h.d.Suggestion, h.text)
			}
			t.Log(s.String())
		}
	}
}
