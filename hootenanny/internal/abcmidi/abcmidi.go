// Package abcmidi converts a parsed ABC tune (package abc) to a Standard MIDI File (package
// midi), following abc2midi's conventions where they are cheap to follow so that the output
// can be checked note for note against it (package abccorpus).
//
// The file has 480 ticks per quarter note. A tune with one voice gives a format 0 file; a tune
// with several gives a format 1 file whose first track holds the tempo, time and key signature
// events and whose other tracks hold one voice each. A voice plays on the channel its %%MIDI
// channel line gives (Options.Voices; channel 10 is General MIDI percussion, whose notes
// sound as written: C,, is the bass drum, key 36), else on the lowest channel no earlier voice
// has, skipping the drum channel 9, as abc2midi does.
//
// Repeats and first and second endings are expanded, and the parts labelled by body P: fields
// are played in the order of the header's P: field (P:AABB, P:(AB)2C), with abc.PlayOrder, as
// abc2midi plays them; every played bar is placed after the previous one, so a bar played
// twice sounds twice. Music written before the first V: line of a tune with voices is played
// by the first voice, as abc2midi does; fields alone there (a P: line) give no track.
//
// Tempo comes from Q: with its beat unit (Q:3/8=60 is 90 quarter notes a minute; a bare Q:240
// counts quarter notes, as abc2midi does; no Q: is 120 quarter notes a minute), and mid-tune
// Q:, M: and K: changes become tempo, time and key signature events where they are played
// (those of the first voice only, in a tune with several).
//
// Velocities follow abc2midi's default beat stress and its dynamics marks (velocity.go), unless
// Options.Velocity gives every note one fixed velocity. A note on the first beat of its bar
// gets 105, one on another strong beat 95, any other 80; the strong beats are every third beat
// of the meter's denominator when the numerator is a multiple of 3 (6/8: beats 1 and 4), every
// second when it is even (4/4: beats 1 and 3), else only the first (3/4). !ppp! to !fff! set
// the first-beat velocity to 30, 45, ... 135 (at most 127), the others 10 and 25 below, and
// make every beat strong until the next meter change; each crescendo or diminuendo mark
// (!<(! !<)! !>(! !>)! and the long names) adds or takes 15. !pppp!, !ffff!, !sfz! and
// accents change nothing, as in abc2midi 4.84. A mark on a rest applies from the next note.
// Beats count from the last bar line, as the note is played (after grace notes and swing,
// before the chord stagger); a repeat sign or a section line (|| |] [|) after a short bar
// (other than the first) does not start a new bar, so a section's short last bar and the
// pickup after it count as one.
//
// Unless Options.Straight is set, the notes are performed as abc2midi 4.84 performs them by
// default (checked against it on the corpus): a grace note sounds for a quarter of its written
// length (%%MIDI gracedivider 4) and that time is taken from the start of the note it ornaments
// (graces that would take all of it are dropped, as are graces with no note after them); the notes
// of a chord start ChordStagger ticks apart (%%MIDI chordattack) in written order and end together
// (except in tied chords); a note marked staccato sounds for half its length; and in a tune whose
// R: field says hornpipe, A>B is played 2:1 in any meter, and a pair of even eighth notes on a
// quarter-note beat of the bar 2:1 in 4/4 (sixteenths on eighth beats in 2/4; no other meter
// swings); a fermata (H, !fermata!) doubles its note, chord or rest, moving what follows. Events
// are placed on their nominal ticks: abc2midi's habit of starting notes (and mid-tune tempo
// changes) one tick late is not copied.
//
// Chord symbols ("G", "D7", "Em/B" above the notes) are accompanied as abc2midi plays them by
// default: a bass and a chord channel per voice that has them, playing the meter's pattern
// from every bar line (gchord.go says how). Options.MelodyOnly leaves the accompaniment out.
//
// The parser skips %% directives; MIDIDirectives reads %%MIDI program and channel from the
// source for Options.Voices, and Directives the lines that set the accompaniment (gchord,
// gchordon, gchordoff, gchordbars, chordprog, bassprog, chordvol, bassvol, chordname) and the
// drum pattern (drum, drumon, drumoff, drumbars; channel 10), trim and ratio, for
// Options.Directives, and the lines that change how notes play from where they are written:
// beat, beatmod, beataccents and nobeataccents (velocity.go), drone, droneon and droneoff (a
// drone on a channel after the voice's accompaniment), transpose and rtranspose (the
// accompaniment too, not the percussion channel) and chordattack (the chord
// stagger; !arpeggio! triples it for its chord). Trills (T, !trill!) and rolls (~) play as abc2midi plays
// them, unless Straight. Not handled: other %%MIDI directives (beatstring, gracedivider,
// randomchordattack, ...); clef transpose=; lyrics. Voice overlays (&) play as voices of their
// own (overlay.go), as abc2midi plays them.
package abcmidi

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// TicksPerQuarter is the time division of the files Convert writes.
const TicksPerQuarter = 480

// ticksPerWhole converts abc.Rat durations (fractions of a whole note) to ticks.
const ticksPerWhole = 4 * TicksPerQuarter

// DefaultVelocity is the velocity of a note off the strong beats when no dynamics mark has
// changed it (StressOther); Options.Velocity 0 leaves velocities to the beat-stress model.
const DefaultVelocity = StressOther

// GraceDivider divides a grace note's written length to give the time it sounds for
// (abc2midi's default, %%MIDI gracedivider 4).
const GraceDivider = 4

// ChordStagger is the delay in ticks between successive notes of a chord (abc2midi plays
// them 10 ticks apart at 480 ticks per quarter).
const ChordStagger = 10

// Options tune Convert. The zero value converts as written.
type Options struct {
	// Transpose shifts every note by this many semitones. A note that leaves the MIDI range
	// 0..127 is an error.
	Transpose int
	// BPM, when positive, overrides every tempo of the tune (Q: in the header and in the body)
	// with this many quarter notes a minute.
	BPM float64
	// Velocity, 1..127, gives every note that velocity, ignoring beat stress and dynamics
	// marks; 0 follows them as abc2midi does (see the package doc).
	Velocity int
	// NoGrace drops grace notes instead of letting them take time from the following note.
	NoGrace bool
	// Voices sets the channel and program of voices by id (see MIDIDirectives, which reads
	// them from %%MIDI lines). The entry "" also gives its program to voices without one.
	Voices map[string]VoiceMIDI
	// Straight plays the notes exactly as written: no chord stagger, no staccato shortening,
	// no hornpipe swing, no rolls, trills or fermatas. Grace notes still take their time unless NoGrace is set.
	Straight bool
	// MelodyOnly leaves out the accompaniment that chord symbols give (gchord.go): the
	// written notes are played (and a %%MIDI drum pattern), as abc2midi -NGUI plays them.
	MelodyOnly bool
	// Directives are the tune's %%MIDI lines (see Directives), which set the accompaniment:
	// gchord, gchordon, gchordoff, gchordbars, chordprog, bassprog, chordvol, bassvol and
	// chordname; the drum pattern, drum, drumon, drumoff and drumbars; trim and ratio.
	Directives []Directive
}

