package audio

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/frame"
	"github.com/mewkiz/flac/meta"
)

// flacBlockSize is the samples per channel of each frame EncodeFLAC writes: the size the
// reference encoder uses at 44.1 and 48 kHz.
const flacBlockSize = 4096

// decodeFLAC reads a FLAC stream. flac.New skips the metadata blocks after STREAMINFO without
// reading them into memory, and a frame holds at most 65535 samples of at most 8 channels, so
// what a hostile file can make the decoder allocate is bounded by its frames, which are
// counted against lim as they come.
func decodeFLAC(b []byte, lim Limits) (buf *Buffer, err error) {
	defer func() {
		// The decoder indexes tables with values read from the stream; a fault in it must not
		// take the worker down with it.
		if r := recover(); r != nil {
			buf, err = nil, fmt.Errorf("audio: the FLAC stream is malformed (%v)", r)
		}
	}()
	s, err := flac.New(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("audio: reading the FLAC header: %w", err)
	}
	info := s.Info
	if err := lim.check(int(info.SampleRate), int(info.NChannels)); err != nil {
		return nil, err
	}
	bits := int(info.BitsPerSample)
	if bits < 4 || bits > 32 {
		return nil, fmt.Errorf("audio: FLAC with %d bits per sample is not read", bits)
	}
	channels := int(info.NChannels)
	if info.NSamples > 0 && info.NSamples*uint64(channels) > uint64(lim.MaxSamples) {
		return nil, &LimitError{What: fmt.Sprintf("%d samples", info.NSamples*uint64(channels)), Limit: lim.MaxSamples}
	}
	var out []float32
	if info.NSamples > 0 {
		out = make([]float32, 0, int(info.NSamples)*channels)
	}
	scale := float32(int64(1) << (bits - 1))
	for {
		f, err := s.ParseNext()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("audio: reading a FLAC frame: %w", err)
		}
		if len(f.Subframes) != channels {
			return nil, fmt.Errorf("audio: a FLAC frame has %d channels, the stream %d", len(f.Subframes), channels)
		}
		n := len(f.Subframes[0].Samples)
		for _, sf := range f.Subframes[1:] {
			if len(sf.Samples) != n {
				return nil, fmt.Errorf("audio: the channels of a FLAC frame differ in length")
			}
		}
		if len(out)+n*channels > lim.MaxSamples {
			return nil, &LimitError{What: "the FLAC stream's samples", Limit: lim.MaxSamples}
		}
		for i := range n {
			for c := range channels {
				out = append(out, float32(f.Subframes[c].Samples[i])/scale)
			}
		}
	}
	return &Buffer{SampleRate: int(info.SampleRate), Channels: channels, BitDepth: bits, Format: "flac", Codec: "flac", Samples: out}, nil
}

// EncodeFLAC writes b as a 16-bit FLAC stream.
func EncodeFLAC(w io.Writer, b *Buffer) error {
	if b.Channels < 1 || b.Channels > 8 {
		return fmt.Errorf("audio: FLAC holds 1 to 8 channels, not %d", b.Channels)
	}
	frames := b.Frames()
	info := &meta.StreamInfo{
		BlockSizeMin:  flacBlockSize,
		BlockSizeMax:  flacBlockSize,
		SampleRate:    uint32(b.SampleRate),
		NChannels:     uint8(b.Channels),
		BitsPerSample: 16,
		NSamples:      uint64(frames),
	}
	// The stream's MD5 is of the samples as little-endian 16-bit interleaved PCM; the encoder
	// only fills it in on a writer it can seek back on, so it is written up front.
	sum := md5.New()
	var pcm [2]byte
	for _, s := range b.Samples {
		binary.LittleEndian.PutUint16(pcm[:], uint16(PCM16(s)))
		sum.Write(pcm[:])
	}
	copy(info.MD5sum[:], sum.Sum(nil))
	enc, err := flac.NewEncoder(w, info)
	if err != nil {
		return fmt.Errorf("audio: starting the FLAC stream: %w", err)
	}
	layout := frame.Channels(b.Channels - 1) // mono, left-right, ... in FLAC's channel order
	subs := make([]*frame.Subframe, b.Channels)
	for c := range subs {
		subs[c] = &frame.Subframe{SubHeader: frame.SubHeader{Pred: frame.PredVerbatim}}
	}
	for start := 0; start < frames; start += flacBlockSize {
		n := min(flacBlockSize, frames-start)
		for c, sf := range subs {
			sf.Samples = sf.Samples[:0]
			for i := range n {
				sf.Samples = append(sf.Samples, int32(PCM16(b.Samples[(start+i)*b.Channels+c])))
			}
			sf.NSamples = n
			// The encoder may turn a subframe into a fixed predictor; start each one verbatim.
			sf.SubHeader = frame.SubHeader{Pred: frame.PredVerbatim}
		}
		f := &frame.Frame{
			Header: frame.Header{
				HasFixedBlockSize: true,
				BlockSize:         uint16(n),
				SampleRate:        uint32(b.SampleRate),
				Channels:          layout,
				BitsPerSample:     16,
			},
			Subframes: subs,
		}
		if err := enc.WriteFrame(f); err != nil {
			return fmt.Errorf("audio: writing a FLAC frame: %w", err)
		}
	}
	return enc.Close()
}
