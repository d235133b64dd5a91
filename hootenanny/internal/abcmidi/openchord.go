package abcmidi

import (
	"slices"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
)

// abc2midi reads a one-letter decoration written right before a bar line that begins with
// [ (H[|]:|, H[|]|], in Ryan's collection) as a decorated chord, H[, whose first "note" is the
// bar line: it says "Malformed note" and goes on with the chord open. Every note it plays
// from there on is a note of that chord, until a ] closes it, and since its player keeps the
// chord open across repeat signs, a repeat that goes back to before the H plays all the way
// round again as that one chord. Such a chord's notes start chordattack ticks apart (10 by
// default) at the first-beat velocity (the H[| bar line is passed inside the chord), all take
// the length of the first of them, and the time moves on only where the chord closes. abc2midi
// keeps the notes still to end in a queue of 50 places: later notes start and never end (the
// file ends with them held), and the time it then writes before a note-off or the end of the
// track can be negative, which comes out of its file as that number modulo 128.
//
// openChord finds such a chord in a voice and plays it so, where the chord, once open, runs
// to the end of the music: it is never closed, or closed after the last note with nothing but
// plain bar lines after it (H[|]:| ... "D.C."[|]|]). Where music follows the ] the chord is not
// copied (abc2midi then plays on at times this model does not follow), nor in tunes with
// voices or parts. The letter's effect on the notes of its chord was measured for each: H
// doubles them and the chord's time, a staccato dot halves them but not the time, T and ~
// halve both, the others (L M O P S u v) change neither.
type openChord struct {
	idx    int     // element index of the decoration
	offset int     // its source offset
	closed bool    // a ] closes the chord after the last note
	first  abc.Rat // length of the first note written after the letter: the chord's time
	// what the letter does to a note written after it (noteBy) and to the chord's time (timeBy)
	noteBy, timeBy abc.Rat
	// set while playing
	started bool
	from    int // index in the voice's played notes of the chord's first note
}

// abc2midiQueue is the number of notes abc2midi holds waiting for their note-off.
const abc2midiQueue = 50

// findOpenChord returns the open chord of voice id, or nil.
func findOpenChord(t *abc.Tune, id string, events []abc.Event) *openChord {
	if len(t.Voices) > 1 || t.Header.Parts != "" {
		return nil
	}
	v := t.Voice(id)
	if v == nil {
		return nil
	}
	els := v.Elements
	oc := (*openChord)(nil)
	for i := 0; i+1 < len(els) && oc == nil; i++ {
		d, ok := els[i].(*abc.Decoration)
		if !ok || !d.Short {
			continue
		}
		b, ok := els[i+1].(*abc.BarLine)
		if !ok || b.Pos.Offset != d.End || len(b.Text) < 2 || b.Text[0] != '[' || b.Text[1] != '|' {
			continue
		}
		oc = &openChord{idx: i, offset: d.Pos.Offset, noteBy: abc.R(1, 1), timeBy: abc.R(1, 1)}
		switch d.Name {
		case "fermata":
			oc.noteBy, oc.timeBy = abc.R(2, 1), abc.R(2, 1)
		case "staccato":
			oc.noteBy = abc.R(1, 2)
		case "trill", "roll":
			oc.noteBy, oc.timeBy = abc.R(1, 2), abc.R(1, 2)
		}
	}
	if oc == nil {
		return nil
	}
	// The ] that closes it: a chord's, or that of a [|] bar line after the one of H[|].
	closer := -1
	for i := oc.idx + 2; i < len(els) && closer < 0; i++ {
		switch e := els[i].(type) {
		case *abc.Chord:
			closer = i
		case *abc.GraceGroup:
			for _, g := range e.Notes {
				if _, ok := g.(*abc.Chord); ok {
					closer = i
				}
			}
		case *abc.BarLine:
			if len(e.Text) >= 3 && e.Text[0] == '[' && e.Text[len(e.Text)-1] == ']' {
				closer = i
			}
		}
	}
	if closer >= 0 {
		// Only a ] with no music and no repeat after it ends the chord at the end.
		for _, e := range els[closer+1:] {
			switch e := e.(type) {
			case *abc.Note, *abc.Rest, *abc.Chord, *abc.GraceGroup, *abc.Ending:
				return nil
			case *abc.BarLine:
				if e.RepeatEnd() || e.RepeatStart() {
					return nil
				}
			}
		}
		oc.closed = true
	}
	for _, e := range events {
		if e.Pos.Offset > oc.offset && !e.Grace {
			oc.first = e.Plain.Mul(oc.timeBy)
			if e.Roll || slices.Contains(e.Decorations, "trill") {
				oc.first = oc.first.Mul(abc.R(1, 2)) // a rolled or trilled note counts half in a chord
			}
			break
		}
	}
	if oc.first.IsZero() {
		return nil
	}
	return oc
}

