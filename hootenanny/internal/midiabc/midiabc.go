// Package midiabc writes a Standard MIDI File (any, not only the ones package abcmidi makes) out
// as ABC notation: the inverse of package abcmidi, for reading, editing and playing again.
//
// What it decides, and from where:
//
//   - The key and the meter come from the file's first key and time signature events; a file
//     without them gets the estimates of package analysis (Krumhansl-Kessler key profiles, and
//     the onset-based meter), and so does the first bar line when the file starts with a pickup.
//   - The grid: the coarsest of whole, half, third, quarter, fifth, sixth, ... forty-eighth of
//     a quarter note that holds every onset (within 1/120 of a quarter), or failing that 98% of
//     them, refined so the note ends fall on it too when they keep to a grid. Lengths are written
//     exactly on it, as multiples of the unit note length L: (dotted rhythms as A3/2); lengths
//     in thirds (fifths, sevenths), which ABC cannot write plainly, go inside tuplets: (3abc for
//     a triplet, (3:2:2B4A2 for a 2:1 swung pair, (5:4:5 for a quintuplet. Notes shorter than a
//     quarter are beamed within a beat.
//   - Chords: notes of one channel that start and end together. Where the file staggers them
//     (abc2midi plays a written chord's notes 10 ticks apart), the voice asks abc2midi for the
//     same stagger with %%MIDI chordattack, and for none where they start together.
//   - Bars follow the meter, from the first downbeat; a note that crosses a bar line is split and
//     tied (-), a rest is split.
//   - One ABC voice per track and channel. Where notes of one channel overlap in a way a chord
//     cannot hold (different lengths, or a new note before the last ends), the overlapping notes
//     go to another voice of the same channel (at most MaxLanes per channel); beyond that the
//     sounding note is cut short, with a warning.
//   - Drums (channel 10) are left out, or written on a voice of their own with Options.Drums.
//
// Key changes are written at the bar line they fall on (or the next), tempo changes at the note
// they fall on (or the next), in the first voice. Whatever cannot be kept is counted in
// Result.Warnings: onsets off the grid, notes shorter than the grid, overlaps cut, meter changes
// after the first, tempos ABC cannot hold. Decoding is package midi's (bounded and fuzzed); this
// package reads only the decoded file and bounds its output (Options.MaxBytes).
package midiabc

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/hootenanny/hoot/hootenanny/internal/analysis"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// DefaultMaxBytes bounds the ABC written: what the project's ABC parser reads in one go, so the
// result can go straight back to abc_to_midi.
const DefaultMaxBytes = 1 << 20

// MaxNotes bounds the notes read, as for the analysis.
const MaxNotes = analysis.MaxNotes

// MaxLanes bounds the ABC voices one track and channel is spread over.
const MaxLanes = 4

// MaxVoices bounds the ABC voices of a transcription.
const MaxVoices = 32

// drumChannel is the General MIDI percussion channel (channel 10, 9 from 0).
const drumChannel = 9

// grids are the candidate divisions of a quarter note, coarsest first.
var grids = []int{1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48}

// fallbackGrid is used when no grid holds the onsets: sixteenth notes.
const fallbackGrid = 4

// gridFit is the share of onsets that must fall on a grid for it to be chosen.
const gridFit = 0.98

// Options change the transcription. The zero value writes the pitched voices with the key and
// meter the file declares or the analysis finds.
type Options struct {
	// Drums writes channel 10 as a voice of its own (%%MIDI channel 10, pitches as the General
	// MIDI drum map has them) instead of leaving it out.
	Drums bool
	// Title is the T: field; empty takes the first track name, or "Transcribed from MIDI".
	Title string
	// MaxBytes bounds the ABC (0 gives DefaultMaxBytes).
	MaxBytes int
}

// Voice is one ABC voice written.
type Voice struct {
	// ID is the V: name ("1", "2", ...).
	ID string
	// Track and Channel are where the notes came from (channel 0 to 15).
	Track, Channel int
	// Name is the track's name, or "".
	Name string
	// Program is the channel's first program change, or -1.
	Program int
	// Lane counts from 0: the voices a channel's overlapping notes were spread over.
	Lane  int
	Notes int
	Drums bool
}

