package audio

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/mewkiz/flac"
)

// sine returns seconds of a sine of freq Hz whose peak is peakDBFS, on the channels of
// channels that on says.
func sine(rate, channels int, seconds, freq, peakDBFS float64, on func(c int) bool) *Buffer {
	n := int(seconds * float64(rate))
	a := math.Pow(10, peakDBFS/20)
	b := &Buffer{SampleRate: rate, Channels: channels, BitDepth: 16, Samples: make([]float32, n*channels)}
	for i := range n {
		v := float32(a * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
		for c := range channels {
			if on(c) {
				b.Samples[i*channels+c] = v
			}
		}
	}
	return b
}

// TestLoudnessReference checks IntegratedLoudness against the reference signals whose readings
// are published: BS.1770-4 says a 0 dBFS 997 Hz sine on the left, centre or right channel reads
// -3.01 LKFS, so at -20 dBFS on one channel of stereo it reads -23.01; EBU Tech 3341's first
// two test cases are a stereo 1 kHz sine at -23 and -33 dBFS on both channels, which read -23.0
// and -33.0 LUFS. Each must come within 0.1 LU, at the sample rates the tools write.
func TestLoudnessReference(t *testing.T) {
	t.Parallel()
	left := func(c int) bool { return c == 0 }
	both := func(int) bool { return true }
	cases := []struct {
		name string
		rate int
		buf  func(rate int) *Buffer
		want float64
	}{
		{"bs1770 997 Hz -20 dBFS left of stereo 48k", 48000, func(r int) *Buffer { return sine(r, 2, 20, 997, -20, left) }, -23.01},
		{"bs1770 997 Hz -20 dBFS left of stereo 44.1k", 44100, func(r int) *Buffer { return sine(r, 2, 20, 997, -20, left) }, -23.01},
		{"bs1770 997 Hz -20 dBFS mono 96k", 96000, func(r int) *Buffer { return sine(r, 1, 10, 997, -20, both) }, -23.01},
		{"tech3341 case 1: 1 kHz -23 dBFS stereo", 48000, func(r int) *Buffer { return sine(r, 2, 20, 1000, -23, both) }, -23.0},
		{"tech3341 case 2: 1 kHz -33 dBFS stereo", 48000, func(r int) *Buffer { return sine(r, 2, 20, 1000, -33, both) }, -33.0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := IntegratedLoudness(tc.buf(tc.rate))
			t.Logf("%s: %.3f LUFS, error %.3f LU", tc.name, got, got-tc.want)
			if math.Abs(got-tc.want) > 0.1 {
				t.Fatalf("integrated loudness %.3f LUFS, want %.2f within 0.1 LU", got, tc.want)
			}
		})
	}
}

// TestLoudnessGating checks the gates with EBU Tech 3341 case 3 (10 s at -36 dBFS, 60 s at -23,
// 10 s at -36: the quiet parts fall under the relative gate) and digital silence, which falls
// under the absolute gate.
func TestLoudnessGating(t *testing.T) {
	t.Parallel()
	both := func(int) bool { return true }
	loud := sine(48000, 2, 60, 1000, -23, both)
	quiet := sine(48000, 2, 10, 1000, -36, both)
	silence := &Buffer{SampleRate: 48000, Channels: 2, Samples: make([]float32, 48000*2*10)}
	joined := &Buffer{SampleRate: 48000, Channels: 2}
	joined.Samples = append(append(append(append(joined.Samples, quiet.Samples...), loud.Samples...), quiet.Samples...), silence.Samples...)
	if got := IntegratedLoudness(joined); math.Abs(got-(-23)) > 0.1 {
		t.Fatalf("gated loudness %.3f LUFS, want -23.0 within 0.1 LU", got)
	}
	if got := IntegratedLoudness(silence); got != Floor {
		t.Fatalf("silence reads %.3f, want the floor %v", got, Floor)
	}
}