// holds reports whether bar holds the chord's H.
func (oc *openChord) holds(bar abc.Bar) bool {
	return oc.idx >= bar.First && oc.idx < bar.Last
}

// play turns the notes played from oc.from on into the chord abc2midi plays, and returns them
// and the tick where abc2midi's track ends. stagger is the chordattack delay, vel the
// first-beat velocity.
func (oc *openChord) play(notes []playedNote, stagger int64, vel uint8) ([]playedNote, int64) {
	stacked := plainInChord(notes[oc.from:])
	notes = append(notes[:oc.from], stacked...)
	if len(stacked) == 0 {
		return notes, 0
	}
	s := stacked[0].on
	length := stacked[0].off - stacked[0].on
	if stacked[0].src > oc.offset { // written after the letter, in its chord
		length = floorTicks(abc.Rat{Num: length, Den: ticksPerWhole}.Mul(oc.noteBy))
	}
	var closeLen int64 = -1
	if oc.closed {
		closeLen = floorTicks(oc.first)
	}
	offs, end := abc2midiChordTimes(len(stacked), length, closeLen, stagger)
	for k := range stacked {
		n := &stacked[k]
		n.on = s + int64(k)*stagger
		n.vel = vel
		// abc2midi's times are measured from its first note-on, one tick after ours.
		if offs[k] >= 0 {
			n.off = s + 1 + offs[k]
		} else {
			n.off = s + 1 + end // never ended: held to the end of the track
		}
		if n.off <= n.on {
			n.off = n.on + 1
		}
	}
	return notes, s + 1 + end
}

// plainInChord plays rolls and trills as their note alone, as abc2midi does in a chord ("Rolls
// and trills not supported in chords"; grace notes stay). The notes of an ornament come one
// after the other from the same source offset: a roll starts on its note and goes up, a trill
// starts on the note above.
func plainInChord(ns []playedNote) []playedNote {
	out := ns[:0]
	for i := 0; i < len(ns); {
		j := i + 1
		for j < len(ns) && ns[j].src == ns[i].src && ns[j].on > ns[j-1].on {
			j++
		}
		n := ns[i]
		if j-i > 1 && ns[i+1].pitch < n.pitch {
			n.pitch = ns[i+1].pitch // a trill: its note is the second
		}
		n.off = ns[j-1].off
		if j-i > 1 {
			n.off = n.on + (n.off-n.on)/2 // and halves it, as T[| and ~[| do (measured)
		}
		out = append(out, n)
		i = j
	}
	return out
}

// abc2midiChordTimes follows abc2midi's note queue through a chord of n notes started
// stagger ticks apart, all lasting length ticks, that a ] of length closeLen closes (-1: never
// closed) at the end of the music. It returns for each note its note-off's time from the
// first note-on (-1 for a note the full queue dropped) and the time of the end of the track.
func abc2midiChordTimes(n int, length, closeLen, stagger int64) (offs []int64, end int64) {
	type item struct {
		delay int64
		note  int
	}
	var q []item // in order of time, each delay after the one before
	var pos, delta, total int64
	offs = make([]int64, n)
	for k := range n {
		offs[k] = -1
		if k > 0 {
			delta += stagger
			total += stagger
		}
		pos += wrapDelta(delta) // note-on
		delta = 0
		if len(q) == abc2midiQueue {
			continue // "Too many notes in chord": no note-off
		}
		wait := length - total - 1
		at := 0
		for at < len(q) && q[at].delay <= wait {
			wait -= q[at].delay
			at++
		}
		if at < len(q) {
			q[at].delay = max(q[at].delay-wait-stagger, 0)
		}
		q = append(q[:at], append([]item{{wait, k}}, q[at:]...)...)
	}
	step := func(t int64) {
		for len(q) > 0 && q[0].delay < t {
			h := q[0].delay
			delta += h
			t -= h
			pos += wrapDelta(delta) // note-off
			offs[q[0].note] = pos
			delta = 0
			q = q[1:]
		}
		if len(q) > 0 {
			q[0].delay -= t
		}
		delta += t - total
	}
	if closeLen >= 0 {
		step(closeLen)
		total = 0
	}
	if len(q) > 0 {
		step(0)
	}
	for len(q) > 0 {
		step(q[0].delay + 1)
	}
	step(25) // abc2midi's pause at the end of a track
	return offs, pos + wrapDelta(delta)
}

// wrapDelta is what a delta time abc2midi computes comes out of its file as: a negative one as
// its remainder modulo 128 (measured: -11 reads 117, -251 reads 5, -1294 reads 114).
func wrapDelta(d int64) int64 {
	if d >= 0 {
		return d
	}
	return (d%128 + 128) % 128
}