// Result is a transcription.
type Result struct {
	ABC string
	// Key is the K: value ("G", "Em", "Bb"); KeySource says where it came from.
	Key, KeySource string
	// Meter is the M: value ("6/8"); MeterSource says where it came from.
	Meter, MeterSource string
	// Unit is the L: value ("1/8").
	Unit string
	// GridPerQuarter is the grid, in divisions of a quarter note; Grid names it.
	GridPerQuarter int
	Grid           string
	// Pickup is the length of the bar before the first bar line, in units of L (0: none).
	Pickup string
	// BPM is the Q: tempo in quarter notes a minute (0 when the file sets none).
	BPM float64
	// KeyChanges and TempoChanges count the changes after the first written inline ([K:] at a
	// bar line, [Q:] in the first voice).
	KeyChanges, TempoChanges int
	// Bars counts the bars of the longest voice.
	Bars   int
	Voices []Voice
	// Notes counts the notes written; DrumNotesLeftOut those of channel 10 not written.
	Notes            int
	DrumNotesLeftOut int
	Warnings         []string
}

// ErrNoNotes is returned for a file without a note to write.
var ErrNoNotes = errors.New("midiabc: the file plays no notes")

// ErrOnlyDrums is returned for a file whose only notes are drums, when Options.Drums is false.
var ErrOnlyDrums = errors.New("midiabc: the file plays only drums (channel 10), which are left out")

// TooManyNotesError is returned when a file has more than MaxNotes notes.
type TooManyNotesError struct{ Notes int }

func (e *TooManyNotesError) Error() string {
	return fmt.Sprintf("midiabc: the file has %d notes, more than the %d one transcription reads", e.Notes, MaxNotes)
}

// TooLongError is returned when the ABC would be longer than Options.MaxBytes.
type TooLongError struct{ Max int }

func (e *TooLongError) Error() string {
	return fmt.Sprintf("midiabc: the ABC would be longer than %d bytes", e.Max)
}

// gnote is a note on the grid.
type gnote struct {
	on, end int64 // grid units
	pitch   int
	raw     int64 // the onset in the file's ticks
}

// group is a chord (or a single note): notes sharing onset and end.
type group struct {
	on, end int64
	pitches []int
	// first and last are the earliest and latest onsets of its notes in the file's ticks.
	first, last int64
}

// lane is one ABC voice's groups, none overlapping.
type lane struct {
	groups []group
}

// srcVoice is one track and channel.
type srcVoice struct {
	track, channel int
	notes          []midi.Note
	// raw holds each note's onset as the file has it, before unstagger.
	raw []int64
}

// unstagger moves the onset of a note that starts within tpq/40 of an earlier note of the
// voice (a chord played as a quick spread, as abc2midi plays written chords) to that note's
// onset, keeping its end, so the chord is found and the grid is chosen from where it starts.
// raw keeps the onsets as they were, for the chord attack.
func (v *srcVoice) unstagger(tpq int64) {
	win := max(1, tpq/40)
	v.raw = make([]int64, len(v.notes))
	start := int64(-1 << 62)
	for i := range v.notes {
		n := &v.notes[i]
		v.raw[i] = n.OnTick
		if n.OnTick-start <= win && n.OnTick > start {
			n.DurTicks += n.OnTick - start
			n.OnTick = start
			continue
		}
		if n.OnTick > start {
			start = n.OnTick
		}
	}
}

