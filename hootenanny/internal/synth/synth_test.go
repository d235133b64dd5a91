package synth

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"reflect"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/audio"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// defaultFont is the General MIDI SoundFont of Debian's timgm6mb-soundfont package, which the
// project's CI installs.
const defaultFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"

func loadDefault(t testing.TB) *SoundFont {
	t.Helper()
	b, err := os.ReadFile(defaultFont)
	if err != nil {
		t.Fatalf("the General MIDI SoundFont is needed (apt-get install timgm6mb-soundfont): %v", err)
	}
	sf, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	return sf
}

func TestInspectTestFont(t *testing.T) {
	t.Parallel()
	sf, err := Load(testSF2())
	if err != nil {
		t.Fatal(err)
	}
	info := inspectBytes(t, testSF2())
	if !reflect.DeepEqual(info, inspectLoaded(sf)) {
		t.Errorf("InspectFile gives\n%+v\nthe synthesiser reads\n%+v", info, inspectLoaded(sf))
	}
	if info.Name != "Test Font" || info.Version != "2.01" || info.Samples != 2 || len(info.Presets) != 2 || len(info.Instruments) != 2 {
		t.Fatalf("info %+v", info)
	}
	if p := info.Presets[1]; p.Bank != 128 || p.Name != "Kit" || len(p.Instruments) != 1 || p.Instruments[0] != "Click" {
		t.Fatalf("drum preset %+v", p)
	}
	if len(info.DrumKits) != 1 || len(info.DrumKits[0].Keys) != 6 || info.DrumKits[0].Keys[0].Key != 35 || info.DrumKits[0].Keys[0].Sample != "ClickSample" {
		t.Fatalf("drum kits %+v", info.DrumKits)
	}
}

func TestInspectGeneralMIDI(t *testing.T) {
	t.Parallel()
	sf := loadDefault(t)
	f, err := os.Open(defaultFont)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	info, err := InspectFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if ref := inspectLoaded(sf); !reflect.DeepEqual(info, ref) {
		t.Errorf("InspectFile and the synthesiser's reading differ:\n%+v\n%+v", info, ref)
	}
	programs := map[int]bool{}
	for _, p := range info.Presets {
		if p.Bank == 0 {
			programs[p.Program] = true
		}
	}
	if len(programs) != 128 {
		t.Fatalf("bank 0 has %d of the 128 General MIDI programs", len(programs))
	}
	if len(info.DrumKits) == 0 {
		t.Fatal("no drum kit in bank 128")
	}
	keys := map[int]string{}
	for _, k := range info.DrumKits[0].Keys {
		keys[k.Key] = k.Instrument + "/" + k.Sample
	}
	// General MIDI's drum map runs from key 35 (acoustic bass drum) to 81 (open triangle).
	for _, k := range []int{35, 36, 38, 42, 46, 49, 81} {
		if keys[k] == "" {
			t.Fatalf("drum kit %q plays nothing on key %d", info.DrumKits[0].Name, k)
		}
	}
	t.Logf("%s %s: %d presets, %d instruments, %d samples; kit %q key 38 plays %s",
		info.Name, info.Version, len(info.Presets), len(info.Instruments), info.Samples, info.DrumKits[0].Name, keys[38])
}

func TestRenderTiming(t *testing.T) {
	t.Parallel()
	sf, err := Load(testSF2())
	if err != nil {
		t.Fatal(err)
	}
	// Four quarter notes at 120 bpm, then a tempo change to 60 bpm and one more.
	tr := midi.Track{Events: []midi.Event{
		midi.Tempo(0, 500000),
		midi.NoteOn(0, 0, 69, 100), midi.NoteOff(240, 0, 69, 0),
		midi.NoteOn(480, 0, 69, 100), midi.NoteOff(720, 0, 69, 0),
		midi.Tempo(960, 1000000),
		midi.NoteOn(960, 0, 69, 100), midi.NoteOff(1200, 0, 69, 0),
		midi.EndOfTrack(1440),
	}}
	f := &midi.File{Format: 0, TicksPerQuarter: 480, Tracks: []midi.Track{tr}}
	var last float64
	buf, err := sf.Render(context.Background(), f, Options{SampleRate: 44100, Tail: 0.5, Dry: true, Progress: func(done, _ float64) { last = done }})
	if err != nil {
		t.Fatal(err)
	}
	// 960 ticks at 120 bpm (1 s) and 480 at 60 bpm (1 s), then the tail.
	if d := buf.Duration(); math.Abs(d-2.5) > 1.0/44100 || math.Abs(last-2.5) > 1e-9 {
		t.Fatalf("duration %.5f s (progress said %.3f), want 2.5", d, last)
	}
	// Sound where the notes are, silence well after each release.
	level := func(from, to float64) float64 {
		s := buf.Samples[int(from*44100)*2 : int(to*44100)*2]
		return audio.DB(audio.RMS(&audio.Buffer{Channels: 2, Samples: s}))
	}
	for _, span := range [][2]float64{{0.01, 0.2}, {0.51, 0.7}, {1.01, 1.4}} {
		if l := level(span[0], span[1]); l < -40 {
			t.Fatalf("%.2f-%.2f s is at %.1f dBFS; a note should sound there", span[0], span[1], l)
		}
	}
	if l := level(2.2, 2.5); l > -60 {
		t.Fatalf("the tail is at %.1f dBFS; the notes ended long before", l)
	}
}

