// Package audio reads and writes PCM audio (WAV and FLAC) and measures it: sample peak, RMS,
// integrated loudness after ITU-R BS.1770-4 and silent stretches. It knows nothing of where the
// bytes come from or go.
package audio

import (
	"errors"
	"fmt"
)

// A Buffer is decoded audio: interleaved samples scaled to [-1, 1].
type Buffer struct {
	SampleRate int
	Channels   int
	// BitDepth is the bits per sample the audio was stored with (16 for what this package
	// writes).
	BitDepth int
	// Format is "wav" or "flac"; Codec names the sample coding, such as pcm_s16le or flac.
	Format  string
	Codec   string
	Samples []float32
}

// Frames returns the number of sample frames (one sample of every channel).
func (b *Buffer) Frames() int {
	if b.Channels <= 0 {
		return 0
	}
	return len(b.Samples) / b.Channels
}

// Duration returns the length in seconds.
func (b *Buffer) Duration() float64 {
	if b.SampleRate <= 0 {
		return 0
	}
	return float64(b.Frames()) / float64(b.SampleRate)
}

// Limits bound what Decode accepts.
type Limits struct {
	// MaxSamples bounds the decoded samples of all channels together.
	MaxSamples int
	// MaxChannels bounds the channels.
	MaxChannels int
	// MinSampleRate and MaxSampleRate bound the sample rate.
	MinSampleRate, MaxSampleRate int
}

// DefaultLimits are what Decode uses: an hour of stereo at 48 kHz, and at most 8 channels.
var DefaultLimits = Limits{MaxSamples: 60 * 60 * 48000 * 2, MaxChannels: 8, MinSampleRate: 1000, MaxSampleRate: 768000}

// ErrUnknownFormat says the bytes are neither WAV nor FLAC.
var ErrUnknownFormat = errors.New("audio: neither a WAV (RIFF/WAVE) nor a FLAC (fLaC) file")

// A LimitError says the audio is larger than a limit allows.
type LimitError struct {
	What  string
	Limit int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("audio: %s is more than the %d allowed", e.What, e.Limit)
}

// check validates the stream parameters read from a header.
func (lim Limits) check(rate, channels int) error {
	if channels < 1 || channels > lim.MaxChannels {
		return fmt.Errorf("audio: %d channels; between 1 and %d are read", channels, lim.MaxChannels)
	}
	if rate < lim.MinSampleRate || rate > lim.MaxSampleRate {
		return fmt.Errorf("audio: a sample rate of %d Hz; between %d and %d are read", rate, lim.MinSampleRate, lim.MaxSampleRate)
	}
	return nil
}

// PCM16 converts a sample in [-1, 1] to 16-bit PCM, clipping what lies outside.
func PCM16(s float32) int16 {
	v := float64(s) * 32768
	switch {
	case v >= 32767:
		return 32767
	case v <= -32768:
		return -32768
	case v >= 0:
		return int16(v + 0.5)
	}
	return int16(v - 0.5)
}
