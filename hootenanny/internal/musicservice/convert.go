package musicservice

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/abcmidi"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
	"github.com/hootenanny/hoot/hooteproto"
)

// AbcToMidi converts one tune and stores the MIDI file as an artifact.
func (h *Handler) AbcToMidi(ctx context.Context, req *hootv1.AbcToMidiRequest) (*hootv1.AbcToMidiResult, error) {
	src, err := h.loadABC(ctx, "abc_to_midi", req)
	if err != nil {
		return nil, err
	}
	book, diags := parse(src.text)
	if book.Truncated {
		return nil, truncated(src.field, diags)
	}
	t, err := pickTune(book, req.GetX(), src.field)
	if err != nil {
		return nil, err
	}
	c, cerr := convert(src.text, t, req.GetRendering(), src.field)
	if cerr != nil {
		return nil, cerr
	}
	a, err := h.storeMIDI(ctx, src, c, req.GetTags(), "abc_to_midi")
	if err != nil {
		return nil, err
	}
	return &hootv1.AbcToMidiResult{
		Artifact:    a,
		X:           uint32(t.Header.X),
		Title:       title(t),
		Midi:        midiInfo(c.info),
		Diagnostics: diagnostics(tuneDiagnostics(src.text, t, diags)),
	}, nil
}

// AbcBookToMidi converts every tune of a book, reporting progress per tune. It runs as a job.
func (h *Handler) AbcBookToMidi(ctx context.Context, req *hootv1.AbcBookToMidiRequest) (*hootv1.AbcBookToMidiResult, error) {
	src, err := h.loadABC(ctx, "abc_book_to_midi", req)
	if err != nil {
		return nil, err
	}
	book, diags := parse(src.text)
	if book.Truncated {
		return nil, truncated(src.field, diags)
	}
	switch n := len(book.Tunes); {
	case n == 0:
		return nil, noTune(src.field)
	case n > MaxBookTunes:
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("the book holds %d tunes; one job converts at most %d", n, MaxBookTunes)).
			WithField(src.field).
			WithHint("split the book and convert each part with its own job")
	}
	res := &hootv1.AbcBookToMidiResult{}
	total := float64(len(book.Tunes))
	hooteproto.ReportProgress(ctx, 0, total, fmt.Sprintf("converting %d tunes", len(book.Tunes)))
	for i, t := range book.Tunes {
		if ctx.Err() != nil {
			return nil, hooteproto.AsError(ctx.Err())
		}
		bt := &hootv1.AbcBookTune{X: uint32(t.Header.X), Title: title(t)}
		c, cerr := convert(src.text, t, req.GetRendering(), src.field)
		if cerr != nil {
			bt.Error = cerr.Message()
			res.Failed++
		} else {
			a, err := h.storeMIDI(ctx, src, c, req.GetTags(), "abc_book_to_midi")
			if err != nil {
				return nil, err
			}
			bt.ArtifactId = a.GetId()
			bt.DurationSeconds = c.info.DurationSeconds
			bt.Notes = uint32(c.info.Notes)
			res.Converted++
		}
		res.Tunes = append(res.Tunes, bt)
		hooteproto.ReportProgress(ctx, float64(i+1), total,
			fmt.Sprintf("converted %d of %d tunes, %d failed", res.Converted, len(book.Tunes), res.Failed))
	}
	return res, nil
}

// pickTune returns the tune numbered x, or the only tune when x is 0. field names the source
// in errors.
func pickTune(book *abc.Book, x uint32, field string) (*abc.Tune, error) {
	if x == 0 {
		switch len(book.Tunes) {
		case 0:
			return nil, noTune(field)
		case 1:
			return book.Tunes[0], nil
		}
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("the ABC is a tune book of %d tunes (%s); say which one to convert", len(book.Tunes), tuneList(book))).
			WithField("x").
			WithHint("pass its X: number in x, or convert every tune with abc_book_to_midi")
	}
	for _, t := range book.Tunes {
		if uint32(t.Header.X) == x {
			return t, nil
		}
	}
	return nil, noSuchTune(book, x)
}

// converted is one tune as MIDI.
type converted struct {
	file []byte
	info midi.Info
}

