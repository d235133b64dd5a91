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

// audioInfoMemory is what audio_info holds, whatever the file's size: it reads the samples a
// block at a time (a FLAC frame is at most 65535 samples of 8 channels, 2 MiB as float32) and
// keeps one number per channel for each 100 ms (at 8 channels and the longest audio it reads,
// 4 MiB).
const audioInfoMemory = 8 << 20

// AudioInfo describes a stored WAV or FLAC file. It streams the samples through the measures,
// so its memory does not grow with the file.
func (h *Handler) AudioInfo(ctx context.Context, req *hootv1.AudioInfoRequest) (*hootv1.AudioInfoResult, error) {
	fd, value := sourceField(req, "source")
	if fd == nil {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "audio_info needs a WAV or FLAC file: give an artifact_id or a hash").
			WithField("artifact_id").
			WithHint("pass the artifact id that midi_render returned, or the hash of an audio file stored with cas_store")
	}
	field := string(fd.Name())
	kind := kindOf(field)
	src, err := h.open(ctx, field, kind, value, MaxAudioBytes)
	if err != nil {
		return nil, err
	}
	defer src.r.Close()
	release, err := h.cfg.Budget.Acquire("audio_info", audioInfoMemory, "")
	if err != nil {
		return nil, err
	}
	defer release()
	var (
		st    audio.Stream
		meter *audio.Meter
	)
	err = audio.Scan(src.r, src.obj.Size, decodeLimits, func(s audio.Stream) error {
		st, meter = s, audio.NewMeter(s.SampleRate, s.Channels)
		return nil
	}, func(samples []float32) error {
		meter.Write(samples)
		return ctx.Err()
	})
	if ctx.Err() != nil {
		return nil, hooteproto.AsError(ctx.Err())
	}
	if err != nil {
		var le *audio.LimitError
		hint := "name a WAV (PCM or 32-bit float) or FLAC file, such as an artifact midi_render made"
		if errors.As(err, &le) {
			hint = "audio_info reads up to about 12 minutes of stereo at 44.1 kHz; measure a shorter excerpt"
		}
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("%s %s (%s) is not audio that audio_info reads: %v", kind, value, src.mimeType, err)).
			WithField(field).
			WithHint(hint)
	}
	return meterInfo(st, meter), nil
}

// audioInfo measures buf.
func audioInfo(buf *audio.Buffer) *hootv1.AudioInfoResult {
	m := audio.NewMeter(buf.SampleRate, buf.Channels)
	m.Write(buf.Samples)
	return meterInfo(audio.Stream{SampleRate: buf.SampleRate, Channels: buf.Channels, BitDepth: buf.BitDepth, Format: buf.Format, Codec: buf.Codec}, m)
}

// meterInfo is what audio_info says of audio st that m measured.
func meterInfo(st audio.Stream, m *audio.Meter) *hootv1.AudioInfoResult {
	out := &hootv1.AudioInfoResult{
		Format:          st.Format,
		Codec:           st.Codec,
		SampleRate:      uint32(st.SampleRate),
		Channels:        uint32(st.Channels),
		BitDepth:        uint32(st.BitDepth),
		Frames:          uint64(m.Frames()),
		DurationSeconds: m.Duration(),
		PeakDbfs:        round(audio.DB(m.Peak())),
		// A full-scale sine has an RMS 3.01 dB under its peak; a full-scale square is 0 dBFS.
		RmsDbfs:        round(audio.DB(m.RMS())),
		IntegratedLufs: round(m.IntegratedLoudness()),
	}
	for _, s := range m.Silences() {
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
