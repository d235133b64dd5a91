package analysis

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/abccorpus"
	"github.com/hootenanny/hoot/hootenanny/internal/abcmidi"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// devTexts are the tunes of the development corpus (shared/corpora/abc-music21), by collection;
// the test skips where the corpus is absent, and in -short runs.
func devTexts(t *testing.T) []tuneText {
	t.Helper()
	if testing.Short() {
		t.Skip("the development corpus takes a while: run without -short (make analyze-corpus)")
	}
	files := abccorpus.DevFilesOrSkip(t, " (the project's settings are measured by TestCorpusKeys)")
	var out []tuneText
	for _, f := range files {
		for i, src := range f.Tunes {
			out = append(out, tuneText{id: f.DevTuneID(i), collection: f.Collection, text: src})
		}
	}
	return out
}

// baselineKey is the plain Krumhansl-Kessler key: the major or minor key whose profile
// correlates best with the duration-weighted pitch-class histogram, with nothing else. It is
// written out here, apart from the analysis, so that the baseline stays put while the analysis
// changes.
func baselineKey(hist [12]float64) (tonic int, mode string) {
	best := -2.0
	for k := range 12 {
		for _, m := range []struct {
			name    string
			profile [12]float64
		}{{"major", kkMajor}, {"minor", kkMinor}} {
			if c := correlate(hist, m.profile, k); c > best {
				best, tonic, mode = c, k, m.name
			}
		}
	}
	return tonic, mode
}

// keyTally counts one rendering of one collection. K: says different things in different
// collections (see labelOf): tonic counts the tunes whose K: names the tonic, family those whose
// K: names the mode as well, and do the tunes whose K: names the do of a pentatonic scale.
type keyTally struct {
	tonicN, tonic, baseTonic    int
	familyN, family, baseFamily int
	exact                       int
	doN, do, baseDo             int
	wrong                       []string
	// causes counts the tonic misses by what the tune shows (missCause).
	causes map[string]int
}

func (k *keyTally) add(o keyTally) {
	k.tonicN += o.tonicN
	k.tonic += o.tonic
	k.baseTonic += o.baseTonic
	k.familyN += o.familyN
	k.family += o.family
	k.baseFamily += o.baseFamily
	k.exact += o.exact
	k.doN += o.doN
	k.do += o.do
	k.baseDo += o.baseDo
	for c, n := range o.causes {
		if k.causes == nil {
			k.causes = map[string]int{}
		}
		k.causes[c] += n
	}
}

// keyRun is the key measurement of a corpus: per collection, with and without accompaniment.
type keyRun struct {
	collections []string
	acc, mel    map[string]*keyTally
	skipped     map[string]int // why a tune was not measured: count
}

// What a K: field tells, by collection.
const (
	labelKey   = iota // the tonic and the mode (K:G is G major, K:Ador A dorian)
	labelTonic        // the tonic alone: the Essen collection's K: is the tonic letter, and its notes carry their accidentals (K:G over a tune in G minor)
	labelDo           // the do of a pentatonic scale: the Essen collection's Chinese songs (han) write K:G over a tune that ends on E
)

// labelOf says what tu's K: tells, and the row it is counted in.
func labelOf(tu tuneText, k abc.Key) (int, string) {
	if tu.collection != "essenFolksong" {
		return labelKey, tu.collection
	}
	if strings.HasPrefix(tu.id, "essenFolksong/han") {
		return labelDo, "essenFolksong/han"
	}
	if strings.TrimLeft(strings.TrimSpace(k.Text), "ABCDEFGb#") != "" {
		return labelKey, "essenFolksong"
	}
	return labelTonic, "essenFolksong"
}

