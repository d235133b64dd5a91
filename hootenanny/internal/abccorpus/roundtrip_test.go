//go:build abc2midi

package abccorpus

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
	"github.com/hootenanny/hoot/hootenanny/internal/midiabc"
)

func needMIDI2ABC(t testing.TB) {
	t.Helper()
	needABC2MIDI(t)
	if _, err := exec.LookPath(MIDI2ABC); err != nil {
		t.Fatalf("the abc2midi build tag needs %s on PATH (Debian package abcmidi): %v", MIDI2ABC, err)
	}
}

// midiToABC is midi_to_abc's conversion, drums written (midi2abc keeps them too), so both
// converters are measured on the same notes.
func midiToABC(f *midi.File) (string, error) {
	r, err := midiabc.Convert(f, midiabc.Options{Drums: true})
	if err != nil {
		return "", err
	}
	return r.ABC, nil
}

// roundtripJob is one tune to take round: its ABC file holds it as X:ref.
type roundtripJob struct {
	collection, name string
	text             string
	ref              int
}

// runRoundtrips takes every job round in both converters, over the cores, and returns the
// round trips in job order (a tune abc2midi refuses has an empty Name).
func runRoundtrips(t *testing.T, ctx context.Context, jobs []roundtripJob, args []string) []Roundtrip {
	t.Helper()
	tmp := t.TempDir()
	out := make([]Roundtrip, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				dir := filepath.Join(tmp, strconv.Itoa(i))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Error(err)
					continue
				}
				p := filepath.Join(dir, "tune.abc")
				if err := os.WriteFile(p, []byte(jobs[i].text), 0o644); err != nil {
					t.Error(err)
					continue
				}
				rt, err := RoundtripTune(ctx, dir, jobs[i].name, p, jobs[i].ref, args, midiToABC)
				if err == nil {
					out[i] = rt
				}
				if err := os.RemoveAll(dir); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// MinRoundtrip is the share of notes midi_to_abc must keep over all the tunes of a report and
// in each collection of at least minRoundtripTunes tunes (one odd tune decides a small file's
// figure): it measures 99.88% and 99.72% over the project's tunes, 99.15% to 100% per
// collection of the development corpus.
const MinRoundtrip = 0.99

const minRoundtripTunes = 50

// reportRoundtrips logs a line per collection, both converters side by side, and the tunes
// where midi_to_abc keeps the fewest notes; it fails a collection where midi_to_abc keeps
// fewer notes than midi2abc or fewer than MinRoundtrip, and a tune midiabc cannot write.
func reportRoundtrips(t *testing.T, label string, jobs []roundtripJob, rts []Roundtrip) RoundtripTally {
	t.Helper()
	var cols []string
	per := map[string]*RoundtripTally{}
	for i, rt := range rts {
		c := jobs[i].collection
		if per[c] == nil {
			per[c] = &RoundtripTally{}
			cols = append(cols, c)
		}
		if rt.Name == "" {
			per[c].Skipped++
			continue
		}
		per[c].Add(rt)
		if rt.OurErr != "" {
			t.Errorf("%s: %s: midi_to_abc: %s", label, rt.Name, rt.OurErr)
		}
	}
	var b strings.Builder
	var total RoundtripTally
	for _, c := range cols {
		tl := *per[c]
		total.Merge(tl)
		fmt.Fprintf(&b, "%-40s %s\n", c, tl)
		if tl.Ours.Agreement() < tl.Theirs.Agreement() {
			t.Errorf("%s: %s: midi_to_abc keeps %.2f%% of the notes, midi2abc %.2f%%", label, c, 100*tl.Ours.Agreement(), 100*tl.Theirs.Agreement())
		}
		if tl.Tunes >= minRoundtripTunes && tl.Ours.Agreement() < MinRoundtrip {
			t.Errorf("%s: %s: midi_to_abc keeps %.2f%% of the notes, below the floor of %.0f%%", label, c, 100*tl.Ours.Agreement(), 100*MinRoundtrip)
		}
	}
	fmt.Fprintf(&b, "%-40s %s\n", "all", total)
	t.Logf("%s: ABC -> abc2midi -> (midi2abc | midi_to_abc) -> abc2midi, notes kept (pitch, onset, length):\n%s", label, b.String())

	worst := envInt("ROUNDTRIP_WORST", 5)
	var sorted []Roundtrip
	for _, rt := range rts {
		if rt.Name != "" {
			sorted = append(sorted, rt)
		}
	}
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Ours.Agreement() < sorted[j].Ours.Agreement() })
	var w strings.Builder
	for i := 0; i < worst && i < len(sorted); i++ {
		rt := sorted[i]
		fmt.Fprintf(&w, "%s: midi_to_abc %.1f%%, midi2abc %.1f%%\n", rt.Name, 100*rt.Ours.Agreement(), 100*rt.Theirs.Agreement())
		for k, d := range rt.Ours.Diffs {
			if k == envInt("ROUNDTRIP_DIFFS", 3) {
				break
			}
			fmt.Fprintf(&w, "    %s\n", d)
		}
	}
	t.Logf("%s: the tunes midi_to_abc keeps worst:\n%s", label, w.String())
	if total.Ours.Agreement() < MinRoundtrip {
		t.Errorf("%s: midi_to_abc keeps %.2f%% of the notes, below the floor of %.0f%%", label, 100*total.Ours.Agreement(), 100*MinRoundtrip)
	}
	if total.Ours.Agreement() < total.Theirs.Agreement() {
		t.Errorf("%s: midi_to_abc keeps %.2f%% of the notes, midi2abc %.2f%%", label, 100*total.Ours.Agreement(), 100*total.Theirs.Agreement())
	}
	return total
}

