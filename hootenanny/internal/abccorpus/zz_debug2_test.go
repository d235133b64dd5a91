//go:build abc2midi

package abccorpus

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

func seqString(ns []midi.Note) string {
	if os.Getenv("DEBUG_TICKS") != "" {
		var b strings.Builder
		midi.SortNotes(ns)
		for _, n := range ns {
			fmt.Fprintf(&b, "%d@%d/%d ", n.Pitch, n.OnTick, n.DurTicks)
		}
		return b.String()
	}
	midi.SortNotes(ns)
	var b strings.Builder
	for _, n := range ns {
		if os.Getenv("DEBUG_NAMES") != "" {
			name := []string{"C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"}[n.Pitch%12]
			if n.Pitch >= 72 {
				name = strings.ToLower(name)
			}
			fmt.Fprintf(&b, "%s ", name)
			continue
		}
		fmt.Fprintf(&b, "%d@%d/%d ", n.Pitch, (n.OnTick+1)/60, (n.DurTicks+1)/60)
	}
	return b.String()
}

func TestZZMany(t *testing.T) {
	spec := os.Getenv("DEBUG_MANY")
	if spec == "" {
		t.Skip()
	}
	melody := os.Getenv("DEBUG_MELODY") != ""
	src, _ := os.ReadFile(spec)
	tunes, _ := SplitTunes(string(src))
	d := t.TempDir()
	for i, tu := range tunes {
		text := Renumbered([]string{tu})
		os.WriteFile(filepath.Join(d, "t.abc"), []byte(text), 0o644)
		args := ABC2MIDIArgs
		if melody {
			args = ABC2MIDIMelodyArgs
		}
		os.Remove(filepath.Join(d, "t.mid"))
		cmd := exec.Command(ABC2MIDI, append([]string{"t.abc", "1", "-o", "t.mid"}, args...)...)
		cmd.Dir = d
		out, _ := cmd.CombinedOutput()
		data, err := os.ReadFile(filepath.Join(d, "t.mid"))
		title := strings.Split(tu, "\n")[1]
		if err != nil {
			t.Logf("#%d %s: abc2midi refuses: %s", i+1, title, out)
			continue
		}
		ref, _ := midi.Decode(data)
		ours, err := devConvert(text, melody)
		if err != nil {
			t.Logf("#%d %s: ours fails: %v", i+1, title, err)
			for _, n := range midi.NoteEvents(ref) {
				t.Logf("   ref ch%d %d@%d/%d v%d", n.Channel, n.Pitch, n.OnTick, n.DurTicks, n.Velocity)
			}
			continue
		}
		r := Compare("x", SideOf(ref), SideOf(ours), ABC2MIDIOptions)
		ok := "ok  "
		if r.Agreement() < 1 {
			ok = "DIFF"
		}
		t.Logf("#%d %s %s %s", i+1, ok, title, strconv.FormatFloat(100*r.Agreement(), 'f', 1, 64))
		if os.Getenv("DEBUG_CH") != "" {
			for _, side := range []*midi.File{ref, ours} {
				per := map[int][]string{}
				for _, n := range midi.NoteEvents(side) {
					name := []string{"C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"}[n.Pitch%12]
					if n.Pitch >= 72 {
						name = strings.ToLower(name)
					}
					per[int(n.Channel)] = append(per[int(n.Channel)], fmt.Sprintf("%s%d", name, (n.OnTick+1)/960))
				}
				for ch := 0; ch < 16; ch++ {
					if len(per[ch]) > 0 {
						t.Logf("   ch%d: %d notes: %s", ch, len(per[ch]), strings.Join(per[ch], " "))
					}
				}
				t.Logf("   ----")
			}
		}
		if os.Getenv("DEBUG_ALL") != "" {
			t.Logf("   ref:  %s", seqString(midi.NoteEvents(ref)))
			t.Logf("   ours: %s", seqString(midi.NoteEvents(ours)))
		} else if r.Agreement() < 1 {
			a, b := strings.Fields(seqString(midi.NoteEvents(ref))), strings.Fields(seqString(midi.NoteEvents(ours)))
			k := 0
			for k < len(a) && k < len(b) && a[k] == b[k] {
				k++
			}
			t.Logf("   first difference at note %d of %d/%d", k, len(a), len(b))
			t.Logf("   ref:  %s", strings.Join(a[max(0, k-3):min(len(a), k+10)], " "))
			t.Logf("   ours: %s", strings.Join(b[max(0, k-3):min(len(b), k+10)], " "))
		}
	}
}