// convert renders t. Its errors are about the music or the rendering, so they are the caller's
// to fix; field names the source.
func convert(src string, t *abc.Tune, r *hootv1.MidiRendering, field string) (converted, *hooteproto.Error) {
	if bpm := r.GetTempoBpm(); bpm > 0 && bpm < abcmidi.MinBPM {
		return converted{}, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("tempo_bpm %g is slower than a MIDI file can play: its slowest tempo is %.2f quarter notes a minute", bpm, abcmidi.MinBPM)).
			WithField("rendering.tempo_bpm").
			WithHint("give 4 or more, or 0 to keep the tune's own Q: tempo")
	}
	opts := abcmidi.Options{
		Transpose:  int(r.GetTranspose()),
		BPM:        r.GetTempoBpm(),
		Velocity:   int(r.GetVelocity()),
		Straight:   r.GetStraight(),
		MelodyOnly: r.GetMelodyOnly(),
		Voices:     abcmidi.MIDIDirectives(src, t),
		Directives: abcmidi.Directives(src, t),
	}
	f, err := abcmidi.Convert(t, opts)
	if err != nil {
		// The domain packages prefix their errors with their names, which say nothing to a
		// caller.
		why := strings.NewReplacer("abcmidi: ", "", "abc: ", "").Replace(err.Error())
		e := hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("tune X:%d cannot be converted: %s", t.Header.X, why)).
			WithField(field).
			WithHint("check the tune with abc_validate and fix what it reports")
		switch {
		case errors.Is(err, abcmidi.ErrNoVoices):
			e = hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("tune X:%d has no music after its header", t.Header.X)).
				WithField(field).
				WithHint("write the notes on the lines after the K: line")
		case strings.Contains(why, "outside the MIDI range") && r.GetTranspose() != 0:
			e.WithField("rendering.transpose").WithHint("transpose by fewer semitones: MIDI notes run from 0 to 127 (60 is middle C)")
		case strings.Contains(why, "outside the MIDI range"):
			e.WithHint("bring the note into the MIDI range (0 to 127, 60 is middle C) with fewer octave marks ' or ,")
		case strings.Contains(why, "overlay"):
			e.WithHint("write the music after & as a voice of its own (V:2) instead of an overlay")
		}
		return converted{}, e
	}
	b, err := midi.Encode(*f)
	if err != nil {
		return converted{}, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("tune X:%d cannot be written as MIDI: %v", t.Header.X, err)).
			WithField(field).
			WithHint("check the tune with abc_validate and fix what it reports")
	}
	if len(b) > MaxStoredMIDI {
		return converted{}, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("tune X:%d makes a MIDI file of %d bytes, more than the %d allowed", t.Header.X, len(b), MaxStoredMIDI)).
			WithField(field).
			WithHint("shorten the tune: long rests (Z) and repeats multiply its length")
	}
	return converted{file: b, info: midi.Inspect(f)}, nil
}

// storeMIDI stores a converted tune as an artifact, the child of the ABC's artifact if any.
func (h *Handler) storeMIDI(ctx context.Context, src source, c converted, tags []string, tool string) (*hootv1.Artifact, error) {
	meta, err := proto.Marshal(&hootv1.ArtifactMetadata{Kind: &hootv1.ArtifactMetadata_Midi{Midi: &hootv1.MidiInfo{
		Format:          uint32(c.info.Format),
		Tracks:          uint32(c.info.Tracks),
		TicksPerQuarter: uint32(c.info.TicksPerQuarter),
		DurationSeconds: c.info.DurationSeconds,
		TempoBpm:        startBPM(c.info),
	}}})
	if err != nil {
		return nil, h.internal("encoding the metadata", err)
	}
	n := artifacts.New{MimeType: MIDIMediaType, Tags: tags, Creator: tool, Metadata: meta}
	if src.parent != "" {
		n.ParentIDs = []string{src.parent}
	}
	return h.storeArtifact(ctx, c.file, n)
}

func startBPM(info midi.Info) float64 {
	if len(info.TempoMap) > 0 && info.TempoMap[0].Tick == 0 {
		return info.TempoMap[0].BPM
	}
	return 120 // the MIDI default
}

// MidiInfo describes a stored MIDI file.
func (h *Handler) MidiInfo(ctx context.Context, req *hootv1.MidiInfoRequest) (*hootv1.MidiInfoResult, error) {
	fd, value := sourceField(req)
	if fd == nil {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "midi_info needs a MIDI file: give an artifact_id or a hash").
			WithField("artifact_id").
			WithHint("pass the artifact id that abc_to_midi returned, or the hash of a MIDI file stored with cas_store")
	}
	field := string(fd.Name())
	// The file is summarised as it is read, without keeping its events: the memory is the
	// file's bytes, reserved before they are read.
	b, _, mimeType, release, err := h.read(ctx, field, value, MaxStoredMIDI, "midi_info")
	if err != nil {
		return nil, err
	}
	defer release()
	info, err := midi.InspectBytes(b)
	if err != nil {
		return nil, notMIDI(field, value, mimeType, err)
	}
	return midiInfo(info), nil
}