// MinBPM is the slowest tempo a MIDI file can state, in quarter notes a minute: its tempo
// event holds the microseconds of a quarter note in 24 bits.
const MinBPM = 60e6 / 0xFFFFFF

// ErrNoVoices is returned for a tune without any voice.
var ErrNoVoices = errors.New("abcmidi: tune has no voices")

// Convert renders t as a Standard MIDI File.
func Convert(t *abc.Tune, opts Options) (*midi.File, error) {
	if t == nil || len(t.Voices) == 0 {
		return nil, ErrNoVoices
	}
	if opts.Velocity < 0 || opts.Velocity > 127 {
		return nil, fmt.Errorf("abcmidi: velocity %d is outside 1..127", opts.Velocity)
	}
	if opts.BPM < 0 || math.IsNaN(opts.BPM) || math.IsInf(opts.BPM, 0) {
		return nil, fmt.Errorf("abcmidi: tempo override %v bpm is not a positive number", opts.BPM)
	}
	if opts.BPM > 0 && opts.BPM < MinBPM {
		return nil, fmt.Errorf("abcmidi: tempo override %v bpm is below MIDI's slowest tempo, %.2f bpm", opts.BPM, MinBPM)
	}
	var vel uint8 // 0: each note's own, from the beat-stress model
	if opts.Velocity > 0 {
		vel = uint8(opts.Velocity)
	}
	t = splitOverlays(leadIntoFirstVoice(t))
	// A voice with no notes or rests (the fields before the first V: line of a tune whose
	// voices all have ids, such as a P: line) gets no track; its changes, all at the start, go
	// with the first voice's.
	var tvs []*abc.Voice
	var voices []voiceTrack
	var lead []playedChange
	for _, v := range t.Voices {
		vt, err := playVoice(t, v.ID, opts)
		if err != nil {
			return nil, err
		}
		if !hasMusic(v) && len(t.Voices) > 1 {
			lead = append(lead, vt.changes...)
			continue
		}
		tvs = append(tvs, v)
		voices = append(voices, vt)
	}
	if len(voices) == 0 {
		return nil, ErrNoVoices
	}
	voices[0].changes = append(lead, voices[0].changes...)

	// Conductor events: header tempo, meter and key, then the first voice's changes.
	var meta []midi.Event
	if opts.BPM > 0 {
		meta = append(meta, midi.Tempo(0, microsFromQPM(opts.BPM)))
	} else {
		meta = append(meta, midi.Tempo(0, tempoMicros(t.Header.Tempo)))
	}
	if e, ok := timeSignature(0, t.Header.Meter); ok {
		meta = append(meta, e)
	}
	meta = append(meta, keySignature(0, t.Header.Key))
	meta = append(meta, markerEvents(voices[0].marks)...)
	for _, c := range voices[0].changes {
		f := c.field
		if f.Tempo != nil && opts.BPM <= 0 {
			meta = append(meta, midi.Tempo(c.tick, tempoMicros(f.Tempo)))
		}
		if f.Meter != nil {
			if e, ok := timeSignature(c.tick, *f.Meter); ok {
				meta = append(meta, e)
			}
		}
		if f.Key != nil {
			meta = append(meta, keySignature(c.tick, *f.Key))
		}
	}

	out := &midi.File{TicksPerQuarter: TicksPerQuarter}
	accompanied := false
	for _, v := range voices {
		accompanied = accompanied || v.accompanied || len(v.drone.notes) > 0
	}
	if len(voices) == 1 && !accompanied {
		ch, prog := voiceSetup(opts, tvs[0].ID, nil)
		evs := append(meta, prog...)
		evs = append(evs, voices[0].noteEvents(ch, vel)...)
		out.Tracks = []midi.Track{finish(evs)}
		return out, nil
	}
	out.Format = 1
	var title string
	if len(t.Header.Titles) > 0 {
		title = t.Header.Titles[0]
	}
	var end int64
	for _, v := range voices {
		end = max(end, v.end)
	}
	conductor := meta
	if title != "" {
		conductor = append([]midi.Event{midi.TrackName(0, title)}, conductor...)
	}
	out.Tracks = append(out.Tracks, finishAt(conductor, end))
	// Channels go to each voice in turn, then to its bass and its chords, as abc2midi
	// assigns them.
	var taken []uint8
	var accTracks []midi.Track
	for i, v := range voices {
		ch, prog := voiceSetup(opts, tvs[i].ID, taken)
		taken = append(taken, ch)
		var evs []midi.Event
		if name := voiceName(tvs[i]); name != "" {
			evs = append(evs, midi.TrackName(0, name))
		}
		evs = append(evs, prog...)
		evs = append(evs, v.noteEvents(ch, vel)...)
		out.Tracks = append(out.Tracks, finish(evs))
		if !v.accompanied {
			if len(v.drone.notes) > 0 {
				accTracks = append(accTracks, v.droneTrack(&taken, vel))
			}
			continue
		}
		bassCh, chordCh := uint8(0), uint8(0)
		if v.hasChords {
			bassCh = channelFor(taken)
			taken = append(taken, bassCh)
			chordCh = channelFor(taken)
			taken = append(taken, chordCh)
		}
		name := "accompaniment"
		if vn := voiceName(tvs[i]); vn != "" && len(voices) > 1 {
			name = vn + " accompaniment"
		}
		accTracks = append(accTracks, finish(v.accompanimentEvents(name, bassCh, chordCh, vel)))
		if len(v.drone.notes) > 0 {
			accTracks = append(accTracks, v.droneTrack(&taken, vel))
		}
	}
	out.Tracks = append(out.Tracks, accTracks...)
	return out, nil
}

// accompanimentEvents returns the voice's bass and chord notes and their program changes on their
// channels, and its %%MIDI drum notes on the percussion channel 10, every note with velocity vel,
// or with its own when vel is 0.
func (v voiceTrack) accompanimentEvents(name string, bassCh, chordCh, vel uint8) []midi.Event {
	evs := []midi.Event{midi.TrackName(0, name)}
	for _, p := range v.programs {
		ch := chordCh
		if p.bass {
			ch = bassCh
		}
		evs = append(evs, midi.ProgramChange(p.tick, ch, p.value))
	}
	for _, part := range []struct {
		notes []playedNote
		ch    uint8
	}{{v.bass, bassCh}, {v.chords, chordCh}, {v.drums, 9}} {
		for _, n := range part.notes {
			nv := vel
			if nv == 0 {
				nv = n.vel
			}
			if nv == 0 {
				continue // velocity 0 is a note-off: %%MIDI chordvol 0 silences the chords
			}
			evs = append(evs, midi.NoteOn(n.on, part.ch, n.pitch, nv), midi.NoteOff(n.off, part.ch, n.pitch, 0))
		}
	}
	return evs
}

// droneTrack returns the voice's drone on the next free channel (added to taken), with its
// program, every note with velocity vel, or with its own when vel is 0.
func (v voiceTrack) droneTrack(taken *[]uint8, vel uint8) midi.Track {
	ch := channelFor(*taken)
	*taken = append(*taken, ch)
	evs := []midi.Event{midi.TrackName(0, "drone"), midi.ProgramChange(0, ch, v.drone.program)}
	for _, n := range v.drone.notes {
		nv := vel
		if nv == 0 {
			nv = n.vel
		}
		evs = append(evs, midi.NoteOn(n.on, ch, n.pitch, nv), midi.NoteOff(n.off, ch, n.pitch, 0))
	}
	return finish(evs)
}

