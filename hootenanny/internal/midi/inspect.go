package midi

import "sort"

// TempoChange is one entry of a tempo map.
type TempoChange struct {
	Tick             int64   `json:"tick"`
	MicrosPerQuarter uint32  `json:"micros_per_quarter"`
	BPM              float64 `json:"bpm"`
	// Seconds is the time at which the change takes effect.
	Seconds float64 `json:"seconds"`
}

// TimeSignatureChange is one time-signature event.
type TimeSignatureChange struct {
	Tick           int64 `json:"tick"`
	Numerator      int   `json:"numerator"`
	Denominator    int   `json:"denominator"`
	ClocksPerClick int   `json:"clocks_per_click"`
	ThirtySeconds  int   `json:"thirty_seconds_per_quarter"`
	// Bar is the (fractional, zero-based) bar position at which it applies.
	Bar float64 `json:"bar"`
}

// KeySignatureChange is one key-signature event.
type KeySignatureChange struct {
	Tick   int64  `json:"tick"`
	Track  int    `json:"track"`
	Sharps int    `json:"sharps"`
	Minor  bool   `json:"minor"`
	Name   string `json:"name"`
}

// NoteStats counts notes and their pitch range.
type NoteStats struct {
	Notes int `json:"notes"`
	// Lowest and Highest are MIDI note numbers; both are -1 when Notes is 0.
	Lowest  int `json:"lowest"`
	Highest int `json:"highest"`
}

func (s *NoteStats) add(p int) {
	if s.Notes == 0 || p < s.Lowest {
		s.Lowest = p
	}
	if s.Notes == 0 || p > s.Highest {
		s.Highest = p
	}
	s.Notes++
}

// TrackInfo describes one track.
type TrackInfo struct {
	Index    int    `json:"index"`
	Name     string `json:"name,omitempty"`
	Events   int    `json:"events"`
	EndTick  int64  `json:"end_tick"`
	Channels []int  `json:"channels,omitempty"`
	NoteStats
}

// ChannelInfo describes one channel over all tracks.
type ChannelInfo struct {
	Channel int `json:"channel"`
	// Programs lists the program numbers set on the channel, in order of
	// appearance without repeats.
	Programs []int `json:"programs,omitempty"`
	NoteStats
}

// Info is the summary Inspect computes.
type Info struct {
	Format          int                   `json:"format"`
	Tracks          int                   `json:"tracks"`
	TicksPerQuarter int                   `json:"ticks_per_quarter"`
	TempoMap        []TempoChange         `json:"tempo_map"`
	TimeSignatures  []TimeSignatureChange `json:"time_signatures"`
	KeySignatures   []KeySignatureChange  `json:"key_signatures"`
	DurationTicks   int64                 `json:"duration_ticks"`
	DurationSeconds float64               `json:"duration_seconds"`
	DurationBars    float64               `json:"duration_bars"`
	NoteStats
	PerTrack   []TrackInfo   `json:"per_track"`
	PerChannel []ChannelInfo `json:"per_channel"`
}

type timed struct {
	tick  int64
	track int
	seq   int
	e     Event
}

// globalEvents collects the events of every track that match keep, in tick
// order (ties broken by track, then position in the track).
func globalEvents(f *File, keep func(Event) bool) []timed {
	var out []timed
	for ti, t := range f.Tracks {
		for i, e := range t.Events {
			if keep(e) {
				out = append(out, timed{e.Tick, ti, i, e})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].tick != out[j].tick {
			return out[i].tick < out[j].tick
		}
		if out[i].track != out[j].track {
			return out[i].track < out[j].track
		}
		return out[i].seq < out[j].seq
	})
	return out
}

// TempoMap returns the tempo changes of f in tick order, all tracks merged.
// It always starts at tick 0 (with the default 120 bpm when no tempo event is
// there); of several changes at the same tick the last one wins.
func TempoMap(f *File) []TempoChange {
	tpq := float64(f.TicksPerQuarter)
	if tpq <= 0 {
		tpq = 1
	}
	m := []TempoChange{{Tick: 0, MicrosPerQuarter: DefaultMicrosPerQuarter}}
	for _, g := range globalEvents(f, func(e Event) bool { return e.IsMeta(MetaTempo) }) {
		u, ok := g.e.TempoValue()
		if !ok || u == 0 {
			continue
		}
		lastIdx := len(m) - 1
		if m[lastIdx].Tick == g.tick {
			m[lastIdx].MicrosPerQuarter = u
			continue
		}
		m = append(m, TempoChange{Tick: g.tick, MicrosPerQuarter: u})
	}
	var secs float64
	for i := range m {
		if i > 0 {
			secs += float64(m[i].Tick-m[i-1].Tick) / tpq * float64(m[i-1].MicrosPerQuarter) / 1e6
		}
		m[i].Seconds = secs
		m[i].BPM = 60e6 / float64(m[i].MicrosPerQuarter)
	}
	return m
}

// SecondsAt converts a tick to seconds with a tempo map from TempoMap.
func SecondsAt(tempo []TempoChange, ticksPerQuarter int, tick int64) float64 {
	if len(tempo) == 0 || ticksPerQuarter <= 0 {
		return 0
	}
	i := sort.Search(len(tempo), func(i int) bool { return tempo[i].Tick > tick }) - 1
	if i < 0 {
		i = 0
	}
	c := tempo[i]
	return c.Seconds + float64(tick-c.Tick)/float64(ticksPerQuarter)*float64(c.MicrosPerQuarter)/1e6
}

