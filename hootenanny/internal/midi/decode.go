package midi

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// Limits bound the work Decode does on hostile input.
type Limits struct {
	// MaxBytes is the largest input accepted.
	MaxBytes int
	// MaxTracks is the largest number of MTrk chunks (and declared tracks).
	MaxTracks int
	// MaxEvents is the largest total number of events over all tracks.
	MaxEvents int
}

// DefaultLimits are the limits Decode applies.
var DefaultLimits = Limits{MaxBytes: 64 << 20, MaxTracks: 1024, MaxEvents: 4 << 20}

// DecodeError is a decoding failure at a byte offset of the input.
type DecodeError struct {
	Offset int
	Msg    string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("midi: decode: offset %d: %s", e.Offset, e.Msg)
}

func errAt(off int, format string, args ...any) error {
	return &DecodeError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// Decode parses a Standard MIDI File with DefaultLimits.
func Decode(b []byte) (*File, error) { return DecodeWith(b, DefaultLimits) }

// DecodeWith parses a Standard MIDI File. It requires an MThd chunk first,
// exactly the declared number of MTrk chunks, every track to end with an
// end-of-track event and nothing after it, and it skips chunks of unknown
// type. Running status is honoured for channel-voice messages and cancelled
// by meta and sysex events, as the specification says.
func DecodeWith(b []byte, lim Limits) (*File, error) {
	f, _, err := decode(b, lim, true)
	return f, err
}

// EventSize is the memory one decoded Event takes, besides its Data.
const EventSize = int64(unsafe.Sizeof(Event{}))

// DecodedSize returns about the memory Decode(b) holds for the file it returns: its events,
// which it counts without keeping them, and their payloads, which are at most b's length. It
// returns Decode's error for b when Decode would refuse it.
func DecodedSize(b []byte) (int64, error) {
	_, counts, err := decode(b, DefaultLimits, false)
	if err != nil {
		return 0, err
	}
	n := int64(0)
	for _, c := range counts {
		n += int64(c)
	}
	return n*EventSize + int64(len(b)), nil
}

// decode parses b; with keep, it returns the file, and otherwise only the event count of each
// of its tracks.
func decode(b []byte, lim Limits, keep bool) (*File, []int, error) {
	d := decoder{b: b, lim: lim}
	format, ntrks, div, off, err := d.header()
	if err != nil {
		return nil, nil, err
	}
	// Two passes: the first checks everything and counts each track's events
	// without keeping any, the second keeps them in slices of exactly that
	// length, so a decoded file holds its events once, not in a slice grown by
	// appending that may be twice their size.
	counts, err := d.tracks(off, ntrks, nil)
	if err != nil || !keep {
		return nil, counts, err
	}
	f := &File{Format: format, TicksPerQuarter: div, Tracks: make([]Track, len(counts))}
	d.events, d.counts = 0, counts
	if _, err := d.tracks(off, ntrks, f.Tracks); err != nil {
		return nil, nil, err
	}
	return f, counts, nil
}

// header reads the MThd chunk and returns the format, the number of tracks,
// the ticks per quarter note and the offset of the chunk after it.
func (d *decoder) header() (format, ntrks, div, off int, err error) {
	b, lim := d.b, d.lim
	if lim.MaxBytes > 0 && len(b) > lim.MaxBytes {
		return 0, 0, 0, 0, errAt(0, "input of %d bytes exceeds limit %d", len(b), lim.MaxBytes)
	}
	if len(b) < 14 {
		return 0, 0, 0, 0, errAt(0, "input of %d bytes is shorter than a header chunk", len(b))
	}
	if string(b[0:4]) != "MThd" {
		return 0, 0, 0, 0, errAt(0, "missing MThd chunk (found %q)", b[0:4])
	}
	hlen := binary.BigEndian.Uint32(b[4:8])
	if hlen < 6 {
		return 0, 0, 0, 0, errAt(4, "header length %d is less than 6", hlen)
	}
	if uint64(hlen) > uint64(len(b)-8) {
		return 0, 0, 0, 0, errAt(4, "header length %d exceeds the %d bytes left", hlen, len(b)-8)
	}
	format = int(binary.BigEndian.Uint16(b[8:10]))
	ntrks = int(binary.BigEndian.Uint16(b[10:12]))
	division := binary.BigEndian.Uint16(b[12:14])
	if format > 2 {
		return 0, 0, 0, 0, errAt(8, "format %d is not 0, 1 or 2", format)
	}
	if format == 0 && ntrks != 1 {
		return 0, 0, 0, 0, errAt(10, "format 0 declares %d tracks, want 1", ntrks)
	}
	if lim.MaxTracks > 0 && ntrks > lim.MaxTracks {
		return 0, 0, 0, 0, errAt(10, "%d tracks exceed limit %d", ntrks, lim.MaxTracks)
	}
	if division&0x8000 != 0 {
		return 0, 0, 0, 0, errAt(12, "SMPTE time division 0x%04X is not supported", division)
	}
	if division == 0 {
		return 0, 0, 0, 0, errAt(12, "time division of 0 ticks per quarter")
	}
	return format, ntrks, int(division), 8 + int(hlen), nil
}

// tracks reads the chunks from off on, expecting ntrks MTrk chunks, and
// returns the number of events of each. With out (of ntrks tracks) it keeps
// each track's events there.
func (d *decoder) tracks(off, ntrks int, out []Track) ([]int, error) {
	b := d.b
	counts := make([]int, 0, ntrks)
	for off < len(b) {
		if len(b)-off < 8 {
			return nil, errAt(off, "truncated chunk header (%d bytes left)", len(b)-off)
		}
		clen := binary.BigEndian.Uint32(b[off+4 : off+8])
		if uint64(clen) > uint64(len(b)-off-8) {
			return nil, errAt(off+4, "chunk %q length %d exceeds the %d bytes left", b[off:off+4], clen, len(b)-off-8)
		}
		start, end := off+8, off+8+int(clen)
		if string(b[off:off+4]) == "MTrk" {
			if len(counts) == ntrks {
				return nil, errAt(off, "more MTrk chunks than the %d declared", ntrks)
			}
			var t *Track
			if out != nil {
				t = &out[len(counts)]
				t.Events = make([]Event, 0, d.counts[len(counts)])
			}
			d.track = len(counts)
			n, err := d.readTrack(start, end, t)
			if err != nil {
				return nil, err
			}
			counts = append(counts, n)
		}
		off = end
	}
	if len(counts) != ntrks {
		return nil, errAt(len(b), "found %d MTrk chunks, header declares %d", len(counts), ntrks)
	}
	return counts, nil
}

type decoder struct {
	b      []byte
	lim    Limits
	events int
	// counts are the events of each track, from the first pass.
	counts []int
	// visit, if set, is shown each event as it is read (track and position in
	// it), with its Data in the input; it must copy what it keeps.
	visit func(track, seq int, e Event)
	// track is the index of the track being read.
	track int
}

// vlq reads a variable-length quantity of at most four bytes ending before end.
func (d *decoder) vlq(off, end int) (uint32, int, error) {
	var v uint32
	for i := 0; i < 4; i++ {
		if off+i >= end {
			return 0, 0, errAt(off+i, "truncated variable-length quantity")
		}
		c := d.b[off+i]
		v = v<<7 | uint32(c&0x7F)
		if c&0x80 == 0 {
			return v, off + i + 1, nil
		}
	}
	return 0, 0, errAt(off, "variable-length quantity longer than 4 bytes")
}

// readTrack reads the events of the MTrk chunk from off to end and returns how
// many there are. With t, whose events it counted in an earlier call, it keeps
// them in t.
func (d *decoder) readTrack(off, end int, t *Track) (int, error) {
	keep := t != nil
	count := 0
	var tick int64
	var running byte
	for {
		if off >= end {
			return count, errAt(off, "track ends without an end-of-track event")
		}
		delta, next, err := d.vlq(off, end)
		if err != nil {
			return count, err
		}
		off = next
		tick += int64(delta)
		if d.lim.MaxEvents > 0 && d.events >= d.lim.MaxEvents {
			return count, errAt(off, "more than %d events", d.lim.MaxEvents)
		}
		d.events++
		if off >= end {
			return count, errAt(off, "truncated event: missing status byte")
		}
		evOff := off
		status := d.b[off]
		e := Event{Tick: tick}
		switch {
		case status < 0x80:
			if running == 0 {
				return count, errAt(off, "data byte 0x%02X without a running status", status)
			}
			status = running
		case status < 0xF0:
			off++
			running = status
		default:
			off++
			running = 0
		}
		switch {
		case status < 0xF0:
			e.Channel = status & 0x0F
			n := 2
			switch status & 0xF0 {
			case 0x80:
				e.Kind = KindNoteOff
			case 0x90:
				e.Kind = KindNoteOn
			case 0xA0:
				e.Kind = KindPolyPressure
			case 0xB0:
				e.Kind = KindControlChange
			case 0xC0:
				e.Kind, n = KindProgramChange, 1
			case 0xD0:
				e.Kind, n = KindChannelPressure, 1
			case 0xE0:
				e.Kind = KindPitchBend
			}
			if end-off < n {
				return count, errAt(off, "truncated %s event", e.Kind)
			}
			for i := 0; i < n; i++ {
				if d.b[off+i] > 0x7F {
					return count, errAt(off+i, "status byte 0x%02X where a data byte is due", d.b[off+i])
				}
			}
			e.Data1 = d.b[off]
			if n == 2 {
				e.Data2 = d.b[off+1]
			}
			if e.Kind == KindPitchBend {
				e.Bend = int16(int(e.Data1)|int(e.Data2)<<7) - 8192
				e.Data1, e.Data2 = 0, 0
			}
			off += n
		case status == 0xFF:
			if off >= end {
				return count, errAt(off, "truncated meta event: missing type")
			}
			e.Kind = KindMeta
			e.MetaType = d.b[off]
			if e.MetaType > 0x7F {
				return count, errAt(off, "meta type 0x%02X above 0x7F", e.MetaType)
			}
			n, next, err := d.vlq(off+1, end)
			if err != nil {
				return count, err
			}
			if uint64(n) > uint64(end-next) {
				return count, errAt(off+1, "meta 0x%02X length %d exceeds the %d bytes left in the track", e.MetaType, n, end-next)
			}
			if err := checkMetaLength(e.MetaType, int(n)); err != nil {
				return count, errAt(off+1, "%v", err)
			}
			switch {
			case n > 0 && keep:
				e.Data = append([]byte(nil), d.b[next:next+int(n)]...)
			case n > 0 && d.visit != nil:
				e.Data = d.b[next : next+int(n) : next+int(n)]
			}
			off = next + int(n)
		case status == 0xF0 || status == 0xF7:
			e.Kind = KindSysEx
			e.SysExStatus = status
			n, next, err := d.vlq(off, end)
			if err != nil {
				return count, err
			}
			if uint64(n) > uint64(end-next) {
				return count, errAt(off, "sysex length %d exceeds the %d bytes left in the track", n, end-next)
			}
			switch {
			case n > 0 && keep:
				e.Data = append([]byte(nil), d.b[next:next+int(n)]...)
			case n > 0 && d.visit != nil:
				e.Data = d.b[next : next+int(n) : next+int(n)]
			}
			off = next + int(n)
		default:
			return count, errAt(evOff, "status 0x%02X is not allowed in a track", status)
		}
		if d.visit != nil {
			d.visit(d.track, count, e)
		}
		count++
		if keep {
			t.Events = append(t.Events, e)
		}
		if e.IsMeta(MetaEndOfTrack) {
			if off != end {
				return count, errAt(off, "%d bytes after end-of-track", end-off)
			}
			return count, nil
		}
	}
}
