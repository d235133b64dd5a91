package analysis

import (
	"math"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// meterCandidates are the meters an estimate chooses among, in order of preference on a tie.
var meterCandidates = []Meter{
	{Numerator: 4, Denominator: 4}, {Numerator: 3, Denominator: 4}, {Numerator: 2, Denominator: 4},
	{Numerator: 6, Denominator: 8}, {Numerator: 9, Denominator: 8}, {Numerator: 12, Denominator: 8},
}

// maxGrid bounds the sixteenth-note grid an estimate of the meter weighs: 2^18 steps, 16384
// bars of 4/4.
const maxGrid = 1 << 18

// minMeterNotes is the fewest notes an estimate of the meter is made from.
const minMeterNotes = 8

// meter returns the file's first time signature when it has one at its start. Without one it
// estimates the meter from the note onsets, and returns with it the tick of the first downbeat.
//
// The estimate: each onset is weighted by its velocity and (logarithmically) its length, as
// accented and long notes tend to fall on strong beats, and summed on a grid of sixteenth notes.
// For each candidate meter and each offset within its bar, the salience is the mean weight of
// the grid points a bar length apart from that offset, over the mean weight of all grid points;
// the candidate whose best offset has the highest salience wins, and a longer bar must beat a
// shorter one it contains (4/4 over 2/4, 12/8 over 6/8) by a margin, as any accent pattern of
// the short bar also repeats at the long one.
func meter(ts []midi.TimeSignatureChange, notes []midi.Note, tpq int64) (Meter, int64) {
	if len(ts) > 0 && ts[0].Tick == 0 && ts[0].Numerator > 0 && ts[0].Denominator > 0 {
		return Meter{Numerator: ts[0].Numerator, Denominator: ts[0].Denominator, Source: "time signature event", Changes: len(ts) - 1}, 0
	}
	changes := max(len(ts)-1, 0)
	if len(ts) > 0 {
		changes = len(ts)
	}
	if len(notes) < minMeterNotes {
		return Meter{Numerator: 4, Denominator: 4, Source: "default 4/4", Changes: changes}, 0
	}
	step := max(tpq/4, 1)
	// The grid covers at most maxGrid steps; later onsets are not weighed.
	var last int64
	for _, n := range notes {
		if n.OnTick/step < maxGrid {
			last = max(last, n.OnTick)
		}
	}
	grid := make([]float64, (last+step/2)/step+1)
	for _, n := range notes {
		if (n.OnTick+step/2)/step >= int64(len(grid)) {
			continue
		}
		q := float64(n.DurTicks) / float64(tpq)
		grid[(n.OnTick+step/2)/step] += float64(n.Velocity) / 127 * (1 + math.Log1p(min(q, 4)))
	}
	var mean float64
	for _, w := range grid {
		mean += w
	}
	mean /= float64(len(grid))
	best, bestSal, bestBeat, bestPhase := meterCandidates[0], -1.0, -1.0, 0
	sal := map[int]float64{}
	phases := map[int]int{}
	for _, c := range meterCandidates {
		L := int(barTicks(c, tpq) / step)
		if L <= 0 || L > len(grid) {
			continue
		}
		s, ph := salience(grid, L, mean)
		sal[L], phases[L] = s, ph
	}
	const margin = 1.1
	for _, c := range meterCandidates {
		L := int(barTicks(c, tpq) / step)
		s, ok := sal[L]
		if !ok {
			continue
		}
		// A bar that contains a shorter candidate bar must beat it by the margin.
		for _, d := range meterCandidates {
			l := int(barTicks(d, tpq) / step)
			if l < L && L%l == 0 && s < sal[l]*margin {
				s = 0
			}
		}
		// Bars of the same length (3/4 and 6/8) differ in their beats: quarter notes or dotted
		// quarters, measured from the bar's downbeat.
		bl := int(barTicks(c, tpq)/step) / beats(c)
		beat := beatSalience(grid, bl, phases[L], mean)
		if s > bestSal+1e-9 || (s > bestSal-1e-9 && beat > bestBeat) {
			best, bestSal, bestBeat, bestPhase = c, s, beat, phases[L]
		}
	}
	best.Source = "estimated from onsets"
	best.Changes = changes
	return best, int64(bestPhase) * step
}

// salience is the best mean weight of grid points period apart, over mean, and its offset.
func salience(grid []float64, period int, mean float64) (float64, int) {
	best, at := 0.0, 0
	if mean == 0 {
		return 0, 0
	}
	for ph := range period {
		var sum float64
		n := 0
		for i := ph; i < len(grid); i += period {
			sum += grid[i]
			n++
		}
		if n > 0 && sum/float64(n) > best {
			best, at = sum/float64(n), ph
		}
	}
	return best / mean, at
}

// beatSalience is the mean weight of the grid points period apart from phase, over mean.
func beatSalience(grid []float64, period, phase int, mean float64) float64 {
	if period <= 0 || mean == 0 {
		return 0
	}
	var sum float64
	n := 0
	for i := phase % period; i < len(grid); i += period {
		sum += grid[i]
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n) / mean
}
