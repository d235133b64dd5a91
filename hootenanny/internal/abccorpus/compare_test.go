package abccorpus

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

func tempo(bpmAt ...float64) []midi.TempoChange {
	var out []midi.TempoChange
	for i := 0; i+1 < len(bpmAt); i += 2 {
		u := uint32(math.Round(60e6 / bpmAt[i+1]))
		out = append(out, midi.TempoChange{Tick: int64(bpmAt[i]), MicrosPerQuarter: u, BPM: 60e6 / float64(u)})
	}
	return out
}

func TestCompareIdenticalAcrossResolutions(t *testing.T) {
	ref := Side{TicksPerQuarter: 480, Tempo: tempo(0, 174, 1920, 180), Notes: []midi.Note{
		{Pitch: 60, Velocity: 100, OnTick: 0, DurTicks: 480},
		{Pitch: 62, Velocity: 90, OnTick: 480, DurTicks: 160},
		{Pitch: 64, Velocity: 90, OnTick: 640, DurTicks: 160},
		{Pitch: 67, Channel: 1, Velocity: 80, OnTick: 0, DurTicks: 1920},
	}}
	ours := Side{TicksPerQuarter: 96, Tempo: tempo(0, 174, 384, 180), Notes: []midi.Note{
		{Pitch: 67, Channel: 1, Velocity: 80, OnTick: 0, DurTicks: 384},
		{Pitch: 64, Velocity: 90, OnTick: 128, DurTicks: 32},
		{Pitch: 62, Velocity: 90, OnTick: 96, DurTicks: 32},
		{Pitch: 60, Velocity: 100, OnTick: 0, DurTicks: 96},
	}}
	r := Compare("same", ref, ours, Options{CompareVelocity: true})
	if r.Agreement() != 1 || r.Matched != 4 || !r.TempoAgrees || len(r.Diffs) != 0 || r.TicksPerQuarter != 480 {
		t.Fatalf("%+v", r)
	}
}

func TestCompareDifferences(t *testing.T) {
	ref := Side{TicksPerQuarter: 120, Tempo: tempo(0, 120), Notes: []midi.Note{
		{Pitch: 60, Velocity: 100, OnTick: 0, DurTicks: 120},
		{Pitch: 62, Velocity: 100, OnTick: 120, DurTicks: 120},
		{Pitch: 64, Velocity: 100, OnTick: 240, DurTicks: 120},
		{Pitch: 65, Velocity: 100, OnTick: 360, DurTicks: 120},
		{Pitch: 67, Velocity: 100, OnTick: 480, DurTicks: 120},
	}}
	ours := Side{TicksPerQuarter: 120, Tempo: tempo(0, 100), Notes: []midi.Note{
		{Pitch: 60, Velocity: 100, OnTick: 0, DurTicks: 120},   // agrees
		{Pitch: 62, Velocity: 100, OnTick: 125, DurTicks: 115}, // onset and duration
		{Pitch: 64, Velocity: 50, OnTick: 240, DurTicks: 120},  // velocity
		{Pitch: 65, Channel: 2, Velocity: 100, OnTick: 360, DurTicks: 120},
		{Pitch: 69, Velocity: 100, OnTick: 480, DurTicks: 120}, // wrong pitch: extra + missing
	}}
	r := Compare("diff", ref, ours, Options{PairWindow: 0.25, CompareVelocity: true})
	kinds := map[DiffKind]int{}
	for _, d := range r.Diffs {
		kinds[d.Kind]++
	}
	want := map[DiffKind]int{DiffOnset: 1, DiffDuration: 1, DiffVelocity: 1, DiffChannel: 1, DiffMissing: 1, DiffExtra: 1, DiffTempo: 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%s diffs = %d, want %d (%v)", k, kinds[k], n, r.Diffs)
		}
	}
	if r.Matched != 4 || r.Agreeing != 1 || r.TempoAgrees {
		t.Fatalf("%+v", r)
	}
	if got := r.Agreement(); got != 1.0/6 {
		t.Fatalf("agreement %v", got)
	}
	// Loosening the options makes more notes agree.
	r = Compare("diff", ref, ours, Options{PairWindow: 0.25, DurationTolerance: 0.1, IgnoreChannel: true})
	if r.Agreeing != 3 {
		t.Fatalf("loose: %+v", r)
	}
	r = Compare("diff", ref, ours, Options{OnsetTolerance: 0.05, DurationTolerance: 0.05, IgnoreChannel: true})
	if r.Agreeing != 4 {
		t.Fatalf("loose: %+v", r)
	}
	// With no onset tolerance the late note does not pair.
	r = Compare("diff", ref, ours, Options{})
	if r.Matched != 3 {
		t.Fatalf("strict: %+v", r)
	}
}

func TestCompareFIFOPairing(t *testing.T) {
	// Two notes of the same pitch close together pair with the nearest.
	ref := Side{TicksPerQuarter: 100, Notes: []midi.Note{{Pitch: 60, OnTick: 0, DurTicks: 50}, {Pitch: 60, OnTick: 50, DurTicks: 50}}}
	ours := Side{TicksPerQuarter: 100, Notes: []midi.Note{{Pitch: 60, OnTick: 50, DurTicks: 50}, {Pitch: 60, OnTick: 0, DurTicks: 50}}}
	if r := Compare("x", ref, ours, Options{OnsetTolerance: 1}); r.Agreeing != 2 {
		t.Fatalf("%+v", r)
	}
}

func TestCompareEmpty(t *testing.T) {
	r := Compare("empty", Side{TicksPerQuarter: 96}, Side{TicksPerQuarter: 480}, Options{})
	if r.Agreement() != 1 || !r.TempoAgrees {
		t.Fatalf("%+v", r)
	}
}

