package musicservice

import (
	"bytes"
	"context"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

func TestMidiAnalyze(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	ctx := context.Background()
	// A waltz in G: chord symbols give the bass and chords, the melody ends on G.
	tune := "X:1\nT:Waltz\nM:3/4\nL:1/4\nQ:1/4=90\nK:G\n\"G\"GBd|\"C\"cec|\"D7\"dAF|\"G\"G3|]\n"
	conv, err := h.AbcToMidi(ctx, &hootv1.AbcToMidiRequest{Source: &hootv1.AbcToMidiRequest_Abc{Abc: tune}})
	if err != nil {
		t.Fatal(err)
	}
	id := conv.GetArtifact().GetId()
	res, err := h.MidiAnalyze(ctx, &hootv1.MidiAnalyzeRequest{Source: &hootv1.MidiAnalyzeRequest_ArtifactId{ArtifactId: id}})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetKey().GetName() != "G major" || res.GetKey().GetTonic() != "G" || res.GetRunnerUp().GetName() == "" {
		t.Errorf("key = %v, runner-up %v", res.GetKey(), res.GetRunnerUp())
	}
	if res.GetDeclaredKey() != "G major" {
		t.Errorf("declared key = %q", res.GetDeclaredKey())
	}
	if m := res.GetMeter(); m.GetNumerator() != 3 || m.GetDenominator() != 4 || m.GetSource() != "time signature event" {
		t.Errorf("meter = %v", m)
	}
	if tp := res.GetTempo(); tp.GetBpm() < 89.9 || tp.GetBpm() > 90.1 || tp.GetSource() != "tempo event" {
		t.Errorf("tempo = %v", tp)
	}
	var names []string
	for _, c := range res.GetChords() {
		names = append(names, c.GetName())
	}
	if got := strings.Join(names, " "); got != "G C D7 G" {
		t.Errorf("chords = %q, want %q", got, "G C D7 G")
	}
	if res.GetChordsPer() != "bar" || len(res.GetVoices()) == 0 || res.GetVoices()[0].GetHighestName() != "E5" || res.GetVoices()[0].GetLowestName() != "F#4" {
		t.Errorf("per %q, voices %v", res.GetChordsPer(), res.GetVoices())
	}

	// Sections of two bars: G to C, then D7 to G.
	res, err = h.MidiAnalyze(ctx, &hootv1.MidiAnalyzeRequest{Source: &hootv1.MidiAnalyzeRequest_ArtifactId{ArtifactId: id}, SectionBars: 2})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.GetSections(); len(s) != 2 || s[0].GetFirstBar() != 1 || s[0].GetLastBar() != 2 || s[1].GetFirstBar() != 3 ||
		s[1].GetLastBar() != 4 || s[1].GetKey().GetName() != "G major" || s[0].GetRunnerUp().GetName() == "" {
		t.Errorf("sections = %v", s)
	}

	// Per beat, capped at 5: the note says how many there were.
	res, err = h.MidiAnalyze(ctx, &hootv1.MidiAnalyzeRequest{Source: &hootv1.MidiAnalyzeRequest_ArtifactId{ArtifactId: id}, ChordsPer: "beat", MaxChords: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.GetChords()) != 5 || res.GetChordsTotal() != 12 || !strings.Contains(res.GetChordsNote(), "5 of 12 chords listed") {
		t.Errorf("capped per beat: %d listed, %d in all, note %q", len(res.GetChords()), res.GetChordsTotal(), res.GetChordsNote())
	}
	if c := res.GetChords()[4]; c.GetBar() != 2 || c.GetBeat() != 2 {
		t.Errorf("fifth chord at bar %d beat %d", c.GetBar(), c.GetBeat())
	}

	// Errors name the next step.
	_, err = h.MidiAnalyze(ctx, &hootv1.MidiAnalyzeRequest{})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "artifact_id", "needs a MIDI file")
	obj, _, err := h.cfg.CAS.Put(ctx, bytes.NewReader([]byte("MThd")), MIDIMediaType)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.MidiAnalyze(ctx, &hootv1.MidiAnalyzeRequest{Source: &hootv1.MidiAnalyzeRequest_Hash{Hash: obj.Hash.String()}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "hash", "not a readable MIDI file")
}
