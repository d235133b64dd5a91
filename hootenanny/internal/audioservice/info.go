package audioservice

import (
	"context"
	"errors"
	"fmt"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/audio"
	"github.com/hootenanny/hoot/hooteproto"
)

// decodeLimits bound what audio_info decodes: as many samples as the largest WAV it reads holds.
var decodeLimits = audio.Limits{MaxSamples: MaxAudioBytes / 2, MaxChannels: 8, MinSampleRate: 1000, MaxSampleRate: 768000}

// AudioInfo describes a stored WAV or FLAC file.
func (h *Handler) AudioInfo(ctx context.Context, req *hootv1.AudioInfoRequest) (*hootv1.AudioInfoResult, error) {
	fd, value := sourceField(req, "source")
	if fd == nil {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "audio_info needs a WAV or FLAC file: give an artifact_id or a hash").
			WithField("artifact_id").
			WithHint("pass the artifact id that midi_render returned, or the hash of an audio file stored with cas_store")
	}
	field := string(fd.Name())
	kind := kindOf(field)
	st, err := h.read(ctx, field, kind, value, MaxAudioBytes)
	if err != nil {
		return nil, err
	}
	buf, err := audio.Decode(st.data, decodeLimits)
	if err != nil {
		var le *audio.LimitError
		hint := "name a WAV (PCM or 32-bit float) or FLAC file, such as an artifact midi_render made"
		if errors.As(err, &le) {
			hint = "audio_info reads up to about 12 minutes of stereo at 44.1 kHz; measure a shorter excerpt"
		}
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("%s %s (%s) is not audio that audio_info reads: %v", kind, value, st.mimeType, err)).
			WithField(field).
			WithHint(hint)
	}
	return audioInfo(buf), nil
}

// audioInfo measures buf.
func audioInfo(buf *audio.Buffer) *hootv1.AudioInfoResult {
	out := &hootv1.AudioInfoResult{
		Format:          buf.Format,
		Codec:           buf.Codec,
		SampleRate:      uint32(buf.SampleRate),
		Channels:        uint32(buf.Channels),
		BitDepth:        uint32(buf.BitDepth),
		Frames:          uint64(buf.Frames()),
		DurationSeconds: buf.Duration(),
		PeakDbfs:        round(audio.DB(audio.Peak(buf))),
		// A full-scale sine has an RMS 3.01 dB under its peak; a full-scale square is 0 dBFS.
		RmsDbfs:        round(audio.DB(audio.RMS(buf))),
		IntegratedLufs: round(audio.IntegratedLoudness(buf)),
	}
	for _, s := range audio.Silences(buf) {
		out.Silences = append(out.Silences, &hootv1.AudioSilence{StartSeconds: round(s.Start), EndSeconds: round(s.End)})
	}
	return out
}

// round keeps three decimals: finer figures say nothing about audio and only lengthen answers.
func round(v float64) float64 {
	if v < 0 {
		return -float64(int64(-v*1000+0.5)) / 1000
	}
	return float64(int64(v*1000+0.5)) / 1000
}
