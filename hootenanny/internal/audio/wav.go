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
