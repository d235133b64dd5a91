package audio

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// testAudio makes seconds of stereo at rate: a tone, a silent second, noise, and a quiet end.
func testAudio(rate int, seconds float64) *Buffer {
	rng := rand.New(rand.NewPCG(1, 2))
	frames := int(seconds * float64(rate))
	b := &Buffer{SampleRate: rate, Channels: 2, BitDepth: 16, Samples: make([]float32, 2*frames)}
	for i := range frames {
		t := float64(i) / float64(rate)
		var l, r float64
		switch {
		case t < 1:
			l, r = 0.5*math.Sin(2*math.Pi*440*t), 0.3*math.Sin(2*math.Pi*660*t)
		case t < 2:
		case t < seconds-0.5:
			l, r = 0.2*(rng.Float64()*2-1), 0.2*(rng.Float64()*2-1)
		default:
			l = 0.0001 * math.Sin(2*math.Pi*100*t)
		}
		b.Samples[2*i], b.Samples[2*i+1] = float32(l), float32(r)
	}
	return b
}

// TestMeterMatchesBuffer: measured a block at a time, audio gives exactly what the whole-buffer
// measures give, whatever the block sizes.
func TestMeterMatchesBuffer(t *testing.T) {
	for _, rate := range []int{8000, 44100, 48000} {
		b := testAudio(rate, 3.7)
		m := NewMeter(rate, 2)
		rest := b.Samples
		for k := 1; len(rest) > 0; k++ {
			n := min(len(rest), 2*(k*37%1500+1))
			m.Write(rest[:n])
			rest = rest[n:]
		}
		if m.Frames() != int64(b.Frames()) || m.Peak() != Peak(b) || m.RMS() != RMS(b) {
			t.Errorf("%d Hz: frames %d/%d, peak %g/%g, rms %g/%g", rate, m.Frames(), b.Frames(), m.Peak(), Peak(b), m.RMS(), RMS(b))
		}
		if got, want := m.Silences(), Silences(b); !reflect.DeepEqual(got, want) || len(want) == 0 {
			t.Errorf("%d Hz: silences %v, want %v", rate, got, want)
		}
		whole := NewMeter(rate, 2)
		whole.Write(b.Samples)
		if got, want := m.IntegratedLoudness(), whole.IntegratedLoudness(); got != want || want <= Floor {
			t.Errorf("%d Hz: loudness %g, want %g", rate, got, want)
		}
	}
}

// TestScanMatchesDecode: Scan streams the same samples Decode returns, WAV and FLAC.
func TestScanMatchesDecode(t *testing.T) {
	b := testAudio(44100, 1.3)
	for _, enc := range []func(*bytes.Buffer, *Buffer) error{
		func(w *bytes.Buffer, b *Buffer) error { return EncodeWAV(w, b) },
		func(w *bytes.Buffer, b *Buffer) error { return EncodeFLAC(w, b) },
	} {
		var w bytes.Buffer
		if err := enc(&w, b); err != nil {
			t.Fatal(err)
		}
		dec, err := Decode(w.Bytes(), DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		var got []float32
		var st Stream
		err = Scan(bytes.NewReader(w.Bytes()), int64(w.Len()), DefaultLimits,
			func(s Stream) error { st = s; return nil },
			func(s []float32) error { got = append(got, s...); return nil })
		if err != nil || !reflect.DeepEqual(got, dec.Samples) || st.SampleRate != 44100 || st.Channels != 2 || len(got) != len(b.Samples) {
			t.Fatalf("%s: scanned %d samples (%+v, %v), decoded %d", st.Format, len(got), st, err, len(dec.Samples))
		}
	}
}
