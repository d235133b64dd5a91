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

// roadMarks appends to out the directions written in bar (the elements [First, Last) of voice
// v), each at the onset of the first note written after it in the bar (events, the bar's
// notes, the bar played from cursor), or at the bar's end when none follows: "Fine":| marks
// the end of the bar, "^Segno" the note it stands over. out holds at most maxRoadMarks.
func roadMarks(out []markAt, v *abc.Voice, bar abc.Bar, events []abc.Event, cursor abc.Rat) []markAt {
	if v == nil {
		return nil
	}
	for i := max(bar.First, 0); i < min(bar.Last, len(v.Elements)); i++ {
		var text string
		var at int
		switch el := v.Elements[i].(type) {
		case *abc.Decoration:
			text, at = el.Name, el.Pos.Offset
		case *abc.Annotation:
			text, at = el.Text, el.Pos.Offset
		case *abc.ChordSymbol:
			text, at = el.Text, el.Pos.Offset
		default:
			continue
		}
		m := roadMark(text)
		if m == "" {
			continue
		}
		onset, next := bar.End, -1
		for _, e := range events {
			if e.Pos.Offset > at && (next < 0 || e.Pos.Offset < next) {
				onset, next = e.Onset, e.Pos.Offset
			}
		}
		tick := floorTicks(cursor.Add(onset.Sub(bar.Start)))
		if len(out) < maxRoadMarks {
			out = append(out, markAt{tick: tick, text: m})
		}
	}
	return out
}

// markerEvents returns the marks as marker meta events.
func markerEvents(marks []markAt) []midi.Event {
	evs := make([]midi.Event, 0, len(marks))
	for _, m := range marks {
		evs = append(evs, midi.TextEvent(m.tick, midi.MetaMarker, m.text))
	}
	return evs
}