// measureKeys converts each tune with a tonic in K: to MIDI, with the accompaniment its chord
// symbols give and without, and compares the analysis's key (its modal reading: tonic and mode)
// and the plain Krumhansl-Kessler baseline with what K: tells.
func measureKeys(t *testing.T, tunes []tuneText) *keyRun {
	t.Helper()
	run := &keyRun{acc: map[string]*keyTally{}, mel: map[string]*keyTally{}, skipped: map[string]int{}}
	for _, tu := range tunes {
		book, _ := abc.Parse(tu.text, abc.Options{})
		if len(book.Tunes) != 1 {
			run.skipped["no tune, or several"]++
			continue
		}
		tune := book.Tunes[0]
		k := tune.Header.Key
		if k.None || k.Highland || k.Tonic == 0 {
			run.skipped["K: without a tonic (none, HP, absent)"]++
			continue
		}
		tonic := (letterPC[k.Tonic-'A'] + k.TonicAcc.Semitones() + 12) % 12
		mode := k.Mode.String()
		label, row := labelOf(tu, k)
		if _, ok := run.acc[row]; !ok {
			run.collections = append(run.collections, row)
			run.acc[row], run.mel[row] = &keyTally{causes: map[string]int{}}, &keyTally{causes: map[string]int{}}
		}
		for _, melody := range []bool{false, true} {
			f, err := abcmidi.Convert(tune, abcmidi.Options{
				Voices: abcmidi.MIDIDirectives(tu.text, tune), Directives: abcmidi.Directives(tu.text, tune), MelodyOnly: melody,
			})
			if err != nil {
				if !melody {
					run.skipped["the converter refuses it: "+firstWords(err.Error())]++
				}
				break
			}
			r, err := Analyze(f, Options{MaxChords: 1})
			if err != nil {
				run.skipped["the analysis refuses it"]++
				break
			}
			if r.Notes == 0 {
				if !melody {
					run.skipped["no notes"]++
				}
				break
			}
			tally := run.acc[row]
			if melody {
				tally = run.mel[row]
			}
			bt, bm := baselineKey(r.Histogram)
			got := r.Modal
			if label == labelDo {
				tally.doN++
				if got.parentMajor() == tonic {
					tally.do++
				}
				if (Key{Tonic: bt, Mode: bm}).parentMajor() == tonic {
					tally.baseDo++
				}
				continue
			}
			tally.tonicN++
			if bt == tonic {
				tally.baseTonic++
			}
			ok := got.Tonic == tonic
			if ok {
				tally.tonic++
			} else {
				tally.causes[missCause(tu.text, f, tonic, got.Tonic)]++
			}
			if label == labelKey {
				tally.familyN++
				if bm == family(mode) {
					tally.baseFamily++
				}
				if family(got.Mode) == family(mode) {
					tally.family++
				} else {
					ok = false
				}
				if got.Tonic == tonic && got.Mode == mode {
					tally.exact++
				}
			}
			if !ok && len(tally.wrong) < 12 {
				tally.wrong = append(tally.wrong, fmt.Sprintf("%-34s K:%-6s found %s (baseline %s %s)",
					tu.id, k.Text, got.Name(), sharpNames[bt], bm))
			}
		}
	}
	return run
}

// The causes of a tonic miss, as missCause tells them.
const (
	causeGoesBack = "the notation goes back (D.C., D.S., Fine, segno, coda): the file does not end where the tune does"
	causeOtherKey = "ends and opens (or has its first downbeat) on the tonic found, neither K:'s fifth nor its third: K: at odds with the notes"
	causeEndsOff  = "ends off K:'s tonic otherwise (on its fifth or third, a half close or a fragment; or opens elsewhere): ambiguous"
	causeEstimate = "ends on K:'s tonic, read otherwise: the estimate's error"
)

// goesBack finds the directions that send the player back (D.C., D.S., Fine, a segno or a coda)
// in a tune's annotations or decorations.
var goesBack = regexp.MustCompile(`["!][^"!\n]*(D\.\s?C\b|D\.\s?S\b|\b[Ff]ine\b|[Ss]egno|SEGNO|[Cc]oda|[Dd]a [Cc]apo)[^"!\n]*["!]`)

// missCause says why the tonic found (found) is not K:'s (tonic), from what the tune shows:
// its notation, its final (the lowest note of the last onset), its opening (the lowest note of
// the first onset, or on the first downbeat) and how far the final lies from K:'s tonic. The
// rules read K: and the text, which the analysis never does; they sort the misses, they do not
// judge them one by one.
func missCause(text string, f *midi.File, tonic, found int) string {
	if goesBack.MatchString(text) {
		return causeGoesBack
	}
	tpq := int64(f.TicksPerQuarter)
	if tpq <= 0 {
		tpq = 480
	}
	var pitched []midi.Note
	for _, n := range midi.NoteEvents(f) {
		if n.Channel != drumChannel {
			pitched = append(pitched, n)
		}
	}
	m, phase := meter(midi.Inspect(f).TimeSignatures, pitched, tpq)
	c := cuesOf(pitched, tpq, barTicks(m, tpq), phase, musicEnd(f))
	switch {
	case c.Final == tonic:
		return causeEstimate
	case c.Final == found && (c.Opening == found || c.FirstDownbeat == found):
		// Ending on K:'s fifth or third is a half close or a fragment, whatever the opening.
		if iv := (found - tonic + 12) % 12; iv != 7 && iv != 3 && iv != 4 {
			return causeOtherKey
		}
	}
	return causeEndsOff
}

