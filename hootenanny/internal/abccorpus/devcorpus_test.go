//go:build abc2midi

package abccorpus

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/abcmidi"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// DevCorpusFloor is the share of notes, per collection of the development corpus, on which
// abcmidi.Convert must agree with abc2midi in both playings: a little under what it measures
// (docs/abc2midi.md lists the figures and what is left).
var DevCorpusFloor = map[string]float64{
	"airdsAirs":     0.994, // measured 99.60% in both playings
	"essenFolksong": 0.999, // 99.99%
	"miscFolk":      0.997, // 99.84% default, 99.83% melody only
	"oneills1850":   0.995, // 99.68%
	"ryansMammoth":  0.995, // 99.66%, 99.68%
}

// devOutcome is one tune in one playing.
type devOutcome struct {
	id, collection string
	text           string
	refused        string // abc2midi wrote no file
	failed         string // abcmidi.Convert (or abc.Parse) returned an error
	res            Result
}

// devPlaying is one of the two ways both converters play a tune.
type devPlaying struct {
	name   string
	args   []string
	melody bool
}

var devPlayings = []devPlaying{{"default playing", ABC2MIDIArgs, false}, {"melody only", ABC2MIDIMelodyArgs, true}}

// TestDevCorpusAgreement converts every tune of the development corpus (DevCorpusDir) with
// abc2midi and with abcmidi.Convert, in both playings, and reports the agreement per
// collection, the worst tunes and the kinds of difference. It fails when a collection falls
// below its DevCorpusFloor, and when abcmidi refuses or fails on a tune that abc2midi
// converts. abc2midi runs once per file and playing (it writes every tune of a file in one
// process); files are shared out over the cores. DEV_CORPUS_ONLY=collection narrows the run,
// DEV_CORPUS_WORST=n sets how many of the worst tunes are listed (20) and DEV_CORPUS_DIFFS=n
// how many differences of each are printed (0); DEV_CORPUS_DUMP=file writes the tunes that
// differ in the default playing to that file.
func TestDevCorpusAgreement(t *testing.T) {
	needABC2MIDI(t)
	files := DevFilesOrSkip(t, " (the project's own tunes are compared by TestAgreement)")
	if only := os.Getenv("DEV_CORPUS_ONLY"); only != "" {
		var keep []DevFile
		for _, f := range files {
			if f.Collection == only || strings.HasPrefix(f.Collection+"/"+f.Name, only) {
				keep = append(keep, f)
			}
		}
		files = keep
	}
	worst := envInt("DEV_CORPUS_WORST", 20)
	maxDiffs := envInt("DEV_CORPUS_DIFFS", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	start := time.Now()

	outcomes := make([][][]devOutcome, len(files)) // file, playing, tune
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var fatal []string
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out, err := devFile(ctx, filepath.Join(tmp, strconv.Itoa(i)), files[i])
				if err != nil {
					mu.Lock()
					fatal = append(fatal, err.Error())
					mu.Unlock()
				}
				outcomes[i] = out
			}
		}()
	}
	for i := range files {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, f := range fatal {
		t.Error(f)
	}
	t.Logf("%d files converted in %s", len(files), time.Since(start).Round(time.Millisecond))

	var cols []string
	seen := map[string]bool{}
	for _, f := range files {
		if !seen[f.Collection] {
			seen[f.Collection] = true
			cols = append(cols, f.Collection)
		}
	}
	var summary strings.Builder
	for p, pl := range devPlayings {
		var all []devOutcome
		for _, fo := range outcomes {
			if fo != nil {
				all = append(all, fo[p]...)
			}
		}
		var b strings.Builder
		total := devTally{}
		for _, c := range cols {
			var tl devTally
			for _, o := range all {
				if o.collection == c {
					tl.add(o)
				}
			}
			total.merge(tl)
			fmt.Fprintf(&b, "%s: %s: %s\n", pl.name, c, tl)
			if floor, ok := DevCorpusFloor[c]; ok && tl.agreement() < floor {
				t.Errorf("%s: %s: %.2f%% of notes agree with abc2midi, below the floor of %.2f%%", pl.name, c, 100*tl.agreement(), 100*floor)
			}
		}
		fmt.Fprintf(&b, "%s: all: %s\n", pl.name, total)
		summary.WriteString(b.String())
		t.Logf("%s, abc2midi %v against abcmidi.Convert, per collection:\n%s", pl.name, pl.args, b.String())
		t.Logf("%s: failure kinds:\n%s", pl.name, devKinds(all))
		t.Logf("%s: the %d worst tunes:\n%s", pl.name, worst, devWorst(all, worst, maxDiffs))
		if path := os.Getenv("DEV_CORPUS_DUMP"); path != "" && p == 0 {
			if err := os.WriteFile(path, []byte(devDump(all)), 0o644); err != nil {
				t.Error(err)
			}
		}
		for _, o := range all {
			if o.failed != "" && o.refused == "" {
				t.Errorf("%s: %s: abc2midi converts it, abcmidi fails: %s", pl.name, o.id, o.failed)
			}
		}
	}
	t.Logf("development corpus, agreement with abc2midi 4.84:\n%s", summary.String())
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n >= 0 {
		return n
	}
	return def
}

