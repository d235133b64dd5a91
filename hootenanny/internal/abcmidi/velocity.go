package abcmidi

import (
	"strconv"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
)

// The velocity rules here were found by running abc2midi 4.84 on small tunes and reading the
// velocities of its output; abccorpus checks them on the corpus, velocity_test.go pins them.

// Velocities of abc2midi's default beat stress: the note on the first beat of a bar, a note on
// another strong beat, and every other note.
const (
	StressFirst  = 105
	StressStrong = 95
	StressOther  = 80
)

// DynamicStep is how much each crescendo or diminuendo mark (!<(! !<)! !>(! !>)! and their
// long names) raises or lowers the velocities, as abc2midi does.
const DynamicStep = 15

// dynamicLevels are the first-beat velocities the dynamics marks set; the strong and other
// beats get 10 and 25 less (other at least 10). abc2midi 4.84 ignores !pppp! and !ffff!.
var dynamicLevels = map[string]int{
	"ppp": 30, "pp": 45, "p": 60, "mp": 75, "mf": 90, "f": 105, "ff": 120, "fff": 135,
}

// stress is the velocity state of one voice as it plays: abc2midi's beat-stress model.
//
// A note's velocity depends on where it starts in its bar (after grace notes and swing have
// moved it, before the chord stagger) counted in beats of the meter's denominator: on beat 0
// it gets first, on a beat that is a multiple of every it gets strong, anywhere else other.
// every follows the meter (3 when the numerator is a multiple of 3, else 2 when it is even,
// else the numerator, so 4/4 stresses beats 1 and 3 and 6/8 beats 1 and 4); a free meter
// counts as 4/4. A dynamics mark sets first, strong and other to its level, 10 and 25 less
// (all at most 127), and every to 1 (every beat of the denominator is strong) until the next meter change.
//
// The %%MIDI lines beat, beatmod, nobeataccents and beataccents change the same state
// (directive).
type stress struct {
	first, strong, other int
	meter                abc.Meter
	every                int
	flat                 bool // nobeataccents: every note gets strong
}

func newStress(m abc.Meter) *stress {
	s := &stress{first: StressFirst, strong: StressStrong, other: StressOther}
	s.setMeter(m)
	return s
}

func (s *stress) setMeter(m abc.Meter) {
	num, _ := meterParts(m)
	s.meter = m
	switch {
	case num%3 == 0:
		s.every = 3
	case num%2 == 0:
		s.every = 2
	default:
		s.every = num
	}
}

// meterParts returns the numerator and denominator the stress model counts with.
func meterParts(m abc.Meter) (num, den int) {
	switch m.Kind {
	case abc.MeterCommon:
		return 4, 4
	case abc.MeterCut:
		return 2, 2
	case abc.MeterFraction:
		for _, x := range m.Num {
			num += x
		}
		if num > 0 && m.Den > 0 {
			return num, m.Den
		}
	}
	return 4, 4 // free meter
}

// barLength is the length of a bar of the current meter (a free meter counts as 4/4).
func (s *stress) barLength() abc.Rat {
	num, den := meterParts(s.meter)
	return abc.R(int64(num), int64(den))
}

// decorate applies the dynamics and crescendo marks among decos.
func (s *stress) decorate(decos []string) {
	for _, d := range decos {
		if v, ok := dynamicLevels[d]; ok {
			s.first, s.strong, s.other = min(v, 127), min(v-10, 127), min(max(v-25, 10), 127)
			s.every = 1
			continue
		}
		step := 0
		switch d {
		case "crescendo(", "crescendo)", "<(", "<)":
			step = DynamicStep
		case "diminuendo(", "diminuendo)", ">(", ">)":
			step = -DynamicStep
		default:
			continue
		}
		clamp := func(v int) int { return max(1, min(v+step, 127)) }
		s.first, s.strong, s.other = clamp(s.first), clamp(s.strong), clamp(s.other)
	}
}

// directive applies a %%MIDI line that sets the velocities, as abc2midi reads it:
//
//   - beat a b c n: the first beat gets a, the other strong beats b, the rest c; a beat is
//     strong when its number in the bar (in units of the meter's denominator) is a multiple
//     of n (0: the numerator, so only the first), until the next meter change;
//   - beatmod n: adds n (or takes -n) to all three;
//   - nobeataccents: every note gets the strong velocity, until beataccents.
//
// Velocities stay within 1..127 (0 would be a note-off). A malformed line changes nothing.
func (s *stress) directive(d Directive) {
	nums := make([]int, 0, len(d.Args))
	for _, a := range d.Args {
		n, err := strconv.Atoi(a)
		if err != nil || n < -1000 || n > 1000 {
			break
		}
		nums = append(nums, n)
	}
	clamp := func(v int) int { return max(1, min(v, 127)) }
	switch d.Name {
	case "beat":
		if len(nums) < 4 || nums[0] < 0 || nums[1] < 0 || nums[2] < 0 || nums[3] < 0 {
			return
		}
		s.first, s.strong, s.other = clamp(nums[0]), clamp(nums[1]), clamp(nums[2])
		s.every = nums[3]
		if s.every == 0 {
			s.every, _ = meterParts(s.meter)
		}
	case "beatmod":
		if len(nums) < 1 {
			return
		}
		s.first, s.strong, s.other = clamp(s.first+nums[0]), clamp(s.strong+nums[0]), clamp(s.other+nums[0])
	case "nobeataccents":
		s.flat = true
	case "beataccents":
		s.flat = false
	}
}

// velocity of a note starting at pos, a fraction of a whole note from the start of its bar.
func (s *stress) velocity(pos abc.Rat) uint8 {
	_, den := meterParts(s.meter)
	k := pos.Mul(abc.R(int64(den), 1))
	switch {
	case s.flat:
		return uint8(s.strong)
	case k.Den != 1:
		return uint8(s.other)
	case k.Num == 0:
		return uint8(s.first)
	case s.every > 0 && k.Num%int64(s.every) == 0:
		return uint8(s.strong)
	}
	return uint8(s.other)
}
