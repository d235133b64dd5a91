package musicservice

import (
	"context"
	"errors"
	"fmt"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/analysis"
	"github.com/hootenanny/hoot/hooteproto"
)

// MidiAnalyze finds a stored MIDI file's key, meter, tempo, chords and voices.
func (h *Handler) MidiAnalyze(ctx context.Context, req *hootv1.MidiAnalyzeRequest) (*hootv1.MidiAnalyzeResult, error) {
	// The analysis pairs the notes and keeps a few numbers for each: about twice what the
	// decoded file holds.
	f, release, err := h.readMIDI(ctx, "midi_analyze", req, 3)
	if err != nil {
		return nil, err
	}
	defer release()
	per := req.GetChordsPer()
	if per == "" {
		per = "bar"
	}
	r, err := analysis.Analyze(f, analysis.Options{
		PerBeat:     per == "beat",
		MaxChords:   int(req.GetMaxChords()),
		SectionBars: int(req.GetSectionBars()),
	})
	var tooMany *analysis.TooManyNotesError
	if errors.As(err, &tooMany) {
		fd, value := sourceField(req)
		field := string(fd.Name())
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("%s %s: %v", what(field), value, err)).
			WithField(field).
			WithHint("analyse a shorter excerpt: split the piece into sections and analyse each")
	}
	if err != nil {
		return nil, h.internal("analysing the MIDI file", err)
	}
	return analysisProto(r, per), nil
}

func analysisProto(r *analysis.Result, per string) *hootv1.MidiAnalyzeResult {
	out := &hootv1.MidiAnalyzeResult{
		Key:         keyProto(r.Key),
		RunnerUp:    keyProto(r.RunnerUp),
		Modal:       keyProto(r.Modal),
		DeclaredKey: r.Declared,
		Meter: &hootv1.MidiMeterEstimate{
			Numerator:   uint32(r.Meter.Numerator),
			Denominator: uint32(r.Meter.Denominator),
			Source:      r.Meter.Source,
			Changes:     uint32(r.Meter.Changes),
		},
		Tempo: &hootv1.MidiTempoEstimate{
			Bpm:            r.Tempo.BPM,
			Source:         r.Tempo.Source,
			MinBpm:         r.Tempo.MinBPM,
			MaxBpm:         r.Tempo.MaxBPM,
			Changes:        uint32(r.Tempo.Changes),
			BeatsPerMinute: r.Tempo.BeatsPerMinute,
		},
		ChordsPer:    per,
		ChordsTotal:  uint32(r.ChordsTotal),
		Notes:        uint32(r.Notes),
		DurationBars: r.DurationBars,
	}
	if r.Notes == 0 {
		out.Key, out.RunnerUp, out.Modal = nil, nil, nil
	}
	if r.ChordsTotal > len(r.Chords) {
		out.ChordsNote = fmt.Sprintf("%d of %d chords listed; raise max_chords (at most %d) for more", len(r.Chords), r.ChordsTotal, analysis.MaxChords)
	}
	for _, c := range r.Chords {
		cp := &hootv1.MidiChordSpan{Bar: uint32(c.Bar), Beat: uint32(c.Beat), Tick: uint64(c.Tick), Name: c.Name, Quality: c.Quality, Fit: c.Fit}
		if c.Root >= 0 {
			cp.Root, cp.Bass = r.Spell(c.Root), r.Spell(c.Bass)
		}
		out.Chords = append(out.Chords, cp)
	}
	for _, sec := range r.Sections {
		sp := &hootv1.MidiSectionKey{FirstBar: uint32(sec.FirstBar), LastBar: uint32(sec.LastBar)}
		if sec.Sounding {
			sp.Key, sp.RunnerUp = keyProto(sec.Key), keyProto(sec.RunnerUp)
		}
		out.Sections = append(out.Sections, sp)
	}
	for _, v := range r.Voices {
		vp := &hootv1.MidiVoice{
			Track: uint32(v.Track), Channel: uint32(v.Channel), Name: v.Name, Program: int32(v.Program),
			Notes: uint32(v.Notes), Lowest: uint32(v.Lowest), Highest: uint32(v.Highest),
			LowestName: analysis.PitchName(v.Lowest), HighestName: analysis.PitchName(v.Highest),
			Median: uint32(v.Median), MedianName: analysis.PitchName(v.Median), Polyphony: uint32(v.Polyphony),
		}
		if v.Drums {
			out.Drums = append(out.Drums, vp)
		} else {
			out.Voices = append(out.Voices, vp)
		}
	}
	return out
}

func keyProto(k analysis.Key) *hootv1.MidiKeyEstimate {
	return &hootv1.MidiKeyEstimate{Name: k.Name(), Tonic: k.TonicName(), Mode: k.Mode, Correlation: k.Score}
}
