package audio

import "math"

// Silence thresholds: a stretch counts as silent when every 10 ms window of it stays below
// SilenceDBFS for at least MinSilenceSeconds.
const (
	SilenceDBFS       = -60.0
	MinSilenceSeconds = 0.25
	// MaxSilences bounds the silent stretches Silences returns.
	MaxSilences = 1000
)

// DB returns an amplitude ratio in decibels, or Floor for 0.
func DB(ratio float64) float64 {
	if ratio <= 0 {
		return Floor
	}
	return max(20*math.Log10(ratio), Floor)
}

// Peak returns the largest absolute sample.
func Peak(b *Buffer) float64 {
	var p float32
	for _, s := range b.Samples {
		p = max(p, s, -s)
	}
	return float64(p)
}

// RMS returns the root mean square of every sample of every channel.
func RMS(b *Buffer) float64 {
	if len(b.Samples) == 0 {
		return 0
	}
	var sum float64
	for _, s := range b.Samples {
		sum += float64(s) * float64(s)
	}
	return math.Sqrt(sum / float64(len(b.Samples)))
}

// A Span is a stretch of time in seconds.
type Span struct{ Start, End float64 }

// Silences returns the stretches of b that stay below SilenceDBFS for at least
// MinSilenceSeconds, in order, at most MaxSilences of them.
func Silences(b *Buffer) []Span {
	frames := b.Frames()
	if b.SampleRate <= 0 || frames == 0 {
		return nil
	}
	win := max(b.SampleRate/100, 1)
	threshold := math.Pow(10, SilenceDBFS/10) // as a mean square
	var out []Span
	start := -1
	flush := func(end int) {
		if start >= 0 && float64(end-start)/float64(b.SampleRate) >= MinSilenceSeconds && len(out) < MaxSilences {
			out = append(out, Span{float64(start) / float64(b.SampleRate), float64(end) / float64(b.SampleRate)})
		}
		start = -1
	}
	for w := 0; w < frames; w += win {
		end := min(w+win, frames)
		var sum float64
		for _, s := range b.Samples[w*b.Channels : end*b.Channels] {
			sum += float64(s) * float64(s)
		}
		if sum/float64((end-w)*b.Channels) < threshold {
			if start < 0 {
				start = w
			}
			continue
		}
		flush(w)
	}
	flush(frames)
	return out
}

// Normalization is what Normalize did.
type Normalization struct {
	// GainDB is the gain applied.
	GainDB float64
	// PeakLimited is true when the ceiling, not the target, set the gain.
	PeakLimited bool
}

// Normalize scales b towards an integrated loudness of targetLUFS without letting its sample
// peak pass ceilingDBFS. Silent audio is left as it is.
func Normalize(b *Buffer, targetLUFS, ceilingDBFS float64) Normalization {
	var n Normalization
	// The absolute gate makes loudness depend on level as well as shape: raising quiet audio
	// lets blocks that were under -70 LUFS into the mean. A few passes settle it.
	for range 4 {
		l := IntegratedLoudness(b)
		peak := Peak(b)
		if l <= Floor || peak == 0 || math.Abs(targetLUFS-l) < 0.005 {
			break
		}
		gain := targetLUFS - l
		if p := DB(peak); p+gain > ceilingDBFS {
			gain, n.PeakLimited = ceilingDBFS-p, true
		}
		g := float32(math.Pow(10, gain/20))
		for i := range b.Samples {
			b.Samples[i] *= g
		}
		n.GainDB += gain
		if n.PeakLimited {
			break
		}
	}
	return n
}
