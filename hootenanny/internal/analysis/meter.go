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
// accented and long notes tend to fall on strong beats, and the heaviest at each point of a grid
// of sixteenth notes kept (a chord weighs as much as its loudest, longest note).
// For each candidate meter and each offset within its bar, the salience is the mean weight of
// the grid points a bar length apart from that offset, over the mean weight of all grid points;
// the candidate whose best offset has the highest salience wins, and a longer bar must beat a
// shorter one it contains (4/4 over 2/4, 12/8 over 6/8) by a margin, as any accent pattern of
// the short bar also repeats at the long one.
func meter(ts []midi.TimeSignatureChange, notes []midi.Note, tpq int64) (Meter, int64) {
	if len(ts) > 0 && ts[0].Tick == 0 && ts[0].Numerator > 0 && ts[0].Denominator > 0 {
		m := Meter{Numerator: ts[0].Numerator, Denominator: ts[0].Denominator, Source: "time signature event", Changes: len(ts) - 1}
		until := int64(math.MaxInt64)
		if len(ts) > 1 {
			until = ts[1].Tick
		}
		return m, pickup(notes, m, tpq, until)
	}
	changes := max(len(ts)-1, 0)
	if len(ts) > 0 {
		changes = len(ts)
	}
	if len(notes) < minMeterNotes {
		return Meter{Numerator: 4, Denominator: 4, Source: "default 4/4", Changes: changes}, 0
	}
	step := max(tpq/4, 1)
	grid, mean := onsetGrid(notes, tpq, step, math.MaxInt64)
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

// onsetGrid places the notes' onsets before tick until on a grid of step ticks, each weighted
// by its velocity and (logarithmically) its length, keeping the heaviest at each point, and
// returns it with its mean weight. The grid covers at most maxGrid steps; later onsets are not
// weighed.
func onsetGrid(notes []midi.Note, tpq, step, until int64) ([]float64, float64) {
	var last int64
	for _, n := range notes {
		if n.OnTick/step < maxGrid && n.OnTick < until {
			last = max(last, n.OnTick)
		}
	}
	grid := make([]float64, (last+step/2)/step+1)
	for _, n := range notes {
		if n.OnTick >= until || (n.OnTick+step/2)/step >= int64(len(grid)) {
			continue
		}
		q := float64(n.DurTicks) / float64(tpq)
		i := (n.OnTick + step/2) / step
		grid[i] = max(grid[i], float64(n.Velocity)/127*(1+math.Log1p(min(q, 4))))
	}
	var mean float64
	for _, w := range grid {
		mean += w
	}
	return grid, mean / float64(len(grid))
}

// pickupMargin is how much more weight the onsets a bar apart from another offset must carry
// than those from tick 0 for the bars to start there.
const pickupMargin = 1.15

// pickup returns the tick of the first downbeat of a file whose time signature m is set at its
// start: a file written from music with a pickup (an anacrusis, the short bar before the first
// bar line) often starts its first bar at tick 0 all the same, so that every bar line it
// implies falls inside a bar as played. The downbeat is the offset within m's bar whose onsets,
// a bar apart up to tick until, carry the most weight (as the meter estimate weighs them); it
// is used only when it beats tick 0 by pickupMargin, so a file without a pickup keeps its bars.
func pickup(notes []midi.Note, m Meter, tpq, until int64) int64 {
	step := max(tpq/4, 1)
	bl := barTicks(m, tpq)
	if len(notes) < minMeterNotes || bl%step != 0 {
		return 0
	}
	L := int(bl / step)
	grid, mean := onsetGrid(notes, tpq, step, until)
	if L <= 1 || L > len(grid) {
		return 0
	}
	best, at := salience(grid, L, mean)
	if at == 0 || best < pickupMargin*beatSalience(grid, L, 0, mean) {
		return 0
	}
	return int64(at) * step
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
