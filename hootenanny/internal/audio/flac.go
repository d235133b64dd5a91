package audio

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/frame"
	"github.com/mewkiz/flac/meta"
)

// flacBlockSize is the samples per channel of each frame EncodeFLAC writes: the size the
// reference encoder uses at 44.1 and 48 kHz.
const flacBlockSize = 4096

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
