package abccorpus

import (
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// Side is one rendering of a tune: its notes, its time division and its
// tempo map.
type Side struct {
	Notes           []midi.Note
	TicksPerQuarter int
	Tempo           []midi.TempoChange
}

// SideOf extracts the notes and tempo map of a decoded file.
func SideOf(f *midi.File) Side {
	return Side{Notes: midi.NoteEvents(f), TicksPerQuarter: f.TicksPerQuarter, Tempo: midi.TempoMap(f)}
}

// ABC2MIDIOptions suit comparing against abc2midi's output: abc2midi
// (4.84, at 480 ticks per quarter) starts every note, and every mid-tune
// tempo change, one tick late and ends notes on time, so onsets, durations
// and tempo change ticks within one of its ticks agree; notes up to a
// sixteenth apart still pair so near misses show as onset differences.
// Velocity is counted separately (Result.VelocityAgreement), not in the note
// agreement.
var ABC2MIDIOptions = Options{OnsetTolerance: 1.0 / 480, DurationTolerance: 1.0 / 480, PairWindow: 0.25}

// Options tunes Compare. The zero value compares pitch, onset, duration and
// channel exactly, and velocity only for its own figure.
type Options struct {
	// OnsetTolerance and DurationTolerance are in quarter notes: paired
	// notes whose onsets (durations) differ by no more still agree. Tempo
	// changes whose ticks differ by no more than OnsetTolerance agree too.
	OnsetTolerance    float64
	DurationTolerance float64
	// PairWindow, in quarter notes, is how far apart two onsets may be for
	// the notes to pair at all (reported as an onset difference when beyond
	// OnsetTolerance); it is never less than OnsetTolerance.
	PairWindow float64
	// IgnoreChannel stops channel differences from counting.
	IgnoreChannel bool
	// CompareVelocity makes velocity differences count in the note
	// agreement as well as in the velocity figure.
	CompareVelocity bool
	// TempoTolerance is the relative bpm difference accepted (0.001 when
	// zero), absorbing the rounding to whole microseconds per quarter.
	TempoTolerance float64
}

// DiffKind classifies a difference.
type DiffKind string

// Difference kinds.
const (
	DiffMissing  DiffKind = "missing"  // in the reference, not in ours
	DiffExtra    DiffKind = "extra"    // in ours, not in the reference
	DiffOnset    DiffKind = "onset"    // paired, onsets differ beyond tolerance
	DiffDuration DiffKind = "duration" // paired, durations differ
	DiffChannel  DiffKind = "channel"  // paired, channels differ
	DiffVelocity DiffKind = "velocity" // paired, velocities differ
	DiffTempo    DiffKind = "tempo"    // tempo maps differ
)

// Diff is one difference. Ref and Ours are set when the side has the note;
// ticks in Detail are in the common resolution of the Result.
type Diff struct {
	Kind   DiffKind
	Ref    *midi.Note
	Ours   *midi.Note
	Detail string
}

func (d Diff) String() string { return fmt.Sprintf("%s: %s", d.Kind, d.Detail) }

// Result is the comparison of one tune.
type Result struct {
	Name string
	// TicksPerQuarter is the common resolution both sides were scaled to.
	TicksPerQuarter int
	RefNotes        int
	OurNotes        int
	// Matched notes were paired by pitch and onset; Agreeing ones also agree
	// in onset, duration and channel (and velocity with CompareVelocity).
	Matched  int
	Agreeing int
	// VelocityCompared counts the pairs whose velocities both sides define
	// (above 0); VelocityAgreeing those of them with equal velocities.
	VelocityCompared int
	VelocityAgreeing int
	// TempoAgrees reports whether the tempo maps agree.
	TempoAgrees bool
	Diffs       []Diff
}

// Agreement is the share of notes on which both sides agree: agreeing
// pairs over the union of both note sets (1 when both are empty).
func (r Result) Agreement() float64 {
	union := r.RefNotes + r.OurNotes - r.Matched
	if union == 0 {
		return 1
	}
	return float64(r.Agreeing) / float64(union)
}

// VelocityAgreement is the share of compared pairs with equal velocities
// (1 when none were compared).
func (r Result) VelocityAgreement() float64 {
	if r.VelocityCompared == 0 {
		return 1
	}
	return float64(r.VelocityAgreeing) / float64(r.VelocityCompared)
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// commonResolution returns a resolution both time divisions scale to
// exactly (their least common multiple), or the larger one if that would
// be unreasonably fine.
func commonResolution(a, b int) int64 {
	if a <= 0 {
		a = 1
	}
	if b <= 0 {
		b = 1
	}
	l := int64(a) / gcd(int64(a), int64(b)) * int64(b)
	if l > 1<<20 {
		return int64(max(a, b))
	}
	return l
}

func scale(t int64, from int, to int64) int64 {
	if from <= 0 {
		from = 1
	}
	if to%int64(from) == 0 {
		return t * (to / int64(from))
	}
	return int64(math.Round(float64(t) * float64(to) / float64(from)))
}

// Compare pairs the notes of a reference rendering with ours and reports
// every difference. Notes pair when their pitches are equal and their onsets
// within OnsetTolerance, each reference note (in onset order) taking the
// closest unused note of ours, preferring the same channel and then the
// closer duration. A pair agrees when onsets and durations are within their
// tolerances and channel (and, if asked, velocity) are equal. Velocities are
// compared on every pair where both are above 0 and counted on their own
// (VelocityCompared, VelocityAgreeing); a difference is listed as a Diff
// either way. Ticks are first scaled to a common resolution so files with
// different time divisions compare directly. Tracks are not compared.
func Compare(name string, ref, ours Side, opts Options) Result {
	res := Result{Name: name, RefNotes: len(ref.Notes), OurNotes: len(ours.Notes)}
	res.TicksPerQuarter = int(commonResolution(ref.TicksPerQuarter, ours.TicksPerQuarter))
	tpq := int64(res.TicksPerQuarter)
	norm := func(s Side) []midi.Note {
		out := make([]midi.Note, len(s.Notes))
		for i, n := range s.Notes {
			n.OnTick = scale(n.OnTick, s.TicksPerQuarter, tpq)
			n.DurTicks = scale(n.DurTicks, s.TicksPerQuarter, tpq)
			out[i] = n
		}
		midi.SortNotes(out)
		return out
	}
	rn, on := norm(ref), norm(ours)
	onTol := int64(math.Round(opts.OnsetTolerance * float64(tpq)))
	window := max(onTol, int64(math.Round(opts.PairWindow*float64(tpq))))
	durTol := int64(math.Round(opts.DurationTolerance * float64(tpq)))

	byPitch := map[int][]int{}
	for i, n := range on {
		byPitch[n.Pitch] = append(byPitch[n.Pitch], i)
	}
	used := make([]bool, len(on))
	abs := func(v int64) int64 {
		if v < 0 {
			return -v
		}
		return v
	}
	for i := range rn {
		r := &rn[i]
		best := -1
		var bestKey [3]int64
		for _, j := range byPitch[r.Pitch] {
			if used[j] {
				continue
			}
			d := abs(on[j].OnTick - r.OnTick)
			if d > window {
				continue
			}
			ch := int64(0)
			if on[j].Channel != r.Channel {
				ch = 1
			}
			key := [3]int64{d, ch, abs(on[j].DurTicks - r.DurTicks)}
			if best < 0 || less3(key, bestKey) {
				best, bestKey = j, key
			}
		}
		if best < 0 {
			res.Diffs = append(res.Diffs, Diff{Kind: DiffMissing, Ref: r, Detail: fmt.Sprintf("reference note %s not in ours", noteString(*r))})
			continue
		}
		used[best] = true
		res.Matched++
		o := &on[best]
		agree := true
		if abs(o.OnTick-r.OnTick) > onTol {
			agree = false
			res.Diffs = append(res.Diffs, Diff{Kind: DiffOnset, Ref: r, Ours: o, Detail: fmt.Sprintf("pitch %d onset %d, ours %d", r.Pitch, r.OnTick, o.OnTick)})
		}
		if abs(o.DurTicks-r.DurTicks) > durTol {
			agree = false
			res.Diffs = append(res.Diffs, Diff{Kind: DiffDuration, Ref: r, Ours: o, Detail: fmt.Sprintf("pitch %d at %d lasts %d, ours %d", r.Pitch, r.OnTick, r.DurTicks, o.DurTicks)})
		}
		if !opts.IgnoreChannel && o.Channel != r.Channel {
			agree = false
			res.Diffs = append(res.Diffs, Diff{Kind: DiffChannel, Ref: r, Ours: o, Detail: fmt.Sprintf("pitch %d at %d on channel %d, ours %d", r.Pitch, r.OnTick, r.Channel, o.Channel)})
		}
		if o.Velocity > 0 && r.Velocity > 0 {
			res.VelocityCompared++
			if o.Velocity == r.Velocity {
				res.VelocityAgreeing++
			}
		}
		if (opts.CompareVelocity || o.Velocity > 0 && r.Velocity > 0) && o.Velocity != r.Velocity {
			if opts.CompareVelocity {
				agree = false
			}
			res.Diffs = append(res.Diffs, Diff{Kind: DiffVelocity, Ref: r, Ours: o, Detail: fmt.Sprintf("pitch %d at %d velocity %d, ours %d", r.Pitch, r.OnTick, r.Velocity, o.Velocity)})
		}
		if agree {
			res.Agreeing++
		}
	}
	for j := range on {
		if !used[j] {
			res.Diffs = append(res.Diffs, Diff{Kind: DiffExtra, Ours: &on[j], Detail: fmt.Sprintf("our note %s not in the reference", noteString(on[j]))})
		}
	}
	tdiffs := compareTempo(ref, ours, tpq, onTol, opts)
	res.TempoAgrees = len(tdiffs) == 0
	res.Diffs = append(res.Diffs, tdiffs...)
	return res
}

func less3(a, b [3]int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func noteString(n midi.Note) string {
	return fmt.Sprintf("pitch %d ch %d on %d dur %d vel %d", n.Pitch, n.Channel, n.OnTick, n.DurTicks, n.Velocity)
}

// effectiveTempo drops changes that do not change the tempo, so redundant
// tempo events do not count as differences, and a tempo replaced within the
// first tickTol ticks (abc2midi writes a header Q: one tick in, in a tune
// with a header P:, over a 120 bpm start that lasts no audible time).
func effectiveTempo(m []midi.TempoChange, from int, tpq, tickTol int64) []midi.TempoChange {
	var out []midi.TempoChange
	for _, c := range m {
		c.Tick = scale(c.Tick, from, tpq)
		if len(out) == 1 && c.Tick <= tickTol {
			out = out[:0]
		}
		if n := len(out); n > 0 && out[n-1].MicrosPerQuarter == c.MicrosPerQuarter {
			continue
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		out = []midi.TempoChange{{MicrosPerQuarter: midi.DefaultMicrosPerQuarter, BPM: 120}}
	}
	return out
}

// compareTempo compares the effective tempo maps change by change: ticks
// within tickTol and bpm within the relative TempoTolerance agree.
func compareTempo(ref, ours Side, tpq, tickTol int64, opts Options) []Diff {
	tol := opts.TempoTolerance
	if tol == 0 {
		tol = 0.001
	}
	a := effectiveTempo(ref.Tempo, ref.TicksPerQuarter, tpq, tickTol)
	b := effectiveTempo(ours.Tempo, ours.TicksPerQuarter, tpq, tickTol)
	var diffs []Diff
	for i := 0; i < max(len(a), len(b)); i++ {
		switch {
		case i >= len(a):
			diffs = append(diffs, Diff{Kind: DiffTempo, Detail: fmt.Sprintf("ours changes to %.3f bpm at %d, the reference does not", b[i].BPM, b[i].Tick)})
		case i >= len(b):
			diffs = append(diffs, Diff{Kind: DiffTempo, Detail: fmt.Sprintf("the reference changes to %.3f bpm at %d, ours does not", a[i].BPM, a[i].Tick)})
		case max(a[i].Tick-b[i].Tick, b[i].Tick-a[i].Tick) > tickTol || math.Abs(a[i].BPM-b[i].BPM) > tol*a[i].BPM:
			diffs = append(diffs, Diff{Kind: DiffTempo, Detail: fmt.Sprintf("reference %.3f bpm at %d, ours %.3f bpm at %d", a[i].BPM, a[i].Tick, b[i].BPM, b[i].Tick)})
		}
	}
	return diffs
}

// Report gathers the results of a corpus run.
type Report struct {
	Results []Result
}

// Overall sums the note counts over all tunes and returns the agreement over
// all notes and the number of tunes whose tempo maps agree (see also
// VelocityOverall).
func (r Report) Overall() (agreement float64, tempoAgrees int) {
	var sum Result
	for _, x := range r.Results {
		sum.RefNotes += x.RefNotes
		sum.OurNotes += x.OurNotes
		sum.Matched += x.Matched
		sum.Agreeing += x.Agreeing
		if x.TempoAgrees {
			tempoAgrees++
		}
	}
	return sum.Agreement(), tempoAgrees
}

// VelocityOverall sums the velocity counts over all tunes: the share of
// compared pairs with equal velocities, and how many pairs were compared.
func (r Report) VelocityOverall() (agreement float64, compared int) {
	var sum Result
	for _, x := range r.Results {
		sum.VelocityCompared += x.VelocityCompared
		sum.VelocityAgreeing += x.VelocityAgreeing
	}
	return sum.VelocityAgreement(), sum.VelocityCompared
}

// Write prints one line per tune, then the overall agreement, then up to
// maxDiffs differences per tune (none when maxDiffs is 0).
func (r Report) Write(w io.Writer, maxDiffs int) error {
	res := append([]Result(nil), r.Results...)
	sort.SliceStable(res, func(i, j int) bool { return res[i].Name < res[j].Name })
	for _, x := range res {
		tempo := "tempo agrees"
		if !x.TempoAgrees {
			tempo = "tempo differs"
		}
		if _, err := fmt.Fprintf(w, "%-32s %6.1f%%  ref %4d  ours %4d  matched %4d  agreeing %4d  velocity %6.1f%%  %s\n",
			x.Name, 100*x.Agreement(), x.RefNotes, x.OurNotes, x.Matched, x.Agreeing, 100*x.VelocityAgreement(), tempo); err != nil {
			return err
		}
	}
	agree, tempo := r.Overall()
	vagree, vn := r.VelocityOverall()
	if _, err := fmt.Fprintf(w, "overall: %.1f%% of notes agree; velocity agrees on %.1f%% of %d paired notes; tempo agrees in %d of %d tunes\n",
		100*agree, 100*vagree, vn, tempo, len(res)); err != nil {
		return err
	}
	for _, x := range res {
		for i, d := range x.Diffs {
			if i == maxDiffs {
				if _, err := fmt.Fprintf(w, "  %s: ... %d more\n", x.Name, len(x.Diffs)-i); err != nil {
					return err
				}
				break
			}
			if _, err := fmt.Fprintf(w, "  %s: %s\n", x.Name, d); err != nil {
				return err
			}
		}
	}
	return nil
}
