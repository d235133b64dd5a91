//go:build abc2midi

package abccorpus

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

func needABC2MIDI(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath(ABC2MIDI); err != nil {
		t.Fatalf("the abc2midi build tag needs %s on PATH (Debian package abcmidi): %v", ABC2MIDI, err)
	}
}

// TestReferenceCorpus renders every tune with abc2midi, decodes it, prints a
// summary per tune and checks that the harness agrees with itself: the
// reference against the same file re-encoded by our encoder at another time
// division must agree on every note and on the tempo.
func TestReferenceCorpus(t *testing.T) {
	needABC2MIDI(t)
	tunes, err := Tunes()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	var rep Report
	var summary strings.Builder
	for _, tu := range tunes {
		f, data, err := Reference(ctx, dir, tu)
		if err != nil {
			t.Errorf("%s: %v", tu.ID(), err)
			continue
		}
		info := midi.Inspect(f)
		if info.Notes == 0 {
			t.Errorf("%s: abc2midi output has no notes", tu.ID())
		}
		var bpms []string
		for _, c := range info.TempoMap {
			bpms = append(bpms, strings.TrimRight(strings.TrimRight(strconvF(c.BPM), "0"), "."))
		}
		summary.WriteString(strings.Join([]string{
			pad(tu.ID(), 30),
			"format " + itoa(info.Format), "tracks " + itoa(info.Tracks), "tpq " + itoa(info.TicksPerQuarter),
			"notes " + itoa(info.Notes), "range " + itoa(info.Lowest) + "-" + itoa(info.Highest),
			"bars " + strconvF(info.DurationBars), "secs " + strconvF(info.DurationSeconds),
			"bpm " + strings.Join(bpms, ","),
		}, "  ") + "\n")

		// Byte-level round trip: our encoder with running status reproduces a
		// file our decoder reads back to the same model.
		re, err := midi.EncodeWith(*f, midi.EncodeOptions{RunningStatus: true})
		if err != nil {
			t.Errorf("%s: re-encode: %v", tu.ID(), err)
			continue
		}
		g, err := midi.Decode(re)
		if err != nil {
			t.Errorf("%s: decode re-encoded: %v", tu.ID(), err)
			continue
		}
		if len(re) > len(data) {
			t.Logf("%s: re-encoded %d bytes, abc2midi wrote %d", tu.ID(), len(re), len(data))
		}
		// Rescale to twice the resolution: every tick stays exact.
		scaled := *g
		scaled.TicksPerQuarter *= 2
		scaled.Tracks = nil
		for _, tr := range g.Tracks {
			var nt midi.Track
			for _, e := range tr.Events {
				e.Tick *= 2
				nt.Events = append(nt.Events, e)
			}
			scaled.Tracks = append(scaled.Tracks, nt)
		}
		r := Compare(tu.ID(), SideOf(f), SideOf(&scaled), Options{CompareVelocity: true})
		if r.Agreement() != 1 || !r.TempoAgrees {
			t.Errorf("%s: harness disagrees with itself: %v", tu.ID(), r.Diffs)
		}
		rep.Results = append(rep.Results, r)
	}
	t.Logf("abc2midi %s reference renderings:\n%s", strings.Join(ABC2MIDIArgs, " "), summary.String())
	var buf bytes.Buffer
	if err := rep.Write(&buf, 3); err != nil {
		t.Fatal(err)
	}
	t.Logf("self-comparison through our encoder:\n%s", buf.String())
}

// TestReferenceDeterministic checks that two renderings are byte-identical.
func TestReferenceDeterministic(t *testing.T) {
	needABC2MIDI(t)
	tunes, err := Tunes()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tu := range tunes[:3] {
		_, a, err := Reference(ctx, t.TempDir(), tu)
		if err != nil {
			t.Fatal(err)
		}
		_, b, err := Reference(ctx, t.TempDir(), tu)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: abc2midi output differs between runs", tu.ID())
		}
	}
}