// TestRoundtrip takes every tune of the project's corpus from ABC to MIDI with abc2midi, back
// to ABC with midi2abc and with midiabc.Convert, and to MIDI again, in both of abc2midi's
// playings (with the chord accompaniment, and the melody only), and compares the notes with
// the original MIDI's. midi_to_abc must keep at least as many as midi2abc, per file and in all.
func TestRoundtrip(t *testing.T) {
	needMIDI2ABC(t)
	tunes, err := Tunes()
	if err != nil {
		t.Fatal(err)
	}
	var jobs []roundtripJob
	for _, tu := range tunes {
		jobs = append(jobs, roundtripJob{collection: strings.TrimSuffix(tu.File, ".abc"), name: tu.ID(), text: tu.Text, ref: tu.Ref})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, pl := range devPlayings {
		rts := runRoundtrips(t, ctx, jobs, pl.args)
		reportRoundtrips(t, pl.name, jobs, rts)
	}
}

// TestDevCorpusRoundtrip is TestRoundtrip over a sample of the development corpus
// (DevCorpusDir), in abc2midi's default playing: every tune, or every MIDI_ROUNDTRIP_EVERY-th (1 unless
// set; the whole corpus takes about a minute and a half on two cores) of each collection, counting the tunes of its files in file-name
// order from the first, so the sample is the same on every run. DEV_CORPUS_ONLY=collection
// narrows it.
func TestDevCorpusRoundtrip(t *testing.T) {
	needMIDI2ABC(t)
	files := DevFilesOrSkip(t, " (the project's own tunes are taken round by TestRoundtrip)")
	every := max(1, envInt("MIDI_ROUNDTRIP_EVERY", 1))
	only := os.Getenv("DEV_CORPUS_ONLY")
	var jobs []roundtripJob
	counted := map[string]int{}
	for _, f := range files {
		if only != "" && f.Collection != only {
			continue
		}
		for i, text := range f.Tunes {
			n := counted[f.Collection]
			counted[f.Collection]++
			if n%every != 0 {
				continue
			}
			_, rest, _ := strings.Cut(text, "\n")
			jobs = append(jobs, roundtripJob{collection: f.Collection, name: f.DevTuneID(i), text: "X:1\n" + rest, ref: 1})
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	start := time.Now()
	rts := runRoundtrips(t, ctx, jobs, ABC2MIDIArgs)
	t.Logf("%d tunes (every %d-th) taken round in %s", len(jobs), every, time.Since(start).Round(time.Second))
	reportRoundtrips(t, fmt.Sprintf("development corpus, every %d-th tune, default playing", every), jobs, rts)
}
