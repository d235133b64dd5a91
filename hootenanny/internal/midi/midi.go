// Package midi reads, writes and inspects Standard MIDI Files (SMF 1.0).
//
// The model is deliberately small: a File holds a format, a time division in
// ticks per quarter note and a list of tracks; a Track is a list of Events in
// time order. Every Event carries its absolute tick (Tick); Encode derives the
// deltas from the absolute ticks, so callers building a file only set Tick.
//
// Decode is strict and bounded: chunk lengths are checked against the input,
// variable-length quantities may be at most four bytes, the number of tracks
// and events is limited, unknown chunks are skipped, and every error names the
// byte offset where it was found. It never panics on any input.
package midi

import (
	"fmt"

	"github.com/hootenanny/hoot/hootenanny/internal/textenc"
)

// Kind classifies an Event.
type Kind uint8

// Event kinds. The channel-voice kinds use Event.Channel, Data1 and Data2 (or
// Bend); Meta uses MetaType and Data; SysEx uses Data and SysExStatus.
const (
	KindNoteOff Kind = iota + 1
	KindNoteOn
	KindPolyPressure
	KindControlChange
	KindProgramChange
	KindChannelPressure
	KindPitchBend
	KindMeta
	KindSysEx
)

var kindNames = [...]string{
	KindNoteOff:         "note-off",
	KindNoteOn:          "note-on",
	KindPolyPressure:    "poly-pressure",
	KindControlChange:   "control-change",
	KindProgramChange:   "program-change",
	KindChannelPressure: "channel-pressure",
	KindPitchBend:       "pitch-bend",
	KindMeta:            "meta",
	KindSysEx:           "sysex",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Meta event types from the SMF 1.0 specification.
const (
	MetaSequenceNumber    uint8 = 0x00
	MetaText              uint8 = 0x01
	MetaCopyright         uint8 = 0x02
	MetaTrackName         uint8 = 0x03
	MetaInstrumentName    uint8 = 0x04
	MetaLyric             uint8 = 0x05
	MetaMarker            uint8 = 0x06
	MetaCuePoint          uint8 = 0x07
	MetaChannelPrefix     uint8 = 0x20
	MetaPort              uint8 = 0x21
	MetaEndOfTrack        uint8 = 0x2F
	MetaTempo             uint8 = 0x51
	MetaSMPTEOffset       uint8 = 0x54
	MetaTimeSignature     uint8 = 0x58
	MetaKeySignature      uint8 = 0x59
	MetaSequencerSpecific uint8 = 0x7F
)

// DefaultMicrosPerQuarter is the tempo in force before any tempo event
// (120 quarter notes per minute).
const DefaultMicrosPerQuarter = 500000

// MaxVLQ is the largest value a four-byte variable-length quantity holds.
const MaxVLQ = 0x0FFFFFFF

// File is a Standard MIDI File.
type File struct {
	// Format is 0 (one track), 1 (simultaneous tracks) or 2 (independent
	// sequences).
	Format int
	// TicksPerQuarter is the metrical time division (1..32767). SMPTE time
	// divisions are rejected by Decode.
	TicksPerQuarter int
	Tracks          []Track
}

// Track is one MTrk chunk: events in non-decreasing Tick order. The final
// end-of-track meta event is kept by Decode; Encode adds one if it is missing.
type Track struct {
	Events []Event
}

// Event is one track event.
type Event struct {
	// Tick is the absolute time in ticks from the start of the track. (The
	// delta from the event before is Tick less that event's Tick; it is not
	// kept, as a decoded file holds millions of events.)
	Tick int64
	Kind Kind
	// Channel is 0..15 for channel-voice events.
	Channel uint8
	// Data1 is the key (note events, poly pressure), the controller number
	// (control change), the program (program change) or the pressure
	// (channel pressure).
	Data1 uint8
	// Data2 is the velocity (note events), the pressure (poly pressure) or
	// the controller value (control change).
	Data2 uint8
	// Bend is the pitch-bend value, -8192..8191, 0 meaning centre.
	Bend int16
	// MetaType is the meta event type (KindMeta only).
	MetaType uint8
	// SysExStatus is 0xF0 or 0xF7 (KindSysEx only).
	SysExStatus uint8
	// Data is the meta payload or the opaque sysex payload (without the
	// status byte and length).
	Data []byte
}

// NoteOn returns a note-on event.
func NoteOn(tick int64, channel, key, velocity uint8) Event {
	return Event{Tick: tick, Kind: KindNoteOn, Channel: channel, Data1: key, Data2: velocity}
}

// NoteOff returns a note-off event.
func NoteOff(tick int64, channel, key, velocity uint8) Event {
	return Event{Tick: tick, Kind: KindNoteOff, Channel: channel, Data1: key, Data2: velocity}
}

// ProgramChange returns a program-change event.
func ProgramChange(tick int64, channel, program uint8) Event {
	return Event{Tick: tick, Kind: KindProgramChange, Channel: channel, Data1: program}
}

// ControlChange returns a control-change event.
func ControlChange(tick int64, channel, controller, value uint8) Event {
	return Event{Tick: tick, Kind: KindControlChange, Channel: channel, Data1: controller, Data2: value}
}

// PitchBend returns a pitch-bend event; bend is -8192..8191.
func PitchBend(tick int64, channel uint8, bend int16) Event {
	return Event{Tick: tick, Kind: KindPitchBend, Channel: channel, Bend: bend}
}

// MetaEvent returns a meta event with an arbitrary payload.
func MetaEvent(tick int64, typ uint8, data []byte) Event {
	return Event{Tick: tick, Kind: KindMeta, MetaType: typ, Data: data}
}

// TextEvent returns a text-like meta event (text, track name, lyric, ...).
func TextEvent(tick int64, typ uint8, text string) Event {
	return MetaEvent(tick, typ, []byte(text))
}

// TrackName returns a track-name meta event.
func TrackName(tick int64, name string) Event { return TextEvent(tick, MetaTrackName, name) }

// Tempo returns a set-tempo meta event (microseconds per quarter note,
// 1..0xFFFFFF).
func Tempo(tick int64, microsPerQuarter uint32) Event {
	u := microsPerQuarter
	return MetaEvent(tick, MetaTempo, []byte{byte(u >> 16), byte(u >> 8), byte(u)})
}

// TimeSignature returns a time-signature meta event. denominator must be a
// power of two; clocksPerClick is usually 24 and thirtySeconds 8.
func TimeSignature(tick int64, numerator, denominator, clocksPerClick, thirtySeconds uint8) Event {
	p := uint8(0)
	for d := denominator; d > 1; d >>= 1 {
		p++
	}
	return MetaEvent(tick, MetaTimeSignature, []byte{numerator, p, clocksPerClick, thirtySeconds})
}

// KeySignature returns a key-signature meta event: sharps is -7..7 (negative
// for flats).
func KeySignature(tick int64, sharps int8, minor bool) Event {
	m := byte(0)
	if minor {
		m = 1
	}
	return MetaEvent(tick, MetaKeySignature, []byte{byte(sharps), m})
}

// EndOfTrack returns an end-of-track meta event.
func EndOfTrack(tick int64) Event { return MetaEvent(tick, MetaEndOfTrack, nil) }

// IsMeta reports whether e is a meta event of the given type.
func (e Event) IsMeta(typ uint8) bool { return e.Kind == KindMeta && e.MetaType == typ }

// TempoValue returns the microseconds per quarter of a well-formed set-tempo
// event.
func (e Event) TempoValue() (uint32, bool) {
	if !e.IsMeta(MetaTempo) || len(e.Data) != 3 {
		return 0, false
	}
	return uint32(e.Data[0])<<16 | uint32(e.Data[1])<<8 | uint32(e.Data[2]), true
}

// TimeSignatureValue returns numerator, denominator (as a note value, e.g. 8
// for 6/8), MIDI clocks per metronome click and 32nds per quarter.
func (e Event) TimeSignatureValue() (num, den, clocks, thirtySeconds int, ok bool) {
	if !e.IsMeta(MetaTimeSignature) || len(e.Data) != 4 || e.Data[1] > 30 {
		return 0, 0, 0, 0, false
	}
	return int(e.Data[0]), 1 << e.Data[1], int(e.Data[2]), int(e.Data[3]), true
}

// KeySignatureValue returns sharps (negative for flats) and the minor flag.
func (e Event) KeySignatureValue() (sharps int, minor bool, ok bool) {
	if !e.IsMeta(MetaKeySignature) || len(e.Data) != 2 {
		return 0, false, false
	}
	return int(int8(e.Data[0])), e.Data[1] == 1, true
}

// Text returns the payload of a text-like meta event (types 0x01..0x0F: text, copyright, track
// and instrument names, lyrics, markers, cue points and the rest) as valid UTF-8: the bytes as
// they are when they are UTF-8, and otherwise read as Windows-1252 (package textenc). Data
// keeps the bytes.
func (e Event) Text() (string, bool) {
	if e.Kind != KindMeta || e.MetaType < 0x01 || e.MetaType > 0x0F {
		return "", false
	}
	return textenc.UTF8(e.Data), true
}

func (e Event) String() string {
	switch e.Kind {
	case KindNoteOn, KindNoteOff, KindPolyPressure, KindControlChange:
		return fmt.Sprintf("%d %s ch%d %d %d", e.Tick, e.Kind, e.Channel, e.Data1, e.Data2)
	case KindProgramChange, KindChannelPressure:
		return fmt.Sprintf("%d %s ch%d %d", e.Tick, e.Kind, e.Channel, e.Data1)
	case KindPitchBend:
		return fmt.Sprintf("%d %s ch%d %d", e.Tick, e.Kind, e.Channel, e.Bend)
	case KindMeta:
		return fmt.Sprintf("%d meta 0x%02X % X", e.Tick, e.MetaType, e.Data)
	case KindSysEx:
		return fmt.Sprintf("%d sysex 0x%02X (%d bytes)", e.Tick, e.SysExStatus, len(e.Data))
	}
	return fmt.Sprintf("%d %s", e.Tick, e.Kind)
}
