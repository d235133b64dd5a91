package musicservice

import (
	"context"
	"errors"
	"fmt"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/midiabc"
	"github.com/hootenanny/hoot/hooteproto"
)

// DefaultABCChars is how much of the ABC midi_to_abc returns in its result when max_chars is 0;
// the artifact holds it all.
const DefaultABCChars = 16 << 10

// MidiToAbc writes a stored MIDI file out as ABC, stores the ABC as an artifact (the child of
// the MIDI's artifact) and returns it with what the transcription chose.
func (h *Handler) MidiToAbc(ctx context.Context, req *hootv1.MidiToAbcRequest) (*hootv1.MidiToAbcResult, error) {
	// The transcription keeps the notes twice over (paired, then on the grid) and the ABC
	// (bounded by midiabc.DefaultMaxBytes): about four times what the decoded file holds.
	f, parent, release, err := h.readMIDIFrom(ctx, "midi_to_abc", req, 4)
	if err != nil {
		return nil, err
	}
	defer release()
	fd, value := sourceField(req)
	field := string(fd.Name())
	r, err := midiabc.Convert(f, midiabc.Options{Drums: req.GetDrums(), Title: req.GetTitle()})
	var tooMany *midiabc.TooManyNotesError
	var tooLong *midiabc.TooLongError
	switch {
	case errors.As(err, &tooMany):
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("%s %s has %d notes, more than the %d one transcription reads", what(field), value, tooMany.Notes, midiabc.MaxNotes)).
			WithField(field).
			WithHint("transcribe a shorter excerpt: split the piece into sections and convert each")
	case errors.As(err, &tooLong):
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("%s %s makes more than %d bytes of ABC, more than an ABC tool reads", what(field), value, tooLong.Max)).
			WithField(field).
			WithHint("transcribe a shorter excerpt, or fewer voices: split the piece into sections and convert each")
	case errors.Is(err, midiabc.ErrOnlyDrums):
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("%s %s plays only drums (channel 10), which midi_to_abc leaves out unless asked", what(field), value)).
			WithField("drums").
			WithHint("pass drums: true to write them on a percussion voice")
	case errors.Is(err, midiabc.ErrNoNotes):
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("%s %s plays no notes: there is nothing to write as ABC", what(field), value)).
			WithField(field).
			WithHint("check the file with midi_info: a MIDI file of only tempo and controller events has no notes")
	case err != nil:
		return nil, h.internal("writing the MIDI file as ABC", err)
	}
	n := artifacts.New{MimeType: ABCMediaType, Tags: req.GetTags(), Creator: "midi_to_abc"}
	if parent != "" {
		n.ParentIDs = []string{parent}
	}
	a, err := h.storeArtifact(ctx, []byte(r.ABC), n)
	if err != nil {
		return nil, err
	}
	limit := int(req.GetMaxChars())
	if limit == 0 {
		limit = DefaultABCChars
	}
	text, cut := firstChars(r.ABC, limit)
	out := &hootv1.MidiToAbcResult{
		Artifact:         a,
		Abc:              text,
		AbcTruncated:     cut,
		Key:              r.Key,
		KeySource:        r.KeySource,
		Meter:            r.Meter,
		MeterSource:      r.MeterSource,
		Unit:             r.Unit,
		Grid:             r.Grid,
		GridPerQuarter:   uint32(r.GridPerQuarter),
		Pickup:           r.Pickup,
		TempoBpm:         r.BPM,
		Bars:             uint32(r.Bars),
		Notes:            uint32(r.Notes),
		DrumNotesLeftOut: uint32(r.DrumNotesLeftOut),
		Warnings:         r.Warnings,
		KeyChanges:       uint32(r.KeyChanges),
		TempoChanges:     uint32(r.TempoChanges),
	}
	if cut {
		out.Warnings = append(out.Warnings, fmt.Sprintf("the ABC is %d bytes; the first %d characters are returned here, and the artifact %s holds it all", len(r.ABC), limit, a.GetId()))
	}
	for _, v := range r.Voices {
		out.Voices = append(out.Voices, &hootv1.MidiAbcVoice{
			Id: v.ID, Track: uint32(v.Track), Channel: uint32(v.Channel), Name: v.Name, Program: int32(v.Program),
			Lane: uint32(v.Lane), Notes: uint32(v.Notes), Drums: v.Drums,
		})
	}
	return out, nil
}

// firstChars returns the first n characters of s, and whether that cut anything.
func firstChars(s string, n int) (string, bool) {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos], true
		}
		i++
	}
	return s, false
}