// Convert writes f as ABC.
func Convert(f *midi.File, opts Options) (*Result, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
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
	tpq := int64(f.TicksPerQuarter)
	if tpq <= 0 {
		tpq = 480
	}
	res := &Result{}
	var warn warnings

	// The voices, drums apart.
	byVoice := map[[2]int]*srcVoice{}
	var order []*srcVoice
	for _, n := range midi.NoteEvents(f) {
		if n.Channel == drumChannel && !opts.Drums {
			res.DrumNotesLeftOut++
			continue
		}
		k := [2]int{n.Track, n.Channel}
		v := byVoice[k]
		if v == nil {
			v = &srcVoice{track: n.Track, channel: n.Channel}
			byVoice[k] = v
			order = append(order, v)
		}
		v.notes = append(v.notes, n)
	}
	if res.DrumNotesLeftOut > 0 {
		warn.add(fmt.Sprintf("%d drum notes (channel 10) left out; ask for drums to write them on a voice of their own", res.DrumNotesLeftOut))
	}
	if len(order) == 0 && res.DrumNotesLeftOut > 0 {
		return nil, ErrOnlyDrums
	}
	if len(order) == 0 {
		return nil, ErrNoNotes
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].track != order[j].track {
			return order[i].track < order[j].track
		}
		return order[i].channel < order[j].channel
	})

	// The grid.
	var all []midi.Note
	for _, v := range order {
		v.unstagger(tpq)
		all = append(all, v.notes...)
	}
	g, fit := chooseGrid(all, tpq)
	res.GridPerQuarter, res.Grid = g, gridName(g)
	if fit < gridFit {
		warn.add(fmt.Sprintf("the onsets follow no grid finer than a 48th of a quarter (played rather than sequenced?): %.0f%% fall on sixteenth notes, where every note was moved", 100*fit))
	}

	// Key, meter, tempo, first downbeat.
	info := midi.Inspect(f)
	frame := analysis.FrameOf(f)
	sharps, minor := 0, false
	switch {
	case len(info.KeySignatures) > 0 && info.KeySignatures[0].Sharps >= -7 && info.KeySignatures[0].Sharps <= 7:
		ks := info.KeySignatures[0]
		sharps, minor = ks.Sharps, ks.Minor
		res.KeySource = "key signature event"
	case frame.Sounding:
		sharps, minor = frame.Key.Sharps(), frame.Key.Mode == "minor"
		res.KeySource = "estimated from the notes (" + frame.Key.Name() + ")"
	default:
		res.KeySource = "none found: C major"
	}
	res.Key = keyName(sharps, minor)
	num, den := frame.Meter.Numerator, frame.Meter.Denominator
	if num <= 0 || den <= 0 || den&(den-1) != 0 || num > 64 || den > 64 {
		num, den = 4, 4
	}
	res.Meter, res.MeterSource = fmt.Sprintf("%d/%d", num, den), frame.Meter.Source
	if frame.Meter.Changes > 0 {
		warn.add(fmt.Sprintf("%d meter changes after the first time signature not written: the bars keep %s", frame.Meter.Changes, res.Meter))
	}
	// The bar must be a whole number of grid steps: 7/16 on a grid of eighths is not.
	for int64(g)*4*int64(num)%int64(den) != 0 {
		g *= 2
		res.GridPerQuarter, res.Grid = g, gridName(g)
	}
	gg := int64(g)
	barG := gg * 4 * int64(num) / int64(den)
	pickupG := quant(frame.Downbeat, gg, tpq) % barG
	// Key changes go in at the bar line they fall on or next after; tempo changes at the note or
	// rest they fall on or next after, in the first voice.
	var keys, tempos []fieldChange
	if res.KeySource == "key signature event" {
		for i := 1; i < len(info.KeySignatures); i++ {
			k, prev := info.KeySignatures[i], info.KeySignatures[i-1]
			if (k.Sharps != prev.Sharps || k.Minor != prev.Minor) && k.Sharps >= -7 && k.Sharps <= 7 && k.Tick > 0 {
				keys = append(keys, fieldChange{at: quant(k.Tick, gg, tpq), text: "K:" + keyName(k.Sharps, k.Minor), sharps: k.Sharps})
			}
		}
	}
	odd := 0 // tempos ABC cannot write
	if len(info.TempoMap) > 0 && info.TempoMap[0].Tick == 0 && hasTempo(f) {
		if bpm := info.TempoMap[0].BPM; writableBPM(bpm) {
			res.BPM = bpm
		} else {
			odd++
		}
		for i := 1; i < len(info.TempoMap); i++ {
			c := info.TempoMap[i]
			if c.MicrosPerQuarter == info.TempoMap[i-1].MicrosPerQuarter || c.Tick <= 0 {
				continue
			}
			if !writableBPM(c.BPM) {
				odd++
				continue
			}
			tempos = append(tempos, fieldChange{at: quant(c.Tick, gg, tpq), text: "Q:1/4=" + bpmString(c.BPM)})
		}
	}
	if odd > 0 {
		warn.add(fmt.Sprintf("%d tempos outside 1 to %d quarter notes a minute not written", odd, MaxBPM))
	}
	res.KeyChanges, res.TempoChanges = len(keys), len(tempos)

	// The unit note length: an eighth, or a sixteenth when most notes follow one another
	// sooner (staccato notes that sound shorter do not count).
	unitDen := int64(8)
	if medianTicks(all) < tpq/2 {
		unitDen = 16
	}
	res.Unit = fmt.Sprintf("1/%d", unitDen)
	if pickupG > 0 {
		res.Pickup = lengthString(pickupG, gg, unitDen)
		if res.Pickup == "" {
			res.Pickup = "1"
		}
	}

	// Lay every voice on the grid, in lanes.
	tol := max(1, tpq/120)
	var offGrid, lengthened, cut, merged, dups int
	type outVoice struct {
		src  *srcVoice
		lane int
		l    *lane
	}
	var outs []outVoice
	for _, v := range order {
		var ns []gnote
		for i, n := range v.notes {
			on := quant(n.OnTick, gg, tpq)
			end := quant(n.OnTick+n.DurTicks, gg, tpq)
			if abs(on*tpq-n.OnTick*gg) > tol*gg {
				offGrid++
			}
			if end <= on {
				end = on + 1
				lengthened++
			}
			ns = append(ns, gnote{on: on, end: end, pitch: n.Pitch, raw: v.raw[i]})
		}
		ns, d := dedupe(ns)
		dups += d
		lanes, c, m := layLanes(ns)
		cut += c
		merged += m
		for i := range lanes {
			outs = append(outs, outVoice{src: v, lane: i, l: &lanes[i]})
		}
	}
	if offGrid > 0 {
		warn.add(fmt.Sprintf("%d notes started off the grid of %s and were moved to the nearest step", offGrid, res.Grid))
	}
	if lengthened > 0 {
		warn.add(fmt.Sprintf("%d notes shorter than the grid step were lengthened to one step", lengthened))
	}
	if dups > 0 {
		warn.add(fmt.Sprintf("%d notes repeated a note of the same pitch starting at the same time in the same channel, and were left out", dups))
	}
	if cut > 0 {
		warn.add(fmt.Sprintf("%d notes were cut short where more than %d overlapped in one channel", cut, MaxLanes))
	}
	if merged > 0 {
		warn.add(fmt.Sprintf("%d notes were given the length of the chord they start with, where more than %d overlapped in one channel", merged, MaxLanes))
	}
	if len(outs) > MaxVoices {
		dropped := 0
		for _, o := range outs[MaxVoices:] {
			for _, gr := range o.l.groups {
				dropped += len(gr.pitches)
			}
		}
		outs = outs[:MaxVoices]
		warn.add(fmt.Sprintf("only the first %d voices were written: %d notes of the voices after them were left out", MaxVoices, dropped))
	}

	// Write.
	w := &writer{max: opts.MaxBytes}
	title := opts.Title
	if title == "" {
		title = firstTrackName(f)
	}
	if title == "" {
		title = "Transcribed from MIDI"
	}
	w.printf("X:1\nT:%s\n", fieldText(title, 120))
	w.printf("M:%s\nL:%s\n", res.Meter, res.Unit)
	if res.BPM > 0 {
		w.printf("Q:1/4=%s\n", bpmString(res.BPM))
	}
	w.printf("K:%s\n", res.Key)
	multi := len(outs) > 1
	for i, o := range outs {
		v := Voice{ID: fmt.Sprint(i + 1), Track: o.src.track, Channel: o.src.channel, Program: program(f, o.src.track, o.src.channel),
			Name: trackName(f, o.src.track), Lane: o.lane, Drums: o.src.channel == drumChannel}
		if multi {
			w.printf("V:%s", v.ID)
			if v.Name != "" {
				w.printf(" name=\"%s\"", fieldText(v.Name, 40))
			}
			w.printf("\n")
		}
		if v.Program >= 0 {
			w.printf("%%%%MIDI program %d\n", v.Program)
		}
		w.printf("%%%%MIDI channel %d\n", v.Channel+1)
		if attack, ok := chordAttack(o.l.groups, tpq); ok {
			w.printf("%%%%MIDI chordattack %d\n", attack)
		}
		lw := laneWriter{w: w, sp: newSpeller(sharps), g: gg, unitDen: unitDen, barG: barG, pickupG: pickupG, beatNum: 1, beatDen: 1, keys: keys}
		if i == 0 {
			lw.tempos = tempos
		}
		if den == 8 && num%3 == 0 && num > 3 {
			lw.beatNum, lw.beatDen = 3, 2
		}
		bars := lw.write(o.l.groups)
		if i == 0 && len(lw.tempos) > 0 {
			warn.add(fmt.Sprintf("%d tempo changes after the last note not written", len(lw.tempos)))
		}
		res.Bars = max(res.Bars, bars)
		for _, gr := range o.l.groups {
			v.Notes += len(gr.pitches)
		}
		res.Notes += v.Notes
		res.Voices = append(res.Voices, v)
		if w.err != nil {
			return nil, w.err
		}
	}
	if w.err != nil {
		return nil, w.err
	}
	res.ABC = w.b.String()
	res.Warnings = warn.list
	return res, nil
}

