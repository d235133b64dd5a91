package musicservice

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/membudget"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
	"github.com/hootenanny/hoot/hooteproto"
)

func putBytes(t *testing.T, h *Handler, b []byte) string {
	t.Helper()
	obj, _, err := h.cfg.CAS.Put(context.Background(), bytes.NewReader(b), MIDIMediaType)
	if err != nil {
		t.Fatal(err)
	}
	return obj.Hash.String()
}

// TestAttackLatin1MIDINames: MIDI text that is not UTF-8 (a Latin-1 track name) comes back as
// valid UTF-8 from midi_info and midi_analyze (both failed with an internal error).
func TestAttackLatin1MIDINames(t *testing.T) {
	h := newHandler(t)
	ctx := context.Background()
	b, err := midi.Encode(midi.File{Format: 1, TicksPerQuarter: 480, Tracks: []midi.Track{
		{Events: []midi.Event{midi.TrackName(0, "Ch\xe2teau \x93Rouge\x94"), midi.TextEvent(0, midi.MetaCopyright, "\xa9 1994")}},
		{Events: []midi.Event{
			midi.TrackName(0, "Fl\xfbte"), midi.TextEvent(0, midi.MetaInstrumentName, "Fl\xfbte \xe0 bec"),
			midi.TextEvent(0, midi.MetaLyric, "\xc7a"), midi.TextEvent(0, midi.MetaMarker, "D\xe9but"),
			midi.NoteOn(0, 0, 60, 90), midi.NoteOff(480, 0, 60, 0), midi.NoteOn(480, 0, 64, 90), midi.NoteOff(960, 0, 64, 0),
			midi.NoteOn(960, 0, 67, 90), midi.NoteOff(1920, 0, 67, 0),
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	hash := putBytes(t, h, b)
	info, err := h.MidiInfo(ctx, &hootv1.MidiInfoRequest{Source: &hootv1.MidiInfoRequest_Hash{Hash: hash}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := proto.Marshal(info); err != nil {
		t.Fatalf("midi_info's result does not encode: %v", err)
	}
	if got := info.GetPerTrack()[0].GetName(); got != "Château “Rouge”" {
		t.Errorf("midi_info track name %q", got)
	}
	if got := info.GetPerTrack()[1].GetName(); got != "Flûte" {
		t.Errorf("midi_info track name %q", got)
	}
	an, err := h.MidiAnalyze(ctx, &hootv1.MidiAnalyzeRequest{Source: &hootv1.MidiAnalyzeRequest_Hash{Hash: hash}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := proto.Marshal(an); err != nil {
		t.Fatalf("midi_analyze's result does not encode: %v", err)
	}
	if len(an.GetVoices()) != 1 || an.GetVoices()[0].GetName() != "Flûte" {
		t.Errorf("midi_analyze voices %v", an.GetVoices())
	}
}

// bigMIDI is a format 0 file of size bytes or so: notes under running status, three bytes an
// event, written directly.
func bigMIDI(size int) []byte {
	le := binary.BigEndian
	var track []byte
	track = append(track, 0, 0x90, 60, 90)
	for i := 0; len(track) < size-32; i++ {
		key := byte(40 + i%40)
		track = append(track, 10, key, 90, 10, key, 0)
	}
	track = append(track, 0, 0xFF, 0x2F, 0)
	b := []byte("MThd")
	b = le.AppendUint32(b, 6)
	b = append(b, 0, 0, 0, 1, 0x01, 0xE0)
	b = append(b, "MTrk"...)
	b = le.AppendUint32(b, uint32(len(track)))
	return append(b, track...)
}

// TestAttackMIDIInfoMemory: midi_info summarises a file as it reads it, holding the file's
// bytes and not its events (it held 660 MB for 12 MB: each three-byte event became 48 bytes,
// in slices grown by appending, and every note was paired again for the counts).
func TestAttackMIDIInfoMemory(t *testing.T) {
	h := newHandler(t)
	b := bigMIDI(12 << 20)
	hash := putBytes(t, h, b)
	var res *hootv1.MidiInfoResult
	var err error
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err = h.MidiInfo(context.Background(), &hootv1.MidiInfoRequest{Source: &hootv1.MidiInfoRequest_Hash{Hash: hash}})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if res.GetNotes() < 1_000_000 {
		t.Fatalf("notes %d", res.GetNotes())
	}
	n := after.TotalAlloc - before.TotalAlloc
	ratio := float64(n) / float64(len(b))
	t.Logf("midi_info of %d MiB allocated %d KiB (%.3f of the file); %d notes", len(b)>>20, n>>10, ratio, res.GetNotes())
	// The file's bytes, read once, and little besides.
	if ratio > 1.25 {
		t.Errorf("midi_info allocated %d bytes for a file of %d", n, len(b))
	}
}

// TestAttackMIDIBusy: midi_analyze reserves what the decoded file will take before decoding,
// and is refused as busy when that does not fit.
func TestAttackMIDIBusy(t *testing.T) {
	h := newHandler(t)
	budget := membudget.New(64 << 20)
	h.cfg.Budget = budget
	hash := putBytes(t, h, bigMIDI(1<<20))
	held, err := budget.Acquire("other calls", 40<<20, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.MidiAnalyze(context.Background(), &hootv1.MidiAnalyzeRequest{Source: &hootv1.MidiAnalyzeRequest_Hash{Hash: hash}})
	var he *hooteproto.Error
	if !errors.As(err, &he) || he.Code() != hooteproto.CodeOverloaded || !strings.Contains(he.Message(), "midi_analyze needs about") {
		t.Errorf("midi_analyze beside other calls: %v", err)
	}
	held()
	if budget.InUse() != 0 {
		t.Errorf("%d bytes still reserved", budget.InUse())
	}
}

// TestAttackLatin1ABC: stored ABC in Latin-1, as ABC before 2.1 often is, is read as text and
// its titles come back as valid UTF-8.
func TestAttackLatin1ABC(t *testing.T) {
	h := newHandler(t)
	obj, _, err := h.cfg.CAS.Put(context.Background(), strings.NewReader("X:1\nT:Caf\xe9 cr\xe8me\nM:4/4\nL:1/8\nK:G\nGABc dedB|\n"), "text/vnd.abc")
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.AbcParse(context.Background(), &hootv1.AbcParseRequest{Source: &hootv1.AbcParseRequest_Hash{Hash: obj.Hash.String()}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := proto.Marshal(res); err != nil {
		t.Fatalf("the result does not encode: %v", err)
	}
	if got := res.GetTunes()[0].GetTitles(); len(got) != 1 || got[0] != "Café crème" {
		t.Errorf("titles %q", got)
	}
}