func TestRenderLimits(t *testing.T) {
	t.Parallel()
	sf, err := Load(testSF2())
	if err != nil {
		t.Fatal(err)
	}
	f := &midi.File{TicksPerQuarter: 480, Tracks: []midi.Track{{Events: []midi.Event{midi.NoteOn(0, 0, 60, 90), midi.EndOfTrack(480 * 100)}}}}
	var le *LimitError
	if _, err := sf.Render(context.Background(), f, Options{SampleRate: 44100, MaxFrames: 44100 * 10}); !errors.As(err, &le) {
		t.Fatalf("a 50 s render under a 10 s bound: %v", err)
	}
	// A file whose ticks claim years, at the slowest tempo, is refused before anything is made.
	years := &midi.File{TicksPerQuarter: 1, Tracks: []midi.Track{{Events: []midi.Event{
		midi.Tempo(0, 0xFFFFFF), midi.NoteOn(0, 0, 60, 90), midi.EndOfTrack(midi.MaxVLQ * 100)}}}}
	if _, err := sf.Render(context.Background(), years, Options{SampleRate: 44100}); !errors.As(err, &le) {
		t.Fatalf("a render of years: %v", err)
	}
	if _, err := sf.Render(context.Background(), f, Options{SampleRate: 8000}); err == nil {
		t.Fatal("8 kHz rendered")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sf.Render(ctx, f, Options{SampleRate: 16000}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled render: %v", err)
	}
}

func TestLoadRefusesMalformed(t *testing.T) {
	t.Parallel()
	good := testSF2()
	cases := []struct {
		name string
		edit func(b []byte) []byte
	}{
		{"empty", func([]byte) []byte { return nil }},
		{"not riff", func(b []byte) []byte { b[0] = 'X'; return b }},
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"huge smpl", func(b []byte) []byte { return setChunkSize(b, "smpl", 0x7ffffff0) }},
		{"odd shdr", func(b []byte) []byte { return setChunkSize(b, "shdr", 45) }},
		{"sample out of range", func(b []byte) []byte {
			i := indexOf(b, "ClickSample")
			b[i+24], b[i+25], b[i+26] = 0xff, 0xff, 0x0f // end far past the data
			return b
		}},
		{"instrument out of range", func(b []byte) []byte {
			i := indexOf(b, "pgen")
			b[i+8+2] = 9 // the first zone names instrument 9
			return b
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.edit(append([]byte{}, good...)))
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Load: %v, want a FormatError", err)
			}
		})
	}
}

func indexOf(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return i
		}
	}
	panic("test: " + s + " not found")
}

func setChunkSize(b []byte, id string, size uint32) []byte {
	i := indexOf(b, id)
	b[i+4], b[i+5], b[i+6], b[i+7] = byte(size), byte(size>>8), byte(size>>16), byte(size>>24)
	return b
}

// FuzzLoad feeds Load arbitrary bytes: it must load them or refuse them with a FormatError,
// never panic or allocate what a header claims; what loads must play.
func FuzzLoad(f *testing.F) {
	f.Add(testSF2())
	f.Add([]byte("RIFF\x04\x00\x00\x00sfbk"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sf, err := Load(data)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Load: %v, not a FormatError", err)
			}
			return
		}
		if info, err := InspectFile(bytes.NewReader(data), int64(len(data))); err != nil || !reflect.DeepEqual(info, inspectLoaded(sf)) {
			t.Fatalf("a SoundFont that loads inspects as %+v, %v; the synthesiser reads %+v", info, err, inspectLoaded(sf))
		}
		f := &midi.File{TicksPerQuarter: 96, Tracks: []midi.Track{{Events: []midi.Event{
			midi.NoteOn(0, 0, 60, 100), midi.NoteOn(0, 9, 36, 100), midi.NoteOff(24, 0, 60, 0), midi.EndOfTrack(48)}}}}
		if _, err := sf.Render(context.Background(), f, Options{SampleRate: 16000, Tail: 0.05}); err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Render: %v", err)
			}
		}
	})
}

func inspectBytes(t testing.TB, b []byte) Info {
	t.Helper()
	info, err := InspectFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// FuzzInspectFile feeds InspectFile arbitrary bytes: it describes them or refuses them with a
// FormatError, and never panics.
func FuzzInspectFile(f *testing.F) {
	f.Add(testSF2())
	f.Add([]byte("RIFF\x04\x00\x00\x00sfbk"))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := InspectFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("InspectFile: %v, not a FormatError", err)
			}
			return
		}
		if info.Samples < 0 || info.SamplePoints < 0 || info.SamplePoints > int64(len(data)) {
			t.Fatalf("info %+v of %d bytes", info, len(data))
		}
	})
}
