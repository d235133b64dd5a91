package abcmidi

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// markers lists a file's marker meta events as text@tick.
func markers(f *midi.File) []string {
	var out []string
	for _, tr := range f.Tracks {
		for _, e := range tr.Events {
			if s, ok := e.Text(); ok && e.IsMeta(midi.MetaMarker) {
				out = append(out, fmt.Sprintf("%s@%d", s, e.Tick))
			}
		}
	}
	return out
}

// The directions are written as markers where the ABC puts them, and the notes are those of the
// same tune without them: abc2midi plays no D.C., and neither does the converter.
func TestRoadMapMarkers(t *testing.T) {
	const plain = "X:1\nL:1/4\nM:2/4\nK:C\nCD|EF|GA|Bc|]\n"
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"decorations", "X:1\nL:1/4\nM:2/4\nK:C\n!segno!CD|EF!fine!|GA|B!D.S.!c|]\n",
			[]string{"Segno@0", "Fine@1920", "D.S.@3360"}},
		{"annotations at bar ends", "X:1\nL:1/4\nM:2/4\nK:C\nCD|EF\"_Fine\"|GA|Bc\"_D.C.\"|]\n",
			[]string{"Fine@1920", "D.C.@3840"}},
		{"chord-symbol spellings", "X:1\nL:1/4\nM:2/4\nK:C\n\"Segno\"CD|EF|\"   Fine\"GA|Bc\"D.C. al Fine\"|]\n",
			[]string{"Segno@0", "Fine@1920", "D.C. al Fine@3840"}},
		{"coda", "X:1\nL:1/4\nM:2/4\nK:C\nCD|EF!dacoda!|G!coda!A|Bc\"^D.S. al Coda\"|]\n",
			[]string{"To Coda@1920", "Coda@2400", "D.S. al Coda@3840"}},
		{"no directions", plain, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := convert(t, tc.src, Options{})
			if got := markers(f); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("markers\n got %v\nwant %v", got, tc.want)
			}
			if got, want := notes(f), notes(convert(t, plain, Options{})); !reflect.DeepEqual(got, want) {
				t.Errorf("notes changed by the directions\n got %v\nwant %v", got, want)
			}
		})
	}
}

// A repeated bar writes its directions each time it is played; a chord symbol that names a chord
// is no direction.
func TestRoadMapRepeatsAndChords(t *testing.T) {
	f := convert(t, "X:1\nL:1/4\nM:2/4\nK:C\n|:\"D\"CD|\"Dm\"EF\"_Fine\":|\"Ds\"GA|Bc!D.C.!|]\n", Options{})
	want := []string{"Fine@1920", "Fine@3840", "D.C.@5760"}
	if got := markers(f); !reflect.DeepEqual(got, want) {
		t.Errorf("markers\n got %v\nwant %v", got, want)
	}
}

// In a tune that goes back, a fermata on a section's last note is its Fine, and a second segno
// after the last note sends the player back as a D.S. does (the older notation of Ryan's Mammoth
// Collection); elsewhere a fermata is no direction.
func TestRoadMapOlderSigns(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"segno at both ends", "X:1\nL:1/4\nM:2/4\nK:C\nC\"^Segno\"|DE|FG H:|AB|cd \"^Segno\"|]\n",
			// Played twice to the :|, from the start, as abc2midi plays it; the fermata doubles its note.
			[]string{"Segno@480", "Fine@2400", "Segno@2880", "Fine@4800", "D.S.@6720"}},
		{"fermata before the last note", "X:1\nL:1/4\nM:2/4\nK:C\nCD|EHF||GA|Bc!D.C.!|]\n",
			[]string{"Fine@2400", "D.C.@4320"}},
		{"fermata inside a section", "X:1\nL:1/4\nM:2/4\nK:C\nCD|HEF|GA|Bc!D.C.!|]\n",
			[]string{"D.C.@4320"}},
		// A return without a Fine ends at the first section's end after where it goes.
		{"D.C. without a Fine", "X:1\nL:1/4\nM:2/4\nK:C\nCD|EF||GA|Bc\"_D.C.\"|]\n",
			[]string{"Fine@1920", "D.C.@3840"}},
		{"D.S. without a Fine", "X:1\nL:1/4\nM:2/4\nK:C\nCD|EF||!segno!GA|Bc||de|fg!D.S.!|]\n",
			[]string{"Segno@1920", "Fine@3840", "D.S.@5760"}},
		// The pickup's own section line is not the first section's end (Ryan's "segno"|] before
		// the first full bar), and a segno before a repeat sign, in a bar of no notes, is where
		// the D.S. goes.
		{"a pickup ending in a section line", "X:1\nL:1/4\nM:2/4\nK:C\nB\"segno\"|]CD|EF||GA|Bc\"_D.S.\"|]\n",
			[]string{"Segno@480", "Fine@2400", "D.S.@4320"}},
		{"a segno before the repeat sign", "X:1\nL:1/4\nM:2/4\nK:C\n\"^Segno\"|:CD|EF:|GA|Bc\"^Segno\"|]\n",
			[]string{"Fine@1920", "D.S.@5760"}}, // the first time the section ends
		{"D.S. al Coda without a Fine", "X:1\nL:1/4\nM:2/4\nK:C\nCD|EF||!segno!GA|Bc||de|fg!D.S.alcoda!|]\n",
			[]string{"Segno@1920", "D.S. al Coda@5760"}},
		{"no return", "X:1\nL:1/4\nM:2/4\nK:C\nCD|EHF||GA|Bc|]\n", nil},
		{"one segno", "X:1\nL:1/4\nM:2/4\nK:C\nCD|EF||GA|Bc\"^Segno\"|]\n", []string{"Segno@3840"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := markers(convert(t, tc.src, Options{})); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("markers\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestRoadMark(t *testing.T) {
	for text, want := range map[string]string{
		"D.C.": MarkDC, "D.C": MarkDC, "d.c. al fine": MarkDC + alFine, "Da Capo": MarkDC, "dacapo": MarkDC,
		"D.C.alfine": MarkDC + alFine, "D.S.alcoda": MarkDS + alCoda, "D. S.": MarkDS, "Dal Segno al Coda": MarkDS + alCoda,
		"fine": MarkFine, "    Fine": MarkFine, "Segno": MarkSegno, "SEGNO": MarkSegno, "coda": MarkCoda, "dacoda": MarkToCoda,
		"D": "", "Ds": "", "Dsus4": "", "Dm7": "", "fine tune": "", "A fine long annotation about the D.C. of this tune": "", "": "",
	} {
		if got := roadMark(text); got != want {
			t.Errorf("roadMark(%q) = %q, want %q", text, got, want)
		}
	}
}
