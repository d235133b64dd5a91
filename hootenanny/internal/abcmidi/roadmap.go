package abcmidi

import (
	"regexp"
	"strings"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// The road map: the directions that send a player back or on (D.C., D.S., Fine, a segno, a
// coda) are written into the file as marker meta events (FF 06) at the ticks where the ABC
// puts them. abc2midi plays none of them (a tune with !fine! and !D.C.! plays its notes once,
// to the end), and neither does the converter, so the notes are unchanged; the markers tell a
// reader of the file where the music ends, which the last note does not (a D.C. al Fine tune
// ends at its Fine).

// maxRoadMarkText bounds the text read as a direction: longer annotations are prose.
const maxRoadMarkText = 40

// The marker texts the converter writes.
const (
	MarkFine   = "Fine"
	MarkSegno  = "Segno"
	MarkCoda   = "Coda"
	MarkToCoda = "To Coda"
	MarkDC     = "D.C."
	MarkDS     = "D.S."
	alFine     = " al Fine"
	alCoda     = " al Coda"
	// maxRoadMarks bounds the markers of a voice: a road map has a few, played again with
	// every repeat of its bars.
	maxRoadMarks = 256
)

var (
	dcText    = regexp.MustCompile(`(?i)^(d\.\s?c\b|da\s?capo\b)`)
	dsText    = regexp.MustCompile(`(?i)^(d\.\s?s\b|dal\s?segno\b)`)
	fineText  = regexp.MustCompile(`(?i)(\b|al)fine\b`)
	codaText  = regexp.MustCompile(`(?i)(\b|al|da)coda\b`)
	segnoText = regexp.MustCompile(`(?i)^segno$`)
)

// roadMark returns the marker text for a decoration's name or an annotation's (or a chord
// symbol's) text, or "" when it is no direction: D.C. or D.S. (with " al Fine" or " al Coda"
// when it says so), Fine, Segno, Coda, or To Coda (!dacoda!).
func roadMark(text string) string {
	s := strings.TrimSpace(text)
	if s == "" || len(s) > maxRoadMarkText {
		return ""
	}
	back := ""
	switch {
	case dcText.MatchString(s):
		back = MarkDC
	case dsText.MatchString(s):
		back = MarkDS
	}
	if back != "" {
		switch {
		case fineText.MatchString(s[2:]):
			back += alFine
		case codaText.MatchString(s[2:]):
			back += alCoda
		}
		return back
	}
	switch l := strings.ToLower(s); {
	case l == "fine":
		return MarkFine
	case segnoText.MatchString(s):
		return MarkSegno
	case l == "coda":
		return MarkCoda
	case l == "dacoda" || l == "to coda":
		return MarkToCoda
	}
	return ""
}

// markAt is a marker at a tick.
type markAt struct {
	tick int64
	text string
}

// roadMap is what a voice's notation says of its road before it is played.
type roadMap struct {
	v *abc.Voice
	// goesBack says the voice sends the player back: a D.C. or D.S., or a second segno (in the
	// older notation a sign at both ends of the passage to repeat, as Ryan's Mammoth Collection
	// writes it).
	goesBack bool
	// lastSegno is the element index of the second segno or later, or -1.
	lastSegno int
	// toSegno says the return is to a segno (a D.S., or a second segno), not to the start.
	toSegno bool
	// firstSegno is the element index of the first segno, or -1.
	firstSegno int
	st         *roadState
}

// roadState is what the voice's road map has met so far as it is played.
type roadState struct {
	// target is the tick where the return goes (the start, or the first segno), once played;
	// -1 before.
	target int64
	// firstEnd is the end of the first section played from the target, or -1: where a return
	// without a Fine ends (see finish).
	firstEnd int64
}

func newRoadMap(v *abc.Voice) roadMap {
	rm := roadMap{v: v, lastSegno: -1, firstSegno: -1,
		st: &roadState{target: -1, firstEnd: -1}}
	if v == nil {
		return rm
	}
	segnos := 0
	for i, el := range v.Elements {
		switch roadMark(directionText(el)) {
		case MarkSegno:
			segnos++
			if segnos == 1 {
				rm.firstSegno = i
			}
			if segnos >= 2 {
				rm.goesBack, rm.toSegno, rm.lastSegno = true, true, i
			}
		case MarkDS, MarkDS + alFine, MarkDS + alCoda:
			rm.goesBack, rm.toSegno = true, true
		case MarkDC, MarkDC + alFine, MarkDC + alCoda:
			rm.goesBack = true
		}
	}
	return rm
}

// directionText is the text of an element that may be a direction: a decoration's name, an
// annotation's or a chord symbol's text.
func directionText(el abc.Element) string {
	switch el := el.(type) {
	case *abc.Decoration:
		return el.Name
	case *abc.Annotation:
		return el.Text
	case *abc.ChordSymbol:
		return el.Text
	}
	return ""
}

// marks appends to out the directions written in bar (the elements [First, Last) of the voice),
// each at the onset of the first note written after it in the bar (events, the bar's notes, the
// bar played from cursor), or at the bar's end when none follows: "Fine":| marks the end of the
// bar, "^Segno" the note it stands over. In a voice that goes back, a fermata on a section's
// last note, or after it, is its Fine (the older notation's end sign), and a second segno after
// the last note is a D.S. out holds at most maxRoadMarks.
func (rm roadMap) marks(out []markAt, bar abc.Bar, events []abc.Event, cursor abc.Rat) []markAt {
	if rm.v == nil {
		return out
	}
	st := rm.st
	start := floorTicks(cursor)
	if rm.goesBack && st.target < 0 && (!rm.toSegno || (rm.firstSegno >= 0 && rm.firstSegno < bar.First)) {
		// The start, or a segno written before this bar (in a bar with no notes, unplayed).
		st.target = start
	}
	for i := max(bar.First, 0); i < min(bar.Last, len(rm.v.Elements)); i++ {
		el := rm.v.Elements[i]
		m := roadMark(directionText(el))
		if d, ok := el.(*abc.Decoration); ok && d.Name == "fermata" && rm.goesBack && bar.SectionEnd {
			m = MarkFine
		}
		if m == "" {
			continue
		}
		at := el.Position().Offset
		onset, next, after := bar.End, -1, 0 // after counts the onsets of the notes after it
		var lastAfter abc.Rat
		for _, e := range events {
			if e.Pos.Offset > at {
				if after == 0 || e.Onset.Cmp(lastAfter) != 0 {
					after++
					lastAfter = e.Onset
				}
				if next < 0 || e.Pos.Offset < next {
					onset, next = e.Onset, e.Pos.Offset
				}
			}
		}
		switch {
		case m == MarkFine && rm.goesBack && roadMark(directionText(el)) == "":
			// A fermata: the end only on the section's last note (after at most that note).
			if after > 1 {
				continue
			}
			onset = bar.End
		case m == MarkSegno && i == rm.lastSegno && after == 0:
			m = MarkDS
		}
		tick := floorTicks(cursor.Add(onset.Sub(bar.Start)))
		if len(out) < maxRoadMarks {
			out = append(out, markAt{tick: tick, text: m})
		}
		if m == MarkSegno && rm.goesBack && st.target < 0 {
			st.target = tick
		}
	}
	// A section that ends after the target, with music between: not the pickup before it.
	if st.target >= 0 && bar.SectionEnd && st.firstEnd < 0 && start > st.target {
		st.firstEnd = floorTicks(cursor.Add(bar.End.Sub(bar.Start)))
	}
	return out
}

// finish returns the voice's marks with, for a return that no Fine ends (a D.C. or D.S. and no
// Fine, written or a fermata's), a Fine at the end of the first section played from where the
// return goes, the first double bar or repeat sign after the start or the segno: dance
// collections print a D.C. after the second strain and no Fine, the tune ending with the
// first. A return placed there itself (a tune of one section) gets none; neither does a return
// al Coda, which a reader plays to the end.
func (rm roadMap) finish(out []markAt) []markAt {
	end := rm.st.firstEnd
	if !rm.goesBack || end < 0 || len(out) >= maxRoadMarks {
		return out
	}
	for _, m := range out {
		back := strings.HasPrefix(m.text, MarkDC) || strings.HasPrefix(m.text, MarkDS)
		if m.text == MarkFine || strings.HasSuffix(m.text, alCoda) || (back && m.tick <= end) {
			return out
		}
	}
	return append(out, markAt{tick: end, text: MarkFine})
}

// markerEvents returns the marks as marker meta events.
func markerEvents(marks []markAt) []midi.Event {
	evs := make([]midi.Event, 0, len(marks))
	for _, m := range marks {
		evs = append(evs, midi.TextEvent(m.tick, midi.MetaMarker, m.text))
	}
	return evs
}
