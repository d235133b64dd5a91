package audio

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// WAV format tags.
const (
	wavPCM        = 1
	wavFloat      = 3
	wavExtensible = 0xFFFE
)

// decodeWAV reads a RIFF/WAVE file of integer PCM (8, 16, 24 or 32 bits) or 32-bit float. Every
// chunk size is checked against the bytes that are there before anything is allocated.
func decodeWAV(b []byte, lim Limits) (*Buffer, error) {
	var (
		haveFmt              bool
		tag, channels, align int
		rate, bits           int
		data                 []byte
		haveData             bool
	)
	off := 12
	for off+8 <= len(b) && !(haveFmt && haveData) {
		id := string(b[off : off+4])
		size := int64(binary.LittleEndian.Uint32(b[off+4 : off+8]))
		off += 8
		avail := int64(len(b) - off)
		if size > avail {
			if id != "data" {
				return nil, fmt.Errorf("audio: the WAV chunk %q says it holds %d bytes but only %d follow", id, size, avail)
			}
			// Writers that stream often leave the data size unset; read what is there.
			size = avail
		}
		body := b[off : off+int(size)]
		switch id {
		case "fmt ":
			if size < 16 {
				return nil, fmt.Errorf("audio: the WAV fmt chunk is %d bytes, fewer than 16", size)
			}
			tag = int(binary.LittleEndian.Uint16(body[0:2]))
			channels = int(binary.LittleEndian.Uint16(body[2:4]))
			rate = int(binary.LittleEndian.Uint32(body[4:8]))
			align = int(binary.LittleEndian.Uint16(body[12:14]))
			bits = int(binary.LittleEndian.Uint16(body[14:16]))
			if tag == wavExtensible {
				if size < 40 {
					return nil, fmt.Errorf("audio: the extensible WAV fmt chunk is %d bytes, fewer than 40", size)
				}
				tag = int(binary.LittleEndian.Uint16(body[24:26]))
			}
			haveFmt = true
		case "data":
			data, haveData = body, true
		}
		off += int(size)
		if size%2 == 1 && off < len(b) {
			off++ // chunks are padded to an even length
		}
	}
	if !haveFmt {
		return nil, fmt.Errorf("audio: the WAV file has no fmt chunk")
	}
	if !haveData {
		return nil, fmt.Errorf("audio: the WAV file has no data chunk")
	}
	if err := lim.check(rate, channels); err != nil {
		return nil, err
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
		return nil, fmt.Errorf("audio: WAV format %d with %d bits per sample is not read; 8 to 32-bit PCM and 32-bit float are", tag, bits)
	}
	width := bits / 8
	if align != width*channels {
		return nil, fmt.Errorf("audio: the WAV block align is %d, not %d bytes for %d channels of %d bits", align, width*channels, channels, bits)
	}
	frames := len(data) / align
	n := frames * channels
	if n > lim.MaxSamples {
		return nil, &LimitError{What: fmt.Sprintf("%d samples", n), Limit: lim.MaxSamples}
	}
	out := make([]float32, n)
	for i := range out {
		p := data[i*width : (i+1)*width]
		switch {
		case codec == "pcm_u8":
			out[i] = (float32(p[0]) - 128) / 128
		case bits == 16:
			out[i] = float32(int16(binary.LittleEndian.Uint16(p))) / 32768
		case bits == 24:
			v := int32(uint32(p[0])<<8|uint32(p[1])<<16|uint32(p[2])<<24) >> 8
			out[i] = float32(v) / (1 << 23)
		case codec == "pcm_f32le":
			f := math.Float32frombits(binary.LittleEndian.Uint32(p))
			if f != f || f > 1e6 || f < -1e6 { // NaN or absurd values measure as nothing
				f = 0
			}
			out[i] = f
		default:
			out[i] = float32(float64(int32(binary.LittleEndian.Uint32(p))) / (1 << 31))
		}
	}
	return &Buffer{SampleRate: rate, Channels: channels, BitDepth: bits, Format: "wav", Codec: codec, Samples: out}, nil
}

// WAVSize returns the size of the 16-bit WAV file that EncodeWAV writes for samples values.
func WAVSize(samples int) int64 { return 44 + 2*int64(samples) }

// EncodeWAV writes b as a 16-bit PCM WAV file.
func EncodeWAV(w io.Writer, b *Buffer) error {
	n := len(b.Samples)
	if WAVSize(n)-8 > math.MaxUint32 {
		return fmt.Errorf("audio: %d samples are more than a WAV file holds", n)
	}
	h := make([]byte, 44)
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(WAVSize(n)-8))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], wavPCM)
	binary.LittleEndian.PutUint16(h[22:], uint16(b.Channels))
	binary.LittleEndian.PutUint32(h[24:], uint32(b.SampleRate))
	binary.LittleEndian.PutUint32(h[28:], uint32(b.SampleRate*b.Channels*2))
	binary.LittleEndian.PutUint16(h[32:], uint16(b.Channels*2))
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(2*n))
	if _, err := w.Write(h); err != nil {
		return err
	}
	buf := make([]byte, 0, 8192)
	for _, s := range b.Samples {
		buf = binary.LittleEndian.AppendUint16(buf, uint16(PCM16(s)))
		if len(buf) == cap(buf) {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}
