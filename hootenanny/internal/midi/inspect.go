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
	sortTimed(out)
	return out
}

// sortTimed orders events by tick, then track, then position in the track.
func sortTimed(out []timed) {
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].tick != out[j].tick {
			return out[i].tick < out[j].tick
		}
		if out[i].track != out[j].track {
			return out[i].track < out[j].track
		}
		return out[i].seq < out[j].seq
	})
}

// TempoMap returns the tempo changes of f in tick order, all tracks merged.
// It always starts at tick 0 (with the default 120 bpm when no tempo event is
// there); of several changes at the same tick the last one wins.
func TempoMap(f *File) []TempoChange {
	return tempoMap(f.TicksPerQuarter, globalEvents(f, func(e Event) bool { return e.IsMeta(MetaTempo) }))
}

// tempoMap makes the tempo map of the set-tempo events tempos, in tick order.
func tempoMap(ticksPerQuarter int, tempos []timed) []TempoChange {
	tpq := float64(ticksPerQuarter)
	if tpq <= 0 {
		tpq = 1
	}
	m := []TempoChange{{Tick: 0, MicrosPerQuarter: DefaultMicrosPerQuarter}}
	for _, g := range tempos {
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
	in := newInspector(f.Format, f.TicksPerQuarter, len(f.Tracks))
	for ti, t := range f.Tracks {
		for i := range t.Events {
			in.event(ti, i, t.Events[i])
		}
	}
	return in.finish()
}

// InspectBytes decodes b as Decode does and returns what Inspect returns of
// the file, without keeping its events: it holds only the few events the
// summary needs in order (tempo, time and key signatures, program changes), so
// its memory does not grow with the notes.
func InspectBytes(b []byte) (Info, error) {
	d := decoder{b: b, lim: DefaultLimits}
	format, ntrks, div, off, err := d.header()
	if err != nil {
		return Info{}, err
	}
	in := newInspector(format, div, ntrks)
	d.visit = in.event
	if _, err := d.tracks(off, ntrks, nil); err != nil {
		return Info{}, err
	}
	return in.finish(), nil
}

// An inspector summarises a file's events as they come, track by track.
type inspector struct {
	info    Info
	tpq     int
	seen    [][16]bool
	chans   [16]*ChannelInfo
	tempos  []timed
	meters  []timed
	program []timed
}

func newInspector(format, ticksPerQuarter, tracks int) *inspector {
	in := &inspector{
		info: Info{
			Format:          format,
			Tracks:          tracks,
			TicksPerQuarter: ticksPerQuarter,
			NoteStats:       NoteStats{Lowest: -1, Highest: -1},
			PerTrack:        make([]TrackInfo, tracks),
		},
		tpq:  ticksPerQuarter,
		seen: make([][16]bool, tracks),
	}
	for ti := range in.info.PerTrack {
		in.info.PerTrack[ti] = TrackInfo{Index: ti, NoteStats: NoteStats{Lowest: -1, Highest: -1}}
	}
	if tracks == 0 {
		in.info.PerTrack = nil
	}
	return in
}

func (in *inspector) channel(c int) *ChannelInfo {
	if in.chans[c] == nil {
		in.chans[c] = &ChannelInfo{Channel: c, NoteStats: NoteStats{Lowest: -1, Highest: -1}}
	}
	return in.chans[c]
}

// event takes event seq of track ti. It keeps nothing of e.Data but copies.
func (in *inspector) event(ti, seq int, e Event) {
	ts := &in.info.PerTrack[ti]
	ts.Events++
	if e.Tick > ts.EndTick {
		ts.EndTick = e.Tick
	}
	switch {
	case e.Kind >= KindNoteOff && e.Kind <= KindPitchBend:
		if !in.seen[ti][e.Channel] {
			in.seen[ti][e.Channel] = true
			ts.Channels = append(ts.Channels, int(e.Channel))
		}
		// Every note-on with a velocity is a note (NoteEvents pairs it with
		// its note-off, or ends it with its track), so the notes are counted
		// from the note-ons without pairing them.
		if e.Kind == KindNoteOn && e.Data2 > 0 {
			p := int(e.Data1)
			in.info.NoteStats.add(p)
			ts.NoteStats.add(p)
			in.channel(int(e.Channel)).NoteStats.add(p)
		}
		if e.Kind == KindProgramChange {
			in.program = append(in.program, timed{e.Tick, ti, seq, Event{Tick: e.Tick, Kind: e.Kind, Channel: e.Channel, Data1: e.Data1}})
		}
	case e.IsMeta(MetaTrackName):
		if ts.Name == "" {
			ts.Name, _ = e.Text()
		}
	case e.IsMeta(MetaKeySignature):
		if sh, mi, ok := e.KeySignatureValue(); ok {
			in.info.KeySignatures = append(in.info.KeySignatures, KeySignatureChange{Tick: e.Tick, Track: ti, Sharps: sh, Minor: mi, Name: KeyName(sh, mi)})
		}
	case e.IsMeta(MetaTempo):
		in.tempos = append(in.tempos, timed{e.Tick, ti, seq, Event{Tick: e.Tick, Kind: e.Kind, MetaType: e.MetaType, Data: append([]byte(nil), e.Data...)}})
	case e.IsMeta(MetaTimeSignature):
		in.meters = append(in.meters, timed{e.Tick, ti, seq, Event{Tick: e.Tick, Kind: e.Kind, MetaType: e.MetaType, Data: append([]byte(nil), e.Data...)}})
	}
}

func (in *inspector) finish() Info {
	info := in.info
	for ti := range info.PerTrack {
		ts := &info.PerTrack[ti]
		sort.Ints(ts.Channels)
		if ts.EndTick > info.DurationTicks {
			info.DurationTicks = ts.EndTick
		}
	}
	sort.SliceStable(info.KeySignatures, func(i, j int) bool { return info.KeySignatures[i].Tick < info.KeySignatures[j].Tick })
	sortTimed(in.program)
	for _, g := range in.program {
		ci := in.channel(int(g.e.Channel))
		if n := len(ci.Programs); n == 0 || ci.Programs[n-1] != int(g.e.Data1) {
			ci.Programs = append(ci.Programs, int(g.e.Data1))
		}
	}
	for _, c := range in.chans {
		if c != nil {
			info.PerChannel = append(info.PerChannel, *c)
		}
	}
	sortTimed(in.tempos)
	info.TempoMap = tempoMap(in.tpq, in.tempos)
	info.DurationSeconds = SecondsAt(info.TempoMap, in.tpq, info.DurationTicks)
	sortTimed(in.meters)
	info.TimeSignatures, info.DurationBars = bars(in.tpq, in.meters, info.DurationTicks)
	return info
}

// bars walks the time-signature changes (4/4 until the first), in tick order,
// and returns them with their bar positions, and the duration in bars.
func bars(ticksPerQuarter int, meters []timed, end int64) ([]TimeSignatureChange, float64) {
	tpq := float64(ticksPerQuarter)
	if tpq <= 0 {
		tpq = 1
	}
	var out []TimeSignatureChange
	num, den := 4, 4
	var at int64
	var bar float64
	barTicks := func() float64 { return tpq * 4 * float64(num) / float64(den) }
	for _, g := range meters {
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
