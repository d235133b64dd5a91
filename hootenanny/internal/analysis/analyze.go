package analysis

import (
	"fmt"
	"slices"
	"sort"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// MaxNotes bounds the notes one analysis reads.
const MaxNotes = 200000

// DefaultMaxChords and MaxChords bound the chords one analysis lists.
const (
	DefaultMaxChords = 256
	MaxChords        = 2000
)

// drumChannel is the General MIDI percussion channel (channel 10, 9 from 0).
const drumChannel = 9

// Options change what Analyze reports.
type Options struct {
	// PerBeat names a chord per beat instead of per bar.
	PerBeat bool
	// MaxChords bounds the chords listed (0 gives DefaultMaxChords).
	MaxChords int
	// SectionBars, when more than 0, finds the key of each section of this many bars, for at
	// most MaxSections sections.
	SectionBars int
}

// MaxSections bounds the sections whose key is found.
const MaxSections = 256

// Section is the key of a run of bars.
type Section struct {
	// FirstBar and LastBar are numbered from 1, both included.
	FirstBar, LastBar int
	// Key and RunnerUp are as for the whole file; Sounding is false when no pitched note
	// sounds in the section, and then they are empty.
	Key, RunnerUp Key
	Sounding      bool
}

// Meter is the time signature and where it came from.
type Meter struct {
	Numerator, Denominator int
	// Source is "time signature event", "estimated from onsets" or "default 4/4".
	Source string
	// Changes counts the time signature changes after the first.
	Changes int
}

// Tempo is the tempo and where it came from.
type Tempo struct {
	BPM            float64
	Source         string
	MinBPM, MaxBPM float64
	Changes        int
	// BeatsPerMinute is BPM in the meter's beats.
	BeatsPerMinute float64
}

// Chord is the chord of one bar or beat.
type Chord struct {
	// Bar from 1; Beat from 1, or 0 for a whole bar.
	Bar, Beat int
	Tick      int64
	// Name is such as "G", "D7", "C/E" or "N.C.".
	Name string
	// Root and Bass are pitch classes, -1 for "N.C.".
	Root, Bass int
	Quality    string
	// Fit is the share of the span's sounding time on the chord's notes.
	Fit float64
}

// Voice is what one track plays on one channel.
type Voice struct {
	Track, Channel int
	Name           string
	// Program is the first program set on the channel, or -1.
	Program                 int
	Notes                   int
	Lowest, Highest, Median int
	Polyphony               int
	Drums                   bool
}

// Result is an analysis.
type Result struct {
	Key, RunnerUp, Modal Key
	// Declared is the file's first key signature, such as "G major", or "".
	Declared string
	Meter    Meter
	Tempo    Tempo
	// Chords are the listed chords; ChordsTotal counts all of them.
	Chords      []Chord
	ChordsTotal int
	// Sections holds each section's key, when Options.SectionBars asked for them.
	Sections []Section
	// Voices lists pitched voices then drums, each in track and channel order.
	Voices []Voice
	// Notes counts the pitched notes; Histogram is their sounding time per pitch class in
	// quarter notes.
	Notes        int
	Histogram    [12]float64
	DurationBars float64
}

// TooManyNotesError is returned when a file has more than MaxNotes notes.
type TooManyNotesError struct{ Notes int }

func (e *TooManyNotesError) Error() string {
	return fmt.Sprintf("the file has %d notes, more than the %d one analysis reads", e.Notes, MaxNotes)
}

// Analyze analyses f. The file's key signature is reported but does not inform the key found.
func Analyze(f *midi.File, opts Options) (*Result, error) {
	ons := 0
	for _, t := range f.Tracks {
		for _, e := range t.Events {
			if e.Kind == midi.KindNoteOn && e.Data2 > 0 {
				ons++
			}
		}
	}
	if ons > MaxNotes {
		return nil, &TooManyNotesError{Notes: ons}
	}
	if opts.MaxChords <= 0 {
		opts.MaxChords = DefaultMaxChords
	}
	opts.MaxChords = min(opts.MaxChords, MaxChords)
	tpq := int64(f.TicksPerQuarter)
	if tpq <= 0 {
		tpq = 480
	}
	all := midi.NoteEvents(f)
	var pitched []midi.Note
	var end int64
	for _, n := range all {
		end = max(end, n.OnTick+n.DurTicks)
		if n.Channel != drumChannel {
			pitched = append(pitched, n)
		}
	}
	r := &Result{Notes: len(pitched)}
	for _, n := range pitched {
		r.Histogram[n.Pitch%12] += float64(n.DurTicks) / float64(tpq)
	}
	info := midi.Inspect(f)
	end = max(end, info.DurationTicks)
	if len(info.KeySignatures) > 0 {
		r.Declared = info.KeySignatures[0].Name
	}
	var phase int64
	r.Meter, phase = meter(info.TimeSignatures, pitched, tpq)
	keys := Keys(r.Histogram)
	r.Key, r.RunnerUp = keys[0], keys[1]
	r.Modal = Modal(r.Histogram, cuesOf(pitched, tpq, barTicks(r.Meter, tpq), phase, musicEnd(f)), r.Key)
	r.Tempo = tempo(info.TempoMap, firstTempo(f), r.Meter)
	spans, total, bars := spansOf(info.TimeSignatures, r.Meter, phase, tpq, end, opts.PerBeat, opts.MaxChords)
	r.DurationBars = bars
	r.ChordsTotal = total
	sharps := signatureSharps(r.Key.parentMajor())
	scale := r.Modal.scale()
	if r.Key.Mode == "minor" {
		scale[(r.Key.Tonic+11)%12] = true // the raised seventh: the third of the major dominant
	}
	sweep(spans, held(pitched, spans), func(active []midi.Note, s span) {
		c := chordOf(active, s.from, s.to, sharps, scale)
		c.Bar, c.Beat, c.Tick = s.bar, s.beat, s.from
		r.Chords = append(r.Chords, c)
	})
	if opts.SectionBars > 0 {
		barSpans, _, _ := spansOf(info.TimeSignatures, r.Meter, phase, tpq, end, false, opts.SectionBars*MaxSections)
		var sections []span
		for i := 0; i < len(barSpans); i += opts.SectionBars {
			last := barSpans[min(i+opts.SectionBars, len(barSpans))-1]
			sections = append(sections, span{bar: barSpans[i].bar, beat: last.bar, from: barSpans[i].from, to: last.to})
		}
		sweep(sections, pitched, func(active []midi.Note, s span) {
			var h [12]float64
			for _, n := range active {
				if e := min(n.OnTick+n.DurTicks, s.to) - max(n.OnTick, s.from); e > 0 {
					h[n.Pitch%12] += float64(e) / float64(tpq)
				}
			}
			sec := Section{FirstBar: s.bar, LastBar: s.beat}
			if h != ([12]float64{}) {
				ks := Keys(h)
				sec.Key, sec.RunnerUp, sec.Sounding = ks[0], ks[1], true
			}
			r.Sections = append(r.Sections, sec)
		})
	}
	r.Voices = voices(f, all)
	return r, nil
}

// sweep calls fn for each span, in order, with the notes that sound in it (and perhaps some
// that end at its start): the spans are in order, so the notes are found by one pass, keeping
// those that started before the span and may still sound.
func sweep(spans []span, notes []midi.Note, fn func([]midi.Note, span)) {
	var active []midi.Note
	next := 0
	for _, s := range spans {
		kept := active[:0]
		for _, n := range active {
			if n.OnTick+n.DurTicks > s.from {
				kept = append(kept, n)
			}
		}
		active = kept
		for next < len(notes) && notes[next].OnTick < s.to {
			if notes[next].OnTick+notes[next].DurTicks > s.from {
				active = append(active, notes[next])
			}
			next++
		}
		fn(active, s)
	}
}

// held returns notes (in onset order) as the chords weigh them: each is held through the
// silence after it on its track and channel, until the next note there starts or the span
// (bar or beat) it starts in ends, whichever is first. An accompaniment that strikes its
// chord on the off-beats and rests between (abc2midi's fzczfzcz) is heard as that chord for
// the rest of the bar, not as a quarter of it against a melody that fills the bar; the end of
// the span ends the hold, so that a chord does not run into the next bar's (or beat's), where
// the harmony may change. Notes after the last of spans are not held.
func held(notes []midi.Note, spans []span) []midi.Note {
	type part struct{ track, ch int }
	byPart := map[part][]int{}
	for i, n := range notes {
		k := part{n.Track, n.Channel}
		byPart[k] = append(byPart[k], i)
	}
	out := slices.Clone(notes)
	for _, idx := range byPart {
		for j, i := range idx {
			n := &out[i]
			b := sort.Search(len(spans), func(b int) bool { return spans[b].to > n.OnTick })
			if b == len(spans) || spans[b].from > n.OnTick {
				continue
			}
			until := spans[b].to
			end := n.OnTick + n.DurTicks
			// The first note of the part that starts at or after this one ends.
			k := j + sort.Search(len(idx)-j, func(k int) bool { return notes[idx[j+k]].OnTick >= end })
			if k < len(idx) {
				until = min(until, notes[idx[k]].OnTick)
			}
			if until > end {
				n.DurTicks = until - n.OnTick
			}
		}
	}
	return out
}

// cuesOf reads Modal's cues from the pitched notes, in onset order, in bars of bar ticks whose
// first downbeat is at phase (see meter): the lowest note of the last onset, how long it lasts,
// whether it falls on a downbeat and is reached by step; the lowest note of the first onset,
// the pitch classes of the notes that start in the first four quarter notes, the lowest note
// on the first downbeat; the lowest note; and the pitch classes of the notes that end phrases.
//
// The cues that are about the tune's line (the ending's, the opening's and the lowest note) read
// the melody's part alone (melodyPart), so that an accompaniment's bass, which ends and opens on
// whatever its chord symbol says, does not stand for the melody's final; a held final is one
// twice the melody's median note. The first downbeat, the phrase ends and the rising semitones
// read every part, the last two part by part. In a file of one part all of them read the same
// notes.
//
// When the file's road map says the music ends before the file does (end, from musicEnd, is
// more than 0: a D.C. al Fine tune ends at its Fine), the final is the last onset before end,
// and so is what the ending cues read; the other cues read every note.
func cuesOf(ns []midi.Note, tpq, bar, phase, end int64) Cues {
	c := noCues
	if len(ns) == 0 {
		return c
	}
	mel := melodyPart(ns)
	fin := mel // the melody's notes up to the end of the music
	if end > 0 {
		if i := sort.Search(len(mel), func(i int) bool { return mel[i].OnTick >= end }); i > 0 {
			fin = mel[:i]
		}
	}
	medianOf := func(ns []midi.Note) int64 {
		durs := make([]int64, len(ns))
		for i, n := range ns {
			durs[i] = n.DurTicks
		}
		slices.Sort(durs)
		return durs[len(durs)/2]
	}
	median, melMedian := medianOf(ns), medianOf(mel)
	last, first := fin[len(fin)-1].OnTick, mel[0].OnTick
	final, opening, lowest, down := 128, 128, 128, 128
	var finalDur int64
	var open float64
	for _, n := range mel {
		lowest = min(lowest, n.Pitch)
		if n.OnTick == last && n.Pitch < final {
			final, finalDur = n.Pitch, n.DurTicks
		}
		if n.OnTick == first {
			opening = min(opening, n.Pitch)
		}
		if n.OnTick < first+4*tpq {
			c.OpeningShare[n.Pitch%12] += float64(n.DurTicks)
			open += float64(n.DurTicks)
		}
	}
	// The first downbeat is heard in every part: its lowest note is the bass of the chord the
	// tune sets out from, which an accompaniment states where the melody may lie on another note.
	for _, n := range ns {
		if n.OnTick <= phase && n.OnTick+n.DurTicks > phase {
			down = min(down, n.Pitch)
		}
	}
	normalize(&c.OpeningShare, open)
	c.Final, c.Opening, c.Lowest = final%12, opening%12, lowest%12
	if down < 128 {
		c.FirstDownbeat = down % 12
	}
	c.FinalLong = finalDur >= 2*melMedian
	c.FinalOnDownbeat = bar > 0 && last >= phase && (last-phase)%bar == 0
	for i := len(fin) - 1; i >= 0; i-- {
		if n := fin[i]; n.OnTick < last && n.Pitch != final {
			step := (n.Pitch - final + 120) % 12
			c.FinalByStep = step == 1 || step == 2 || step == 10 || step == 11
			break
		}
	}
	// The notes that end a phrase, part by part: long, or followed by a rest.
	type part struct{ track, ch int }
	// The moves that rise a semitone, part by part: from each onset's lowest note to the next
	// onset's, when the pitch class changes.
	// A file has few parts, so each part's last onset is found by a walk of a short slice.
	type partLast struct {
		k part
		n midi.Note
	}
	var prev []partLast
	var moves float64
	for _, n := range ns {
		k := part{n.Track, n.Channel}
		i := 0
		for i < len(prev) && prev[i].k != k {
			i++
		}
		if i == len(prev) {
			prev = append(prev, partLast{k, n})
			continue
		}
		p := prev[i].n
		if p.OnTick == n.OnTick {
			continue // a higher note of the same onset
		}
		prev[i].n = n
		if p.Pitch%12 == n.Pitch%12 {
			continue
		}
		moves++
		if (n.Pitch-p.Pitch+120)%12 == 1 {
			c.RisesInto[n.Pitch%12]++
		}
		if n.Pitch-p.Pitch == 2 {
			c.RisesTone[n.Pitch%12]++
		}
	}
	normalize(&c.RisesInto, moves)
	normalize(&c.RisesTone, moves)
	next := map[part]int64{} // the onset of the part's next note, walking back
	var ends float64
	for i := len(ns) - 1; i >= 0; i-- {
		n := ns[i]
		k := part{n.Track, n.Channel}
		on, later := next[k]
		next[k] = n.OnTick
		if n.DurTicks >= 2*median || !later || on-(n.OnTick+n.DurTicks) >= tpq/2 {
			c.PhraseEnds[n.Pitch%12] += float64(n.DurTicks)
			ends += float64(n.DurTicks)
		}
	}
	normalize(&c.PhraseEnds, ends)
	return c
}

// normalize divides each of v by total, when total is more than 0.
func normalize(v *[12]float64, total float64) {
	if total <= 0 {
		return
	}
	for i := range v {
		v[i] /= total
	}
}

// tempo reads the tempo map (which starts at tick 0 with the default when the file sets none).
// first is the tick of the file's first tempo event, or -1 when it has none.
func tempo(m []midi.TempoChange, first int64, me Meter) Tempo {
	t := Tempo{Source: "default 120 (no tempo event)", BPM: 120, MinBPM: 120, MaxBPM: 120}
	if len(m) > 0 {
		t.BPM, t.MinBPM, t.MaxBPM = m[0].BPM, m[0].BPM, m[0].BPM
		for _, c := range m {
			t.MinBPM, t.MaxBPM = min(t.MinBPM, c.BPM), max(t.MaxBPM, c.BPM)
		}
		t.Changes = len(m) - 1
		switch {
		case first == 0:
			t.Source = "tempo event"
		case first > 0:
			t.Source = fmt.Sprintf("default 120 until the first tempo event, at tick %d", first)
		}
	}
	// The beat is a quarter of a whole note divided by the denominator's share, or three of
	// them in compound meters.
	beat := 4.0 / float64(me.Denominator)
	if compound(me) {
		beat *= 3
	}
	t.BeatsPerMinute = t.BPM / beat
	return t
}

// firstTempo is the tick of f's first tempo event, or -1 when it has none.
func firstTempo(f *midi.File) int64 {
	first := int64(-1)
	for _, t := range f.Tracks {
		for _, e := range t.Events {
			if e.IsMeta(midi.MetaTempo) && (first < 0 || e.Tick < first) {
				first = e.Tick
			}
		}
	}
	return first
}

// compound reports meters whose beat is a dotted note: 6/8, 9/8, 12/8 and the like.
func compound(m Meter) bool {
	return m.Denominator >= 8 && m.Numerator > 3 && m.Numerator%3 == 0
}

// beats is the number of beats in a bar of m.
func beats(m Meter) int {
	if compound(m) {
		return m.Numerator / 3
	}
	return max(m.Numerator, 1)
}

type span struct {
	bar, beat int
	from, to  int64
}

// spansOf divides the file into bars (or beats) by its time signatures, or by the meter found
// when it has none; with a phase (a pickup, see meter) the first bar starts there, after a
// span of its own for the pickup. It lists at most limit spans, and counts them all without
// listing them, so that a file with a far-off last tick costs no more than one with a near one.
func spansOf(ts []midi.TimeSignatureChange, me Meter, phase int64, tpq, end int64, perBeat bool, limit int) ([]span, int, float64) {
	type seg struct {
		tick int64
		m    Meter
	}
	var segs []seg
	if len(ts) > 0 && ts[0].Tick == 0 {
		for _, c := range ts {
			if c.Numerator <= 0 || c.Denominator <= 0 {
				continue
			}
			segs = append(segs, seg{c.Tick, Meter{Numerator: c.Numerator, Denominator: c.Denominator}})
		}
	}
	if len(segs) == 0 {
		segs = []seg{{0, me}}
	}
	var out []span
	bar, total := 0, 0
	var bars float64
	add := func(s span) {
		total++
		if len(out) < limit {
			out = append(out, s)
		}
	}
	// A pickup before the first downbeat found (see meter and pickup); per beat, its beats are
	// the last of a bar, counted back from the downbeat (a quarter-note pickup in 4/4 is beat 4).
	if phase > 0 && phase < end && (len(segs) == 1 || phase < segs[1].tick) {
		bar++
		n := int64(beats(me))
		bt := max(barTicks(me, tpq)/max(n, 1), 1)
		if !perBeat || phase > n*bt {
			add(span{bar: bar, from: 0, to: phase})
		} else {
			for b := (phase + bt - 1) / bt; b >= 1; b-- {
				add(span{bar: bar, beat: int(n - b + 1), from: max(phase-b*bt, 0), to: phase - (b-1)*bt})
			}
		}
		bars += float64(phase) / float64(barTicks(me, tpq))
		segs[0].tick = phase
	}
	for i, s := range segs {
		stop := end
		if i+1 < len(segs) {
			stop = min(segs[i+1].tick, end)
		}
		bl := barTicks(s.m, tpq)
		if bl <= 0 || stop <= s.tick {
			continue
		}
		n := int64(1)
		if perBeat {
			n = int64(beats(s.m))
		}
		bt := max(bl/n, 1)
		bars += float64(stop-s.tick) / float64(bl)
		for from := s.tick; from < stop; from += bl {
			bar++
			if len(out) >= limit {
				// Count the rest of the segment's spans without walking them.
				whole := (stop - from) / bl
				rest := stop - from - whole*bl
				total += int(whole * n)
				if rest > 0 {
					total += int(min((rest+bt-1)/bt, n))
				}
				bar += int(whole) - 1
				if rest > 0 {
					bar++
				}
				break
			}
			to := min(from+bl, stop)
			if !perBeat {
				add(span{bar: bar, from: from, to: to})
				continue
			}
			for b := int64(0); b < n && from+b*bt < to; b++ {
				add(span{bar: bar, beat: int(b) + 1, from: from + b*bt, to: min(from+(b+1)*bt, to)})
			}
		}
	}
	return out, total, bars
}

func barTicks(m Meter, tpq int64) int64 {
	if m.Denominator <= 0 {
		return 4 * tpq
	}
	return tpq * 4 * int64(m.Numerator) / int64(m.Denominator)
}

// voices groups the notes by track and channel.
func voices(f *midi.File, notes []midi.Note) []Voice {
	type vk struct{ track, ch int }
	byVoice := map[vk][]midi.Note{}
	for _, n := range notes {
		k := vk{n.Track, n.Channel}
		byVoice[k] = append(byVoice[k], n)
	}
	keys := make([]vk, 0, len(byVoice))
	for k := range byVoice {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if (a.ch == drumChannel) != (b.ch == drumChannel) {
			return b.ch == drumChannel
		}
		if a.track != b.track {
			return a.track < b.track
		}
		return a.ch < b.ch
	})
	var out []Voice
	for _, k := range keys {
		ns := byVoice[k]
		v := Voice{Track: k.track, Channel: k.ch, Program: -1, Notes: len(ns), Drums: k.ch == drumChannel}
		for _, e := range f.Tracks[k.track].Events {
			if s, ok := e.Text(); ok && e.IsMeta(midi.MetaTrackName) && v.Name == "" {
				v.Name = s
			}
		}
		v.Program = program(f, k.track, k.ch)
		pitches := make([]int, len(ns))
		type edge struct {
			tick  int64
			delta int
		}
		edges := make([]edge, 0, 2*len(ns))
		for i, n := range ns {
			pitches[i] = n.Pitch
			edges = append(edges, edge{n.OnTick, 1}, edge{n.OnTick + n.DurTicks, -1})
		}
		sort.Ints(pitches)
		v.Lowest, v.Highest, v.Median = pitches[0], pitches[len(pitches)-1], pitches[(len(pitches)-1)/2]
		// Ends before starts at the same tick: a note that follows another does not overlap it.
		sort.Slice(edges, func(i, j int) bool {
			if edges[i].tick != edges[j].tick {
				return edges[i].tick < edges[j].tick
			}
			return edges[i].delta < edges[j].delta
		})
		cur := 0
		for _, e := range edges {
			cur += e.delta
			v.Polyphony = max(v.Polyphony, cur)
		}
		// A voice whose notes all end where they start (no time between note-on and note-off)
		// still plays one at a time.
		v.Polyphony = max(v.Polyphony, 1)
		out = append(out, v)
	}
	return out
}

