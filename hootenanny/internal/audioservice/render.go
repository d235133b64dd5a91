package audioservice

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/artifactservice"
	"github.com/hootenanny/hoot/hootenanny/internal/audio"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
	"github.com/hootenanny/hoot/hootenanny/internal/synth"
	"github.com/hootenanny/hoot/hooteproto"
)

// Defaults of midi_render.
const (
	DefaultSampleRate  = 44100
	DefaultCeilingDBFS = -1.0
)

// MidiRender renders a MIDI file with a SoundFont and stores the audio as an artifact. It runs
// as a job and reports the seconds rendered.
func (h *Handler) MidiRender(ctx context.Context, req *hootv1.MidiRenderRequest) (*hootv1.MidiRenderResult, error) {
	fd, value := sourceField(req, "source")
	if fd == nil {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "midi_render needs a MIDI file: give an artifact_id or a hash").
			WithField("artifact_id").
			WithHint("pass the artifact id that abc_to_midi returned, or the hash of a MIDI file stored with cas_store")
	}
	field := string(fd.Name())
	kind := kindOf(field)
	format := req.GetFormat()
	if format == "" {
		format = "wav"
	}
	if format != "wav" && format != "flac" {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("format %q is not one midi_render writes", format)).
			WithField("format").WithHint(`give "wav" or "flac"`)
	}
	rate := int(req.GetSampleRate())
	if rate == 0 {
		rate = DefaultSampleRate
	}
	if rate < synth.MinSampleRate || rate > synth.MaxSampleRate {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("sample_rate %d is outside what the synthesiser plays, %d to %d Hz", rate, synth.MinSampleRate, synth.MaxSampleRate)).
			WithField("sample_rate").WithHint("give 44100 or 48000, or leave it out for 44100")
	}
	tail := req.GetTailSeconds()
	if tail == 0 {
		tail = synth.DefaultTail
	}
	if tail < 0 || tail > 10 {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("tail_seconds %g is outside 0 to 10", tail)).
			WithField("tail_seconds").WithHint("give a few seconds at most, or leave it out for 1")
	}
	loud := req.GetLoudness()
	ceiling := DefaultCeilingDBFS
	if loud != nil {
		if t := loud.GetTargetLufs(); t < -40 || t > -5 {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("loudness.target_lufs %g is outside -40 to -5", t)).
				WithField("loudness.target_lufs").WithHint("give -16 for listening, or -23 for EBU R128 broadcast level")
		}
		if c := loud.GetPeakCeilingDbfs(); c != 0 {
			if c < -20 || c > 0 {
				return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("loudness.peak_ceiling_dbfs %g is outside -20 to 0", c)).
					WithField("loudness.peak_ceiling_dbfs").WithHint("give -1, or leave it out for -1")
			}
			ceiling = c
		}
	}

	src, releaseMIDI, err := h.read(ctx, field, kind, value, MaxStoredMIDI, "midi_render",
		func(size int64) int64 { return size }, "name a smaller MIDI file")
	if err != nil {
		return nil, err
	}
	defer releaseMIDI()
	notMIDI := func(err error) error {
		return hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("%s %s is not a readable MIDI file (%s): %v", kind, value, src.mimeType, err)).
			WithField(field).
			WithHint("name a Standard MIDI File (audio/midi), such as an artifact abc_to_midi made")
	}
	decoded, err := midi.DecodedSize(src.data)
	if err != nil {
		return nil, notMIDI(err)
	}
	releaseFile, err := h.cfg.Budget.Acquire("midi_render", decoded, "render a MIDI file with fewer events: split the piece into sections")
	if err != nil {
		return nil, err
	}
	defer releaseFile()
	f, err := midi.Decode(src.data)
	if err != nil {
		return nil, notMIDI(err)
	}
	src.data = nil
	releaseMIDI()

	maxFrames := min(MaxRenderSeconds*rate, int((MaxAudioBytes-audio.WAVSize(0))/4))
	opts := synth.Options{
		SampleRate: rate,
		Tail:       tail,
		Dry:        req.GetDry(),
		MaxFrames:  maxFrames,
		Progress: func(done, total float64) {
			hooteproto.ReportProgress(ctx, done, total, fmt.Sprintf("rendered %.0f of %.0f seconds", done, total))
		},
	}
	frames := synth.Frames(f, opts)
	if err := h.checkStorable(format, rate, frames, field); err != nil {
		return nil, err
	}
	releaseRender, err := h.cfg.Budget.Acquire("midi_render", renderMemory(format, frames),
		"render a shorter piece (split the tune or drop repeats), or choose a lower sample_rate")
	if err != nil {
		return nil, err
	}
	defer releaseRender()

	sf, sfName, releaseSF, err := h.soundFontFor(ctx, req)
	if err != nil {
		return nil, err
	}
	defer releaseSF()

	hooteproto.ReportProgress(ctx, 0, float64(frames)/float64(rate), "rendering")
	buf, err := sf.Render(ctx, f, opts)
	if err != nil {
		var le *synth.LimitError
		var fe *synth.FormatError
		switch {
		case errors.As(err, &le):
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
				fmt.Sprintf("the audio would last %.0f seconds; midi_render makes at most %.0f seconds at %d Hz (the limit is %d minutes or %s of WAV)",
					le.Seconds, le.MaxSeconds, rate, MaxRenderSeconds/60, "128 MiB")).
				WithField(field).
				WithHint("render a shorter piece (split the tune or drop repeats), or choose a lower sample_rate")
		case errors.As(err, &fe):
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("the SoundFont %s cannot play this file: %v", sfName, err)).
				WithField("soundfont_artifact_id").
				WithHint("try another SoundFont, or leave it out to use the worker's General MIDI default")
		case ctx.Err() != nil:
			return nil, hooteproto.AsError(ctx.Err())
		}
		return nil, h.internal("rendering", err)
	}

	var norm audio.Normalization
	if loud != nil {
		norm = audio.Normalize(buf, loud.GetTargetLufs(), ceiling)
	}
	var enc bytes.Buffer
	enc.Grow(int(audio.WAVSize(len(buf.Samples))))
	mimeType, codec := WAVMediaType, "pcm_s16le"
	if format == "flac" {
		mimeType, codec = FLACMediaType, "flac"
		err = audio.EncodeFLAC(&enc, buf)
	} else {
		err = audio.EncodeWAV(&enc, buf)
	}
	if err != nil {
		return nil, h.internal("encoding the audio", err)
	}
	buf.Format, buf.Codec = format, codec
	info := audioInfo(buf)

	meta, err := proto.Marshal(&hootv1.ArtifactMetadata{Kind: &hootv1.ArtifactMetadata_Audio{Audio: &hootv1.AudioInfo{
		SampleRate: uint32(rate), Channels: 2, BitDepth: 16, DurationSeconds: buf.Duration(), Codec: codec,
	}}})
	if err != nil {
		return nil, h.internal("encoding the metadata", err)
	}
	n := artifacts.New{MimeType: mimeType, Tags: req.GetTags(), Creator: "midi_render", Metadata: meta}
	if src.artifact != "" {
		n.ParentIDs = []string{src.artifact}
	}
	a, err := h.storeArtifact(ctx, enc.Bytes(), n)
	if err != nil {
		return nil, err
	}

	summary := fmt.Sprintf("Rendered %.1f s of %s (%d Hz stereo, 16-bit) with %s into artifact %s: %.1f LUFS, peak %.1f dBFS.",
		info.GetDurationSeconds(), format, rate, sfName, a.GetId(), info.GetIntegratedLufs(), info.GetPeakDbfs())
	content := []*hootv1.Content{{Block: &hootv1.Content_Text{Text: summary}}}
	if enc.Len() <= MaxInlineAudio {
		content = append(content, &hootv1.Content{Block: &hootv1.Content_Audio{Audio: &hootv1.Media{MimeType: mimeType, Data: enc.Bytes()}}})
	} else {
		content[0].Block = &hootv1.Content_Text{Text: summary + fmt.Sprintf(
			" The audio is %s, more than the %s sent inline; read it from the artifact's content link.", formatBytes(int64(enc.Len())), formatBytes(MaxInlineAudio))}
	}
	return &hootv1.MidiRenderResult{
		Artifact:    a,
		Audio:       info,
		Soundfont:   sfName,
		GainDb:      norm.GainDB,
		PeakLimited: norm.PeakLimited,
		Content:     content,
	}, nil
}

