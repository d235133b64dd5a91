package midi

import "sort"

// Note is a sounding note: a note-on paired with its note-off.
type Note struct {
	Track    int
	Channel  int
	Pitch    int
	Velocity int
	OnTick   int64
	DurTicks int64
}

type noteKey struct{ ch, key uint8 }

type pending struct {
	tick int64
	vel  uint8
}

// NoteEvents pairs note-ons with note-offs in every track. A note-on with
// velocity 0 counts as a note-off. Overlapping notes of the same pitch on the
// same channel are paired first-in first-out. A note still sounding at the
// end of its track ends at the track's last tick. The result is sorted by
// onset, then track, channel and pitch.
func NoteEvents(f *File) []Note {
	var out []Note
	for ti, t := range f.Tracks {
		open := map[noteKey][]pending{}
		var last int64
		for _, e := range t.Events {
			if e.Tick > last {
				last = e.Tick
			}
			if e.Kind != KindNoteOn && e.Kind != KindNoteOff {
				continue
			}
			k := noteKey{e.Channel, e.Data1}
			if e.Kind == KindNoteOn && e.Data2 > 0 {
				open[k] = append(open[k], pending{e.Tick, e.Data2})
				continue
			}
			q := open[k]
			if len(q) == 0 {
				continue // stray note-off
			}
			p := q[0]
			open[k] = q[1:]
			out = append(out, Note{Track: ti, Channel: int(k.ch), Pitch: int(k.key), Velocity: int(p.vel), OnTick: p.tick, DurTicks: e.Tick - p.tick})
		}
		for k, q := range open {
			for _, p := range q {
				out = append(out, Note{Track: ti, Channel: int(k.ch), Pitch: int(k.key), Velocity: int(p.vel), OnTick: p.tick, DurTicks: last - p.tick})
			}
		}
	}
	SortNotes(out)
	return out
}

// SortNotes orders notes by onset, track, channel, pitch and duration.
func SortNotes(ns []Note) {
	sort.SliceStable(ns, func(i, j int) bool {
		a, b := ns[i], ns[j]
		if a.OnTick != b.OnTick {
			return a.OnTick < b.OnTick
		}
		if a.Track != b.Track {
			return a.Track < b.Track
		}
		if a.Channel != b.Channel {
			return a.Channel < b.Channel
		}
		if a.Pitch != b.Pitch {
			return a.Pitch < b.Pitch
		}
		return a.DurTicks < b.DurTicks
	})
}