// program is the first program set on channel ch, in track first and then in any track, or -1.
func program(f *midi.File, track, ch int) int {
	for _, t := range append([]midi.Track{f.Tracks[track]}, f.Tracks...) {
		for _, e := range t.Events {
			if e.Kind == midi.KindProgramChange && int(e.Channel) == ch {
				return int(e.Data1)
			}
		}
	}
	return -1
}

// melodyPart is the notes (in onset order) of the part, a track and channel, that carries the
// melody, told from the notes alone: of the parts with at least half as many onsets as the
// busiest, the one whose median pitch is highest (the first such part, on a tie). A tune's
// melody moves more often than a bass or a chord that strikes once a beat and lies above them;
// a long-held drone or a sparse second voice is not taken for it, however high. A file of one
// part is its own melody, and is returned as it is.
func melodyPart(ns []midi.Note) []midi.Note {
	type part struct{ track, ch int }
	type stat struct {
		onsets  int
		last    int64
		pitches []int
	}
	var keys []part
	stats := map[part]*stat{}
	for _, n := range ns {
		k := part{n.Track, n.Channel}
		s := stats[k]
		if s == nil {
			s = &stat{last: -1}
			stats[k] = s
			keys = append(keys, k)
		}
		if n.OnTick != s.last {
			s.onsets++
			s.last = n.OnTick
		}
		s.pitches = append(s.pitches, n.Pitch)
	}
	if len(keys) <= 1 {
		return ns
	}
	most := 0
	for _, k := range keys {
		most = max(most, stats[k].onsets)
	}
	best, bestMed := keys[0], -1
	for _, k := range keys {
		s := stats[k]
		slices.Sort(s.pitches)
		med := s.pitches[(len(s.pitches)-1)/2]
		if 2*s.onsets >= most && med > bestMed {
			best, bestMed = k, med
		}
	}
	out := make([]midi.Note, 0, len(ns))
	for _, n := range ns {
		if (part{n.Track, n.Channel}) == best {
			out = append(out, n)
		}
	}
	return out
}
