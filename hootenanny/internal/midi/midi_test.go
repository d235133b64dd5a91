package midi

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func sampleFile() File {
	return File{
		Format:          1,
		TicksPerQuarter: 480,
		Tracks: []Track{
			{Events: []Event{
				TrackName(0, "conductor"),
				Tempo(0, 500000),
				TimeSignature(0, 4, 4, 24, 8),
				KeySignature(0, 1, false),
				Tempo(1920, 250000),
				TimeSignature(1920, 6, 8, 36, 8),
				KeySignature(1920, -3, true),
				EndOfTrack(3360),
			}},
			{Events: []Event{
				TrackName(0, "melody"),
				ProgramChange(0, 0, 73),
				ControlChange(0, 0, 7, 100),
				NoteOn(0, 0, 60, 100),
				NoteOn(480, 0, 60, 0),
				NoteOn(480, 0, 64, 90),
				NoteOff(960, 0, 64, 64),
				PitchBend(960, 0, -8192),
				PitchBend(970, 0, 8191),
				PitchBend(980, 0, 0),
				{Tick: 990, Kind: KindPolyPressure, Channel: 0, Data1: 64, Data2: 10},
				{Tick: 995, Kind: KindChannelPressure, Channel: 0, Data1: 20},
				{Tick: 1000, Kind: KindSysEx, SysExStatus: 0xF0, Data: []byte{0x7E, 0x7F, 0x09, 0x01, 0xF7}},
				{Tick: 1000, Kind: KindSysEx, SysExStatus: 0xF7, Data: []byte{0x01}},
				TextEvent(1000, MetaText, "hello"),
				NoteOn(1920, 0, 67, 80),
				NoteOn(1920, 0, 72, 80),
				NoteOff(3360, 0, 67, 0),
				NoteOff(3360, 0, 72, 0),
				EndOfTrack(3360),
			}},
			{Events: []Event{
				ProgramChange(0, 9, 0),
				NoteOn(0, 9, 36, 127),
				NoteOn(240, 9, 36, 0),
				// no end of track: Encode adds one
			}},
		},
	}
}

// withDeltas appends the end of track Encode adds, giving what Decode should
// return for an encoded file.
func withDeltas(f File) File {
	out := File{Format: f.Format, TicksPerQuarter: f.TicksPerQuarter}
	for _, t := range f.Tracks {
		var nt Track
		var prev int64
		for _, e := range t.Events {
			prev = e.Tick
			nt.Events = append(nt.Events, e)
		}
		if len(nt.Events) == 0 || !nt.Events[len(nt.Events)-1].IsMeta(MetaEndOfTrack) {
			nt.Events = append(nt.Events, Event{Tick: prev, Kind: KindMeta, MetaType: MetaEndOfTrack})
		}
		out.Tracks = append(out.Tracks, nt)
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	for _, rs := range []bool{false, true} {
		f := sampleFile()
		b, err := EncodeWith(f, EncodeOptions{RunningStatus: rs})
		if err != nil {
			t.Fatal(err)
		}
		g, err := Decode(b)
		if err != nil {
			t.Fatalf("running=%v: %v", rs, err)
		}
		want := withDeltas(f)
		if !reflect.DeepEqual(*g, want) {
			t.Fatalf("running=%v: round trip differs\n got %+v\nwant %+v", rs, *g, want)
		}
		b2, err := EncodeWith(*g, EncodeOptions{RunningStatus: rs})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, b2) {
			t.Fatalf("running=%v: re-encoding is not stable", rs)
		}
	}
	plain, _ := Encode(sampleFile())
	running, _ := EncodeWith(sampleFile(), EncodeOptions{RunningStatus: true})
	if len(running) >= len(plain) {
		t.Fatalf("running status did not shorten the file: %d vs %d", len(running), len(plain))
	}
}