// devFile converts the tunes of one file in both playings.
func devFile(ctx context.Context, dir string, f DevFile) ([][]devOutcome, error) {
	src := Renumbered(f.Tunes)
	out := make([][]devOutcome, len(devPlayings))
	for p, pl := range devPlayings {
		d := filepath.Join(dir, strconv.Itoa(p))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(d, "t.abc"), []byte(src), 0o644); err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, ABC2MIDI, append([]string{"t.abc"}, pl.args...)...)
		cmd.Dir = d
		msg, _ := cmd.CombinedOutput() // a tune abc2midi refuses shows as a missing file
		for i, text := range f.Tunes {
			_, rest, _ := strings.Cut(text, "\n")
			text = "X:" + strconv.Itoa(i+1) + "\n" + rest
			o := devOutcome{id: f.DevTuneID(i), collection: f.Collection, text: text}
			data, err := os.ReadFile(filepath.Join(d, "t"+strconv.Itoa(i+1)+".mid"))
			var ref *midi.File
			if err == nil {
				ref, err = midi.Decode(data)
			}
			if err != nil {
				o.refused = "abc2midi wrote no file: " + lastLine(string(msg))
			}
			ours, ferr := devConvert(text, pl.melody)
			if ferr != nil {
				o.failed = ferr.Error()
			}
			switch {
			case ref == nil:
			case ours == nil:
				refSide := SideOf(ref)
				o.res = Result{Name: o.id, RefNotes: len(refSide.Notes)}
			default:
				o.res = Compare(o.id, SideOf(ref), SideOf(ours), ABC2MIDIOptions)
			}
			out[p] = append(out[p], o)
		}
		if err := os.RemoveAll(d); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// devConvert plays one tune as TestAgreement does.
func devConvert(text string, melody bool) (*midi.File, error) {
	book, _ := abc.Parse(text, abc.Options{})
	if len(book.Tunes) != 1 {
		return nil, fmt.Errorf("parsed %d tunes, want 1", len(book.Tunes))
	}
	tune := book.Tunes[0]
	return abcmidi.Convert(tune, abcmidi.Options{
		Voices:     abcmidi.MIDIDirectives(text, tune),
		Directives: abcmidi.Directives(text, tune),
		MelodyOnly: melody,
	})
}

// devTally sums the outcomes of a collection.
type devTally struct {
	tunes, refused, failed, exact int
	sum                           Result
}

func (d *devTally) add(o devOutcome) {
	d.tunes++
	if o.refused != "" {
		d.refused++
		return
	}
	if o.failed != "" {
		d.failed++
	}
	if o.res.Agreeing == o.res.RefNotes+o.res.OurNotes-o.res.Matched {
		d.exact++
	}
	d.sum.RefNotes += o.res.RefNotes
	d.sum.OurNotes += o.res.OurNotes
	d.sum.Matched += o.res.Matched
	d.sum.Agreeing += o.res.Agreeing
}

func (d *devTally) merge(o devTally) {
	d.tunes += o.tunes
	d.refused += o.refused
	d.failed += o.failed
	d.exact += o.exact
	d.sum.RefNotes += o.sum.RefNotes
	d.sum.OurNotes += o.sum.OurNotes
	d.sum.Matched += o.sum.Matched
	d.sum.Agreeing += o.sum.Agreeing
}

func (d devTally) agreement() float64 { return d.sum.Agreement() }

func (d devTally) String() string {
	return fmt.Sprintf("%.2f%% of notes agree (%d reference notes, %d tunes, %d exact; abc2midi refuses %d, abcmidi fails %d)",
		100*d.agreement(), d.sum.RefNotes, d.tunes, d.exact, d.refused, d.failed)
}

// devFeatures are the notations a tune that differs is counted under, to find the causes
// worth fixing first.
var devFeatures = []struct {
	name string
	re   *regexp.Regexp
}{
	{"voices (V:)", regexp.MustCompile(`(?m)^V:|\[V:`)},
	{"overlay (&)", regexp.MustCompile(`(?m)^[^%A-Za-z][^%]*&|^[A-Ga-gz_=^][^:%]*&`)},
	{"parts (P:)", regexp.MustCompile(`(?m)^P:|\[P:`)},
	{"::", regexp.MustCompile(`::`)},
	{"third ending", regexp.MustCompile(`[|\[]\s*3`)},
	{"ending list", regexp.MustCompile(`[|\[]\s*[1-9][,-][1-9]`)},
	{"meter change", regexp.MustCompile(`(?m)\[M:|^M:.*\n(?s:.*)^K:(?s:.*)^M:`)},
	{"unit change", regexp.MustCompile(`\[L:|(?m)^K:(?s:.*)^L:`)},
	{"no L:", regexp.MustCompile(`\A(?:(?m)[^L]|L[^:])*\z`)},
}

