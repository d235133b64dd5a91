//go:build abc2midi

package abccorpus

import (
	"bytes"
	"context"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/abcmidi"
)

// TestAgreement converts every corpus tune with abc2midi and with abcmidi.Convert and logs
// how far they agree note for note under ABC2MIDIOptions. It fails on errors and when fewer
// than MinNoteAgreement of the notes agree.
func TestAgreement(t *testing.T) {
	needABC2MIDI(t)
	tunes, err := Tunes()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	var rep Report
	kinds := map[DiffKind]int{}
	for _, tu := range tunes {
		ref, _, err := Reference(ctx, dir, tu)
		if err != nil {
			t.Errorf("%s: abc2midi: %v", tu.ID(), err)
			continue
		}
		book, _ := abc.Parse(tu.Text, abc.Options{})
		if len(book.Tunes) != 1 {
			t.Errorf("%s: parsed %d tunes, want 1", tu.ID(), len(book.Tunes))
			continue
		}
		opts := abcmidi.Options{Voices: abcmidi.MIDIDirectives(tu.Text, book.Tunes[0])}
		ours, err := abcmidi.Convert(book.Tunes[0], opts)
		if err != nil {
			t.Errorf("%s: convert: %v", tu.ID(), err)
			continue
		}
		r := Compare(tu.ID(), SideOf(ref), SideOf(ours), ABC2MIDIOptions)
		for _, d := range r.Diffs {
			kinds[d.Kind]++
		}
		rep.Results = append(rep.Results, r)
	}
	var buf bytes.Buffer
	maxDiffs := 5
	if n, err := strconv.Atoi(os.Getenv("AGREEMENT_DIFFS")); err == nil {
		maxDiffs = n // how many differences to print per tune
	}
	if err := rep.Write(&buf, maxDiffs); err != nil {
		t.Fatal(err)
	}
	t.Logf("abc2midi against abcmidi.Convert:\n%s", buf.String())
	var ks []string
	for k := range kinds {
		ks = append(ks, string(k))
	}
	sort.Slice(ks, func(i, j int) bool { return kinds[DiffKind(ks[i])] > kinds[DiffKind(ks[j])] })
	for _, k := range ks {
		t.Logf("differences of kind %s: %d", k, kinds[DiffKind(k)])
	}
	agree, tempo := rep.Overall()
	vagree, vn := rep.VelocityOverall()
	t.Logf("overall agreement %.1f%% of notes; velocity %.1f%% of %d paired notes; tempo agrees in %d of %d tunes",
		100*agree, 100*vagree, vn, tempo, len(rep.Results))
	// The bar the converter must clear (docs/abc2midi.md explains every difference left).
	if agree < MinNoteAgreement {
		t.Errorf("%.1f%% of notes agree with abc2midi, below the %.0f%% required", 100*agree, 100*MinNoteAgreement)
	}
}

// MinNoteAgreement is the share of corpus notes (pitch, onset, duration, channel) on which
// abcmidi.Convert must agree with abc2midi.
const MinNoteAgreement = 0.95
