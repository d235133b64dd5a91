package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/mewkiz/flac"
)

// A Stream describes the audio Scan reads.
type Stream struct {
	SampleRate, Channels, BitDepth int
	// Format is "wav" or "flac"; Codec names the sample coding.
	Format, Codec string
}

// scanBlock is how many bytes of WAV samples Scan converts at a time.
const scanBlock = 64 << 10

// Scan reads the WAV or FLAC file r holds (size bytes) a block at a time: it calls start with
// the stream's description once the header is read, then samples with each block of
// interleaved samples, scaled to [-1, 1] and whole frames, which it reuses after the call. So
// it holds one block, not the file or its samples. It checks what Decode checks.
func Scan(r io.ReadSeeker, size int64, lim Limits, start func(Stream) error, samples func([]float32) error) error {
	var magic [12]byte
	n, err := io.ReadFull(r, magic[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	b := magic[:n]
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return err
	}
	switch {
	case len(b) >= 12 && bytes.Equal(b[:4], []byte("RIFF")) && bytes.Equal(b[8:12], []byte("WAVE")):
		return scanWAV(r, size, lim, start, samples)
	case len(b) >= 4 && bytes.Equal(b[:4], []byte("fLaC")):
		return scanFLAC(r, lim, start, samples)
	}
	return ErrUnknownFormat
}

// scanWAV reads a RIFF/WAVE file of integer PCM (8, 16, 24 or 32 bits) or 32-bit float. It
// walks the chunks by their headers, reading only the fmt chunk's body, then reads the data
// chunk's samples a block at a time. Every chunk size is checked against the bytes that are
// there.
func scanWAV(r io.ReadSeeker, size int64, lim Limits, start func(Stream) error, samples func([]float32) error) error {
	var (
		haveFmt, haveData    bool
		tag, channels, align int
		rate, bits           int
		dataOff, dataSize    int64
	)
	off := int64(12)
	var h [8]byte
	for off+8 <= size && !(haveFmt && haveData) {
		if _, err := r.Seek(off, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return fmt.Errorf("audio: reading the WAV chunk at byte %d: %w", off, err)
		}
		id := string(h[0:4])
		n := int64(binary.LittleEndian.Uint32(h[4:8]))
		off += 8
		avail := size - off
		if n > avail {
			if id != "data" {
				return fmt.Errorf("audio: the WAV chunk %q says it holds %d bytes but only %d follow", id, n, avail)
			}
			// Writers that stream often leave the data size unset; read what is there.
			n = avail
		}
		switch id {
		case "fmt ":
			if n < 16 {
				return fmt.Errorf("audio: the WAV fmt chunk is %d bytes, fewer than 16", n)
			}
			body := make([]byte, min(n, 40))
			if _, err := io.ReadFull(r, body); err != nil {
				return fmt.Errorf("audio: reading the WAV fmt chunk: %w", err)
			}
			tag = int(binary.LittleEndian.Uint16(body[0:2]))
			channels = int(binary.LittleEndian.Uint16(body[2:4]))
			rate = int(binary.LittleEndian.Uint32(body[4:8]))
			align = int(binary.LittleEndian.Uint16(body[12:14]))
			bits = int(binary.LittleEndian.Uint16(body[14:16]))
			if tag == wavExtensible {
				if n < 40 {
					return fmt.Errorf("audio: the extensible WAV fmt chunk is %d bytes, fewer than 40", n)
				}
				tag = int(binary.LittleEndian.Uint16(body[24:26]))
			}
			haveFmt = true
		case "data":
			dataOff, dataSize, haveData = off, n, true
		}
		off += n
		if n%2 == 1 && off < size {
			off++ // chunks are padded to an even length
		}
	}
	if !haveFmt {
		return fmt.Errorf("audio: the WAV file has no fmt chunk")
	}
	if !haveData {
		return fmt.Errorf("audio: the WAV file has no data chunk")
	}
	if err := lim.check(rate, channels); err != nil {
		return err
	}
	var codec string
	switch {
	case tag == wavPCM && (bits == 8 || bits == 16 || bits == 24 || bits == 32):
		codec = fmt.Sprintf("pcm_s%dle", bits)
		if bits == 8 {
			codec = "pcm_u8"
		}
	case tag == wavFloat && bits == 32:
		codec = "pcm_f32le"
	default:
		return fmt.Errorf("audio: WAV format %d with %d bits per sample is not read; 8 to 32-bit PCM and 32-bit float are", tag, bits)
	}
	width := bits / 8
	if align != width*channels {
		return fmt.Errorf("audio: the WAV block align is %d, not %d bytes for %d channels of %d bits", align, width*channels, channels, bits)
	}
	frames := dataSize / int64(align)
	if total := frames * int64(channels); total > int64(lim.MaxSamples) {
		return &LimitError{What: fmt.Sprintf("%d samples", total), Limit: lim.MaxSamples}
	}
	if err := start(Stream{SampleRate: rate, Channels: channels, BitDepth: bits, Format: "wav", Codec: codec}); err != nil {
		return err
	}
	if _, err := r.Seek(dataOff, io.SeekStart); err != nil {
		return err
	}
	block := max(scanBlock/align, 1) * align
	raw := make([]byte, block)
	out := make([]float32, block/width)
	for left := frames * int64(align); left > 0; {
		chunk := raw[:min(int64(block), left)]
		if _, err := io.ReadFull(r, chunk); err != nil {
			return fmt.Errorf("audio: reading the WAV samples: %w", err)
		}
		left -= int64(len(chunk))
		o := out[:len(chunk)/width]
		for i := range o {
			p := chunk[i*width : (i+1)*width]
			switch {
			case codec == "pcm_u8":
				o[i] = (float32(p[0]) - 128) / 128
			case bits == 16:
				o[i] = float32(int16(binary.LittleEndian.Uint16(p))) / 32768
			case bits == 24:
				v := int32(uint32(p[0])<<8|uint32(p[1])<<16|uint32(p[2])<<24) >> 8
				o[i] = float32(v) / (1 << 23)
			case codec == "pcm_f32le":
				f := math.Float32frombits(binary.LittleEndian.Uint32(p))
				if f != f || f > 1e6 || f < -1e6 { // NaN or absurd values measure as nothing
					f = 0
				}
				o[i] = f
			default:
				o[i] = float32(float64(int32(binary.LittleEndian.Uint32(p))) / (1 << 31))
			}
		}
		if err := samples(o); err != nil {
			return err
		}
	}
	return nil
}

// scanFLAC reads a FLAC stream a frame at a time. flac.New skips the metadata blocks after
// STREAMINFO without reading them into memory, and a frame holds at most 65535 samples of at
// most 8 channels, so what a hostile file can make the decoder allocate is bounded by its
// frames, which are counted against lim as they come.
func scanFLAC(r io.Reader, lim Limits, start func(Stream) error, samples func([]float32) error) (err error) {
	defer func() {
		// The decoder indexes tables with values read from the stream; a fault in it must not
		// take the worker down with it.
		if p := recover(); p != nil {
			err = fmt.Errorf("audio: the FLAC stream is malformed (%v)", p)
		}
	}()
	s, err := flac.New(r)
	if err != nil {
		return fmt.Errorf("audio: reading the FLAC header: %w", err)
	}
	info := s.Info
	if err := lim.check(int(info.SampleRate), int(info.NChannels)); err != nil {
		return err
	}
	bits := int(info.BitsPerSample)
	if bits < 4 || bits > 32 {
		return fmt.Errorf("audio: FLAC with %d bits per sample is not read", bits)
	}
	channels := int(info.NChannels)
	if info.NSamples > 0 && info.NSamples*uint64(channels) > uint64(lim.MaxSamples) {
		return &LimitError{What: fmt.Sprintf("%d samples", info.NSamples*uint64(channels)), Limit: lim.MaxSamples}
	}
	if err := start(Stream{SampleRate: int(info.SampleRate), Channels: channels, BitDepth: bits, Format: "flac", Codec: "flac"}); err != nil {
		return err
	}
	scale := float32(int64(1) << (bits - 1))
	var out []float32
	total := 0
	for {
		f, err := s.ParseNext()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("audio: reading a FLAC frame: %w", err)
		}
		if len(f.Subframes) != channels {
			return fmt.Errorf("audio: a FLAC frame has %d channels, the stream %d", len(f.Subframes), channels)
		}
		n := len(f.Subframes[0].Samples)
		for _, sf := range f.Subframes[1:] {
			if len(sf.Samples) != n {
				return fmt.Errorf("audio: the channels of a FLAC frame differ in length")
			}
		}
		if total+n*channels > lim.MaxSamples {
			return &LimitError{What: "the FLAC stream's samples", Limit: lim.MaxSamples}
		}
		total += n * channels
		out = out[:0]
		for i := range n {
			for c := range channels {
				out = append(out, float32(f.Subframes[c].Samples[i])/scale)
			}
		}
		if err := samples(out); err != nil {
			return err
		}
	}
}

// Decode reads a WAV or FLAC file, telling them apart by their first bytes.
func Decode(b []byte, lim Limits) (*Buffer, error) {
	var buf *Buffer
	err := Scan(bytes.NewReader(b), int64(len(b)), lim, func(s Stream) error {
		buf = &Buffer{SampleRate: s.SampleRate, Channels: s.Channels, BitDepth: s.BitDepth, Format: s.Format, Codec: s.Codec}
		return nil
	}, func(samples []float32) error {
		buf.Samples = append(buf.Samples, samples...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return buf, nil
}