// leadIntoFirstVoice returns t with the music written before its first V: line (voice "") put
// at the start of the first V: voice, as abc2midi plays it; t itself is not changed.
func leadIntoFirstVoice(t *abc.Tune) *abc.Tune {
	if len(t.Voices) < 2 || t.Voices[0].ID != "" || !hasMusic(t.Voices[0]) {
		return t
	}
	lead, first := t.Voices[0], t.Voices[1]
	merged := *first
	merged.Elements = append(append([]abc.Element(nil), lead.Elements...), first.Elements...)
	tu := *t
	tu.Voices = append([]*abc.Voice{&merged}, t.Voices[2:]...)
	return &tu
}

// hasMusic reports whether v has a note, chord or rest.
// strictRepeats reports tunes whose repeats abc2midi plays as written, without the section
// starts it guesses for a tune of one voice and no header P: (abc.ExpandRepeatsStrict).
func strictRepeats(t *abc.Tune) bool {
	if t.Header.Parts != "" {
		return true
	}
	n := 0
	for _, v := range t.Voices {
		if hasMusic(v) {
			n++
		}
	}
	return n > 1
}

func hasMusic(v *abc.Voice) bool {
	for _, el := range v.Elements {
		switch el.(type) {
		case *abc.Note, *abc.Chord, *abc.Rest:
			return true
		}
	}
	return false
}

// voiceSetup returns the channel of a voice and its program change, if any. A voice without
// a channel of its own gets the lowest channel no earlier voice has (taken lists theirs).
func voiceSetup(opts Options, id string, taken []uint8) (uint8, []midi.Event) {
	ch := channelFor(taken)
	vm, ok := opts.Voices[id]
	if !ok {
		vm = VoiceMIDI{Program: -1}
	}
	if vm.Channel >= 1 && vm.Channel <= 16 {
		ch = uint8(vm.Channel - 1)
	}
	prog := vm.Program
	if d, ok := opts.Voices[""]; ok && prog < 0 && id != "" {
		prog = d.Program
	}
	if prog < 0 || prog > 127 {
		return ch, nil
	}
	return ch, []midi.Event{midi.ProgramChange(0, ch, uint8(prog))}
}

// channelFor returns the lowest channel not in taken, skipping the percussion channel 9, as
// abc2midi assigns them (a voice moved to channel 10 leaves its channel to the next voice);
// when all are taken it wraps around.
func channelFor(taken []uint8) uint8 {
	for ch := uint8(0); ch < 16; ch++ {
		if ch != 9 && !slices.Contains(taken, ch) {
			return ch
		}
	}
	n := len(taken)
	if n >= 9 {
		n++
	}
	return uint8(n % 16)
}

func voiceName(v *abc.Voice) string {
	if v.Def != nil && v.Def.Name != "" {
		return v.Def.Name
	}
	return v.ID
}

type playedNote struct {
	on, off int64
	pitch   uint8
	vel     uint8 // from the beat-stress model
	src     int   // source offset of the note
}

type playedChange struct {
	tick  int64
	field *abc.InlineField
}

type voiceTrack struct {
	notes   []playedNote
	changes []playedChange
	end     int64
	// The accompaniment, when the voice has chord symbols and it is played.
	accompanied, hasChords bool
	bass, chords, drums    []playedNote
	programs               []programAt
	drone                  drone
	// marks are the road map's directions (roadmap.go), written as markers for the first voice.
	marks []markAt
}

// noteEvents returns the voice's note events on channel ch, every note with velocity vel, or
// with its own velocity when vel is 0.
func (v voiceTrack) noteEvents(ch, vel uint8) []midi.Event {
	evs := make([]midi.Event, 0, 2*len(v.notes))
	for _, n := range v.notes {
		nv := vel
		if nv == 0 {
			nv = n.vel
		}
		evs = append(evs, midi.NoteOn(n.on, ch, n.pitch, nv), midi.NoteOff(n.off, ch, n.pitch, 0))
	}
	return evs
}

// ticks converts a fraction of a whole note to ticks, rounding to the nearest tick.
// floorTicks is r in ticks without the fraction of a tick (r is not negative).
func floorTicks(r abc.Rat) int64 {
	if r.Den > 0 && r.Num >= 0 && r.Num < 1<<50 {
		return r.Num * ticksPerWhole / r.Den
	}
	return int64(math.Floor(r.Float64() * ticksPerWhole))
}

func ticks(r abc.Rat) int64 {
	return int64(math.Round(r.Float64() * ticksPerWhole))
}