// devKinds counts, over the tunes, the errors of either side, the differences by kind and
// the notes that differ in tunes with each notation of devFeatures.
func devKinds(all []devOutcome) string {
	errs := map[string]int{}
	kinds := map[string]int{}
	feats := map[string][2]int{}
	digits := regexp.MustCompile(`[0-9]+`)
	for _, o := range all {
		if o.refused != "" {
			errs["abc2midi refuses"]++
			continue
		}
		if o.failed != "" {
			msg := o.failed
			if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "abc") {
				msg = msg[i+2:]
			}
			errs["abcmidi fails: "+digits.ReplaceAllString(msg, "N")]++
		}
		for _, d := range o.res.Diffs {
			if d.Kind != DiffVelocity {
				kinds[string(d.Kind)]++
			}
		}
		bad := o.res.RefNotes + o.res.OurNotes - o.res.Matched - o.res.Agreeing
		if bad == 0 {
			continue
		}
		any := false
		for _, f := range devFeatures {
			if f.re.MatchString(o.text) {
				x := feats[f.name]
				feats[f.name] = [2]int{x[0] + 1, x[1] + bad}
				any = true
			}
		}
		if !any {
			x := feats["none of these"]
			feats["none of these"] = [2]int{x[0] + 1, x[1] + bad}
		}
	}
	var b strings.Builder
	for _, k := range sortedKeys(errs) {
		fmt.Fprintf(&b, "  %5d tunes: %s\n", errs[k], k)
	}
	for _, k := range sortedKeys(kinds) {
		fmt.Fprintf(&b, "  %5d differences of kind %s\n", kinds[k], k)
	}
	fk := make([]string, 0, len(feats))
	for k := range feats {
		fk = append(fk, k)
	}
	sort.Slice(fk, func(i, j int) bool { return feats[fk[i]][1] > feats[fk[j]][1] })
	for _, k := range fk {
		fmt.Fprintf(&b, "  %5d tunes that differ, %6d notes, with %s\n", feats[k][0], feats[k][1], k)
	}
	return b.String()
}

func sortedKeys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if m[ks[i]] != m[ks[j]] {
			return m[ks[i]] > m[ks[j]]
		}
		return ks[i] < ks[j]
	})
	return ks
}

// devDump returns the tunes that differ, most differing notes first, as one ABC file whose
// second line names each (DEV_CORPUS_DUMP writes it, to study them with other tools).
func devDump(all []devOutcome) string {
	bad := func(o devOutcome) int { return o.res.RefNotes + o.res.OurNotes - o.res.Matched - o.res.Agreeing }
	var xs []devOutcome
	for _, o := range all {
		if o.refused == "" && bad(o) > 0 {
			xs = append(xs, o)
		}
	}
	sort.SliceStable(xs, func(i, j int) bool { return bad(xs[i]) > bad(xs[j]) })
	var b strings.Builder
	for _, o := range xs {
		_, rest, _ := strings.Cut(o.text, "\n")
		fmt.Fprintf(&b, "X:1\nT:%s %d of %d differ\n%s\n", o.id, bad(o), o.res.RefNotes, rest)
	}
	return b.String()
}

// devWorst lists the n tunes with the most notes that differ.
func devWorst(all []devOutcome, n, maxDiffs int) string {
	bad := func(o devOutcome) int { return o.res.RefNotes + o.res.OurNotes - o.res.Matched - o.res.Agreeing }
	var xs []devOutcome
	for _, o := range all {
		if o.refused == "" && (bad(o) > 0 || o.failed != "") {
			xs = append(xs, o)
		}
	}
	sort.SliceStable(xs, func(i, j int) bool { return bad(xs[i]) > bad(xs[j]) })
	var b strings.Builder
	for i, o := range xs {
		if i == n {
			break
		}
		fmt.Fprintf(&b, "  %-40s %6.1f%%  %5d of %5d reference notes differ", o.id, 100*o.res.Agreement(), bad(o), o.res.RefNotes)
		if o.failed != "" {
			fmt.Fprintf(&b, "  (%s)", o.failed)
		}
		b.WriteString("\n")
		for j, d := range o.res.Diffs {
			if j == maxDiffs {
				break
			}
			fmt.Fprintf(&b, "      %s\n", d)
		}
	}
	return b.String()
}