func TestLevelsAndSilences(t *testing.T) {
	t.Parallel()
	b := sine(44100, 2, 1, 440, -6, func(int) bool { return true })
	pad := make([]float32, 44100*2/2) // half a second of silence
	b.Samples = append(append(append([]float32{}, pad...), b.Samples...), pad...)
	if p := DB(Peak(b)); math.Abs(p-(-6)) > 0.01 {
		t.Fatalf("peak %.3f dBFS, want -6", p)
	}
	// A sine's RMS is 3.01 dB under its peak; the silence (half the length) takes 3.01 more.
	if r := DB(RMS(b)); math.Abs(r-(-6-3.01-3.01)) > 0.05 {
		t.Fatalf("rms %.3f dBFS, want -12.02", r)
	}
	s := Silences(b)
	if len(s) != 2 || math.Abs(s[0].Start) > 0.011 || math.Abs(s[0].End-0.5) > 0.011 || math.Abs(s[1].Start-1.5) > 0.011 || math.Abs(s[1].End-2) > 0.011 {
		t.Fatalf("silences %v, want [0 0.5] and [1.5 2]", s)
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	b := sine(48000, 2, 5, 1000, -30, func(int) bool { return true })
	n := Normalize(b, -16, -1)
	if got := IntegratedLoudness(b); math.Abs(got-(-16)) > 0.05 || n.PeakLimited {
		t.Fatalf("after normalising to -16: %.3f LUFS, %+v", got, n)
	}
	// A stereo 1 kHz sine reads as loud in LUFS as its peak in dBFS; asking for -5 LUFS with a
	// ceiling of -8 dBFS is held by the ceiling.
	n = Normalize(b, -5, -8)
	if !n.PeakLimited || math.Abs(DB(Peak(b))-(-8)) > 0.01 {
		t.Fatalf("with a -8 dBFS ceiling: peak %.3f dBFS, %+v", DB(Peak(b)), n)
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	b := sine(22050, 2, 1.3, 440, -3, func(c int) bool { return true })
	b.Samples[5] = 1.5 // clipped on the way out
	for _, tc := range []struct {
		format string
		enc    func(*bytes.Buffer, *Buffer) error
	}{
		{"wav", func(w *bytes.Buffer, b *Buffer) error { return EncodeWAV(w, b) }},
		{"flac", func(w *bytes.Buffer, b *Buffer) error { return EncodeFLAC(w, b) }},
	} {
		t.Run(tc.format, func(t *testing.T) {
			var w bytes.Buffer
			if err := tc.enc(&w, b); err != nil {
				t.Fatal(err)
			}
			if tc.format == "wav" && int64(w.Len()) != WAVSize(len(b.Samples)) {
				t.Fatalf("WAV of %d bytes, WAVSize says %d", w.Len(), WAVSize(len(b.Samples)))
			}
			got, err := Decode(w.Bytes(), DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			if got.Format != tc.format || got.SampleRate != 22050 || got.Channels != 2 || got.BitDepth != 16 || len(got.Samples) != len(b.Samples) {
				t.Fatalf("decoded %s %d Hz %d ch %d bits %d samples", got.Format, got.SampleRate, got.Channels, got.BitDepth, len(got.Samples))
			}
			for i, s := range b.Samples {
				if want := float32(PCM16(s)) / 32768; got.Samples[i] != want {
					t.Fatalf("sample %d: %v, want %v", i, got.Samples[i], want)
				}
			}
			if tc.format == "flac" {
				// The stream's MD5, which flac -t checks, is of the 16-bit samples.
				s, err := flac.New(bytes.NewReader(w.Bytes()))
				if err != nil {
					t.Fatal(err)
				}
				sum := md5.New()
				for _, v := range b.Samples {
					sum.Write(binary.LittleEndian.AppendUint16(nil, uint16(PCM16(v))))
				}
				if !bytes.Equal(s.Info.MD5sum[:], sum.Sum(nil)) || s.Info.NSamples != uint64(b.Frames()) {
					t.Fatalf("STREAMINFO MD5 %x and %d samples, want %x and %d", s.Info.MD5sum, s.Info.NSamples, sum.Sum(nil), b.Frames())
				}
			}
		})
	}
}

func TestDecodeLimits(t *testing.T) {
	t.Parallel()
	b := sine(8000, 1, 1, 440, -3, func(int) bool { return true })
	var w bytes.Buffer
	if err := EncodeWAV(&w, b); err != nil {
		t.Fatal(err)
	}
	var le *LimitError
	if _, err := Decode(w.Bytes(), Limits{MaxSamples: 100, MaxChannels: 2, MinSampleRate: 1000, MaxSampleRate: 48000}); !errors.As(err, &le) {
		t.Fatalf("over MaxSamples: %v, want a LimitError", err)
	}
	if _, err := Decode([]byte("OggS...."), DefaultLimits); !errors.Is(err, ErrUnknownFormat) {
		t.Fatalf("Ogg: %v, want ErrUnknownFormat", err)
	}
	bad := append([]byte{}, w.Bytes()...)
	bad[16] = 0xff // the fmt chunk claims more bytes than the file has
	bad[17] = 0xff
	if _, err := Decode(bad, DefaultLimits); err == nil {
		t.Fatal("a fmt chunk larger than the file decoded")
	}
}

// FuzzDecode feeds Decode arbitrary bytes: it must answer with audio or an error, never panic or
// allocate past its limits.
func FuzzDecode(f *testing.F) {
	b := sine(8000, 2, 0.05, 440, -3, func(int) bool { return true })
	var wav, fl bytes.Buffer
	if err := EncodeWAV(&wav, b); err != nil {
		f.Fatal(err)
	}
	if err := EncodeFLAC(&fl, b); err != nil {
		f.Fatal(err)
	}
	f.Add(wav.Bytes())
	f.Add(fl.Bytes())
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVE"))
	f.Add([]byte("fLaC"))
	lim := Limits{MaxSamples: 1 << 20, MaxChannels: 8, MinSampleRate: 1000, MaxSampleRate: 768000}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode(data, lim)
		if err != nil {
			return
		}
		if len(got.Samples) > lim.MaxSamples || got.Channels < 1 || len(got.Samples)%got.Channels != 0 {
			t.Fatalf("decoded %d samples of %d channels", len(got.Samples), got.Channels)
		}
		_ = IntegratedLoudness(got)
		_ = Silences(got)
	})
}
