package musicservice

import (
	"bytes"
	"context"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

func TestMidiToAbc(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	ctx := context.Background()
	// A waltz in G with a triplet and a note tied over the bar line.
	tune := "X:1\nT:Waltz\nM:3/4\nL:1/8\nQ:1/4=90\nK:G\nG4 B2|d4 B2|(3cBA G2 B2-|B4 A2|G6|]\n"
	conv, err := h.AbcToMidi(ctx, &hootv1.AbcToMidiRequest{Source: &hootv1.AbcToMidiRequest_Abc{Abc: tune}})
	if err != nil {
		t.Fatal(err)
	}
	midiID := conv.GetArtifact().GetId()
	res, err := h.MidiToAbc(ctx, &hootv1.MidiToAbcRequest{Source: &hootv1.MidiToAbcRequest_ArtifactId{ArtifactId: midiID}, Title: "Waltz", Tags: []string{"transcribed"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetKey() != "G" || res.GetKeySource() != "key signature event" || res.GetMeter() != "3/4" || res.GetUnit() != "1/8" {
		t.Errorf("key %q (%s), meter %q, unit %q", res.GetKey(), res.GetKeySource(), res.GetMeter(), res.GetUnit())
	}
	if res.GetGridPerQuarter() != 3 || res.GetPickup() != "" || res.GetBars() != 5 || res.GetTempoBpm() < 89.9 || res.GetTempoBpm() > 90.1 {
		t.Errorf("grid %d (%s), pickup %q, bars %d, tempo %g", res.GetGridPerQuarter(), res.GetGrid(), res.GetPickup(), res.GetBars(), res.GetTempoBpm())
	}
	abc := res.GetAbc()
	for _, want := range []string{"X:1\n", "T:Waltz\n", "M:3/4\n", "K:G\n", "(3cBA", "B2-|", "|]"} {
		if !strings.Contains(abc, want) {
			t.Errorf("the ABC lacks %q:\n%s", want, abc)
		}
	}
	if res.GetAbcTruncated() || res.GetNotes() != 11 || len(res.GetVoices()) != 1 || res.GetVoices()[0].GetNotes() != 11 {
		t.Errorf("truncated %v, notes %d, voices %v", res.GetAbcTruncated(), res.GetNotes(), res.GetVoices())
	}
	a := res.GetArtifact()
	if a.GetMimeType() != ABCMediaType || len(a.GetParentIds()) != 1 || a.GetParentIds()[0] != midiID || a.GetCreator() != "midi_to_abc" ||
		len(a.GetTags()) != 1 || a.GetTags()[0] != "transcribed" {
		t.Errorf("artifact %v", a)
	}

	// The stored ABC converts back to the same notes.
	back, err := h.AbcToMidi(ctx, &hootv1.AbcToMidiRequest{Source: &hootv1.AbcToMidiRequest_ArtifactId{ArtifactId: a.GetId()}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := notesOf(t, h, back.GetArtifact().GetHash()), notesOf(t, h, conv.GetArtifact().GetHash()); got != want {
		t.Errorf("notes after the round trip:\n%s\nwant\n%s", got, want)
	}

	// A short max_chars cuts the text, says so, and the artifact keeps it all.
	res, err = h.MidiToAbc(ctx, &hootv1.MidiToAbcRequest{Source: &hootv1.MidiToAbcRequest_Hash{Hash: conv.GetArtifact().GetHash()}, MaxChars: 10, Title: "Named"})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetAbc() != "X:1\nT:Name" || !res.GetAbcTruncated() || len(res.GetArtifact().GetParentIds()) != 0 ||
		!strings.Contains(strings.Join(res.GetWarnings(), "\n"), "the artifact "+res.GetArtifact().GetId()+" holds it all") {
		t.Errorf("cut ABC %q, truncated %v, parents %v, warnings %q", res.GetAbc(), res.GetAbcTruncated(), res.GetArtifact().GetParentIds(), res.GetWarnings())
	}
}

// notesOf lists the notes (onset, pitch, length) of a stored MIDI file.
func notesOf(t *testing.T, h *Handler, hash string) string {
	t.Helper()
	b, _, _, release, err := h.read(context.Background(), "hash", hash, MaxStoredMIDI, "")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	f, err := midi.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	scale := 480 / int64(f.TicksPerQuarter)
	for _, n := range midi.NoteEvents(f) {
		out.WriteString(strings.Join([]string{itoa(n.OnTick * scale), itoa(int64(n.Pitch)), itoa(n.DurTicks * scale)}, " ") + "\n")
	}
	return out.String()
}

func itoa(v int64) string {
	var b []byte
	if v == 0 {
		return "0"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	for v > 0 {
		b = append([]byte{byte('0' + v%10)}, b...)
		v /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

func TestMidiToAbcRefusals(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	ctx := context.Background()
	_, err := h.MidiToAbc(ctx, &hootv1.MidiToAbcRequest{})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "artifact_id", "needs a MIDI file")

	store := func(f midi.File) string {
		t.Helper()
		b, err := midi.Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		obj, _, err := h.cfg.CAS.Put(ctx, bytes.NewReader(b), MIDIMediaType)
		if err != nil {
			t.Fatal(err)
		}
		return obj.Hash.String()
	}
	// Only a tempo: nothing to write.
	empty := store(midi.File{Format: 0, TicksPerQuarter: 480, Tracks: []midi.Track{{Events: []midi.Event{midi.Tempo(0, 500000)}}}})
	_, err = h.MidiToAbc(ctx, &hootv1.MidiToAbcRequest{Source: &hootv1.MidiToAbcRequest_Hash{Hash: empty}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "hash", "plays no notes")

	// Only drums: refused unless asked for, then written on channel 10.
	drums := store(midi.File{Format: 0, TicksPerQuarter: 480, Tracks: []midi.Track{{Events: []midi.Event{
		midi.NoteOn(0, 9, 36, 100), midi.NoteOff(240, 9, 36, 0), midi.NoteOn(480, 9, 38, 100), midi.NoteOff(720, 9, 38, 0),
	}}}})
	_, err = h.MidiToAbc(ctx, &hootv1.MidiToAbcRequest{Source: &hootv1.MidiToAbcRequest_Hash{Hash: drums}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "drums", "plays only drums")
	res, err := h.MidiToAbc(ctx, &hootv1.MidiToAbcRequest{Source: &hootv1.MidiToAbcRequest_Hash{Hash: drums}, Drums: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := res.GetVoices(); len(v) != 1 || !v[0].GetDrums() || v[0].GetChannel() != 9 || !strings.Contains(res.GetAbc(), "%%MIDI channel 10\n") {
		t.Errorf("drum voices %v in\n%s", v, res.GetAbc())
	}

	// Not MIDI.
	obj, _, err := h.cfg.CAS.Put(ctx, bytes.NewReader([]byte("X:1\nK:C\nC")), ABCMediaType)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.MidiToAbc(ctx, &hootv1.MidiToAbcRequest{Source: &hootv1.MidiToAbcRequest_Hash{Hash: obj.Hash.String()}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "hash", "not a readable MIDI file")
}
