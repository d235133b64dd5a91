package analysis

import (
	"regexp"
	"strings"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// A file's road map is its marker meta events (FF 06) that name the directions of the notation:
// Fine, D.C. and D.S. (al Fine, al Coda), Segno, Coda. A file plays its notes once, to the end,
// whatever the notation says; the road map says where the music ends when it does not end
// there: a D.C. or D.S. sends the player back, to stop at the Fine. The ending cues (Cues.Final
// and those that qualify it) read the music's end; nothing else does, and the markers say
// nothing of the key.

// Bounds on what is read as a road map: markers longer than maxMarkerText are prose, not
// directions, and only the first maxRoadMarkers directions are read.
const (
	maxMarkerText  = 64
	maxRoadMarkers = 256
)

var (
	markerBack = regexp.MustCompile(`(?i)^(d\.\s?[cs]\b|da\s?capo\b|dal\s?segno\b)`)
	markerCoda = regexp.MustCompile(`(?i)coda\b`)
)

// musicEnd is the tick where f's road map says the music ends, or 0 when it says nothing more
// than the file does: the last Fine before the first D.C. or D.S. that is not al Coda (a D.C.
// al Coda ends at the coda, played to the file's end). A Fine with no D.C. or D.S. after it,
// and a D.C. with no Fine before it, end where the file ends.
func musicEnd(f *midi.File) int64 {
	type mark struct {
		tick int64
		fine bool
	}
	var marks []mark
	for _, t := range f.Tracks {
		for _, e := range t.Events {
			if !e.IsMeta(midi.MetaMarker) || len(e.Data) == 0 || len(e.Data) > maxMarkerText {
				continue
			}
			if len(marks) == maxRoadMarkers {
				break
			}
			s, _ := e.Text()
			s = strings.TrimSpace(s)
			switch {
			case strings.EqualFold(s, "fine"):
				marks = append(marks, mark{e.Tick, true})
			case markerBack.MatchString(s) && !markerCoda.MatchString(s):
				marks = append(marks, mark{e.Tick, false})
			}
		}
	}
	back := int64(-1)
	for _, m := range marks {
		if !m.fine && (back < 0 || m.tick < back) {
			back = m.tick
		}
	}
	var end int64
	for _, m := range marks {
		if m.fine && m.tick < back && m.tick > end {
			end = m.tick
		}
	}
	return end
}
