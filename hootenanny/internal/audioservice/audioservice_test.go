package audioservice

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/abcmidi"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/audio"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

func newHandler(t *testing.T, soundFont string) *Handler {
	t.Helper()
	dir := t.TempDir()
	store, err := cas.OpenDir(filepath.Join(dir, "cas"), nil)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := servicetest.Database(t)
	return New(Config{CAS: store, Artifacts: artifacts.NewStore(db), SoundFont: soundFont})
}

// put stores b as an artifact and returns its id and hash.
func put(t *testing.T, h *Handler, b []byte, mimeType string) (string, string) {
	t.Helper()
	ctx := context.Background()
	obj, _, err := h.cfg.CAS.Put(ctx, bytes.NewReader(b), mimeType)
	if err != nil {
		t.Fatal(err)
	}
	a, err := h.cfg.Artifacts.Create(ctx, artifacts.New{Hash: obj.Hash.String(), Size: obj.Size, MimeType: mimeType, Creator: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID, obj.Hash.String()
}

// tuneMIDI converts a short tune: eight notes at 240 quarter notes a minute, two seconds.
func tuneMIDI(t *testing.T) []byte {
	t.Helper()
	book, _ := abc.Parse("X:1\nT:Scale\nM:4/4\nL:1/4\nQ:1/4=240\nK:G\nGABc|defg|\n", abc.Options{})
	f, err := abcmidi.Convert(book.Tunes[0], abcmidi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := midi.Encode(*f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMidiRender(t *testing.T) {
	t.Parallel()
	h := newHandler(t, "")
	ctx := context.Background()
	midiID, _ := put(t, h, tuneMIDI(t), "audio/midi")
	for _, format := range []string{"wav", "flac"} {
		t.Run(format, func(t *testing.T) {
			res, err := h.MidiRender(ctx, &hootv1.MidiRenderRequest{
				Source:     &hootv1.MidiRenderRequest_ArtifactId{ArtifactId: midiID},
				Format:     format,
				SampleRate: 22050,
				Loudness:   &hootv1.LoudnessTarget{TargetLufs: -18},
				Tags:       []string{"heard"},
			})
			if err != nil {
				t.Fatal(err)
			}
			a := res.GetArtifact()
			wantType := map[string]string{"wav": WAVMediaType, "flac": FLACMediaType}[format]
			if a.GetMimeType() != wantType || len(a.GetParentIds()) != 1 || a.GetParentIds()[0] != midiID || a.GetMetadata().GetAudio().GetSampleRate() != 22050 {
				t.Fatalf("artifact %v", a)
			}
			info := res.GetAudio()
			// 2 s of music and the default 1 s tail.
			if info.GetFormat() != format || info.GetChannels() != 2 || math.Abs(info.GetDurationSeconds()-3) > 0.001 {
				t.Fatalf("audio %v", info)
			}
			if math.Abs(info.GetIntegratedLufs()-(-18)) > 0.2 || info.GetPeakDbfs() > -1+0.01 || res.GetSoundfont() != SoundFontPaths[0] {
				t.Fatalf("loudness %.2f LUFS, peak %.2f dBFS, gain %.2f dB, soundfont %q", info.GetIntegratedLufs(), info.GetPeakDbfs(), res.GetGainDb(), res.GetSoundfont())
			}
			content := res.GetContent()
			if len(content) != 2 || content[0].GetText() == "" || content[1].GetAudio().GetMimeType() != wantType || int64(len(content[1].GetAudio().GetData())) != int64(a.GetSize()) {
				t.Fatalf("content: %d blocks", len(content))
			}
			// audio_info reads back what was stored, and measures it the same way.
			back, err := h.AudioInfo(ctx, &hootv1.AudioInfoRequest{Source: &hootv1.AudioInfoRequest_ArtifactId{ArtifactId: a.GetId()}})
			if err != nil {
				t.Fatal(err)
			}
			if back.GetFrames() != info.GetFrames() || back.GetCodec() != info.GetCodec() || math.Abs(back.GetIntegratedLufs()-info.GetIntegratedLufs()) > 0.01 {
				t.Fatalf("audio_info %v, midi_render said %v", back, info)
			}
			// The tail is silence once the last note has died away.
			if s := back.GetSilences(); len(s) == 0 || math.Abs(s[len(s)-1].GetEndSeconds()-3) > 0.011 {
				t.Fatalf("silences %v: the end of the tail should be silent", s)
			}
		})
	}
}

func TestMidiRenderErrors(t *testing.T) {
	t.Parallel()
	h := newHandler(t, "")
	ctx := context.Background()
	midiID, midiHash := put(t, h, tuneMIDI(t), "audio/midi")
	textID, _ := put(t, h, []byte("X:1\nK:C\nC|\n"), "text/vnd.abc")
	badSF, _ := put(t, h, []byte("RIFF\x10\x00\x00\x00sfbkLIST\xff\xff\xff\x7fINFO"), "audio/x-soundfont")
	src := &hootv1.MidiRenderRequest_ArtifactId{ArtifactId: midiID}
	cases := []struct {
		name      string
		req       *hootv1.MidiRenderRequest
		field, in string
	}{
		{"no source", &hootv1.MidiRenderRequest{}, "artifact_id", "needs a MIDI file"},
		{"not midi", &hootv1.MidiRenderRequest{Source: &hootv1.MidiRenderRequest_ArtifactId{ArtifactId: textID}}, "artifact_id", "not a readable MIDI file"},
		{"low rate", &hootv1.MidiRenderRequest{Source: src, SampleRate: 8000}, "sample_rate", "16000 to 96000"},
		{"format", &hootv1.MidiRenderRequest{Source: src, Format: "mp3"}, "format", `"mp3"`},
		{"target", &hootv1.MidiRenderRequest{Source: src, Loudness: &hootv1.LoudnessTarget{TargetLufs: -60}}, "loudness.target_lufs", "-40 to -5"},
		{"bad soundfont", &hootv1.MidiRenderRequest{Source: &hootv1.MidiRenderRequest_Hash{Hash: midiHash},
			Soundfont: &hootv1.MidiRenderRequest_SoundfontArtifactId{SoundfontArtifactId: badSF}}, "soundfont_artifact_id", "not a SoundFont"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.MidiRender(ctx, tc.req)
			servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, tc.field, tc.in)
		})
	}
}

// TestNoSoundFont checks that a worker without a SoundFont says how to get one.
func TestNoSoundFont(t *testing.T) {
	t.Parallel()
	h := newHandler(t, filepath.Join(t.TempDir(), "missing.sf2"))
	midiID, _ := put(t, h, tuneMIDI(t), "audio/midi")
	_, err := h.MidiRender(context.Background(), &hootv1.MidiRenderRequest{Source: &hootv1.MidiRenderRequest_ArtifactId{ArtifactId: midiID}})
	e := servicetest.WantError(t, err, hooteproto.CodeUnavailable, "soundfont_artifact_id", "no default SoundFont")
	if !bytes.Contains([]byte(e.Hint()), []byte("apt-get install timgm6mb-soundfont")) {
		t.Fatalf("hint %q does not say how to install one", e.Hint())
	}
	_, err = h.SoundfontInspect(context.Background(), &hootv1.SoundfontInspectRequest{})
	servicetest.WantError(t, err, hooteproto.CodeUnavailable, "artifact_id", "no default SoundFont")
}

func TestSoundfontInspect(t *testing.T) {
	t.Parallel()
	h := newHandler(t, "")
	ctx := context.Background()
	def, err := h.SoundfontInspect(ctx, &hootv1.SoundfontInspectRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if def.GetSource() != SoundFontPaths[0] || def.GetPresetsTotal() < 128 || len(def.GetDrumKits()) == 0 || def.GetSampleCount() == 0 {
		t.Fatalf("default: %s, %d presets, %d kits, %d samples", def.GetSource(), def.GetPresetsTotal(), len(def.GetDrumKits()), def.GetSampleCount())
	}
	// The same file uploaded reads the same.
	b, err := os.ReadFile(SoundFontPaths[0])
	if err != nil {
		t.Fatal(err)
	}
	_, hash := put(t, h, b, "audio/x-soundfont")
	up, err := h.SoundfontInspect(ctx, &hootv1.SoundfontInspectRequest{Source: &hootv1.SoundfontInspectRequest_Hash{Hash: hash}})
	if err != nil {
		t.Fatal(err)
	}
	if up.GetPresetsTotal() != def.GetPresetsTotal() || up.GetSource() != hash {
		t.Fatalf("uploaded: %d presets from %s", up.GetPresetsTotal(), up.GetSource())
	}
	notSF, _ := put(t, h, []byte("hello"), "text/plain")
	_, err = h.SoundfontInspect(ctx, &hootv1.SoundfontInspectRequest{Source: &hootv1.SoundfontInspectRequest_ArtifactId{ArtifactId: notSF}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "artifact_id", "RIFF sfbk")
}

func TestAudioInfo(t *testing.T) {
	t.Parallel()
	h := newHandler(t, "")
	ctx := context.Background()
	// A 997 Hz sine at -20 dBFS on the left of stereo reads -23.01 LUFS (ITU-R BS.1770-4).
	b := &audio.Buffer{SampleRate: 48000, Channels: 2, Samples: make([]float32, 48000*2*5)}
	for i := range 48000 * 5 {
		b.Samples[2*i] = float32(0.1 * math.Sin(2*math.Pi*997*float64(i)/48000))
	}
	var w bytes.Buffer
	if err := audio.EncodeWAV(&w, b); err != nil {
		t.Fatal(err)
	}
	_, hash := put(t, h, w.Bytes(), WAVMediaType)
	res, err := h.AudioInfo(ctx, &hootv1.AudioInfoRequest{Source: &hootv1.AudioInfoRequest_Hash{Hash: hash}})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.GetIntegratedLufs()-(-23.01)) > 0.1 || math.Abs(res.GetPeakDbfs()-(-20)) > 0.01 || res.GetSampleRate() != 48000 || res.GetCodec() != "pcm_s16le" {
		t.Fatalf("audio_info %v", res)
	}
	textID, _ := put(t, h, []byte("not audio"), "text/plain")
	_, err = h.AudioInfo(ctx, &hootv1.AudioInfoRequest{Source: &hootv1.AudioInfoRequest_ArtifactId{ArtifactId: textID}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "artifact_id", "neither a WAV")
	_, err = h.AudioInfo(ctx, &hootv1.AudioInfoRequest{})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "artifact_id", "needs a WAV or FLAC file")
}
