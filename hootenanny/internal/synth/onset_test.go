//go:build !race

package synth

import (
	"context"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/abccorpus"
	"github.com/hootenanny/hoot/hootenanny/internal/abcmidi"
	"github.com/hootenanny/hoot/hootenanny/internal/audio"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// Onset detection, written for this test, after the spectral-flux detectors of the literature
// (Bello et al., "A tutorial on onset detection in music signals", 2005; Dixon, "Onset detection
// revisited", 2006; Böck and Widmer's peak picking, 2013):
//
//   - Band energies from a short-time Fourier transform (Hann window), grouped into bands a
//     quarter-tone wide (24 to the octave; below about 1.4 kHz, where the bins are wider than
//     that, each bin is a band). The onset function is the mean over the bands of each band's
//     rise in log energy since a few milliseconds before. A plain broadband energy detector
//     misses legato notes of sustained instruments (a clarinet's next note does not make the
//     whole signal louder), while the energy that appears in the next note's bands shows in the
//     flux. Bands on a log-frequency scale weigh every octave alike; the FFT's bins themselves
//     gave three quarters of the weight to the octaves above 2.7 kHz, where a melody's attack is
//     quiet and a held chord's or a drum's noise is not, so a soft flute or saxophone note under
//     the accompaniment hardly moved the mean.
//   - A floor on the band energies (see defaultOnsets), far below any note, so that the noise of
//     quiet bands makes no flux.
//   - Peak picking: a peak stands at least delta median absolute deviations above the flux's
//     local median, and is the flux's maximum over the 50 ms before it. A drum (the snare of
//     the General MIDI kit) or a strummed chord makes a second, weaker flux peak 30 to 50 ms
//     after its attack, which an ear hears as the same stroke; a new note that soon after a
//     louder one is rarer than the notes the corpus merges anyway (see mergeOnsets).
//   - Timing: each frame is timed at its window's centre, and the onset is where the flux
//     climbed through a fifth of its peak: a slow swell (a saxophone, a clarinet, a flute) peaks
//     tens of milliseconds late but starts to show as soon as a sharp attack does.
const (
	onsetWindow    = 512 // samples: 11.6 ms at 44.1 kHz, bins 86 Hz apart
	onsetHop       = 64  // samples: 1.45 ms
	onsetMedian    = 64  // hops either side (93 ms) of the flux's local median
	onsetTolerance = 0.010
	// mergeOnsets joins MIDI note-ons closer than this into one onset: a chord (and a strummed
	// one), or a grace note and its note, sound as one attack.
	mergeOnsets = 0.03
)

// fft transforms re+i·im in place; its length is onsetWindow.
func fft(re, im []float64) {
	n := len(re)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j |= bit
		if i < j {
			re[i], re[j] = re[j], re[i]
			im[i], im[j] = im[j], im[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		stride := n / size
		for start := 0; start < n; start += size {
			for k := range size / 2 {
				wr, wi := twiddleRe[k*stride], twiddleIm[k*stride]
				a, b := start+k, start+k+size/2
				tr := re[b]*wr - im[b]*wi
				ti := re[b]*wi + im[b]*wr
				re[b], im[b] = re[a]-tr, im[a]-ti
				re[a], im[a] = re[a]+tr, im[a]+ti
			}
		}
	}
}

var twiddleRe, twiddleIm = func() ([]float64, []float64) {
	re, im := make([]float64, onsetWindow/2), make([]float64, onsetWindow/2)
	for k := range re {
		re[k], im[k] = math.Cos(-2*math.Pi*float64(k)/onsetWindow), math.Sin(-2*math.Pi*float64(k)/onsetWindow)
	}
	return re, im
}()

// onsetParams are the detector's settings.
type onsetParams struct {
	perOctave int     // bands to the octave
	lag       int     // hops: each band's rise is measured against its energy this long before
	delta     float64 // how far above the local median (in median absolute deviations) a peak stands
	minFlux   float64 // and by how many dB of mean rise at least
	preMax    int     // hops: a peak is the flux's maximum this far before it
	frac      float64 // the onset is where the flux passed this fraction of its peak
	back      int     // hops: how far back that is looked for
	gap       float64 // seconds: the least time between two onsets
	floorDB   float64 // band energy floor (dB of power in FFT units)
}

// defaultOnsets: the lag is 5.8 ms, the peak's look-back 51 ms, the timing's look-back 29 ms.
// The floor, -40 dB, is about 80 dB below a full-scale sine's band (+42 dB: a Hann window of 512
// samples gives its bin a magnitude of 128): a band quieter than that, such as the breath noise
// of the General MIDI flute between its harmonics or a reverb's tail, fluctuates by several dB
// from frame to frame, and in log energy a fluctuation of a band at -70 dB counted as much as the
// attack of a note at -10 dB, so that the flux of a soft held flute note was noise over which
// its neighbours' onsets hardly rose.
var defaultOnsets = onsetParams{perOctave: 24, lag: 4, delta: 1.0, minFlux: 0.75, preMax: 35, frac: 0.2, back: 20, gap: 0.03, floorDB: -40}

// detectOnsets returns the onset times in seconds of b.
func detectOnsets(b *audio.Buffer) []float64 { return detectOnsetsWith(b, defaultOnsets) }

func detectOnsetsWith(b *audio.Buffer, p onsetParams) []float64 {
	return pickOnsets(onsetFlux(b, p), b.SampleRate, p)
}

// onsetBands maps each FFT bin to its band, perOctave bands to the octave, where bins wider than
// a band are bands of their own; DC is in none (-1). It returns the map and the number of bands.
func onsetBands(perOctave int) ([]int, int) {
	out := make([]int, onsetWindow/2)
	out[0] = -1
	n, last := 0, -1
	for k := 1; k < len(out); k++ {
		if key := int(math.Floor(float64(perOctave) * math.Log2(float64(k)))); key != last {
			n++
			last = key
		}
		out[k] = n - 1
	}
	return out, n
}

// onsetFlux returns the onset function of b, one value per hop: the mean over the bands of each
// band's rise in log energy since p.lag hops before.
func onsetFlux(b *audio.Buffer, p onsetParams) []float64 {
	n := b.Frames()
	mono := make([]float64, n)
	for i := range n {
		var s float64
		for c := range b.Channels {
			s += float64(b.Samples[i*b.Channels+c])
		}
		mono[i] = s / float64(b.Channels)
	}
	hann := make([]float64, onsetWindow)
	for i := range hann {
		hann[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/onsetWindow)
	}
	band, nb := onsetBands(p.perOctave)
	re, im := make([]float64, onsetWindow), make([]float64, onsetWindow)
	ring := make([][]float64, p.lag+1) // log band energies of the last lag+1 frames
	for i := range ring {
		ring[i] = make([]float64, nb)
	}
	var flux []float64
	for f, start := 0, -onsetWindow/2; start+onsetWindow <= n; f, start = f+1, start+onsetHop {
		for i := range onsetWindow {
			v := 0.0
			if j := start + i; j >= 0 {
				v = mono[j]
			}
			re[i], im[i] = v*hann[i], 0
		}
		fft(re, im)
		e := ring[f%len(ring)]
		clear(e)
		for k, bk := range band {
			if bk >= 0 {
				e[bk] += re[k]*re[k] + im[k]*im[k]
			}
		}
		for i := range e {
			e[i] = max(10*math.Log10(e[i]+1e-20), p.floorDB)
		}
		var sum float64
		if f >= p.lag {
			for i, prev := range ring[(f-p.lag)%len(ring)] {
				sum += max(e[i]-prev, 0)
			}
		}
		flux = append(flux, sum/float64(nb))
	}
	return flux
}

// pickOnsets returns the onset times in seconds of the onset function flux.
func pickOnsets(flux []float64, rate int, p onsetParams) []float64 {
	var out []float64
	last := math.Inf(-1)
	window := make([]float64, 0, 2*onsetMedian+1)
	for f := 1; f+1 < len(flux); f++ {
		if flux[f] < p.minFlux || flux[f] < flux[f-1] || flux[f] < flux[f+1] {
			continue
		}
		isMax := true
		for k := max(f-p.preMax, 0); k < f; k++ {
			if flux[k] > flux[f] {
				isMax = false
				break
			}
		}
		if !isMax {
			continue
		}
		window = append(window[:0], flux[max(f-onsetMedian, 0):min(f+onsetMedian+1, len(flux))]...)
		sort.Float64s(window)
		med := window[len(window)/2]
		for i := range window {
			window[i] = math.Abs(window[i] - med)
		}
		sort.Float64s(window)
		mad := window[len(window)/2]
		if flux[f] < med+p.delta*mad+p.minFlux {
			continue
		}
		// The onset is where the flux climbed through p.frac of its peak.
		j := f
		for j > 0 && f-j < p.back && flux[j-1] >= p.frac*flux[f] && flux[j-1] <= flux[j] {
			j--
		}
		// Frame j's window is centred on j*onsetHop.
		t := float64(j*onsetHop) / float64(rate)
		if t-last >= p.gap {
			out = append(out, t)
			last = t
		}
	}
	return out
}

// midiOnsets returns the distinct note-on times in seconds of f: a note-on within mergeOnsets
// of the one before it joins that one's onset, so that a chord, a strummed one (the converter
// staggers a chord's notes as abc2midi does, and a strum spans more than mergeOnsets) and a
// grace note before its note are one onset, timed by their first note-on.
func midiOnsets(f *midi.File) []float64 {
	tempo := midi.TempoMap(f)
	var times []float64
	for _, n := range midi.NoteEvents(f) {
		times = append(times, midi.SecondsAt(tempo, f.TicksPerQuarter, n.OnTick))
	}
	sort.Float64s(times)
	var out []float64
	for i, t := range times {
		if i == 0 || t-times[i-1] >= mergeOnsets {
			out = append(out, t)
		}
	}
	return out
}

// TestOnsetsAgree renders tunes of the ABC corpus, converted to MIDI by the project's own
// converter, with the General MIDI SoundFont, and checks what an ear would: at least 95% of the
// MIDI's distinct note onsets have an onset in the audio within 10 ms, and the audio lasts as
// long as the MIDI file plus the tail, to the sample; and at least 80% of the detected onsets
// match a note. It takes the first tune of every corpus file, as it plays (with abc2midi's bass
// and chord accompaniment and its drum patterns): the files cover the corpus' kinds of sound
// (reels on the default piano, a march on clarinet, an air for flute over a bass, drums,
// tuplets, dynamics, several voices), and the other tunes of the book files add time, not
// kinds. It reads 96.7% agreement and 95.2% precision; nearly all the misses are the slow
// attacks of the SoundFont's alto saxophone, clarinet and flute (22 to 36 dB below their peak
// 10 ms after the note-on), timed late or not at all under a held note. It is built without the
// race detector (which slows the synthesiser tenfold), and make test runs it that way, as make
// hear.
func TestOnsetsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in the short tier: it renders the whole ABC corpus (make hear); make test runs it")
	}
	t.Parallel()
	sf := loadDefault(t)
	tunes, err := abccorpus.Tunes()
	if err != nil {
		t.Fatal(err)
	}
	const rate, tail = 44100, 1.0
	var total, hit, detected, matchedDetections int
	var audioSeconds float64
	var renderTime time.Duration
	var errs []float64
	seen := map[string]bool{}
	for _, tu := range tunes {
		if seen[tu.File] {
			continue
		}
		seen[tu.File] = true
		book, _ := abc.Parse(tu.Text, abc.Options{})
		if len(book.Tunes) == 0 {
			t.Fatalf("%s: no tune parsed", tu.ID())
		}
		f, err := abcmidi.Convert(book.Tunes[0], abcmidi.Options{Voices: abcmidi.MIDIDirectives(tu.Text, book.Tunes[0])})
		if err != nil {
			t.Fatalf("%s: %v", tu.ID(), err)
		}
		start := time.Now()
		buf, err := sf.Render(context.Background(), f, Options{SampleRate: rate, Tail: tail})
		if err != nil {
			t.Fatalf("%s: %v", tu.ID(), err)
		}
		renderTime += time.Since(start)
		want := midi.Inspect(f).DurationSeconds + tail
		if got := buf.Duration(); math.Abs(got-want) > 1.0/rate {
			t.Errorf("%s: the audio lasts %.6f s, the MIDI file and tail %.6f s", tu.ID(), got, want)
		}
		audioSeconds += buf.Duration()

		ref, got := midiOnsets(f), detectOnsets(buf)
		detected += len(got)
		used := make([]bool, len(got))
		tuneHits := 0
		for _, r := range ref {
			i := sort.SearchFloat64s(got, r-onsetTolerance)
			best := -1
			for j := i; j < len(got) && got[j] <= r+onsetTolerance; j++ {
				if !used[j] && (best < 0 || math.Abs(got[j]-r) < math.Abs(got[best]-r)) {
					best = j
				}
			}
			if best >= 0 {
				used[best] = true
				tuneHits++
				errs = append(errs, got[best]-r)
			}
		}
		total += len(ref)
		hit += tuneHits
		matchedDetections += tuneHits
		t.Logf("%-28s %4d onsets, %4d within 10 ms (%5.1f%%), %4d detected", tu.ID(), len(ref), tuneHits, 100*float64(tuneHits)/float64(max(len(ref), 1)), len(got))
	}
	sort.Float64s(errs)
	var meanAbs float64
	for _, e := range errs {
		meanAbs += math.Abs(e)
	}
	meanAbs /= float64(max(len(errs), 1))
	agreement := float64(hit) / float64(total)
	precision := float64(matchedDetections) / float64(max(detected, 1))
	t.Logf("onsets: %d of %d MIDI onsets (%.1f%%) have an audio onset within 10 ms, over %d tunes and %.0f s of audio; "+
		"matched error median %+.1f ms, mean |error| %.1f ms; %.1f%% of detected onsets match a note",
		hit, total, 100*agreement, len(seen), audioSeconds, 1000*errs[len(errs)/2], 1000*meanAbs, 100*precision)
	t.Logf("render: %.0f s of audio in %.2f s, %.0fx real time", audioSeconds, renderTime.Seconds(), audioSeconds/renderTime.Seconds())
	if agreement < 0.95 {
		t.Errorf("onset agreement %.1f%%, want at least 95%%", 100*agreement)
	}
	if precision < 0.8 {
		t.Errorf("only %.1f%% of detected onsets match a note: the detector finds onsets that are not there", 100*precision)
	}
}