// soundFontFor loads the SoundFont a request names, or the default; release gives back the
// memory the load reserved.
func (h *Handler) soundFontFor(ctx context.Context, req *hootv1.MidiRenderRequest) (sf *synth.SoundFont, name string, release func(), err error) {
	fd, value := sourceField(req, "soundfont")
	if fd == nil {
		sf, name, err := h.defaultSoundFont("soundfont_artifact_id")
		return sf, name, func() {}, err
	}
	field := string(fd.Name())
	kind := "object"
	if field == "soundfont_artifact_id" {
		kind = "artifact"
	}
	sf, release, err = h.storedSoundFont(ctx, "midi_render", field, kind, value)
	return sf, value, release, err
}

// renderMemory is what midi_render holds to render frames of stereo into format: the samples
// as float32 (8 bytes a frame), the encoded file (4 bytes a frame of 16-bit WAV; FLAC is no
// larger), and the synthesiser's and encoder's working memory. The FLAC encoder keeps more
// while it works: measured, 308 MiB live for 500 s at 44.1 kHz, against 259 MiB for WAV.
func renderMemory(format string, frames int) int64 {
	if format == "flac" {
		return 16*int64(frames) + 16<<20
	}
	return 12*int64(frames) + 8<<20
}

// checkStorable refuses, before anything is rendered, audio that the content store would not
// take: frames of 16-bit stereo at rate, in format. A WAV's size is known from its length; a
// FLAC's only once it is encoded, so a FLAC is refused here only when it would have to be less
// than half its WAV, which music seldom is.
func (h *Handler) checkStorable(format string, rate, frames int, field string) error {
	limit := min(h.cfg.CAS.MaxObjectSize(), MaxAudioBytes)
	wav := audio.WAVSize(2 * frames)
	bytesPerSecond := float64(rate) * 2 * 2
	seconds := float64(frames) / float64(rate)
	maxSeconds := float64(limit-audio.WAVSize(0)) / bytesPerSecond
	switch {
	case format == "wav" && wav > limit:
		return hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("the audio would last %.0f seconds, %s of 16-bit stereo WAV at %d Hz, more than the %s the content store takes: at this rate a WAV holds at most %.0f seconds",
				seconds, cas.FormatSize(wav), rate, cas.FormatSize(limit), maxSeconds)).
			WithField(field).
			WithHint(fmt.Sprintf(`render a shorter piece (split the tune or drop repeats), choose a lower sample_rate (22050 Hz holds %.0f seconds), or give format "flac", which is about half the size`,
				float64(limit-audio.WAVSize(0))/(22050*4)))
	case format == "flac" && wav > 2*limit:
		return hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("the audio would last %.0f seconds, %s of 16-bit stereo at %d Hz; as FLAC it would have to shrink to less than half to fit the %s the content store takes, which music seldom does",
				seconds, cas.FormatSize(wav), rate, cas.FormatSize(limit))).
			WithField(field).
			WithHint(fmt.Sprintf("render a shorter piece (split the tune or drop repeats; at most about %.0f seconds at %d Hz), or choose a lower sample_rate", 2*maxSeconds, rate))
	}
	return nil
}

// storeArtifact puts b in the content store and records it as an artifact.
func (h *Handler) storeArtifact(ctx context.Context, b []byte, n artifacts.New) (*hootv1.Artifact, error) {
	return artifactservice.StoreNew(ctx, h.cfg.CAS, h.cfg.Artifacts, h.cfg.Logger, "audioservice", "the audio", b, n)
}

// kindOf says what a source field names: "artifact" or "object".
func kindOf(field string) string {
	if field == "artifact_id" || field == "soundfont_artifact_id" {
		return "artifact"
	}
	return "object"
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