var majorKeys = [...]string{"Cb", "Gb", "Db", "Ab", "Eb", "Bb", "F", "C", "G", "D", "A", "E", "B", "F#", "C#"}
var minorKeys = [...]string{"Ab", "Eb", "Bb", "F", "C", "G", "D", "A", "E", "B", "F#", "C#", "G#", "D#", "A#"}

// KeyName names a key signature, e.g. "G major" or "E minor".
func KeyName(sharps int, minor bool) string {
	if sharps < -7 || sharps > 7 {
		return "unknown"
	}
	if minor {
		return minorKeys[sharps+7] + " minor"
	}
	return majorKeys[sharps+7] + " major"
}

// Inspect summarises f. Tempo and time-signature events are merged over all
// tracks (the conductor-track convention of format 1); the duration is the
// latest event tick of any track.
func Inspect(f *File) Info {
	info := Info{
		Format:          f.Format,
		Tracks:          len(f.Tracks),
		TicksPerQuarter: f.TicksPerQuarter,
		TempoMap:        TempoMap(f),
		NoteStats:       NoteStats{Lowest: -1, Highest: -1},
	}
	for ti, t := range f.Tracks {
		ts := TrackInfo{Index: ti, Events: len(t.Events), NoteStats: NoteStats{Lowest: -1, Highest: -1}}
		seen := map[int]bool{}
		for _, e := range t.Events {
			if e.Tick > ts.EndTick {
				ts.EndTick = e.Tick
			}
			if e.IsMeta(MetaTrackName) && ts.Name == "" {
				ts.Name, _ = e.Text()
			}
			if e.Kind >= KindNoteOff && e.Kind <= KindPitchBend && !seen[int(e.Channel)] {
				seen[int(e.Channel)] = true
				ts.Channels = append(ts.Channels, int(e.Channel))
			}
			if sh, mi, ok := e.KeySignatureValue(); ok {
				info.KeySignatures = append(info.KeySignatures, KeySignatureChange{Tick: e.Tick, Track: ti, Sharps: sh, Minor: mi, Name: KeyName(sh, mi)})
			}
		}
		sort.Ints(ts.Channels)
		if ts.EndTick > info.DurationTicks {
			info.DurationTicks = ts.EndTick
		}
		info.PerTrack = append(info.PerTrack, ts)
	}
	sort.SliceStable(info.KeySignatures, func(i, j int) bool { return info.KeySignatures[i].Tick < info.KeySignatures[j].Tick })

	var chans [16]*ChannelInfo
	channel := func(c int) *ChannelInfo {
		if chans[c] == nil {
			chans[c] = &ChannelInfo{Channel: c, NoteStats: NoteStats{Lowest: -1, Highest: -1}}
		}
		return chans[c]
	}
	for _, g := range globalEvents(f, func(e Event) bool { return e.Kind == KindProgramChange }) {
		ci := channel(int(g.e.Channel))
		if n := len(ci.Programs); n == 0 || ci.Programs[n-1] != int(g.e.Data1) {
			ci.Programs = append(ci.Programs, int(g.e.Data1))
		}
	}
	// Every note-on with a velocity is a note (NoteEvents pairs it with its
	// note-off, or ends it with its track), so the notes are counted from the
	// note-ons without pairing them.
	for ti, t := range f.Tracks {
		for _, e := range t.Events {
			if e.Kind == KindNoteOn && e.Data2 > 0 {
				p := int(e.Data1)
				info.NoteStats.add(p)
				info.PerTrack[ti].NoteStats.add(p)
				channel(int(e.Channel)).NoteStats.add(p)
			}
		}
	}
	for _, c := range chans {
		if c != nil {
			info.PerChannel = append(info.PerChannel, *c)
		}
	}

	info.DurationSeconds = SecondsAt(info.TempoMap, f.TicksPerQuarter, info.DurationTicks)
	info.TimeSignatures, info.DurationBars = bars(f, info.DurationTicks)
	return info
}

// bars walks the time-signature changes (4/4 until the first) and returns
// them with their bar positions, and the duration in bars.
func bars(f *File, end int64) ([]TimeSignatureChange, float64) {
	tpq := float64(f.TicksPerQuarter)
	if tpq <= 0 {
		tpq = 1
	}
	var out []TimeSignatureChange
	num, den := 4, 4
	var at int64
	var bar float64
	barTicks := func() float64 { return tpq * 4 * float64(num) / float64(den) }
	for _, g := range globalEvents(f, func(e Event) bool { return e.IsMeta(MetaTimeSignature) }) {
		n, d, c, t, ok := g.e.TimeSignatureValue()
		if !ok || n == 0 {
			continue
		}
		bar += float64(g.tick-at) / barTicks()
		at = g.tick
		num, den = n, d
		out = append(out, TimeSignatureChange{Tick: g.tick, Numerator: n, Denominator: d, ClocksPerClick: c, ThirtySeconds: t, Bar: bar})
	}
	if end > at {
		bar += float64(end-at) / barTicks()
	}
	return out, bar
}