// playVoice lays out one voice's notes and changes in playing order.
func playVoice(t *abc.Tune, id string, opts Options) (voiceTrack, error) {
	name := id
	if name == "" {
		name = "(default)"
	}
	events, bars, changes, cues, err := t.TimelineCuesWith(id, abc.EventOptions{Fermata: !opts.Straight, ABC2MIDI: true}) // events is ours to change
	if err != nil {
		return voiceTrack{}, fmt.Errorf("abcmidi: voice %s: %w", name, err)
	}
	hornpipe := !opts.Straight && strings.Contains(strings.ToLower(t.Header.Rhythm), "hornpipe")
	rs := ratios(id, opts.Directives)
	if hornpipe {
		// abc2midi plays A>B 2:1 in a hornpipe, in any meter, until a %%MIDI ratio line.
		rs = append([]ratioAt{{offset: -1, a: 2, b: 1}}, rs...)
	}
	brokenRatio(t.Voice(id), events, rs)
	slots := map[int]int64{} // the time each note takes, by source offset (openchord.go)
	if !opts.Straight {
		if hornpipe {
			// abc2midi swings eighths in 4/4 (C, or no meter) and sixteenths in 2/4, and
			// nothing in other meters (not 2/2, 3/4, 6/8).
			switch num, den := meterParts(t.Header.Meter); {
			case num == 4 && den == 4 && t.Header.Meter.Kind != abc.MeterCut:
				swing(events, bars, abc.R(1, 8), rs)
			case num == 2 && den == 4 && t.Header.Meter.Kind == abc.MeterFraction:
				swing(events, bars, abc.R(1, 16), rs)
			}
		}
		for _, e := range events { // the time each note takes, before staccato and trim
			if !e.Grace {
				slots[e.Pos.Offset] = floorTicks(e.Duration)
			}
		}
		articulate(events, trims(t, id, opts.Directives))
		events = roll(events)
	}
	if !opts.NoGrace {
		events = placeGraces(events, graceChords(t.Voice(id)))
	}
	if !opts.Straight {
		// after the grace notes: a trill fills what they leave of its note ({B}TA4)
		events = trill(events, newTempoAt(t, changes, opts))
	}
	byBar := make([][]abc.Event, len(bars))
	for _, e := range events {
		if e.Grace {
			continue // placeGraces turned the graces it kept into plain events
		}
		if e.Bar >= 0 && e.Bar < len(bars) {
			byBar[e.Bar] = append(byBar[e.Bar], e)
		}
	}
	tiedChord := tiedChordNotes(t.Voice(id))
	atNote := noteDirectives(t, id, events, opts.Directives)
	stagger := int64(ChordStagger) // %%MIDI chordattack changes it
	shift := 0                     // %%MIDI transpose and rtranspose
	drums := opts.Voices[id].Channel == 10
	vt := voiceTrack{drone: newDrone()}
	elements := 0 // a bar ending here ends without a bar line
	if v := t.Voice(id); v != nil {
		elements = len(v.Elements)
	}
	acc := newAccompaniment(t, id, bars, changes, cues, opts)
	road := newRoadMap(t.Voice(id))
	var accEvents []accEvent
	var cursor abc.Rat
	st := newStress(t.Header.Meter)
	var oc *openChord // abc2midi's H[| (openchord.go)
	var played []playedBar
	if !opts.Straight && acc == nil {
		oc = findOpenChord(t, id, events)
	}
	prev := -1
	var offset abc.Rat // where bar b starts in the bar the stress model counts in
	order := abc.PlayOrder
	if strictRepeats(t) {
		order = abc.PlayOrderStrict
	}
	for _, b := range order(bars, t.Header.Parts) {
		bar := bars[b]
		// abc2midi counts beats from the last bar line, except that a repeat sign (|: :| ::)
		// or a section line (|| |] [|) after a bar shorter than the meter's does not start a
		// new bar: a section ending short goes on into the pickup that follows, played or
		// repeated; nor does the end of the music when parts (P:) go on from there. The
		// tune's first bar (a pickup, D|:EBBA) counts on its own.
		if prev > 0 && (bars[prev].SectionEnd || bars[b].RepeatStart || bars[prev].Last >= elements) {
			if end := offset.Add(bars[prev].End.Sub(bars[prev].Start)); end.Cmp(st.barLength()) < 0 {
				offset = end
			} else {
				offset = abc.Rat{Num: 0, Den: 1}
			}
		} else {
			offset = abc.Rat{Num: 0, Den: 1}
		}
		prev = b
		if acc != nil {
			accEvents = acc.bar(accEvents, b, ticks(cursor), cursor.Sub(bar.Start), offset.IsZero())
		}
		var barChanges []abc.Change
		for _, c := range changes {
			if c.Onset.Cmp(bar.Start) >= 0 && c.Onset.Cmp(bar.End) < 0 {
				barChanges = append(barChanges, c)
			}
		}
		ci := 0
		applyChanges := func(upTo abc.Rat, all bool) {
			for ; ci < len(barChanges) && (all || barChanges[ci].Onset.Cmp(upTo) <= 0); ci++ {
				if m := barChanges[ci].Field.Meter; m != nil {
					st.setMeter(*m)
				}
			}
		}
		barFrom := len(vt.notes)
		var lastDecos, lastRest *string // the notes of a chord share their decorations
		chordAt, chordIdx := abc.Rat{Num: -1, Den: 1}, 0
		chordStagger := stagger
		var chordLen int64 // the sounding length of the chord's first note
		lastAt := -1
		for _, e := range byBar[b] {
			applyChanges(e.Onset, false)
			if ds := atNote[e.Pos.Offset]; len(ds) > 0 && e.Pos.Offset != lastAt {
				for _, d := range ds {
					switch d.Name {
					case "chordattack":
						stagger = chordAttack(d, stagger)
					case "transpose", "rtranspose":
						shift = transposeBy(d, shift)
					case "drone", "droneon", "droneoff":
						vt.drone.directive(d, ticks(cursor.Add(e.Onset.Sub(bar.Start))))
					default:
						st.directive(d)
					}
				}
			}
			lastAt = e.Pos.Offset
			if len(e.RestDecorations) > 0 && &e.RestDecorations[0] != lastRest {
				lastRest = &e.RestDecorations[0]
				st.decorate(e.RestDecorations)
			}
			if len(e.Decorations) > 0 && &e.Decorations[0] != lastDecos {
				lastDecos = &e.Decorations[0]
				st.decorate(e.Decorations)
			}
			if e.Onset.Cmp(chordAt) == 0 {
				chordIdx++
			} else {
				chordAt, chordIdx = e.Onset, 0
				// !arpeggio! spreads its chord three times as far, as abc2midi does.
				chordStagger = stagger
				if slices.Contains(e.Decorations, "arpeggio") {
					chordStagger = 3 * stagger
				}
			}
			p := e.Pitch + opts.Transpose
			if !drums {
				p += shift // abc2midi does not transpose the percussion channel
			}
			if p < 0 || p > 127 {
				return voiceTrack{}, fmt.Errorf("abcmidi: voice %s: note at line %d col %d: pitch %d is outside the MIDI range 0..127",
					name, e.Pos.Line, e.Pos.Col, p)
			}
			on := cursor.Add(e.Onset.Sub(bar.Start))
			// abc2midi drops the fraction of a tick from a note's start and from its length
			// ((7 notes in 2/4 start at 0, 68, 137 ... and last 68 ticks each).
			onTick := floorTicks(on)
			n := playedNote{on: onTick, off: onTick + floorTicks(e.Duration), pitch: uint8(p), vel: st.velocity(offset.Add(e.Onset.Sub(bar.Start))), src: e.Pos.Offset}
			if !opts.Straight && !tiedChord[e.Pos.Offset] {
				n.on += int64(chordIdx) * chordStagger
				// abc2midi sounds every note of a chord as long as its first ([F4d2]: d for
				// four units too), warning "unequal notes in chord".
				if chordIdx == 0 {
					chordLen = n.off - onTick
				} else {
					n.off = onTick + chordLen
				}
			}
			if n.off <= n.on {
				continue // shorter than a tick
			}
			vt.notes = append(vt.notes, n)
			vt.end = max(vt.end, n.off)
		}
		applyChanges(bar.End, true)
		for _, c := range barChanges {
			vt.changes = append(vt.changes, playedChange{tick: ticks(cursor.Add(c.Onset.Sub(bar.Start))), field: c.Field})
		}
		if oc != nil {
			played = append(played, playedBar{b: b, from: barFrom, to: len(vt.notes),
				end: ticks(cursor.Add(bar.End.Sub(bar.Start))), vel: st.velocity(abc.Rat{Num: 0, Den: 1})})
		}
		vt.marks = road.marks(vt.marks, bar, byBar[b], cursor)
		cursor = cursor.Add(bar.End.Sub(bar.Start))
	}
	vt.marks = road.finish(vt.marks)
	if oc != nil {
		if notes, end, ok := oc.replay(vt.notes, played, bars, slots, stagger); ok {
			vt.notes, vt.end = notes, end
			cursor = abc.Rat{Num: end, Den: ticksPerWhole}
		}
	}
	vt.end = max(vt.end, ticks(cursor))
	vt.drone.stop(vt.end)
	if acc != nil {
		a := newAccompanist(t.Header.Meter, acc.names)
		a.run(accEvents, ticks(cursor))
		vt.accompanied, vt.hasChords = true, acc.chords
		vt.bass, vt.chords, vt.drums, vt.programs = a.bass, a.chords, a.drums, a.programs
		for _, ns := range [][]playedNote{vt.bass, vt.chords} {
			for i := range ns {
				p := int(ns[i].pitch) + opts.Transpose
				if p < 0 || p > 127 {
					return voiceTrack{}, fmt.Errorf("abcmidi: voice %s: accompaniment note %d is outside the MIDI range 0..127 after transposing", name, p)
				}
				ns[i].pitch = uint8(p)
				vt.end = max(vt.end, ns[i].off)
			}
		}
		for _, n := range vt.drums { // drum keys name instruments: not transposed
			vt.end = max(vt.end, n.off)
		}
	}
	return vt, nil
}