func TestVLQ(t *testing.T) {
	cases := []struct {
		v uint32
		b []byte
	}{
		{0, []byte{0x00}},
		{0x40, []byte{0x40}},
		{0x7F, []byte{0x7F}},
		{0x80, []byte{0x81, 0x00}},
		{0x2000, []byte{0xC0, 0x00}},
		{0x3FFF, []byte{0xFF, 0x7F}},
		{0x4000, []byte{0x81, 0x80, 0x00}},
		{0x100000, []byte{0xC0, 0x80, 0x00}},
		{0x1FFFFF, []byte{0xFF, 0xFF, 0x7F}},
		{0x200000, []byte{0x81, 0x80, 0x80, 0x00}},
		{0x8000000, []byte{0xC0, 0x80, 0x80, 0x00}},
		{0x0FFFFFFF, []byte{0xFF, 0xFF, 0xFF, 0x7F}},
	}
	for _, c := range cases {
		if got := AppendVLQ(nil, c.v); !bytes.Equal(got, c.b) {
			t.Errorf("AppendVLQ(%#x) = % X, want % X", c.v, got, c.b)
		}
		d := decoder{b: c.b}
		v, n, err := d.vlq(0, len(c.b))
		if err != nil || v != c.v || n != len(c.b) {
			t.Errorf("vlq(% X) = %#x, %d, %v", c.b, v, n, err)
		}
	}
	d := decoder{b: []byte{0x81, 0x80, 0x80, 0x80, 0x00}}
	if _, _, err := d.vlq(0, 5); err == nil {
		t.Error("five-byte VLQ accepted")
	}
}

// smf builds a file from a header and raw track bodies.
func smf(format, ntrks, div uint16, tracks ...[]byte) []byte {
	b := []byte("MThd\x00\x00\x00\x06")
	b = append(b, byte(format>>8), byte(format), byte(ntrks>>8), byte(ntrks), byte(div>>8), byte(div))
	for _, t := range tracks {
		b = append(b, "MTrk"...)
		n := len(t)
		b = append(b, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		b = append(b, t...)
	}
	return b
}

var eot = []byte{0x00, 0xFF, 0x2F, 0x00}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestDecodeRunningStatus(t *testing.T) {
	body := cat([]byte{
		0x00, 0x90, 60, 100, // note on
		0x60, 62, 100, // running status note on
		0x60, 60, 0, // running status, velocity 0 = off
		0x00, 62, 0,
		0x00, 0xC1, 5, // program change ch 1
		0x00, 6, // running status program change
	}, eot)
	f, err := Decode(smf(0, 1, 96, body))
	if err != nil {
		t.Fatal(err)
	}
	ev := f.Tracks[0].Events
	if len(ev) != 7 {
		t.Fatalf("got %d events: %v", len(ev), ev)
	}
	if ev[1].Kind != KindNoteOn || ev[1].Data1 != 62 || ev[1].Tick != 96 {
		t.Fatalf("running-status event wrong: %v", ev[1])
	}
	if ev[5].Kind != KindProgramChange || ev[5].Channel != 1 || ev[5].Data1 != 6 {
		t.Fatalf("running-status program change wrong: %v", ev[5])
	}
	notes := NoteEvents(f)
	want := []Note{
		{Track: 0, Channel: 0, Pitch: 60, Velocity: 100, OnTick: 0, DurTicks: 192},
		{Track: 0, Channel: 0, Pitch: 62, Velocity: 100, OnTick: 96, DurTicks: 96},
	}
	if !reflect.DeepEqual(notes, want) {
		t.Fatalf("notes = %+v", notes)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name   string
		in     []byte
		offset int
		msg    string
	}{
		{"empty", nil, 0, "shorter"},
		{"not midi", []byte("RIFF0000000000000000"), 0, "MThd"},
		{"short header length", cat([]byte("MThd\x00\x00\x00\x05"), make([]byte, 6)), 4, "less than 6"},
		{"header length past end", cat([]byte("MThd\x00\x00\x01\x00"), make([]byte, 6)), 4, "exceeds"},
		{"format 3", smf(3, 1, 96, eot), 8, "format 3"},
		{"format 0 two tracks", smf(0, 2, 96, eot, eot), 10, "format 0"},
		{"smpte", smf(0, 1, 0xE728, eot), 12, "SMPTE"},
		{"zero division", smf(0, 1, 0, eot), 12, "0 ticks"},
		{"missing track", smf(1, 2, 96, eot), 26, "found 1"},
		{"extra track", smf(1, 1, 96, eot, eot), 26, "more MTrk"},
		{"truncated chunk", cat(smf(0, 1, 96), []byte("MTrk\x00\x00\x00\x10"), eot), 18, "exceeds"},
		{"truncated chunk header", cat(smf(0, 1, 96, eot), []byte("MT")), 26, "truncated chunk header"},
		{"no end of track", smf(0, 1, 96, []byte{0x00, 0x90, 60, 100}), 26, "without an end-of-track"},
		{"bytes after eot", smf(0, 1, 96, cat(eot, []byte{0x00})), 26, "after end-of-track"},
		{"truncated note", smf(0, 1, 96, []byte{0x00, 0x90, 60}), 24, "truncated note-on"},
		{"data without status", smf(0, 1, 96, cat([]byte{0x00, 60, 100}, eot)), 23, "without a running status"},
		{"running status after meta", smf(0, 1, 96, cat([]byte{0x00, 0x90, 60, 100, 0x00, 0xFF, 0x01, 0x00, 0x00, 60, 0}, eot)), 31, "without a running status"},
		{"status as data", smf(0, 1, 96, cat([]byte{0x00, 0x90, 60, 0x90}, eot)), 25, "data byte is due"},
		{"system common", smf(0, 1, 96, cat([]byte{0x00, 0xF2, 0, 0}, eot)), 23, "not allowed"},
		{"long vlq", smf(0, 1, 96, cat([]byte{0x81, 0x80, 0x80, 0x80, 0x00, 0x90, 60, 0}, eot)), 22, "longer than 4"},
		{"truncated vlq", smf(0, 1, 96, []byte{0x81, 0x80}), 24, "truncated variable-length"},
		{"meta past track", smf(0, 1, 96, cat([]byte{0x00, 0xFF, 0x01, 0x7F, 'a'}, eot)), 25, "exceeds"},
		{"bad tempo length", smf(0, 1, 96, cat([]byte{0x00, 0xFF, 0x51, 0x02, 1, 2}, eot)), 25, "want 3"},
		{"bad eot length", smf(0, 1, 96, []byte{0x00, 0xFF, 0x2F, 0x01, 0x00}), 25, "want 0"},
		{"sysex past track", smf(0, 1, 96, cat([]byte{0x00, 0xF0, 0x20, 1}, eot)), 24, "sysex length"},
		{"meta type high", smf(0, 1, 96, cat([]byte{0x00, 0xFF, 0x80, 0x00}, eot)), 24, "above 0x7F"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.in)
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want a DecodeError", err)
			}
			if de.Offset != c.offset || !strings.Contains(de.Msg, c.msg) {
				t.Fatalf("err = %v, want offset %d and %q", err, c.offset, c.msg)
			}
		})
	}
}

