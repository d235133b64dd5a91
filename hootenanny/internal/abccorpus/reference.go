//go:build abc2midi

package abccorpus

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// ABC2MIDIArgs are the options passed to abc2midi after the file name and
// reference number for its default playing, guitar-chord accompaniment
// included:
//
//   - -NCOM leaves out the comment text events, which name the abc2midi
//     version, so the output depends on the tune alone.
//   - -silent drops warnings about bar lengths and the like from stderr; a
//     failed conversion still shows as a missing output file or exit status.
//
// Grace notes, dynamics, fermatas and broken rhythms keep abc2midi's
// defaults (3:1 broken rhythm) so the reference renders all of the notation.
// abc2midi has no random element unless %%MIDI randomize is used, which the
// corpus does not, so its output is deterministic.
var ABC2MIDIArgs = []string{"-NCOM", "-silent"}

// ABC2MIDIMelodyArgs add -NGUI, which leaves out the accompaniment that
// chord symbols ("Am" above notes) give: the written notes alone, compared
// with abcmidi's Options.MelodyOnly.
var ABC2MIDIMelodyArgs = []string{"-NGUI", "-NCOM", "-silent"}

// ABC2MIDI is the command run; tests may point it elsewhere.
var ABC2MIDI = "abc2midi"

// RunABC2MIDI converts tune ref of the ABC file abcPath to the MIDI file
// outPath with abc2midi and the given options (ABC2MIDIArgs when nil).
func RunABC2MIDI(ctx context.Context, abcPath string, ref int, outPath string, opts []string) error {
	if opts == nil {
		opts = ABC2MIDIArgs
	}
	args := append([]string{abcPath, strconv.Itoa(ref), "-o", outPath}, opts...)
	cmd := exec.CommandContext(ctx, ABC2MIDI, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %v: %w: %s", ABC2MIDI, args, err, out.Bytes())
	}
	if _, err := os.Stat(outPath); err != nil {
		return fmt.Errorf("%s %v wrote no file: %s", ABC2MIDI, args, out.Bytes())
	}
	return nil
}

// Reference renders a corpus tune with abc2midi and ABC2MIDIArgs in dir and
// returns the decoded file and its bytes.
func Reference(ctx context.Context, dir string, t Tune) (*midi.File, []byte, error) {
	return ReferenceWith(ctx, dir, t, nil)
}

// ReferenceWith is Reference with other abc2midi options.
func ReferenceWith(ctx context.Context, dir string, t Tune, opts []string) (*midi.File, []byte, error) {
	src, err := Source(t.File)
	if err != nil {
		return nil, nil, err
	}
	abcPath := filepath.Join(dir, t.File)
	if err := os.WriteFile(abcPath, src, 0o644); err != nil {
		return nil, nil, err
	}
	outPath := filepath.Join(dir, fmt.Sprintf("%s.%d.%d.mid", t.File, t.Ref, len(opts)))
	if err := RunABC2MIDI(ctx, abcPath, t.Ref, outPath, opts); err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(outPath)
	if err != nil {
		return nil, nil, err
	}
	f, err := midi.Decode(data)
	if err != nil {
		return nil, data, fmt.Errorf("%s: %w", t.ID(), err)
	}
	return f, data, nil
}
