package audio

import "math"

// Floor is the level reported for digital silence, in dBFS or LUFS.
const Floor = -120.0

// K-weighting after ITU-R BS.1770-4: a high shelf (the head's acoustic effect) followed by a
// high-pass (RLB weighting). The Recommendation gives coefficients for 48 kHz only; these are the
// analogue prototypes they come from, turned into biquads for any sample rate by the bilinear
// transform, as libebur128 does. At 48 kHz they give the Recommendation's coefficients.
const (
	shelfHz   = 1681.974450955533
	shelfGain = 3.999843853973347 // dB
	shelfQ    = 0.7071752369554196
	highHz    = 38.13547087602444
	highQ     = 0.5003270373238773
)

// Gating after BS.1770-4 (and EBU R128): 400 ms blocks that overlap by 75%, an absolute gate at
// -70 LUFS and a relative gate 10 LU below the loudness of the blocks above the absolute gate.
const (
	blockSeconds = 0.4
	steps        = 4 // a block is four steps of 100 ms: 75% overlap
	absoluteGate = -70.0
	relativeGate = -10.0
)

type biquad struct{ b0, b1, b2, a1, a2 float64 }

func kWeighting(rate float64) [2]biquad {
	k := math.Tan(math.Pi * shelfHz / rate)
	vh := math.Pow(10, shelfGain/20)
	vb := math.Pow(vh, 0.4996667741545416)
	a0 := 1 + k/shelfQ + k*k
	shelf := biquad{
		b0: (vh + vb*k/shelfQ + k*k) / a0,
		b1: 2 * (k*k - vh) / a0,
		b2: (vh - vb*k/shelfQ + k*k) / a0,
		a1: 2 * (k*k - 1) / a0,
		a2: (1 - k/shelfQ + k*k) / a0,
	}
	k = math.Tan(math.Pi * highHz / rate)
	a0 = 1 + k/highQ + k*k
	high := biquad{b0: 1, b1: -2, b2: 1, a1: 2 * (k*k - 1) / a0, a2: (1 - k/highQ + k*k) / a0}
	return [2]biquad{shelf, high}
}

// channelWeight is BS.1770's G for channel c of n: 1 for left, right and centre, 1.41 for the
// surrounds, 0 for the LFE of a 5.1 layout (L R C LFE Ls Rs).
func channelWeight(c, n int) float64 {
	if n == 6 {
		switch c {
		case 3:
			return 0
		case 4, 5:
			return 1.41
		}
	}
	return 1
}

// IntegratedLoudness returns b's integrated loudness in LUFS after ITU-R BS.1770-4, or Floor
// when no 400 ms block rises above the absolute gate (or b is shorter than one block).
func IntegratedLoudness(b *Buffer) float64 {
	m := NewMeter(b.SampleRate, b.Channels)
	m.Write(b.Samples)
	return m.IntegratedLoudness()
}

// gatedLoudness returns the gated loudness of energy[c][s], the sums of the squared K-weighted
// samples of channel c in each 100 ms step s; blockLen is the samples of a 400 ms block.
func gatedLoudness(energy [][]float64, channels int, blockLen float64) float64 {
	nsteps := len(energy[0])
	nblocks := nsteps - steps + 1
	// z[j][c] is channel c's mean square in block j.
	z := make([][]float64, nblocks)
	loud := make([]float64, nblocks)
	for j := range nblocks {
		z[j] = make([]float64, channels)
		var sum float64
		for c := range channels {
			var e float64
			for s := j; s < j+steps; s++ {
				e += energy[c][s]
			}
			z[j][c] = e / blockLen
			sum += channelWeight(c, channels) * z[j][c]
		}
		loud[j] = lufs(sum)
	}
	gated := func(threshold float64) (float64, int) {
		mean := make([]float64, channels)
		n := 0
		for j := range nblocks {
			if loud[j] > absoluteGate && loud[j] > threshold {
				n++
				for c := range mean {
					mean[c] += z[j][c]
				}
			}
		}
		if n == 0 {
			return Floor, 0
		}
		var sum float64
		for c := range mean {
			sum += channelWeight(c, channels) * mean[c] / float64(n)
		}
		return lufs(sum), n
	}
	ungated, n := gated(math.Inf(-1))
	if n == 0 {
		return Floor
	}
	l, n := gated(ungated + relativeGate)
	if n == 0 {
		return Floor
	}
	return l
}

func lufs(meanSquare float64) float64 {
	if meanSquare <= 0 {
		return Floor
	}
	return max(-0.691+10*math.Log10(meanSquare), Floor)
}