func TestReportWrite(t *testing.T) {
	ref := Side{TicksPerQuarter: 96, Notes: []midi.Note{{Pitch: 60, DurTicks: 96}, {Pitch: 62, OnTick: 96, DurTicks: 96}}}
	ours := Side{TicksPerQuarter: 96, Notes: []midi.Note{{Pitch: 60, DurTicks: 96}}}
	rep := Report{Results: []Result{Compare("b", ref, ours, Options{}), Compare("a", ref, ref, Options{})}}
	if agree, tempo := rep.Overall(); agree != 3.0/4 || tempo != 2 {
		t.Fatalf("overall %v %v", agree, tempo)
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf, 5); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, s := range []string{"a ", "100.0%", "b ", "50.0%", "overall: 75.0%", "missing: reference note pitch 62"} {
		if !strings.Contains(out, s) {
			t.Errorf("report lacks %q:\n%s", s, out)
		}
	}
	if strings.Index(out, "a  ") > strings.Index(out, "b  ") {
		t.Errorf("report not sorted by name:\n%s", out)
	}
}

func TestCommonResolution(t *testing.T) {
	for _, c := range []struct{ a, b, want int }{{480, 96, 480}, {480, 384, 1920}, {0, 0, 1}, {32767, 32749, 32767}} {
		if got := commonResolution(c.a, c.b); got != int64(c.want) {
			t.Errorf("commonResolution(%d,%d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestCompareVelocityFigure(t *testing.T) {
	ref := Side{TicksPerQuarter: 96, Notes: []midi.Note{
		{Pitch: 60, Velocity: 105, DurTicks: 96},
		{Pitch: 62, Velocity: 80, OnTick: 96, DurTicks: 96},
		{Pitch: 64, Velocity: 95, OnTick: 192, DurTicks: 96},
		{Pitch: 65, Velocity: 80, OnTick: 288, DurTicks: 96},
	}}
	ours := Side{TicksPerQuarter: 96, Notes: []midi.Note{
		{Pitch: 60, Velocity: 105, DurTicks: 96},
		{Pitch: 62, Velocity: 90, OnTick: 96, DurTicks: 96}, // differs
		{Pitch: 64, Velocity: 95, OnTick: 192, DurTicks: 96},
		{Pitch: 65, OnTick: 288, DurTicks: 96}, // velocity not defined: not compared
	}}
	r := Compare("v", ref, ours, Options{})
	if r.Agreeing != 4 || r.VelocityCompared != 3 || r.VelocityAgreeing != 2 {
		t.Fatalf("%+v", r)
	}
	if got := r.VelocityAgreement(); got != 2.0/3 {
		t.Fatalf("velocity agreement %v", got)
	}
	if len(r.Diffs) != 1 || r.Diffs[0].Kind != DiffVelocity {
		t.Fatalf("diffs %v", r.Diffs)
	}
	// CompareVelocity also counts it against the note agreement.
	if r := Compare("v", ref, ours, Options{CompareVelocity: true}); r.Agreeing != 2 {
		t.Fatalf("%+v", r)
	}
	rep := Report{Results: []Result{r, Compare("same", ref, ref, Options{})}}
	if agree, n := rep.VelocityOverall(); n != 7 || agree != 6.0/7 {
		t.Fatalf("velocity overall %v of %d", agree, n)
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "velocity agrees on 85.7% of 7 paired notes") || !strings.Contains(buf.String(), "velocity   66.7%") {
		t.Errorf("report:\n%s", buf.String())
	}
}

func TestCompareTempoTickTolerance(t *testing.T) {
	ref := Side{TicksPerQuarter: 480, Tempo: tempo(0, 120, 1921, 90)}
	for _, c := range []struct {
		at    float64
		tol   float64
		agree bool
	}{
		{1920, 1.0 / 480, true}, // one tick early: abc2midi's late start
		{1921, 0, true},
		{1920, 0, false},
		{1919, 1.0 / 480, false}, // two ticks
	} {
		ours := Side{TicksPerQuarter: 480, Tempo: tempo(0, 120, c.at, 90)}
		if r := Compare("t", ref, ours, Options{OnsetTolerance: c.tol}); r.TempoAgrees != c.agree {
			t.Errorf("tempo change at %v with tolerance %v: agrees %v, want %v (%v)", c.at, c.tol, r.TempoAgrees, c.agree, r.Diffs)
		}
	}
}

func TestCompareTempoReplacedAtTheStart(t *testing.T) {
	// A tempo that lasts no more than the tick tolerance at the start is not a difference:
	// abc2midi writes a header Q: at tick 1 in a tune with a header P:.
	ours := Side{TicksPerQuarter: 480, Tempo: tempo(0, 200)}
	for _, c := range []struct {
		ref   []midi.TempoChange
		tol   float64
		agree bool
	}{
		{tempo(0, 120, 1, 200), 1.0 / 480, true},
		{tempo(0, 120, 1, 200), 0, false},
		{tempo(0, 120, 2, 200), 1.0 / 480, false},
		{tempo(0, 120, 1, 180), 1.0 / 480, false},
	} {
		if r := Compare("t", Side{TicksPerQuarter: 480, Tempo: c.ref}, ours, Options{OnsetTolerance: c.tol}); r.TempoAgrees != c.agree {
			t.Errorf("reference %v with tolerance %v: agrees %v, want %v (%v)", c.ref, c.tol, r.TempoAgrees, c.agree, r.Diffs)
		}
	}
}