// noteDirectives returns the %%MIDI lines of voice id that change how its notes play from where
// they are written (beat, beatmod, beataccents, nobeataccents, chordattack), keyed by the source
// offset of the first of events written after each (transpose and rtranspose too). abc2midi acts
// on such a line when it reaches it as it plays, every time it plays it (again in a repeat); lines
// before the first V: line go with the first voice that has music, as the accompaniment's do.
func noteDirectives(t *abc.Tune, id string, events []abc.Event, dirs []Directive) map[int][]Directive {
	first := firstMusicVoice(t)
	var offsets []int
	for _, e := range events {
		if !e.Grace {
			offsets = append(offsets, e.Pos.Offset)
		}
	}
	slices.Sort(offsets)
	var out map[int][]Directive
	for _, d := range dirs {
		switch d.Name {
		case "beat", "beatmod", "beataccents", "nobeataccents", "chordattack", "transpose", "rtranspose",
			"drone", "droneon", "droneoff":
		default:
			continue
		}
		if d.Voice != id && (d.Voice != "" || id != first) {
			continue
		}
		i := sort.SearchInts(offsets, d.Offset+1)
		if i == len(offsets) {
			continue // after the last note
		}
		if out == nil {
			out = map[int][]Directive{}
		}
		out[offsets[i]] = append(out[offsets[i]], d)
	}
	return out
}

// firstMusicVoice is the id of the first voice with notes or rests.
func firstMusicVoice(t *abc.Tune) string {
	for _, v := range t.Voices {
		if hasMusic(v) {
			return v.ID
		}
	}
	return ""
}

// drone is abc2midi's bagpipe drone: two notes held on a channel of their own from
// "%%MIDI droneon" to "%%MIDI droneoff" (or the end of the voice); "%%MIDI drone p n1 n2 v1 v2"
// sets their program, keys and velocities (0 keeps one), by default 70 (bassoon), 45 and 33
// (A, and A,,), 80 and 80.
type drone struct {
	program    uint8
	keys, vels [2]uint8
	from       int64 // where the drone started; -1 when it is off
	notes      []playedNote
}

func newDrone() drone {
	return drone{program: 70, keys: [2]uint8{45, 33}, vels: [2]uint8{80, 80}, from: -1}
}

func (d *drone) directive(dir Directive, tick int64) {
	switch dir.Name {
	case "drone":
		set := func(i int, v *uint8) {
			if n, ok := intArg(dir.Args, i, 1, 127); ok {
				*v = uint8(n)
			}
		}
		set(0, &d.program)
		set(1, &d.keys[0])
		set(2, &d.keys[1])
		set(3, &d.vels[0])
		set(4, &d.vels[1])
	case "droneon":
		if d.from < 0 {
			d.from = tick
		}
	case "droneoff":
		d.stop(tick)
	}
}

// stop ends the drone at tick, if it is on.
func (d *drone) stop(tick int64) {
	if d.from < 0 {
		return
	}
	if tick > d.from && len(d.notes) < 2*maxDroneSpans {
		for i := range d.keys {
			d.notes = append(d.notes, playedNote{on: d.from, off: tick, pitch: d.keys[i], vel: d.vels[i]})
		}
	}
	d.from = -1
}

// maxDroneSpans bounds the times a voice's drone starts.
const maxDroneSpans = 4096

// MaxChordAttack bounds %%MIDI chordattack, in ticks (a quarter note).
const MaxChordAttack = TicksPerQuarter

// chordAttack reads "%%MIDI chordattack n": the notes of each chord start n ticks apart
// instead of ChordStagger. A bad line leaves cur.
func chordAttack(d Directive, cur int64) int64 {
	if len(d.Args) == 0 {
		return cur
	}
	n, err := strconv.Atoi(d.Args[0])
	if err != nil || n < 0 || n > MaxChordAttack {
		return cur
	}
	return int64(n)
}

// MaxTranspose bounds %%MIDI transpose and rtranspose, in semitones.
const MaxTranspose = 48

// transposeBy reads "%%MIDI transpose n" (play n semitones up from here; negative: down) and
// "%%MIDI rtranspose n" (n more than now), as abc2midi does. A bad line leaves cur.
func transposeBy(d Directive, cur int) int {
	n, ok := intArg(d.Args, 0, -MaxTranspose, MaxTranspose)
	switch {
	case !ok:
		return cur
	case d.Name == "rtranspose":
		return max(-MaxTranspose, min(cur+n, MaxTranspose))
	}
	return n
}

// trimAt is a %%MIDI trim in effect from a source offset on.
type trimAt struct {
	offset int
	by     abc.Rat // as a fraction of a whole note; zero turns trimming off
}

// trims returns the %%MIDI trim lines of voice id (and those before the first V: line) in
// source order: "%%MIDI trim a/b" takes a/b of the unit note length (L:) off every note longer
// than that, as abc2midi does, except notes under a slur that goes on after them and tied
// notes; "%%MIDI trim 0/1" stops it.
func trims(t *abc.Tune, id string, dirs []Directive) []trimAt {
	var out []trimAt
	for _, d := range dirs {
		if d.Name != "trim" || len(d.Args) == 0 || (d.Voice != id && d.Voice != "") {
			continue
		}
		num, den, ok := strings.Cut(d.Args[0], "/")
		if !ok {
			continue // abc2midi reads only a/b ("trim 0" changes nothing; "trim 0/1" stops)
		}
		n, err1 := strconv.Atoi(num)
		m, err2 := strconv.Atoi(den)
		if err1 != nil || err2 != nil || n < 0 || n > 64 || m < 1 || m > 64 {
			continue
		}
		out = append(out, trimAt{offset: d.Offset, by: abc.R(int64(n), int64(m)).Mul(t.Header.UnitLength)})
	}
	return out
}

// articulate halves staccato notes and shortens the notes a trim reaches. After a %%MIDI trim
// line, abc2midi trims staccato notes by it instead of halving them (after trim 0/1 they keep
// their length).
func articulate(events []abc.Event, ts []trimAt) {
	for i := range events {
		e := &events[i]
		if e.Grace {
			continue
		}
		var by abc.Rat
		j := sort.Search(len(ts), func(j int) bool { return ts[j].offset > e.Pos.Offset }) - 1
		if j >= 0 {
			by = ts[j].by
		}
		staccato := slices.Contains(e.Decorations, "staccato")
		switch {
		case j < 0 && staccato:
			e.Duration = e.Duration.Mul(abc.R(1, 2))
		case by.IsZero(), e.Duration.Cmp(by) <= 0, (e.Slurred || e.Tied) && !staccato:
		default:
			e.Duration = e.Duration.Sub(by)
		}
	}
}

