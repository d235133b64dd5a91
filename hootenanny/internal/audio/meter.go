package audio

import "math"

// A Meter measures audio as it comes, a block of interleaved samples at a time, and gives what
// Peak, RMS, Silences and IntegratedLoudness give of the whole: it keeps running sums and, for
// the loudness, one number per channel for each 100 ms, not the samples.
type Meter struct {
	rate, channels int
	frames         int64
	peak           float32
	sumSq          float64

	// Silences: windows of win frames, summed as they fill.
	win, winFill int
	winSum       float64
	winStart     int64
	silStart     int64 // -1 when no silent stretch is open
	silences     []Span
	threshold    float64

	// Loudness: K-weighting filter state per channel, and the energy of each full step.
	step     int
	filter   [2]biquad
	state    [][6]float64 // x1, x2, y1, y2, z1, z2 per channel
	energy   [][]float64  // energy[c][s]
	stepFill int
}

// NewMeter returns a meter of audio at rate Hz with channels channels.
func NewMeter(rate, channels int) *Meter {
	m := &Meter{rate: rate, channels: channels, silStart: -1}
	if rate > 0 && channels > 0 {
		m.win = max(rate/100, 1)
		m.threshold = math.Pow(10, SilenceDBFS/10) // as a mean square
		m.step = int(math.Round(blockSeconds / steps * float64(rate)))
		m.filter = kWeighting(float64(rate))
		m.state = make([][6]float64, channels)
		m.energy = make([][]float64, channels)
		for c := range m.energy {
			m.energy[c] = []float64{0}
		}
	}
	return m
}

// Write measures samples: interleaved, whole frames.
func (m *Meter) Write(samples []float32) {
	if m.channels <= 0 || m.rate <= 0 {
		return
	}
	nch := m.channels
	for i := 0; i+nch <= len(samples); i += nch {
		frame := samples[i : i+nch]
		for c, s := range frame {
			m.peak = max(m.peak, s, -s)
			sq := float64(s) * float64(s)
			m.sumSq += sq
			if m.step >= 1 {
				st := &m.state[c]
				f := m.filter
				x := float64(s)
				y := f[0].b0*x + f[0].b1*st[0] + f[0].b2*st[1] - f[0].a1*st[2] - f[0].a2*st[3]
				st[1], st[0] = st[0], x
				z := f[1].b0*y + f[1].b1*st[2] + f[1].b2*st[3] - f[1].a1*st[4] - f[1].a2*st[5]
				st[3], st[2] = st[2], y
				st[5], st[4] = st[4], z
				e := m.energy[c]
				e[len(e)-1] += z * z
			}
		}
		// Silences sum the window's squares sample by sample, in order.
		for _, s := range frame {
			m.winSum += float64(s) * float64(s)
		}
		m.frames++
		m.winFill++
		if m.winFill == m.win {
			m.closeWindow()
		}
		if m.step >= 1 {
			m.stepFill++
			if m.stepFill == m.step {
				m.stepFill = 0
				for c := range m.energy {
					m.energy[c] = append(m.energy[c], 0)
				}
			}
		}
	}
}

// closeWindow ends the silence window that holds winFill frames.
func (m *Meter) closeWindow() {
	if m.winFill == 0 {
		return
	}
	if m.winSum/float64(m.winFill*m.channels) < m.threshold {
		if m.silStart < 0 {
			m.silStart = m.winStart
		}
	} else {
		m.flushSilence(m.winStart)
	}
	m.winStart += int64(m.winFill)
	m.winFill, m.winSum = 0, 0
}

func (m *Meter) flushSilence(end int64) {
	if m.silStart >= 0 && float64(end-m.silStart)/float64(m.rate) >= MinSilenceSeconds && len(m.silences) < MaxSilences {
		m.silences = append(m.silences, Span{float64(m.silStart) / float64(m.rate), float64(end) / float64(m.rate)})
	}
	m.silStart = -1
}

// Frames returns the frames measured.
func (m *Meter) Frames() int64 { return m.frames }

// Duration returns the seconds measured.
func (m *Meter) Duration() float64 {
	if m.rate <= 0 {
		return 0
	}
	return float64(m.frames) / float64(m.rate)
}

// Peak returns the largest absolute sample.
func (m *Meter) Peak() float64 { return float64(m.peak) }

// RMS returns the root mean square of every sample of every channel.
func (m *Meter) RMS() float64 {
	n := m.frames * int64(m.channels)
	if n == 0 {
		return 0
	}
	return math.Sqrt(m.sumSq / float64(n))
}

// Silences returns the stretches that stay below SilenceDBFS for at least MinSilenceSeconds,
// in order, at most MaxSilences of them. Call it after the last Write.
func (m *Meter) Silences() []Span {
	if m.rate <= 0 || m.frames == 0 {
		return nil
	}
	// The open window and stretch end with the audio; the meter is read once, at the end.
	m.closeWindow()
	m.flushSilence(m.frames)
	return m.silences
}

// IntegratedLoudness returns the integrated loudness in LUFS after ITU-R BS.1770-4, or Floor
// when no 400 ms block rises above the absolute gate (or the audio is shorter than one block).
func (m *Meter) IntegratedLoudness() float64 {
	if m.rate <= 0 || m.frames == 0 || m.step < 1 {
		return Floor
	}
	nsteps := int(m.frames / int64(m.step))
	if nsteps < steps {
		return Floor
	}
	energy := make([][]float64, m.channels)
	for c := range energy {
		energy[c] = m.energy[c][:nsteps] // the last, partial step is left out
	}
	return gatedLoudness(energy, m.channels, float64(steps*m.step))
}