// TestReferenceDetectsChange shows a real difference is reported: the tune
// transposed by our own edit of the decoded notes disagrees.
func TestReferenceDetectsChange(t *testing.T) {
	needABC2MIDI(t)
	tunes, err := Tunes()
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := Reference(context.Background(), t.TempDir(), tunes[0])
	if err != nil {
		t.Fatal(err)
	}
	ref := SideOf(f)
	ours := SideOf(f)
	ours.Notes = append([]midi.Note(nil), ours.Notes...)
	ours.Notes[0].Pitch++
	ours.Notes[1].DurTicks /= 2
	r := Compare(tunes[0].ID(), ref, ours, Options{})
	if r.Agreement() == 1 || len(r.Diffs) != 3 {
		t.Fatalf("changes not reported: %+v", r)
	}
}

// TestABC2MIDIOptions shows that a rendering with notes at their nominal
// times (abc2midi's onsets one tick earlier, durations one tick longer)
// agrees fully under ABC2MIDIOptions and not under exact comparison.
func TestABC2MIDIOptions(t *testing.T) {
	needABC2MIDI(t)
	tunes, err := Tunes()
	if err != nil {
		t.Fatal(err)
	}
	var exact, loose Report
	for _, tu := range tunes {
		f, _, err := Reference(context.Background(), t.TempDir(), tu)
		if err != nil {
			t.Fatal(err)
		}
		ref := SideOf(f)
		nominal := SideOf(f)
		nominal.Notes = append([]midi.Note(nil), nominal.Notes...)
		for i := range nominal.Notes {
			nominal.Notes[i].OnTick--
			nominal.Notes[i].DurTicks++
		}
		exact.Results = append(exact.Results, Compare(tu.ID(), ref, nominal, Options{}))
		r := Compare(tu.ID(), ref, nominal, ABC2MIDIOptions)
		if r.Agreement() != 1 {
			t.Errorf("%s: nominal rendering disagrees under ABC2MIDIOptions: %v", tu.ID(), r.Diffs[:min(3, len(r.Diffs))])
		}
		loose.Results = append(loose.Results, r)
	}
	if a, _ := exact.Overall(); a != 0 {
		t.Errorf("exact comparison agreement %v, want 0", a)
	}
	if a, _ := loose.Overall(); a != 1 {
		t.Errorf("ABC2MIDIOptions agreement %v, want 1", a)
	}
}

// TestReferenceOptionsDiffer compares two real abc2midi renderings that
// differ: the default against one ignoring grace notes (-NGRA). The report
// must list the grace notes as missing and the notes whose onsets and
// durations the graces had borrowed from.
func TestReferenceOptionsDiffer(t *testing.T) {
	needABC2MIDI(t)
	tunes, err := Tunes()
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	for _, tu := range tunes {
		if tu.File != "scotland_the_brave.abc" && tu.File != "amazing_grace.abc" && tu.File != "the_kesh.abc" {
			continue
		}
		ctx := context.Background()
		dir := t.TempDir()
		ref, _, err := Reference(ctx, dir, tu)
		if err != nil {
			t.Fatal(err)
		}
		noGrace, _, err := ReferenceWith(ctx, dir, tu, append([]string{"-NGRA"}, ABC2MIDIArgs...))
		if err != nil {
			t.Fatal(err)
		}
		r := Compare(tu.ID(), SideOf(ref), SideOf(noGrace), ABC2MIDIOptions)
		kinds := map[DiffKind]int{}
		for _, d := range r.Diffs {
			kinds[d.Kind]++
		}
		if tu.File == "the_kesh.abc" {
			if r.Agreement() != 1 {
				t.Errorf("%s has no grace notes but differs: %v", tu.ID(), r.Diffs)
			}
		} else if kinds[DiffMissing] == 0 || r.Agreement() == 1 {
			t.Errorf("%s: grace notes not reported missing: %v", tu.ID(), kinds)
		}
		rep.Results = append(rep.Results, r)
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf, 4); err != nil {
		t.Fatal(err)
	}
	t.Logf("abc2midi default against -NGRA:\n%s", buf.String())
}