func TestDecodeSkipsUnknownChunks(t *testing.T) {
	b := smf(0, 1, 96)
	b = append(b, "XFIH\x00\x00\x00\x03abc"...)
	b = append(b, smf(0, 0, 0, cat([]byte{0x00, 0x90, 60, 1, 0x10, 0x80, 60, 0}, eot))[14:]...)
	b = append(b, "junk\x00\x00\x00\x00"...)
	f, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if n := NoteEvents(f); len(n) != 1 || n[0].DurTicks != 16 {
		t.Fatalf("notes = %+v", n)
	}
}

func TestDecodeHeaderExtraBytes(t *testing.T) {
	b := []byte("MThd\x00\x00\x00\x08\x00\x00\x00\x01\x00\x60\xAA\xBB")
	b = append(b, smf(0, 0, 0, eot)[14:]...)
	f, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if f.TicksPerQuarter != 96 || len(f.Tracks) != 1 {
		t.Fatalf("got %+v", f)
	}
}

func TestDecodeLimits(t *testing.T) {
	body := cat(bytes.Repeat([]byte{0x00, 0x90, 60, 100}, 10), eot)
	if _, err := DecodeWith(smf(0, 1, 96, body), Limits{MaxEvents: 5}); err == nil || !strings.Contains(err.Error(), "more than 5 events") {
		t.Fatalf("event limit: %v", err)
	}
	if _, err := DecodeWith(smf(1, 3, 96, eot, eot, eot), Limits{MaxTracks: 2}); err == nil || !strings.Contains(err.Error(), "exceed limit") {
		t.Fatalf("track limit: %v", err)
	}
	if _, err := DecodeWith(smf(0, 1, 96, eot), Limits{MaxBytes: 10}); err == nil {
		t.Fatal("byte limit not applied")
	}
}

