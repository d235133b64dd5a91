package abcmidi

import (
	"slices"
	"sort"

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
// openChord finds such a chord in a voice and plays it so. Where the chord closes and music
// follows, abc2midi plays on: the time after the ] goes on from the chord's end (modulo 128
// again); the notes the chord took keep its length when played again (abc2midi writes the
// chord's length over theirs); a ] met again outside the chord waits the chord's time; a chord
// closing it ([e2G2]) plays its notes one after the other there; passing the letter again opens
// a new chord. Not copied in tunes with voices, parts or an accompaniment, nor where a chord
// left notes in the queue when it closed. The letter's effect on the notes of its chord was
// measured for each: H doubles them and the chord's time, a staccato dot halves them but not
// the time, T and ~ halve both, the others (L M O P S u v) change neither; where music follows
// the ], only H and the letters that change nothing were measured, and only they are copied.
type openChord struct {
	idx    int     // element index of the decoration
	offset int     // its source offset
	first  abc.Rat // length of the first note written after the letter: the chord's time
	// what the letter does to a note written after it (noteBy) and to the chord's time (timeBy)
	noteBy, timeBy abc.Rat
	closer         int // element index of what closes it, -1 for nothing
	closerEnd      int // source offset just after the closer
	chordCloser    *abc.Chord
}

// playedBar is one bar as the voice played it: its notes vt.notes[from:to], its nominal end.
type playedBar struct {
	b, from, to int
	end         int64
	vel         uint8 // the first-beat velocity there
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
	oc.closer = -1
	for i := oc.idx + 2; i < len(els) && oc.closer < 0; i++ {
		switch e := els[i].(type) {
		case *abc.Chord:
			oc.closer, oc.closerEnd, oc.chordCloser = i, e.End, e
		case *abc.GraceGroup:
			for _, g := range e.Notes {
				if _, ok := g.(*abc.Chord); ok {
					return nil // a grace chord closing it: not followed
				}
			}
		case *abc.BarLine:
			if len(e.Text) >= 3 && e.Text[0] == '[' && e.Text[len(e.Text)-1] == ']' {
				oc.closer, oc.closerEnd = i, e.End
			}
		}
	}
	if oc.closer >= 0 && oc.noteBy.Cmp(abc.R(1, 2)) <= 0 {
		// music may follow the ]: only H and the letters that change nothing are followed there
		for _, e := range els[oc.closer+1:] {
			switch e.(type) {
			case *abc.Note, *abc.Rest, *abc.Chord, *abc.GraceGroup:
				return nil
			}
		}
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

// holds reports whether bar holds the letter.
func (oc *openChord) holds(bar abc.Bar) bool {
	return oc.idx >= bar.First && oc.idx < bar.Last
}

// inRegion reports whether a note written at src comes between the letter and the ].
func (oc *openChord) inRegion(src int) bool {
	return src > oc.offset && (oc.closer < 0 || src < oc.closerEnd)
}

// replay plays the voice's notes through abc2midi's open chord: played are its bars in playing
// order, slots the time each note takes (by source offset, before staccato and trim). It
// returns the notes, the tick where abc2midi's track ends and whether the chord was followed.
func (oc *openChord) replay(notes []playedNote, played []playedBar, bars []abc.Bar, slots map[int]int64, stagger int64) ([]playedNote, int64, bool) {
	var out []playedNote
	var shift int64 // our tick of a note played outside the chord: its own tick plus shift
	// in the chord: its start (our ticks; abc2midi's notes start one later) and its notes
	inChord := false
	var start int64
	var vel uint8
	var stacked []playedNote
	// after the chord closed, until the next note: abc2midi's last event (our ticks), the
	// delta time it still owes and the nominal tick where the chord closed
	pending := false
	var pendAt, pendDelta, pendTick int64
	closeLen := floorTicks(oc.first)
	var lastEnd int64 // the nominal end of the music
	// abc2midi gives the notes of a chord its first note's length by writing it over theirs,
	// so a note played in the chord keeps that length when played again after it closed.
	taken := map[int]int64{}
	closeChord := func(tick int64) bool {
		stacked = plainInChord(stacked)
		l := oc.chordLength(stacked)
		offs, pos, delta, ok := abc2midiChordClosed(len(stacked), l, closeLen, stagger)
		if !ok {
			return false
		}
		for _, n := range stacked {
			taken[n.src] = l
		}
		for k := range stacked {
			n := stacked[k]
			n.on, n.vel = start+int64(k)*stagger, vel
			n.off = start + 1 + offs[k]
			if offs[k] < 0 {
				n.off = -1 // held to the end of the track
			}
			out = append(out, n)
		}
		stacked, inChord = nil, false
		pending, pendAt, pendDelta, pendTick = true, start+pos, delta, tick
		return true
	}
	for _, pb := range played {
		bar := bars[pb.b]
		closesHere := oc.closer >= 0 && oc.chordCloser == nil && bar.Last == oc.closer
		for i := pb.from; i < pb.to; i++ {
			n := notes[i]
			if inChord {
				stacked = append(stacked, n)
				if oc.chordCloser != nil && n.src >= oc.chordCloser.Pos.Offset && n.src < oc.closerEnd &&
					(i+1 == pb.to || notes[i+1].src >= oc.closerEnd || notes[i+1].src < oc.chordCloser.Pos.Offset) {
					nominalOn := n.on - int64(len(oc.chordCloser.Notes)-1)*stagger
					if !closeChord(nominalOn + floorTicks(oc.chordCloser.Duration)) {
						return notes, 0, false
					}
				}
				continue
			}
			if pending {
				shift = pendAt + wrapDelta(pendDelta+n.on-pendTick) - n.on
				pending = false
			}
			if oc.chordCloser != nil && n.src >= oc.chordCloser.Pos.Offset && n.src < oc.closerEnd {
				// outside the chord the notes of the chord that closes it play one after the
				// other, and then its ] waits the chord's time
				k := 0
				for k < len(oc.chordCloser.Notes)-1 && oc.chordCloser.Notes[k].Pos.Offset != n.src {
					k++
				}
				d := floorTicks(oc.chordCloser.Notes[k].Duration)
				if l, ok := taken[n.src]; ok {
					d = l
				}
				n.on += shift - int64(k)*stagger
				n.off = n.on + d
				shift += d
				if k == len(oc.chordCloser.Notes)-1 {
					shift += closeLen - floorTicks(oc.chordCloser.Duration)
				}
				out = append(out, n)
				continue
			}
			if l, ok := taken[n.src]; ok && !(i > pb.from && notes[i-1].src == n.src) {
				slot := slots[n.src]
				cut := max(slot-(n.off-n.on), 0) // what staccato or trim took off
				n.on += shift
				n.off = n.on + max(l-cut, 1)
				shift += l - slot
				out = append(out, n)
				continue
			}
			n.on += shift
			n.off += shift
			out = append(out, n)
		}
		if oc.holds(bar) && !inChord {
			if pending {
				return notes, 0, false
			}
			inChord, start, vel = true, pb.end+shift, pb.vel
		} else if closesHere {
			if inChord {
				if !closeChord(pb.end) {
					return notes, 0, false
				}
			} else if pending {
				pendDelta += closeLen
			} else {
				shift += closeLen // a ] outside the chord waits the chord's time
			}
		}
		lastEnd = pb.end
	}
	var end int64 // abc2midi's end of track (our ticks, as its note-offs)
	switch {
	case inChord:
		stacked = plainInChord(stacked)
		offs, rel := abc2midiChordOpen(len(stacked), oc.chordLength(stacked), stagger)
		for k := range stacked {
			n := stacked[k]
			n.on, n.vel = start+int64(k)*stagger, vel
			n.off = start + 1 + offs[k]
			if offs[k] < 0 {
				n.off = -1
			}
			out = append(out, n)
		}
		end = start + 1 + rel
	case pending:
		end = pendAt + 1 + wrapDelta(pendDelta+lastEnd-pendTick+25)
	default:
		end = lastEnd + shift + 26 // abc2midi's note-off is one tick late, then 25 ticks
	}
	pairAsWritten(out, end)
	for i := range out {
		if out[i].off <= out[i].on {
			out[i].off = out[i].on + 1
		}
	}
	return out, end, true
}

// pairAsWritten gives the notes abc2midi started and never ended (off -1) the ends a reader of
// its file gives them: a note-off ends the earliest note of its pitch still sounding, so a note
// held by the chord takes the note-off of the next note of its pitch, that note the one after,
// and the last of them sounds to the end of the track. Our notes, each with its own note-off,
// then read back the same.
func pairAsWritten(ns []playedNote, end int64) {
	held := false
	for _, n := range ns {
		held = held || n.off < 0
	}
	if !held {
		return
	}
	type ev struct {
		at   int64
		off  bool
		note int
	}
	evs := make([]ev, 0, 2*len(ns))
	for i, n := range ns {
		evs = append(evs, ev{n.on + 1, false, i}) // abc2midi starts its notes a tick after ours
		if n.off >= 0 {
			evs = append(evs, ev{n.off, true, i})
		}
	}
	sort.SliceStable(evs, func(a, b int) bool {
		if evs[a].at != evs[b].at {
			return evs[a].at < evs[b].at
		}
		return evs[a].off && !evs[b].off
	})
	open := map[uint8][]int{}
	for _, e := range evs {
		p := ns[e.note].pitch
		if !e.off {
			open[p] = append(open[p], e.note)
			continue
		}
		if q := open[p]; len(q) > 0 {
			ns[q[0]].off = e.at
			open[p] = q[1:]
		}
	}
	for _, q := range open {
		for _, i := range q {
			ns[i].off = end
		}
	}
}

// chordLength is the length abc2midi gives every note of the chord: its first note's.
func (oc *openChord) chordLength(stacked []playedNote) int64 {
	if len(stacked) == 0 {
		return 0
	}
	l := stacked[0].off - stacked[0].on
	if oc.inRegion(stacked[0].src) { // written after the letter, in its chord
		l = floorTicks(abc.Rat{Num: l, Den: ticksPerWhole}.Mul(oc.noteBy))
	}
	return l
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

// chordQueue follows abc2midi's note queue through a chord of notes started stagger ticks
// apart, all lasting length ticks: the times of the events it writes (from the first note-on),
// the delta time it owes, the notes still waiting for their note-off.
type chordQueue struct {
	q     []queued // in order of time, each delay after the one before
	offs  []int64  // each note's note-off, -1 while it has none
	pos   int64    // the time of the last event written
	delta int64    // the delta time owed to the next event
	total int64    // the chord's notes' delays so far (abc2midi's totalnotedelay)
	step0 int64    // the chord's stagger
}

type queued struct {
	delay int64
	note  int
}

// newChordQueue writes the note-ons of a chord of n notes.
func newChordQueue(n int, length, stagger int64) *chordQueue {
	c := &chordQueue{offs: make([]int64, n), step0: stagger}
	for k := range n {
		c.offs[k] = -1
		if k > 0 {
			c.delta += stagger
			c.total += stagger
		}
		c.pos += wrapDelta(c.delta) // note-on
		c.delta = 0
		if len(c.q) == abc2midiQueue {
			continue // "Too many notes in chord": no note-off
		}
		wait := length - c.total - 1
		at := 0
		for at < len(c.q) && c.q[at].delay <= wait {
			wait -= c.q[at].delay
			at++
		}
		if at < len(c.q) {
			c.q[at].delay = max(c.q[at].delay-wait-stagger, 0)
		}
		c.q = append(c.q[:at], append([]queued{{wait, k}}, c.q[at:]...)...)
	}
	return c
}

// step lets t ticks pass, writing the note-offs due (abc2midi's timestep).
func (c *chordQueue) step(t int64) {
	for len(c.q) > 0 && c.q[0].delay < t {
		h := c.q[0].delay
		c.delta += h
		t -= h
		c.pos += wrapDelta(c.delta) // note-off
		c.offs[c.q[0].note] = c.pos
		c.delta = 0
		c.q = c.q[1:]
	}
	if len(c.q) > 0 {
		c.q[0].delay -= t
	}
	c.delta += t - c.total
}

// abc2midiChordClosed follows a chord of n notes that a ] of closeLen ticks closes. It returns
// each note's note-off from the first note-on (-1 for a note the full queue dropped), the time
// of the last event written and the delta time owed to the next; not ok when notes are left
// waiting, which this model does not follow further.
func abc2midiChordClosed(n int, length, closeLen, stagger int64) (offs []int64, pos, delta int64, ok bool) {
	c := newChordQueue(n, length, stagger)
	c.step(closeLen)
	return c.offs, c.pos, c.delta, len(c.q) == 0
}

// abc2midiChordOpen follows a chord of n notes left open at the end of the music: each note's
// note-off from the first note-on (-1 for a note the full queue dropped) and the time of the end
// of the track.
func abc2midiChordOpen(n int, length, stagger int64) (offs []int64, end int64) {
	c := newChordQueue(n, length, stagger)
	if len(c.q) > 0 {
		c.step(0)
	}
	for len(c.q) > 0 {
		c.step(c.q[0].delay + 1)
	}
	c.step(25) // abc2midi's pause at the end of a track
	return c.offs, c.pos + wrapDelta(c.delta)
}

// wrapDelta is what a delta time abc2midi computes comes out of its file as: a negative one as
// its remainder modulo 128 (measured: -11 reads 117, -251 reads 5, -1294 reads 114).
func wrapDelta(d int64) int64 {
	if d >= 0 {
		return d
	}
	return (d%128 + 128) % 128
}