// notMIDI is the error for stored content that is not a MIDI file midi.Decode reads.
func notMIDI(field, value, mimeType string, err error) error {
	msg := fmt.Sprintf("%s %s is not a readable MIDI file (%s): %v", what(field), value, mimeType, err)
	return hooteproto.NewError(hooteproto.CodeInvalidArgument, msg).
		WithField(field).
		WithHint("name a Standard MIDI File (audio/midi), such as an artifact abc_to_midi made")
}

// readMIDI reads and decodes the stored MIDI file that req names by its oneof source (an
// artifact_id or a hash), for tool. It reserves the memory the decoded file takes, times
// factor for what tool makes of it, before it decodes; the caller calls release when done
// with the file.
func (h *Handler) readMIDI(ctx context.Context, tool string, req proto.Message, factor int64) (*midi.File, func(), error) {
	f, _, release, err := h.readMIDIFrom(ctx, tool, req, factor)
	return f, release, err
}

// readMIDIFrom is readMIDI that also returns the artifact the file came from, or "".
func (h *Handler) readMIDIFrom(ctx context.Context, tool string, req proto.Message, factor int64) (*midi.File, string, func(), error) {
	fd, value := sourceField(req)
	if fd == nil {
		return nil, "", nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, tool+" needs a MIDI file: give an artifact_id or a hash").
			WithField("artifact_id").
			WithHint("pass the artifact id that abc_to_midi returned, or the hash of a MIDI file stored with cas_store")
	}
	field := string(fd.Name())
	b, parent, mimeType, releaseBytes, err := h.read(ctx, field, value, MaxStoredMIDI, tool)
	if err != nil {
		return nil, "", nil, err
	}
	defer releaseBytes()
	size, err := midi.DecodedSize(b)
	if err != nil {
		return nil, "", nil, notMIDI(field, value, mimeType, err)
	}
	release, err := h.cfg.Budget.Acquire(tool, factor*size, "name a MIDI file with fewer events: split the piece into sections")
	if err != nil {
		return nil, "", nil, err
	}
	f, err := midi.Decode(b)
	if err != nil {
		release()
		return nil, "", nil, notMIDI(field, value, mimeType, err)
	}
	return f, parent, release, nil
}

func midiInfo(in midi.Info) *hootv1.MidiInfoResult {
	out := &hootv1.MidiInfoResult{
		Format:          uint32(in.Format),
		Tracks:          uint32(in.Tracks),
		TicksPerQuarter: uint32(in.TicksPerQuarter),
		DurationTicks:   uint64(max(in.DurationTicks, 0)),
		DurationSeconds: in.DurationSeconds,
		DurationBars:    in.DurationBars,
		Notes:           uint32(in.Notes),
	}
	for _, t := range in.TempoMap {
		out.TempoMap = append(out.TempoMap, &hootv1.MidiTempo{
			Tick: uint64(t.Tick), Seconds: t.Seconds, Bpm: t.BPM, MicrosPerQuarter: t.MicrosPerQuarter,
		})
	}
	for _, s := range in.TimeSignatures {
		out.TimeSignatures = append(out.TimeSignatures, &hootv1.MidiTimeSignature{
			Tick: uint64(s.Tick), Bar: s.Bar, Numerator: uint32(s.Numerator), Denominator: uint32(s.Denominator),
		})
	}
	for _, k := range in.KeySignatures {
		out.KeySignatures = append(out.KeySignatures, &hootv1.MidiKeySignature{
			Tick: uint64(k.Tick), Track: uint32(k.Track), Name: k.Name, Sharps: int32(k.Sharps), Minor: k.Minor,
		})
	}
	for _, t := range in.PerTrack {
		ti := &hootv1.MidiTrackInfo{
			Index: uint32(t.Index), Name: t.Name, Events: uint32(t.Events), EndTick: uint64(t.EndTick),
			Notes: notes(t.NoteStats),
		}
		for _, c := range t.Channels {
			ti.Channels = append(ti.Channels, uint32(c))
		}
		out.PerTrack = append(out.PerTrack, ti)
	}
	for _, c := range in.PerChannel {
		ci := &hootv1.MidiChannelInfo{Channel: uint32(c.Channel), Notes: notes(c.NoteStats)}
		for _, p := range c.Programs {
			ci.Programs = append(ci.Programs, uint32(p))
		}
		out.PerChannel = append(out.PerChannel, ci)
	}
	return out
}

func notes(s midi.NoteStats) *hootv1.MidiNotes {
	out := &hootv1.MidiNotes{Notes: uint32(s.Notes)}
	if s.Notes > 0 {
		out.Lowest, out.Highest = uint32(s.Lowest), uint32(s.Highest)
	}
	return out
}
