package midi

import (
	"encoding/binary"
	"fmt"
)

// EncodeOptions tunes Encode.
type EncodeOptions struct {
	// RunningStatus omits repeated channel-voice status bytes.
	RunningStatus bool
}

// Encode writes f as a Standard MIDI File without running status.
func Encode(f File) ([]byte, error) { return EncodeWith(f, EncodeOptions{}) }

// EncodeWith writes f as a Standard MIDI File. Event deltas are derived from
// the absolute ticks, which must not decrease within a track; an end-of-track
// event is appended to any track that lacks one.
func EncodeWith(f File, opts EncodeOptions) ([]byte, error) {
	if f.Format < 0 || f.Format > 2 {
		return nil, fmt.Errorf("midi: encode: format %d is not 0, 1 or 2", f.Format)
	}
	if f.Format == 0 && len(f.Tracks) != 1 {
		return nil, fmt.Errorf("midi: encode: format 0 needs exactly one track, have %d", len(f.Tracks))
	}
	if len(f.Tracks) > 0xFFFF {
		return nil, fmt.Errorf("midi: encode: %d tracks exceed 65535", len(f.Tracks))
	}
	if f.TicksPerQuarter < 1 || f.TicksPerQuarter > 0x7FFF {
		return nil, fmt.Errorf("midi: encode: ticks per quarter %d outside 1..32767", f.TicksPerQuarter)
	}
	out := make([]byte, 0, 14+64*len(f.Tracks))
	out = append(out, "MThd"...)
	out = binary.BigEndian.AppendUint32(out, 6)
	out = binary.BigEndian.AppendUint16(out, uint16(f.Format))
	out = binary.BigEndian.AppendUint16(out, uint16(len(f.Tracks)))
	out = binary.BigEndian.AppendUint16(out, uint16(f.TicksPerQuarter))
	for i, t := range f.Tracks {
		var err error
		out, err = appendTrack(out, t, opts)
		if err != nil {
			return nil, fmt.Errorf("midi: encode: track %d: %w", i, err)
		}
	}
	return out, nil
}

func appendTrack(out []byte, t Track, opts EncodeOptions) ([]byte, error) {
	out = append(out, "MTrk"...)
	lenAt := len(out)
	out = append(out, 0, 0, 0, 0)
	var prev int64
	var running byte
	ended := false
	for j, e := range t.Events {
		if ended {
			return nil, fmt.Errorf("event %d follows end of track", j)
		}
		if e.Tick < prev {
			return nil, fmt.Errorf("event %d: tick %d before previous tick %d", j, e.Tick, prev)
		}
		d := e.Tick - prev
		if d > MaxVLQ {
			return nil, fmt.Errorf("event %d: delta %d exceeds %d", j, d, MaxVLQ)
		}
		prev = e.Tick
		out = AppendVLQ(out, uint32(d))
		var err error
		out, running, err = appendEvent(out, e, running, opts.RunningStatus)
		if err != nil {
			return nil, fmt.Errorf("event %d (%s): %w", j, e.Kind, err)
		}
		if e.IsMeta(MetaEndOfTrack) {
			ended = true
		}
	}
	if !ended {
		out = append(out, 0, 0xFF, MetaEndOfTrack, 0)
	}
	n := len(out) - lenAt - 4
	if uint64(n) > 0xFFFFFFFF {
		return nil, fmt.Errorf("track of %d bytes is too long", n)
	}
	binary.BigEndian.PutUint32(out[lenAt:], uint32(n))
	return out, nil
}

func appendEvent(out []byte, e Event, running byte, useRunning bool) ([]byte, byte, error) {
	var status byte
	switch e.Kind {
	case KindNoteOff:
		status = 0x80
	case KindNoteOn:
		status = 0x90
	case KindPolyPressure:
		status = 0xA0
	case KindControlChange:
		status = 0xB0
	case KindProgramChange:
		status = 0xC0
	case KindChannelPressure:
		status = 0xD0
	case KindPitchBend:
		status = 0xE0
	case KindMeta:
		if e.MetaType > 0x7F {
			return nil, 0, fmt.Errorf("meta type 0x%02X above 0x7F", e.MetaType)
		}
		if err := checkMetaLength(e.MetaType, len(e.Data)); err != nil {
			return nil, 0, err
		}
		if len(e.Data) > MaxVLQ {
			return nil, 0, fmt.Errorf("meta payload of %d bytes is too long", len(e.Data))
		}
		out = append(out, 0xFF, e.MetaType)
		out = AppendVLQ(out, uint32(len(e.Data)))
		return append(out, e.Data...), 0, nil
	case KindSysEx:
		if e.SysExStatus != 0xF0 && e.SysExStatus != 0xF7 {
			return nil, 0, fmt.Errorf("sysex status 0x%02X is not 0xF0 or 0xF7", e.SysExStatus)
		}
		if len(e.Data) > MaxVLQ {
			return nil, 0, fmt.Errorf("sysex payload of %d bytes is too long", len(e.Data))
		}
		out = append(out, e.SysExStatus)
		out = AppendVLQ(out, uint32(len(e.Data)))
		return append(out, e.Data...), 0, nil
	default:
		return nil, 0, fmt.Errorf("unknown event kind %d", e.Kind)
	}
	if e.Channel > 15 {
		return nil, 0, fmt.Errorf("channel %d above 15", e.Channel)
	}
	status |= e.Channel
	if !useRunning || status != running {
		out = append(out, status)
	}
	switch e.Kind {
	case KindProgramChange, KindChannelPressure:
		if e.Data1 > 0x7F {
			return nil, 0, fmt.Errorf("data byte %d above 127", e.Data1)
		}
		out = append(out, e.Data1)
	case KindPitchBend:
		if e.Bend < -8192 || e.Bend > 8191 {
			return nil, 0, fmt.Errorf("pitch bend %d outside -8192..8191", e.Bend)
		}
		v := uint16(int32(e.Bend) + 8192)
		out = append(out, byte(v&0x7F), byte(v>>7))
	default:
		if e.Data1 > 0x7F || e.Data2 > 0x7F {
			return nil, 0, fmt.Errorf("data bytes %d, %d above 127", e.Data1, e.Data2)
		}
		out = append(out, e.Data1, e.Data2)
	}
	return out, status, nil
}

// checkMetaLength enforces the fixed payload sizes the specification gives.
func checkMetaLength(typ uint8, n int) error {
	want := -1
	switch typ {
	case MetaEndOfTrack:
		want = 0
	case MetaTempo:
		want = 3
	case MetaTimeSignature:
		want = 4
	case MetaKeySignature:
		want = 2
	case MetaSMPTEOffset:
		want = 5
	case MetaChannelPrefix, MetaPort:
		want = 1
	}
	if want >= 0 && n != want {
		return fmt.Errorf("meta 0x%02X payload is %d bytes, want %d", typ, n, want)
	}
	return nil
}

// AppendVLQ appends v (at most MaxVLQ) as a variable-length quantity; larger
// values are truncated to 28 bits.
func AppendVLQ(out []byte, v uint32) []byte {
	v &= MaxVLQ
	var buf [4]byte
	i := 3
	buf[i] = byte(v & 0x7F)
	for v >>= 7; v > 0; v >>= 7 {
		i--
		buf[i] = byte(v&0x7F) | 0x80
	}
	return append(out, buf[i:]...)
}