type warnings struct{ list []string }

func (w *warnings) add(s string) { w.list = append(w.list, s) }

// quant rounds tick t to the nearest step of a grid of g steps a quarter (ticks per quarter tpq).
func quant(t, g, tpq int64) int64 {
	if t <= 0 {
		return 0
	}
	return (2*t*g + tpq) / (2 * tpq)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// chooseGrid returns the coarsest grid on which all the onsets, or failing that gridFit of
// them, fall within 1/120 of a quarter (and a tick), refined so the note ends fall on it too when they keep to
// a grid of their own (a played file's ends rarely do; its onsets decide alone), or
// fallbackGrid when the onsets keep to none, with the share of onsets on it.
func chooseGrid(ns []midi.Note, tpq int64) (int, float64) {
	tol := max(1, tpq/120)
	fitOf := func(g int64, at func(midi.Note) int64) float64 {
		if len(ns) == 0 {
			return 1
		}
		on := 0
		for _, n := range ns {
			t := at(n)
			if abs(quant(t, g, tpq)*tpq-t*g) <= tol*g {
				on++
			}
		}
		return float64(on) / float64(len(ns))
	}
	// A sequenced file keeps every onset on some grid: the coarsest that holds them all wins.
	// Failing that (grace notes, a few notes nudged), the coarsest that holds gridFit of them.
	coarsest := func(at func(midi.Note) int64) int {
		for _, need := range []float64{1, gridFit} {
			for _, g := range grids {
				if int64(g) > tpq {
					break
				}
				if fitOf(int64(g), at) >= need {
					return g
				}
			}
		}
		return 0
	}
	onset := func(n midi.Note) int64 { return n.OnTick }
	g := coarsest(onset)
	if g == 0 {
		return fallbackGrid, fitOf(fallbackGrid, onset)
	}
	if e := coarsest(func(n midi.Note) int64 { return n.OnTick + n.DurTicks }); e > 0 {
		if l := g / int(gcd(int64(g), int64(e))) * e; l <= grids[len(grids)-1] && tupletPrime(int64(l)) >= 0 {
			g = l
		} else {
			g = max(g, e)
		}
	}
	return g, 1
}

// tupletPrime is the odd part of a grid's divisions of a quarter when it is 1, 3, 5 or 7 (a
// length on the grid is then written plainly or inside one kind of tuplet), else -1.
func tupletPrime(g int64) int64 {
	for g%2 == 0 && g > 0 {
		g /= 2
	}
	switch g {
	case 1, 3, 5, 7:
		return g
	}
	return -1
}

// chordAttack is the gap between the notes of a chord that abc2midi should leave (in its 480
// ticks a quarter) to play a lane's chords as the file has them: the median of the chords'
// gaps from note to note. ok is false for a lane without chords.
func chordAttack(groups []group, tpq int64) (attack int, ok bool) {
	var gaps []int64
	win := max(1, tpq/40)
	for _, gr := range groups {
		if n := int64(len(gr.pitches)); n > 1 && gr.last-gr.first <= win*(n-1) {
			gaps = append(gaps, (gr.last-gr.first)*480/(tpq*(n-1)))
		}
	}
	if len(gaps) == 0 {
		return 0, false
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	return int(gaps[len(gaps)/2]), true
}

func gridName(g int) string {
	switch g {
	case 1:
		return "quarter notes"
	case 2:
		return "eighth notes"
	case 3:
		return "eighth-note triplets"
	case 4:
		return "sixteenth notes"
	case 6:
		return "sixteenth-note triplets"
	case 8:
		return "32nd notes"
	case 12:
		return "32nd-note triplets"
	}
	return fmt.Sprintf("1/%d of a quarter note", g)
}

// medianTicks is the median time from one onset to the next (over distinct onsets), or the
// median note length when there are fewer than two onsets.
func medianTicks(ns []midi.Note) int64 {
	ons := make([]int64, 0, len(ns))
	for _, n := range ns {
		ons = append(ons, n.OnTick)
	}
	sort.Slice(ons, func(i, j int) bool { return ons[i] < ons[j] })
	var d []int64
	for i := 1; i < len(ons); i++ {
		if ons[i] > ons[i-1] {
			d = append(d, ons[i]-ons[i-1])
		}
	}
	if len(d) == 0 {
		for _, n := range ns {
			d = append(d, n.DurTicks)
		}
	}
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

// dedupe drops a note that repeats the pitch and onset of another (keeping the longer).
func dedupe(ns []gnote) ([]gnote, int) {
	sort.SliceStable(ns, func(i, j int) bool {
		if ns[i].on != ns[j].on {
			return ns[i].on < ns[j].on
		}
		if ns[i].pitch != ns[j].pitch {
			return ns[i].pitch < ns[j].pitch
		}
		return ns[i].end > ns[j].end
	})
	out := ns[:0]
	d := 0
	for _, n := range ns {
		if k := len(out); k > 0 && out[k-1].on == n.on && out[k-1].pitch == n.pitch {
			d++
			continue
		}
		out = append(out, n)
	}
	return out, d
}

// layLanes groups notes into chords (same onset and end) and spreads the chords over lanes
// where none overlaps another: each goes to the first lane free at its onset. With MaxLanes
// lanes busy, it joins the chord of the lane that started at the same onset (taking its
// length: merged), or cuts short the chord that ends soonest (cut).
func layLanes(ns []gnote) (lanes []lane, cut, merged int) {
	sort.SliceStable(ns, func(i, j int) bool {
		if ns[i].on != ns[j].on {
			return ns[i].on < ns[j].on
		}
		if ns[i].end != ns[j].end {
			return ns[i].end > ns[j].end
		}
		return ns[i].pitch < ns[j].pitch
	})
	var groups []group
	for _, n := range ns {
		if k := len(groups); k > 0 && groups[k-1].on == n.on && groups[k-1].end == n.end {
			gr := &groups[k-1]
			gr.pitches = append(gr.pitches, n.pitch)
			gr.first, gr.last = min(gr.first, n.raw), max(gr.last, n.raw)
			continue
		}
		groups = append(groups, group{on: n.on, end: n.end, pitches: []int{n.pitch}, first: n.raw, last: n.raw})
	}
	for _, gr := range groups {
		placed := false
		for i := range lanes {
			l := &lanes[i]
			if l.groups[len(l.groups)-1].end <= gr.on {
				l.groups = append(l.groups, gr)
				placed = true
				break
			}
		}
		if placed {
			continue
		}
		if len(lanes) < MaxLanes {
			lanes = append(lanes, lane{groups: []group{gr}})
			continue
		}
		// Every lane is busy: join a chord that starts here, or cut the one that ends soonest.
		best := -1
		for i := range lanes {
			last := &lanes[i].groups[len(lanes[i].groups)-1]
			if last.on == gr.on {
				last.pitches = append(last.pitches, gr.pitches...)
				merged += len(gr.pitches)
				best = -2
				break
			}
			if best < 0 || last.end < lanes[best].groups[len(lanes[best].groups)-1].end {
				best = i
			}
		}
		if best >= 0 {
			last := &lanes[best].groups[len(lanes[best].groups)-1]
			last.end = gr.on
			cut += len(last.pitches)
			lanes[best].groups = append(lanes[best].groups, gr)
		}
	}
	for i := range lanes {
		for j := range lanes[i].groups {
			gr := &lanes[i].groups[j]
			sort.Ints(gr.pitches)
			gr.pitches = uniqueInts(gr.pitches)
		}
	}
	return lanes, cut, merged
}

func uniqueInts(s []int) []int {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// fieldChange is a key or tempo change, written inline.
type fieldChange struct {
	at     int64 // grid steps
	text   string
	sharps int // a key change's signature
}

// MaxBPM is the fastest tempo written: what the project's ABC parser reads in Q:.
const MaxBPM = 10000

// writableBPM reports a tempo Q: can hold: 1 to MaxBPM quarter notes a minute, once rounded.
func writableBPM(bpm float64) bool {
	return math.Round(bpm) >= 1 && math.Round(bpm) <= MaxBPM
}

func hasTempo(f *midi.File) bool {
	for _, t := range f.Tracks {
		for _, e := range t.Events {
			if e.IsMeta(midi.MetaTempo) {
				return true
			}
		}
	}
	return false
}

func bpmString(bpm float64) string {
	r := math.Round(bpm)
	if math.Abs(bpm-r) < 0.005 {
		return fmt.Sprint(int64(r))
	}
	return fmt.Sprint(r) // ABC's Q: takes whole numbers
}

var majorKeys = [15]string{"Cb", "Gb", "Db", "Ab", "Eb", "Bb", "F", "C", "G", "D", "A", "E", "B", "F#", "C#"}
var minorKeys = [15]string{"Abm", "Ebm", "Bbm", "Fm", "Cm", "Gm", "Dm", "Am", "Em", "Bm", "F#m", "C#m", "G#m", "D#m", "A#m"}

// keyName is the K: value of a signature of sharps (negative: flats), -7 to 7.
func keyName(sharps int, minor bool) string {
	if minor {
		return minorKeys[sharps+7]
	}
	return majorKeys[sharps+7]
}

// firstTrackName is the first track name of the file: track 0's, or the first track that has
// one (abc2midi names the first track after the tune only in a file of one voice).
func firstTrackName(f *midi.File) string {
	for i := range f.Tracks {
		if n := trackName(f, i); n != "" {
			return n
		}
	}
	return ""
}

// trackName is the first track name event of track i at its start.
func trackName(f *midi.File, i int) string {
	if i < 0 || i >= len(f.Tracks) {
		return ""
	}
	for _, e := range f.Tracks[i].Events {
		if e.Tick > 0 {
			break
		}
		if e.IsMeta(midi.MetaTrackName) {
			s, _ := e.Text()
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// program is the first program change on channel ch of track, or of any track, or -1.
func program(f *midi.File, track, ch int) int {
	for pass := 0; pass < 2; pass++ {
		for ti, t := range f.Tracks {
			if pass == 0 && ti != track {
				continue
			}
			for _, e := range t.Events {
				if e.Kind == midi.KindProgramChange && int(e.Channel) == ch {
					return int(e.Data1)
				}
			}
		}
	}
	return -1
}

// fieldText makes s safe for an ABC field line: printable, no quotes or line breaks, at most
// n runes.
func fieldText(s string, n int) string {
	var b strings.Builder
	count := 0
	for _, r := range s {
		if count == n {
			break
		}
		switch {
		case r == '%':
			r = ' ' // a comment in ABC
		case r == '"' || r == '\\':
			r = '\''
		case r < 0x20 || r == 0x7f || r == 0xfffd:
			r = ' '
		}
		b.WriteRune(r)
		count++
	}
	return strings.TrimSpace(b.String())
}