func TestEncodeErrors(t *testing.T) {
	good := func() File { return File{Format: 0, TicksPerQuarter: 96, Tracks: []Track{{}}} }
	cases := map[string]func(*File){
		"format":        func(f *File) { f.Format = 3 },
		"format0":       func(f *File) { f.Tracks = append(f.Tracks, Track{}) },
		"division":      func(f *File) { f.TicksPerQuarter = 0x8000 },
		"channel":       func(f *File) { f.Tracks[0].Events = []Event{NoteOn(0, 16, 60, 1)} },
		"data":          func(f *File) { f.Tracks[0].Events = []Event{NoteOn(0, 0, 128, 1)} },
		"order":         func(f *File) { f.Tracks[0].Events = []Event{NoteOn(5, 0, 60, 1), NoteOn(4, 0, 60, 0)} },
		"after eot":     func(f *File) { f.Tracks[0].Events = []Event{EndOfTrack(0), NoteOn(0, 0, 60, 1)} },
		"tempo length":  func(f *File) { f.Tracks[0].Events = []Event{MetaEvent(0, MetaTempo, []byte{1})} },
		"bend":          func(f *File) { f.Tracks[0].Events = []Event{PitchBend(0, 0, 8192)} },
		"sysex status":  func(f *File) { f.Tracks[0].Events = []Event{{Kind: KindSysEx, SysExStatus: 0xF1}} },
		"kind":          func(f *File) { f.Tracks[0].Events = []Event{{Kind: 99}} },
		"delta too big": func(f *File) { f.Tracks[0].Events = []Event{NoteOn(MaxVLQ+1, 0, 60, 1)} },
	}
	for name, mut := range cases {
		f := good()
		mut(&f)
		if _, err := Encode(f); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Encode(good()); err != nil {
		t.Fatal(err)
	}
}

func TestNoteEventsFIFO(t *testing.T) {
	f := &File{Format: 0, TicksPerQuarter: 100, Tracks: []Track{{Events: []Event{
		NoteOn(0, 2, 60, 10),
		NoteOn(50, 2, 60, 20),  // overlaps the first
		NoteOff(100, 2, 60, 0), // ends the first
		NoteOn(150, 2, 60, 0),  // ends the second
		NoteOff(160, 2, 60, 0), // stray
		NoteOn(200, 3, 61, 30), // never ended
		EndOfTrack(400),
	}}}}
	got := NoteEvents(f)
	want := []Note{
		{Channel: 2, Pitch: 60, Velocity: 10, OnTick: 0, DurTicks: 100},
		{Channel: 2, Pitch: 60, Velocity: 20, OnTick: 50, DurTicks: 100},
		{Channel: 3, Pitch: 61, Velocity: 30, OnTick: 200, DurTicks: 200},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestInspect(t *testing.T) {
	f := sampleFile()
	info := Inspect(&f)
	if info.Format != 1 || info.Tracks != 3 || info.TicksPerQuarter != 480 {
		t.Fatalf("header: %+v", info)
	}
	if len(info.TempoMap) != 2 || info.TempoMap[1].Tick != 1920 || info.TempoMap[1].BPM != 240 || !near(info.TempoMap[1].Seconds, 2) {
		t.Fatalf("tempo map: %+v", info.TempoMap)
	}
	// 4 quarters at 120 bpm = 2 s, then 3 quarters at 240 bpm = 0.75 s.
	if info.DurationTicks != 3360 || !near(info.DurationSeconds, 2.75) {
		t.Fatalf("duration: %d ticks, %v s", info.DurationTicks, info.DurationSeconds)
	}
	// One bar of 4/4, then 1440 ticks of 6/8 (1440 ticks a bar) = 2 bars.
	if !near(info.DurationBars, 2) {
		t.Fatalf("bars: %v", info.DurationBars)
	}
	if len(info.TimeSignatures) != 2 || info.TimeSignatures[1].Numerator != 6 || info.TimeSignatures[1].Denominator != 8 || info.TimeSignatures[1].Bar != 1 {
		t.Fatalf("time signatures: %+v", info.TimeSignatures)
	}
	if len(info.KeySignatures) != 2 || info.KeySignatures[0].Name != "G major" || info.KeySignatures[1].Name != "C minor" {
		t.Fatalf("key signatures: %+v", info.KeySignatures)
	}
	if info.Notes != 5 || info.Lowest != 36 || info.Highest != 72 {
		t.Fatalf("notes: %+v", info.NoteStats)
	}
	if tr := info.PerTrack[1]; tr.Name != "melody" || tr.Notes != 4 || tr.Lowest != 60 || tr.Highest != 72 || !reflect.DeepEqual(tr.Channels, []int{0}) {
		t.Fatalf("track 1: %+v", tr)
	}
	if tr := info.PerTrack[0]; tr.Notes != 0 || tr.Lowest != -1 {
		t.Fatalf("track 0: %+v", tr)
	}
	if len(info.PerChannel) != 2 || info.PerChannel[1].Channel != 9 || info.PerChannel[1].Notes != 1 || !reflect.DeepEqual(info.PerChannel[0].Programs, []int{73}) {
		t.Fatalf("channels: %+v", info.PerChannel)
	}
}

func TestInspectDefaults(t *testing.T) {
	f := &File{Format: 0, TicksPerQuarter: 96, Tracks: []Track{{Events: []Event{NoteOn(0, 0, 60, 1), NoteOff(384, 0, 60, 0), EndOfTrack(384)}}}}
	info := Inspect(f)
	if len(info.TempoMap) != 1 || info.TempoMap[0].MicrosPerQuarter != DefaultMicrosPerQuarter || !near(info.DurationSeconds, 2) || !near(info.DurationBars, 1) {
		t.Fatalf("%+v", info)
	}
}

func TestKeyName(t *testing.T) {
	for _, c := range []struct {
		s    int
		m    bool
		want string
	}{{0, false, "C major"}, {0, true, "A minor"}, {-7, false, "Cb major"}, {7, true, "A# minor"}, {2, false, "D major"}, {8, false, "unknown"}} {
		if got := KeyName(c.s, c.m); got != c.want {
			t.Errorf("KeyName(%d,%v) = %q, want %q", c.s, c.m, got, c.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	s := sampleFile()
	b, _ := Encode(s)
	f.Add(b)
	b, _ = EncodeWith(s, EncodeOptions{RunningStatus: true})
	f.Add(b)
	f.Add(smf(0, 1, 96, cat([]byte{0x00, 0x90, 60, 100, 0x60, 62, 100}, eot)))
	f.Add(smf(1, 2, 96, eot, cat([]byte{0x83, 0x00, 0xFF, 0x51, 0x03, 7, 0xA1, 0x20}, eot)))
	f.Fuzz(func(t *testing.T, in []byte) {
		g, err := Decode(in)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || de.Offset < 0 || de.Offset > len(in) {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		_ = Inspect(g)
		_ = NoteEvents(g)
		out, err := Encode(*g)
		if err != nil {
			t.Fatalf("decoded file does not re-encode: %v", err)
		}
		h, err := Decode(out)
		if err != nil {
			t.Fatalf("re-encoded file does not decode: %v", err)
		}
		if !reflect.DeepEqual(Inspect(g), Inspect(h)) || !reflect.DeepEqual(NoteEvents(g), NoteEvents(h)) {
			t.Fatal("re-encoded file differs")
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	f := File{Format: 0, TicksPerQuarter: 480, Tracks: []Track{{}}}
	for i := 0; i < 10000; i++ {
		tk := int64(i) * 120
		f.Tracks[0].Events = append(f.Tracks[0].Events, NoteOn(tk, uint8(i%16), uint8(40+i%40), 90), NoteOff(tk+100, uint8(i%16), uint8(40+i%40), 0))
	}
	data, err := EncodeWith(f, EncodeOptions{RunningStatus: true})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	f := sampleFile()
	for b.Loop() {
		if _, err := Encode(f); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzInspectBytes: InspectBytes refuses what Decode refuses, and otherwise
// says what Inspect says of the decoded file.
func FuzzInspectBytes(f *testing.F) {
	for _, file := range []File{
		{Format: 1, TicksPerQuarter: 480, Tracks: []Track{
			{Events: []Event{Tempo(0, 400000), TimeSignature(0, 3, 4, 24, 8), KeySignature(0, -2, true), TrackName(0, "Caf\xe9"), Tempo(960, 600000)}},
			{Events: []Event{ProgramChange(0, 1, 5), NoteOn(0, 1, 60, 90), NoteOn(10, 1, 64, 90), NoteOff(480, 1, 60, 0), ProgramChange(500, 1, 7), NoteOn(500, 9, 36, 100), TimeSignature(700, 6, 8, 24, 8)}},
		}},
		{Format: 0, TicksPerQuarter: 96, Tracks: []Track{{Events: []Event{NoteOn(0, 0, 60, 1), NoteOn(96, 0, 60, 0), NoteOn(96, 0, 61, 0)}}}},
	} {
		b, err := Encode(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("MThd\x00\x00\x00\x06\x00\x00\x00\x01\x00\x60"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := InspectBytes(b)
		file, derr := Decode(b)
		if (err == nil) != (derr == nil) {
			t.Fatalf("InspectBytes: %v; Decode: %v", err, derr)
		}
		if derr != nil {
			if err.Error() != derr.Error() {
				t.Fatalf("InspectBytes: %v; Decode: %v", err, derr)
			}
			return
		}
		if want := Inspect(file); !reflect.DeepEqual(got, want) {
			t.Fatalf("InspectBytes:\n%+v\nInspect:\n%+v", got, want)
		}
	})
}