// ratioAt is a %%MIDI ratio in effect from a source offset on.
type ratioAt struct {
	offset int
	a, b   int64
}

// ratios returns the %%MIDI ratio lines of voice id (and those before the first V: line).
func ratios(id string, dirs []Directive) []ratioAt {
	var out []ratioAt
	for _, d := range dirs {
		if d.Name != "ratio" || len(d.Args) < 2 || (d.Voice != id && d.Voice != "") {
			continue
		}
		a, err1 := strconv.Atoi(d.Args[0])
		b, err2 := strconv.Atoi(d.Args[1])
		if err1 != nil || err2 != nil || a < 1 || b < 1 || a > 64 || b > 64 {
			continue
		}
		out = append(out, ratioAt{d.Offset, int64(a), int64(b)})
	}
	return out
}

// brokenRatio plays the broken rhythms A>B and A<B that a "%%MIDI ratio a b" line reaches a:b
// instead of 3:1, as abc2midi does (A>>B and A>>>B keep 7:1 and 15:1). The pair keeps its
// length: the first note's events take their new length and the second's start where it ends.
// Pairs of notes that abc2midi plays as written are left alone (abc.EventOptions.ABC2MIDI
// plays them so): unequal lengths, a fermata counting double and a staccato dot half.
func brokenRatio(v *abc.Voice, events []abc.Event, rs []ratioAt) {
	if v == nil {
		return
	}
	starts := func(el abc.Element) []int { // source offsets of the notes of a note or chord
		switch n := el.(type) {
		case *abc.Note:
			return []int{n.Pos.Offset}
		case *abc.Chord:
			var out []int
			for _, m := range n.Notes {
				out = append(out, m.Pos.Offset)
			}
			return out
		}
		return nil
	}
	var byOffset map[int][]int
	els := v.Elements
	for i, el := range els {
		br, ok := el.(*abc.BrokenRhythm)
		if !ok || i == 0 || br.Count < 1 || br.Count > 3 {
			continue
		}
		first := starts(els[i-1])
		var second []int
		scale := abc.R(1, 1) // abc2midi's marks on the second note (abc.EventOptions.ABC2MIDI)
		for k := i + 1; k < len(els) && second == nil; k++ {
			switch d := els[k].(type) {
			case *abc.Note, *abc.Chord:
				second = starts(els[k])
				if a, ok := els[i-1].(*abc.Note); ok {
					if b, ok := d.(*abc.Note); ok {
						first := abc.R(1, 1)
						for j := i - 2; j >= 0; j-- { // the first note's own marks
							m, ok := els[j].(*abc.Decoration)
							if !ok {
								break
							}
							first = first.Mul(lengthMark(m))
						}
						if a.Length.Mul(first).Cmp(b.Length.Mul(scale)) != 0 {
							second, k = nil, len(els) // unequal for abc2midi: played as written
						}
					}
				}
			case *abc.Decoration:
				scale = scale.Mul(lengthMark(d))
			case *abc.GraceGroup, *abc.ChordSymbol, *abc.Annotation, *abc.LineBreak:
			default:
				k = len(els) // something else: leave the pair alone
			}
		}
		if first == nil || second == nil {
			continue
		}
		// The written pair: long and short are 2-1/2^n and 1/2^n of the notes' lengths.
		short := abc.R(1, int64(1)<<br.Count)
		long := abc.R(2, 1).Sub(short)
		var a, b int64
		switch j := sort.Search(len(rs), func(j int) bool { return rs[j].offset > br.Pos.Offset }) - 1; {
		case br.Count == 1 && j >= 0 && rs[j].a != 3*rs[j].b:
			a, b = rs[j].a, rs[j].b
		default:
			continue
		}
		nl, ns := abc.R(2*a, a+b), abc.R(2*b, a+b)
		f1, f2 := nl.Div(long), ns.Div(short) // new over old
		if br.Dir == '<' {
			f1, f2 = ns.Div(short), nl.Div(long)
		}
		if byOffset == nil {
			byOffset = map[int][]int{}
			for i, e := range events {
				if !e.Grace {
					byOffset[e.Pos.Offset] = append(byOffset[e.Pos.Offset], i)
				}
			}
		}
		tied := false
		for _, off := range first {
			for _, x := range byOffset[off] {
				tied = tied || events[x].Tied
			}
		}
		if tied {
			continue // a tie out of the first note: the pair is left as written
		}
		var shift abc.Rat
		for _, off := range first {
			for _, x := range byOffset[off] {
				old := events[x].Duration
				events[x].Duration = old.Mul(f1)
				shift = events[x].Duration.Sub(old)
			}
		}
		for _, off := range second {
			for _, x := range byOffset[off] {
				events[x].Onset = events[x].Onset.Add(shift)
				events[x].Duration = events[x].Duration.Mul(f2)
			}
		}
	}
}

// lengthMark is how abc2midi scales a note's length for a decoration before it compares the
// notes of a broken rhythm (as abc's walk does with EventOptions.ABC2MIDI).
func lengthMark(d *abc.Decoration) abc.Rat {
	switch {
	case d.Name == "fermata":
		return abc.R(2, 1)
	case d.Name == "staccato" && d.Short:
		return abc.R(1, 2)
	}
	return abc.R(1, 1)
}

// trillNote is the length of each note of a trill at a tempo of micros microseconds a quarter
// note, as a fraction of a whole note: abc2midi plays the longest note of a quarter halved or
// doubled (a thirty-second note from 75 to 150 quarter notes a minute, a sixteenth from 150 to
// 300, a sixty-fourth from 37.5 to 75) that lasts no more than a tenth of a second.
func trillNote(micros uint32) abc.Rat {
	q := abc.R(4, 1)
	for k := 0; k < 16 && q.MulInt(4*int64(max(micros, 1))).Cmp(abc.R(100000, 1)) > 0; k++ {
		q = q.Mul(abc.R(1, 2))
	}
	return q
}

// tempoAt is the tempo in force along a voice's written time line: the header's (or the
// override's), then each Q: change from its onset.
type tempoAt struct {
	at     []abc.Rat
	micros []uint32
}

func newTempoAt(t *abc.Tune, changes []abc.Change, opts Options) tempoAt {
	if opts.BPM > 0 {
		return tempoAt{at: []abc.Rat{{Num: 0, Den: 1}}, micros: []uint32{microsFromQPM(opts.BPM)}}
	}
	ta := tempoAt{at: []abc.Rat{{Num: 0, Den: 1}}, micros: []uint32{tempoMicros(t.Header.Tempo)}}
	for _, c := range changes {
		if c.Field.Tempo != nil && c.Field.Tempo.BPM > 0 {
			ta.at = append(ta.at, c.Onset)
			ta.micros = append(ta.micros, tempoMicros(c.Field.Tempo))
		}
	}
	return ta
}