func firstWords(s string) string {
	s = strings.TrimPrefix(s, "abcmidi: ")
	if i := strings.IndexAny(s, "0123456789\"("); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// report logs the figures and returns the totals with and without accompaniment.
func (run *keyRun) report(t *testing.T, name string) (acc, mel keyTally) {
	t.Helper()
	pct := func(k, n int) string {
		if n == 0 {
			return "     -"
		}
		return fmt.Sprintf("%5.1f%%", 100*float64(k)/float64(n))
	}
	t.Logf("key against K: over %s: the analysis (modal reading) and, in brackets, the plain Krumhansl-Kessler baseline", name)
	t.Logf("  %-18s %-12s %6s %-16s %6s %-16s %-6s %6s %s", "collection", "rendering", "tunes", "tonic", "tunes", "family", "mode", "tunes", "do of the scale")
	line := func(c, r string, k keyTally) {
		t.Logf("  %-18s %-12s %6d %s (%s) %6d %s (%s) %s %6d %s (%s)", c, r,
			k.tonicN, pct(k.tonic, k.tonicN), pct(k.baseTonic, k.tonicN),
			k.familyN, pct(k.family, k.familyN), pct(k.baseFamily, k.familyN), pct(k.exact, k.familyN),
			k.doN, pct(k.do, k.doN), pct(k.baseDo, k.doN))
	}
	for _, c := range run.collections {
		line(c, "accompanied", *run.acc[c])
		line(c, "melody only", *run.mel[c])
		acc.add(*run.acc[c])
		mel.add(*run.mel[c])
	}
	line("all", "accompanied", acc)
	line("all", "melody only", mel)
	var why []string
	for k, v := range run.skipped {
		why = append(why, fmt.Sprintf("%d: %s", v, k))
	}
	sort.Strings(why)
	t.Logf("  not measured: %s", strings.Join(why, "; "))
	t.Logf("  the tonic's misses by cause, melody only (%d; the rules in missCause):", mel.tonicN-mel.tonic)
	for _, cause := range []string{causeGoesBack, causeOtherKey, causeEndsOff, causeEstimate} {
		var per []string
		for _, c := range run.collections {
			if n := run.mel[c].causes[cause]; n > 0 {
				per = append(per, fmt.Sprintf("%s %d", c, n))
			}
		}
		t.Logf("    %5d %s (%s)", mel.causes[cause], cause, strings.Join(per, ", "))
	}
	for _, c := range run.collections {
		if w := run.mel[c].wrong; len(w) > 0 {
			t.Logf("  first misses in %s, melody only:\n    %s", c, strings.Join(w, "\n    "))
		}
	}
	return acc, mel
}

// TestCorpusDevKeys measures the key over the development corpus (make analyze-corpus), per
// collection, with the accompaniment and without, beside the plain Krumhansl-Kessler baseline.
// The target was the tonic and the major/minor family each right for 95% of the tunes; the
// family reaches it, the tonic does not (docs/decisions.md says how far and why), and the
// floors sit a little under what the analysis reaches, so that a change that loses more fails.
func TestCorpusDevKeys(t *testing.T) {
	t.Parallel()
	run := measureKeys(t, devTexts(t))
	acc, mel := run.report(t, "the development corpus")
	if acc.tonicN < 10000 {
		t.Fatalf("only %d tunes measured", acc.tonicN)
	}
	floor := func(name string, k, n int, share float64) {
		if float64(k) < share*float64(n) {
			t.Errorf("%s right for %d of %d, below the floor of %.1f%%", name, k, n, 100*share)
		}
	}
	for _, r := range []struct {
		name string
		k    keyTally
	}{{"accompanied", acc}, {"melody only", mel}} {
		floor(r.name+": tonic", r.k.tonic, r.k.tonicN, floorTonic)
		floor(r.name+": family", r.k.family, r.k.familyN, floorFamily)
		floor(r.name+": do of the scale", r.k.do, r.k.doN, floorDo)
		// The analysis must stay ahead of the baseline it improves on.
		if r.k.tonic <= r.k.baseTonic || r.k.family <= r.k.baseFamily {
			t.Errorf("%s: the analysis (tonic %d, family %d) is not ahead of the baseline (%d, %d)",
				r.name, r.k.tonic, r.k.family, r.k.baseTonic, r.k.baseFamily)
		}
	}
}

// TestCorpusDevMeter measures the meter estimated from onsets alone over the development
// corpus, per collection: the time signature events removed, the estimate compared with M:
// (tunes with M:none have nothing to compare). With the time signature event in the file, the
// analysis reports it as written.
func TestCorpusDevMeter(t *testing.T) {
	t.Parallel()
	tunes := devTexts(t)
	type tally struct{ measured, right int }
	per := map[string]*tally{}
	var order []string
	for _, tu := range tunes {
		book, _ := abc.Parse(tu.text, abc.Options{})
		if len(book.Tunes) != 1 {
			continue
		}
		tune := book.Tunes[0]
		f, err := abcmidi.Convert(tune, abcmidi.Options{MelodyOnly: true, Voices: abcmidi.MIDIDirectives(tu.text, tune)})
		if err != nil {
			continue
		}
		num, den, stripped := stripMeter(f)
		if num == 0 {
			continue
		}
		r, err := Analyze(stripped, Options{MaxChords: 1})
		if err != nil || r.Notes == 0 {
			continue
		}
		if per[tu.collection] == nil {
			per[tu.collection] = &tally{}
			order = append(order, tu.collection)
		}
		c := per[tu.collection]
		c.measured++
		if sameMeter(num, den, r.Meter) {
			c.right++
		}
	}
	var all tally
	for _, c := range order {
		t.Logf("meter from onsets alone, %-16s %d/%d = %.1f%%", c, per[c].right, per[c].measured, 100*float64(per[c].right)/float64(per[c].measured))
		all.measured += per[c].measured
		all.right += per[c].right
	}
	t.Logf("meter from onsets alone, all: %d/%d = %.1f%% (2/4, 4/4 and 2/2 counted alike)", all.right, all.measured, 100*float64(all.right)/float64(max(all.measured, 1)))
	if all.measured < 10000 {
		t.Fatalf("only %d tunes measured", all.measured)
	}
	// The floor sits a point under what the estimate reaches today (81.1% of 12,724 tunes).
	if float64(all.right) < 0.80*float64(all.measured) {
		t.Errorf("meter estimated right for %d of %d tunes, below the floor of 80%%", all.right, all.measured)
	}
}

// stripMeter removes f's time signature events, returning the first one's numerator and
// denominator (0 when there is none).
func stripMeter(f *midi.File) (num, den int, out *midi.File) {
	out = &midi.File{Format: f.Format, TicksPerQuarter: f.TicksPerQuarter}
	for _, tr := range f.Tracks {
		var evs []midi.Event
		for _, e := range tr.Events {
			if n, d, _, _, ok := e.TimeSignatureValue(); ok {
				if num == 0 {
					num, den = n, d
				}
				continue
			}
			evs = append(evs, e)
		}
		out.Tracks = append(out.Tracks, midi.Track{Events: evs})
	}
	return num, den, out
}

// sameMeter compares an estimate with M:, counting 2/4, 4/4 and 2/2 alike (they differ in
// notation more than in sound), as TestCorpusMeterEstimate does.
func sameMeter(num, den int, m Meter) bool {
	return m.Numerator*den == num*m.Denominator ||
		(num*4/den)%2 == 0 && m.Denominator == 4 && m.Numerator%2 == 0 && (num*4/den) <= 4
}

// TestCorpusDevChordSymbols measures the chords named against the chord symbols written in the
// development corpus, per collection that has enough of them to measure. None has today: the
// quoted text of these collections is directions ("Animated", "D.C."), credits ("Collected by
// F. O'Neill") and fingerings; miscFolk's few capitals ("A", "B", "C") are section letters, not
// chords. The chords are measured on the project's settings (TestCorpusChordSymbols).
func TestCorpusDevChordSymbols(t *testing.T) {
	t.Parallel()
	tunes := devTexts(t)
	by := map[string][]tuneText{}
	var order []string
	for _, tu := range tunes {
		if by[tu.collection] == nil {
			order = append(order, tu.collection)
		}
		by[tu.collection] = append(by[tu.collection], tu)
	}
	const enough = 20 // tunes with named chord symbols
	for _, c := range order {
		acc := measureChordsOf(t, by[c], false, true)
		if acc.tunes < enough {
			t.Logf("%s: %d of %d tunes have chord symbols, too few to measure", c, acc.tunes, len(by[c]))
			continue
		}
		acc.report(t, c+", accompanied")
		measureChordsOf(t, by[c], true, true).report(t, c+", melody only")
	}
}

// The floors of TestCorpusDevKeys, a little under what the analysis reaches on the development
// corpus (with the accompaniment; melody only is a little higher): the tonic 95.00% over
// 11,721 tunes, the family 95.9% over 4,445, the do of the scale 88.4% over 1,224. The tonic misses by
// cause are in the test's log; most of them are the labels' and the endings', not the
// estimate's (docs/decisions.md, "Key: the ending, the phrases and a prior on the modes",
// "Key: where a tune that goes back ends" and "Key: the tonic is seldom reached by a rising
// tone").
const (
	floorTonic  = 0.949
	floorFamily = 0.956
	floorDo     = 0.88
)
