package synth

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/sinshu/go-meltysynth/meltysynth"

	"github.com/hootenanny/hoot/hootenanny/internal/audio"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// Sample rates Render plays at: the synthesiser's own range, capped at 96 kHz.
const (
	MinSampleRate = 16000
	MaxSampleRate = 96000
)

// DefaultTail is how long Render goes on after the MIDI file ends, for the last notes to die
// away.
const DefaultTail = 1.0

// blockSize is the synthesiser's block: events take effect at block boundaries, so it bounds
// their timing error (64 samples is 1.5 ms at 44.1 kHz).
const blockSize = 64

// chunkFrames is how much Render plays between checks of its context and progress reports.
const chunkFrames = 1 << 15

// Options say how to render.
type Options struct {
	// SampleRate is in MinSampleRate..MaxSampleRate.
	SampleRate int
	// Tail is the seconds played after the MIDI file's end.
	Tail float64
	// Dry leaves out reverb and chorus.
	Dry bool
	// MaxFrames bounds the frames rendered (0: no bound).
	MaxFrames int
	// Progress, if set, hears the seconds rendered so far and in all.
	Progress func(done, total float64)
}

// A LimitError says a render would be longer than Options.MaxFrames allows.
type LimitError struct {
	Seconds    float64
	MaxSeconds float64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("synth: the audio would last %.1f s, more than the %.1f s allowed", e.Seconds, e.MaxSeconds)
}

// maxFrames bounds every render, whatever Options.MaxFrames says: a MIDI file's ticks can claim
// years, and the frame count must stay a usable int.
const maxFrames = 1 << 31

// Frames returns how many frames Render makes of f with opts, at most maxFrames+1.
func Frames(f *midi.File, opts Options) int {
	frames := math.Ceil((midi.Inspect(f).DurationSeconds + opts.Tail) * float64(opts.SampleRate))
	if !(frames <= maxFrames) { // also NaN
		return maxFrames + 1
	}
	return int(frames)
}

// Render plays f with s into stereo samples: the MIDI file's duration (as midi.Inspect gives it)
// plus opts.Tail.
func (s *SoundFont) Render(ctx context.Context, f *midi.File, opts Options) (buf *audio.Buffer, err error) {
	if opts.SampleRate < MinSampleRate || opts.SampleRate > MaxSampleRate {
		return nil, fmt.Errorf("synth: a sample rate of %d Hz; from %d to %d are played", opts.SampleRate, MinSampleRate, MaxSampleRate)
	}
	total := Frames(f, opts)
	limit := maxFrames
	if opts.MaxFrames > 0 {
		limit = min(opts.MaxFrames, maxFrames)
	}
	if total > limit {
		return nil, &LimitError{Seconds: float64(total) / float64(opts.SampleRate), MaxSeconds: float64(limit) / float64(opts.SampleRate)}
	}
	settings := meltysynth.NewSynthesizerSettings(int32(opts.SampleRate))
	settings.BlockSize = blockSize
	settings.EnableReverbAndChorus = !opts.Dry
	defer func() {
		// A SoundFont can pass check and still hold generator values that send the
		// synthesiser's oscillators past their samples.
		if r := recover(); r != nil {
			buf, err = nil, formatErr("the synthesiser failed while playing it (%v)", r)
		}
	}()
	syn, err := meltysynth.NewSynthesizer(s.sf, settings)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	out := &audio.Buffer{SampleRate: opts.SampleRate, Channels: 2, BitDepth: 16, Samples: make([]float32, 2*total)}
	// The synthesiser writes left and right apart; a small scratch pair keeps the memory to the
	// interleaved output.
	left, right := make([]float32, chunkFrames), make([]float32, chunkFrames)
	pos := 0
	rate := float64(opts.SampleRate)
	play := func(to int) error {
		for pos < to {
			n := min(to-pos, chunkFrames-pos%chunkFrames)
			syn.Render(left[:n], right[:n])
			for i := range n {
				out.Samples[2*(pos+i)], out.Samples[2*(pos+i)+1] = left[i], right[i]
			}
			pos += n
			if pos%chunkFrames == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				if opts.Progress != nil {
					opts.Progress(float64(pos)/rate, float64(total)/rate)
				}
			}
		}
		return nil
	}
	tempo := midi.TempoMap(f)
	for _, e := range channelEvents(f) {
		at := min(int(math.Round(midi.SecondsAt(tempo, f.TicksPerQuarter, e.Tick)*rate)), total)
		if err := play(at); err != nil {
			return nil, err
		}
		send(syn, e)
	}
	if err := play(total); err != nil {
		return nil, err
	}
	if opts.Progress != nil {
		opts.Progress(float64(total)/rate, float64(total)/rate)
	}
	return out, nil
}

// channelEvents returns the channel-voice events of every track in time order (ties in track
// order, then file order).
func channelEvents(f *midi.File) []midi.Event {
	type timed struct {
		e          midi.Event
		track, seq int
	}
	var all []timed
	for ti, t := range f.Tracks {
		for i, e := range t.Events {
			switch e.Kind {
			case midi.KindNoteOn, midi.KindNoteOff, midi.KindControlChange, midi.KindProgramChange, midi.KindPitchBend:
				all = append(all, timed{e, ti, i})
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.e.Tick != b.e.Tick {
			return a.e.Tick < b.e.Tick
		}
		if a.track != b.track {
			return a.track < b.track
		}
		return a.seq < b.seq
	})
	out := make([]midi.Event, len(all))
	for i, t := range all {
		out[i] = t.e
	}
	return out
}

func send(syn *meltysynth.Synthesizer, e midi.Event) {
	ch := int32(e.Channel & 0x0f)
	switch e.Kind {
	case midi.KindNoteOn:
		syn.ProcessMidiMessage(ch, 0x90, int32(e.Data1&0x7f), int32(e.Data2&0x7f))
	case midi.KindNoteOff:
		syn.ProcessMidiMessage(ch, 0x80, int32(e.Data1&0x7f), 0)
	case midi.KindControlChange:
		syn.ProcessMidiMessage(ch, 0xB0, int32(e.Data1&0x7f), int32(e.Data2&0x7f))
	case midi.KindProgramChange:
		syn.ProcessMidiMessage(ch, 0xC0, int32(e.Data1&0x7f), 0)
	case midi.KindPitchBend:
		v := int32(e.Bend) + 8192
		syn.ProcessMidiMessage(ch, 0xE0, v&0x7f, (v>>7)&0x7f)
	}
}