func (ta tempoAt) micro(onset abc.Rat) uint32 {
	m := ta.micros[0]
	for i, at := range ta.at {
		if at.Cmp(onset) <= 0 {
			m = ta.micros[i]
		}
	}
	return m
}

// trill plays each single note marked trill (T, !trill!) as abc2midi does: short notes
// (trillNote, from the tempo where the note is) alternating between the next note letter up
// (in the key and the bar's accidentals) and the note, starting above, the last cut to what
// is left of the note. Each is a note of its own for beat stress; the first keeps the marks
// written before the note.
func trill(events []abc.Event, tempo tempoAt) []abc.Event {
	has := false
	for i := range events {
		has = has || !events[i].Grace && slices.Contains(events[i].Decorations, "trill")
	}
	if !has {
		return events
	}
	out := make([]abc.Event, 0, len(events))
	for i, e := range events {
		single := (i == 0 || events[i-1].Onset.Cmp(e.Onset) != 0 || events[i-1].Grace) &&
			(i+1 == len(events) || events[i+1].Onset.Cmp(e.Onset) != 0)
		if e.Grace || !single || e.Upper == 0 || !slices.Contains(e.Decorations, "trill") { // Upper 0: a grace placed before
			out = append(out, e)
			continue
		}
		step := trillNote(tempo.micro(e.Onset))
		for k := 0; k < 6 && e.Duration.Div(step).Den != 1; k++ {
			step = step.Mul(abc.R(1, 2)) // abc2midi halves it until it fills the note ({B}TA4 at 152 bpm)
		}
		end := e.Onset.Add(e.Duration)
		for k, at := 0, e.Onset; at.Cmp(end) < 0 && k < 4096; k++ {
			n := e
			n.Onset = at
			n.Duration = step
			if rest := end.Sub(at); rest.Cmp(step) < 0 {
				n.Duration = rest
			}
			if k%2 == 0 {
				n.Pitch = e.Upper
			}
			if k > 0 {
				n.Decorations, n.RestDecorations = nil, nil
			}
			out = append(out, n)
			at = at.Add(n.Duration)
		}
	}
	return out
}

// roll plays each single note written with the roll shorthand ~ as abc2midi does. A note
// three units (L:) long plays as five: the note for a third of its length, the next note
// letter up (in the key and the bar's accidentals) for a twelfth, the note for a quarter, the
// next letter down for a twelfth and the note for the rest (a quarter, and whatever a tie adds).
// Any other note starts with the letter up for a quarter of the unit, as a grace note written
// one unit long would take, and plays for the rest. Each is a note of its own for beat stress;
// the first keeps the marks written before the note. abc2midi ignores !roll! and rolls on chords.
func roll(events []abc.Event) []abc.Event {
	has := false
	for i := range events {
		has = has || events[i].Roll && !events[i].Grace
	}
	if !has {
		return events
	}
	out := make([]abc.Event, 0, len(events)+4)
	for i, e := range events {
		single := (i == 0 || events[i-1].Onset.Cmp(e.Onset) != 0 || events[i-1].Grace) &&
			(i+1 == len(events) || events[i+1].Onset.Cmp(e.Onset) != 0)
		if e.Grace || !single || !e.Roll || e.Unit.IsZero() {
			out = append(out, e)
			continue
		}
		var parts []abc.Rat
		var pitches []int
		w := e.Written
		if w.Cmp(e.Unit.Mul(abc.R(3, 1))) == 0 && e.Duration.Cmp(w) >= 0 {
			third, twelfth, quarter := w.Mul(abc.R(1, 3)), w.Mul(abc.R(1, 12)), w.Mul(abc.R(1, 4))
			last := e.Duration.Sub(third).Sub(twelfth).Sub(quarter).Sub(twelfth)
			parts = []abc.Rat{third, twelfth, quarter, twelfth, last}
			pitches = []int{e.Pitch, e.Upper, e.Pitch, e.Lower, e.Pitch}
		} else {
			g := e.Unit.Mul(abc.R(1, GraceDivider))
			if g.Cmp(e.Duration) >= 0 {
				out = append(out, e)
				continue
			}
			parts = []abc.Rat{g, e.Duration.Sub(g)}
			pitches = []int{e.Upper, e.Pitch}
		}
		at := e.Onset
		for k, d := range parts {
			n := e
			n.Onset, n.Duration, n.Pitch, n.Roll = at, d, pitches[k], false
			if k > 0 {
				n.Decorations, n.RestDecorations = nil, nil
			}
			if k < len(parts)-1 {
				n.Tied = false
			}
			out = append(out, n)
			at = at.Add(d)
		}
	}
	return out
}

// tiedChordNotes returns the source offsets of the notes of tied chords ([CEG]- or [C-EG]),
// which abc2midi does not stagger.
func tiedChordNotes(v *abc.Voice) map[int]bool {
	m := map[int]bool{}
	if v == nil {
		return m
	}
	for _, el := range v.Elements {
		c, ok := el.(*abc.Chord)
		if !ok {
			continue
		}
		tied := c.Tie
		for _, n := range c.Notes {
			tied = tied || n.Tie
		}
		if tied {
			for _, n := range c.Notes {
				m[n.Pos.Offset] = true
			}
		}
	}
	return m
}

// placeGraces gives each grace note a quarter of its written length (GraceDivider), played
// in order from the onset of the note that follows, and starts that note (all notes of its
// chord) later by as much. The notes of a grace chord ({[Ge]}, keyed in chords by source offset
// to their chord's first note) start together and take the time of its first, as abc2midi
// plays them. Graces before a rest, at the end, or that would take all of the following note
// are dropped. The graces kept are returned as plain events (Grace false), the first with the
// decorations of the note they ornament.
func placeGraces(events []abc.Event, chords map[int]int) []abc.Event {
	out := make([]abc.Event, 0, len(events))
	for i := 0; i < len(events); {
		if !events[i].Grace {
			out = append(out, events[i])
			i++
			continue
		}
		j := i
		for j < len(events) && events[j].Grace && events[j].Onset.Cmp(events[i].Onset) == 0 {
			j++
		}
		// Main notes: the chord of non-grace events at the same onset right after the group.
		k := j
		for k < len(events) && !events[k].Grace && events[k].Onset.Cmp(events[i].Onset) == 0 {
			k++
		}
		// sameChord: grace gi is a later note of the grace chord of the one before it
		sameChord := func(gi int) bool {
			if gi == 0 {
				return false
			}
			c, ok := chords[events[i+gi].Pos.Offset]
			p, pok := chords[events[i+gi-1].Pos.Offset]
			return ok && pok && c == p
		}
		var total abc.Rat
		for gi, g := range events[i:j] {
			if !sameChord(gi) {
				total = total.Add(g.Duration.Mul(abc.R(1, GraceDivider)))
			}
		}
		if k == j || total.Cmp(events[j].Duration) >= 0 {
			i = j // nothing to ornament, or no time to take: drop the graces
			continue
		}
		at := events[i].Onset
		var chordAt, chordDur abc.Rat
		for gi, g := range events[i:j] {
			if gi == 0 {
				// Marks written before the graces (!p!{g}A) apply from the first grace on;
				// the main note shares them, so they apply once.
				g.Decorations, g.RestDecorations = events[j].Decorations, events[j].RestDecorations
			}
			g.Grace = false
			if sameChord(gi) {
				g.Onset, g.Duration = chordAt, chordDur
				out = append(out, g)
				continue
			}
			g.Onset = at
			g.Duration = g.Duration.Mul(abc.R(1, GraceDivider))
			chordAt, chordDur = g.Onset, g.Duration
			at = at.Add(g.Duration)
			out = append(out, g)
		}
		for _, m := range events[j:k] {
			m.Onset = m.Onset.Add(total)
			m.Duration = m.Duration.Sub(total)
			out = append(out, m)
		}
		i = k
	}
	return out
}

