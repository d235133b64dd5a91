package analysis

import (
	"slices"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// chordTemplate is a chord quality: its pitch classes above the root and how it is written.
type chordTemplate struct {
	quality   string
	suffix    string
	intervals []int
}

// chordTemplates are tried in this order; a later one must score strictly higher to win, so
// triads come before sevenths and the common qualities first. A sixth chord holds the notes of
// a minor seventh chord on its sixth (C6 is Am7's C E G A), and comes after it: it is named
// when its root is in the bass, where the bass favours it.
var chordTemplates = []chordTemplate{
	{"maj", "", []int{0, 4, 7}},
	{"min", "m", []int{0, 3, 7}},
	{"7", "7", []int{0, 4, 7, 10}},
	{"m7", "m7", []int{0, 3, 7, 10}},
	{"maj7", "maj7", []int{0, 4, 7, 11}},
	{"dim", "dim", []int{0, 3, 6}},
	{"m7b5", "m7b5", []int{0, 3, 6, 10}},
	{"dim7", "dim7", []int{0, 3, 6, 9}},
	{"aug", "aug", []int{0, 4, 8}},
	{"6", "6", []int{0, 4, 7, 9}},
	{"m6", "m6", []int{0, 3, 7, 9}},
}

const (
	// minFit is the least share of a span's sounding time on a chord's notes for the chord to
	// be named; below it the span is "N.C.".
	minFit = 0.5
	// missingCost is charged, as a share of the span's sounding time, for each chord note that
	// does not sound (or sounds for less than a twentieth of the span).
	missingCost = 0.15
	// seventhCost is charged for a four-note chord, so that a passing seventh does not turn a
	// triad into a seventh chord.
	seventhCost = 0.12
	// seventhShare is the least time the least-sounding note of a four-note chord must sound,
	// as a share of the time of the next least-sounding, for the chord to be named.
	seventhShare = 2.0 / 3
	// bassBonus favours the reading whose root is in the bass (C6 against Am7 and the like).
	bassBonus = 0.15
	// diatonicBonus breaks ties (a span where the chord's third does not sound reads as major
	// or minor alike) in favour of the chord whose notes are all in the key's scale.
	diatonicBonus = 0.01
)

// chordOf names the chord sounding from tick from to tick to. The notes' sounding time in the
// span is summed per pitch class; each template on each root scores the time on its notes less
// the time off them, less a cost for each of its notes that does not sound; the best names the
// span (notes holds those that sound in it, and may hold others). The bass is the lowest note
// sounding for at least an eighth of the span. scale is the key's diatonic scale, which breaks
// ties.
func chordOf(notes []midi.Note, from, to int64, sharps int, scale [12]bool) Chord {
	var w [12]float64
	var total float64
	bass := -1
	minBass := (to - from) / 8
	for _, n := range notes {
		s, e := max(n.OnTick, from), min(n.OnTick+n.DurTicks, to)
		if e <= s {
			continue
		}
		d := float64(e - s)
		w[n.Pitch%12] += d
		total += d
		if e-s >= minBass && (bass < 0 || n.Pitch < bass) {
			bass = n.Pitch
		}
	}
	nc := Chord{Name: "N.C.", Root: -1, Bass: -1}
	if total == 0 {
		return nc
	}
	bassPC := -1
	if bass >= 0 {
		bassPC = bass % 12
	}
	bestScore, best, bestRoot, bestFit := -1e18, -1, -1, 0.0
	for ti, t := range chordTemplates {
		for root := range 12 {
			if w[root] == 0 {
				continue
			}
			var in float64
			missing := 0
			for _, iv := range t.intervals {
				x := w[(root+iv)%12]
				in += x
				if x < total/20 {
					missing++
				}
			}
			score := (2*in-total)/total - float64(missing)*missingCost
			if len(t.intervals) == 4 {
				// A four-note chord is named only when all four of its notes sound, and a note
				// sounding for less than seventhShare of the next least-sounding is a passing
				// note, not part of it.
				var ws [4]float64
				for i, iv := range t.intervals {
					ws[i] = w[(root+iv)%12]
				}
				slices.Sort(ws[:])
				if ws[0] < seventhShare*ws[1] || missing > 0 {
					continue
				}
				score -= seventhCost
			}
			if root == bassPC {
				score += bassBonus
			}
			diatonic := true
			for _, iv := range t.intervals {
				diatonic = diatonic && scale[(root+iv)%12]
			}
			if diatonic {
				score += diatonicBonus
			}
			if score > bestScore+1e-9 {
				bestScore, best, bestRoot, bestFit = score, ti, root, in/total
			}
		}
	}
	if best < 0 || bestFit < minFit {
		nc.Fit = bestFit
		return nc
	}
	t := chordTemplates[best]
	name := spell(bestRoot, sharps) + t.suffix
	outBass := bestRoot
	if bassPC >= 0 && bassPC != bestRoot {
		for _, iv := range t.intervals {
			if (bestRoot+iv)%12 == bassPC {
				name += "/" + spell(bassPC, sharps)
				outBass = bassPC
			}
		}
	}
	return Chord{Name: name, Root: bestRoot, Bass: outBass, Quality: t.quality, Fit: bestFit}
}