// swing plays pairs of notes written unit long (eighths in 4/4), the first on a beat of twice
// that, as abc2midi does in hornpipes: the pair becomes A>B at the broken-rhythm ratio in
// force (2:1 in a hornpipe unless a %%MIDI ratio line says otherwise), whether it was written
// even (AB), dotted (A>B) or reversed (A<B). A pair written otherwise (A3/2B/) is left as it
// is. Chords count as one note; grace notes move with the note they ornament.
func swing(events []abc.Event, bars []abc.Bar, unit abc.Rat, rs []ratioAt) {
	quarter := unit.Mul(abc.R(2, 1))
	// groups: the first non-grace event of each distinct onset.
	var groups []int
	for i, e := range events {
		if e.Grace {
			continue
		}
		if n := len(groups); n > 0 && events[groups[n-1]].Onset.Cmp(e.Onset) == 0 {
			continue
		}
		groups = append(groups, i)
	}
	for g := 0; g+1 < len(groups); g++ {
		a, b := events[groups[g]], events[groups[g+1]]
		end := len(events)
		if g+2 < len(groups) {
			end = groups[g+2]
		}
		span := events[groups[g]:end] // a's chord, b's graces and b's chord
		if a.Bar != b.Bar || a.Bar < 0 || a.Bar >= len(bars) {
			continue
		}
		inBar := a.Onset.Sub(bars[a.Bar].Start)
		if inBar.Div(quarter).Den != 1 || b.Onset.Cmp(a.Onset.Add(a.Duration)) != 0 ||
			a.Duration.Add(b.Duration).Cmp(quarter) != 0 || a.Plain.Cmp(unit) != 0 || b.Plain.Cmp(unit) != 0 {
			continue
		}
		if !sameDurations(span, a.Onset, a.Duration) || !sameDurations(span, b.Onset, b.Duration) {
			continue // a chord whose notes differ in length
		}
		if slices.Contains(a.Decorations, "staccato") != slices.Contains(b.Decorations, "staccato") {
			continue // abc2midi halves a staccato note before it pairs: .BF stays even
		}
		ra, rb := int64(2), int64(1)
		if k := sort.Search(len(rs), func(k int) bool { return rs[k].offset > a.Pos.Offset }) - 1; k >= 0 {
			ra, rb = rs[k].a, rs[k].b
		}
		long, short := quarter.Mul(abc.R(ra, ra+rb)), quarter.Mul(abc.R(rb, ra+rb))
		oldB, newB := b.Onset, a.Onset.Add(long)
		for i := range span {
			switch {
			case span[i].Onset.Cmp(a.Onset) == 0 && !span[i].Grace:
				span[i].Duration = long
			case span[i].Onset.Cmp(oldB) == 0:
				span[i].Onset = newB
				if !span[i].Grace {
					span[i].Duration = short
				}
			}
		}
		g++ // the pair is done
	}
}

func sameDurations(events []abc.Event, onset, d abc.Rat) bool {
	for _, e := range events {
		if !e.Grace && e.Onset.Cmp(onset) == 0 && e.Duration.Cmp(d) != 0 {
			return false
		}
	}
	return true
}

// tempoMicros returns microseconds per quarter note for a Q: field (nil or without a bpm:
// 120 quarter notes a minute).
func tempoMicros(q *abc.Tempo) uint32 {
	if q == nil || q.BPM <= 0 {
		return midi.DefaultMicrosPerQuarter
	}
	beat := abc.R(1, 4) // a bare Q:120 counts quarter notes
	if len(q.Beats) > 0 {
		beat = abc.Rat{Num: 0, Den: 1}
		for _, b := range q.Beats {
			beat = beat.Add(b)
		}
	}
	if beat.IsZero() {
		return midi.DefaultMicrosPerQuarter
	}
	return microsFromQPM(float64(q.BPM) * beat.Float64() * 4)
}

func microsFromQPM(qpm float64) uint32 {
	us := math.Round(60e6 / qpm)
	return uint32(max(1, min(us, 0xFFFFFF)))
}

// timeSignature returns the meta event for m, unless m is free or its denominator is not a
// power of two.
func timeSignature(tick int64, m abc.Meter) (midi.Event, bool) {
	num := 0
	for _, n := range m.Num {
		num += n
	}
	if num <= 0 || num > 255 || m.Den <= 0 || m.Den > 128 || m.Den&(m.Den-1) != 0 {
		return midi.Event{}, false
	}
	// MIDI clocks per metronome click: a dotted quarter in compound meters, else one beat.
	clocks := 96 / m.Den
	if m.Den >= 8 && num > 3 && num%3 == 0 {
		clocks *= 3
	}
	return midi.TimeSignature(tick, uint8(num), uint8(m.Den), uint8(max(1, min(clocks, 255))), 8), true
}

func keySignature(tick int64, k abc.Key) midi.Event {
	f := max(-7, min(7, k.Fifths()))
	return midi.KeySignature(tick, int8(f), k.Mode == abc.Minor && !k.None && k.Tonic != 0)
}

// order of simultaneous events: meta first, then note-offs, then the rest.
func rank(e midi.Event) int {
	switch {
	case e.Kind == midi.KindMeta:
		return 0
	case e.Kind == midi.KindNoteOff:
		return 1
	}
	return 2
}

func finish(evs []midi.Event) midi.Track {
	var end int64
	for _, e := range evs {
		end = max(end, e.Tick)
	}
	return finishAt(evs, end)
}

func finishAt(evs []midi.Event, end int64) midi.Track {
	sort.SliceStable(evs, func(i, j int) bool {
		if evs[i].Tick != evs[j].Tick {
			return evs[i].Tick < evs[j].Tick
		}
		return rank(evs[i]) < rank(evs[j])
	})
	for _, e := range evs {
		end = max(end, e.Tick)
	}
	return midi.Track{Events: append(evs, midi.EndOfTrack(end))}
}

// graceChords maps the source offset of each note of a chord inside grace notes ({[Ge]}) to
// that of the chord's first note.
func graceChords(v *abc.Voice) map[int]int {
	m := map[int]int{}
	if v == nil {
		return m
	}
	for _, el := range v.Elements {
		g, ok := el.(*abc.GraceGroup)
		if !ok {
			continue
		}
		for _, e := range g.Notes {
			if c, ok := e.(*abc.Chord); ok && len(c.Notes) > 0 {
				for _, n := range c.Notes {
					m[n.Pos.Offset] = c.Notes[0].Pos.Offset
				}
			}
		}
	}
	return m
}
