//go:build abc2midi

package abccorpus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// MIDI2ABC is abcmidi's converter from MIDI back to ABC, the yardstick of midiabc.Convert
// (which the tests pass to RoundtripTune: this file does not import it, so that the packages
// midiabc imports may test against this one); tests may point it elsewhere.
var MIDI2ABC = "midi2abc"

// MIDI2ABCArgs are the options given to midi2abc after -f file: none, so it chooses the unit
// length from the file's time division as its usage text recommends, and looks for triplets
// and broken rhythms as it does by default.
var MIDI2ABCArgs = []string{}

// Bounds on one midi2abc run: its time, and the ABC it may write (the ABC parser's limit, as
// midiabc's) and the messages kept.
const (
	MIDI2ABCTimeout  = 30 * time.Second
	MaxMIDI2ABCBytes = 1 << 20
	maxMIDI2ABCLog   = 4 << 10
)

// RoundtripOptions compare the notes of the original MIDI with those of the MIDI made again
// from the ABC a converter wrote: pitch, onset and length, each within one of abc2midi's ticks
// (both files are abc2midi's, late by the same tick); the channel and velocity do not count.
var RoundtripOptions = Options{OnsetTolerance: 1.0 / 480, DurationTolerance: 1.0 / 480, PairWindow: 0.25, IgnoreChannel: true}

// RunMIDI2ABC converts the MIDI file midPath to ABC with midi2abc, in at most MIDI2ABCTimeout
// and MaxMIDI2ABCBytes of output (its file size bounded by prlimit where that is installed),
// and returns the ABC.
func RunMIDI2ABC(ctx context.Context, midPath string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, MIDI2ABCTimeout)
	defer cancel()
	dir := filepath.Dir(midPath)
	out := filepath.Join(dir, filepath.Base(midPath)+".midi2abc.abc")
	program := MIDI2ABC
	args := append([]string{"-f", filepath.Base(midPath), "-o", filepath.Base(out)}, MIDI2ABCArgs...)
	if pl, err := exec.LookPath("prlimit"); err == nil {
		args = append([]string{"--fsize=" + strconv.Itoa(MaxMIDI2ABCBytes+1), "--cpu=" + strconv.Itoa(int(MIDI2ABCTimeout/time.Second)+1), "--", program}, args...)
		program = pl
	}
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	log := &cappedLog{max: maxMIDI2ABCLog}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("%s took longer than %s", MIDI2ABC, MIDI2ABCTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %s", MIDI2ABC, err, bytes.TrimSpace(log.Bytes()))
	}
	f, err := os.Open(out)
	if err != nil {
		return nil, fmt.Errorf("%s wrote no ABC: %s", MIDI2ABC, bytes.TrimSpace(log.Bytes()))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxMIDI2ABCBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxMIDI2ABCBytes {
		return nil, fmt.Errorf("%s wrote more than %d bytes of ABC", MIDI2ABC, MaxMIDI2ABCBytes)
	}
	return b, nil
}

// cappedLog keeps the first max bytes written to it.
type cappedLog struct {
	bytes.Buffer
	max int
}

func (c *cappedLog) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// Roundtrip is one tune taken from ABC to MIDI with abc2midi, back to ABC by midi2abc and by
// a converter of ours (midiabc.Convert), and to MIDI again with abc2midi.
type Roundtrip struct {
	Name string
	// Notes counts the notes of the original MIDI.
	Notes int
	// Theirs and Ours compare the original notes (the reference) with the notes of the MIDI
	// made from midi2abc's ABC and from midiabc's; a converter that failed has all the notes
	// missing, and its error in TheirErr or OurErr.
	Theirs, Ours     Result
	TheirErr, OurErr string
	// OurABC is the ABC midiabc wrote.
	OurABC string
}

// Converter writes a MIDI file out as ABC.
type Converter func(*midi.File) (string, error)

// RoundtripTune takes tune ref of the ABC file abcPath (in its own directory dir) round the
// loop with abc2midi's options args, ours written by convert. err is set only when abc2midi
// cannot make the original.
func RoundtripTune(ctx context.Context, dir, name, abcPath string, ref int, args []string, convert Converter) (Roundtrip, error) {
	rt := Roundtrip{Name: name}
	origPath := filepath.Join(dir, "orig.mid")
	if err := RunABC2MIDI(ctx, abcPath, ref, origPath, args); err != nil {
		return rt, err
	}
	orig, err := readMIDI(origPath)
	if err != nil {
		return rt, err
	}
	side := SideOf(orig)
	rt.Notes = len(side.Notes)
	missing := Result{Name: name, RefNotes: rt.Notes}

	again := func(abcText []byte, stem string) (*midi.File, error) {
		p := filepath.Join(dir, stem+".abc")
		if err := os.WriteFile(p, abcText, 0o644); err != nil {
			return nil, err
		}
		out := filepath.Join(dir, stem+".mid")
		if err := RunABC2MIDI(ctx, p, 1, out, args); err != nil {
			return nil, err
		}
		return readMIDI(out)
	}

	rt.Theirs, rt.Ours = missing, missing
	if theirABC, err := RunMIDI2ABC(ctx, origPath); err != nil {
		rt.TheirErr = err.Error()
	} else if f, err := again(theirABC, "theirs"); err != nil {
		rt.TheirErr = "abc2midi on midi2abc's ABC: " + err.Error()
	} else {
		rt.Theirs = Compare(name, side, SideOf(f), RoundtripOptions)
	}

	if text, err := convert(orig); err != nil {
		rt.OurErr = err.Error()
	} else if f, err := again([]byte(text), "ours"); err != nil {
		rt.OurABC = text
		rt.OurErr = "abc2midi on our ABC: " + err.Error()
	} else {
		rt.OurABC = text
		rt.Ours = Compare(name, side, SideOf(f), RoundtripOptions)
	}
	return rt, nil
}

func readMIDI(path string) (*midi.File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return midi.Decode(b)
}

// RoundtripTally sums round trips.
type RoundtripTally struct {
	Tunes, Skipped          int
	TheirFails, OurFails    int
	TheirExact, OurExact    int
	Theirs, Ours            Result
	OursBetter, TheirBetter int
}

// Add counts one round trip.
func (t *RoundtripTally) Add(rt Roundtrip) {
	t.Tunes++
	if rt.TheirErr != "" {
		t.TheirFails++
	}
	if rt.OurErr != "" {
		t.OurFails++
	}
	if exact(rt.Theirs) {
		t.TheirExact++
	}
	if exact(rt.Ours) {
		t.OurExact++
	}
	switch a, b := rt.Ours.Agreement(), rt.Theirs.Agreement(); {
	case a > b:
		t.OursBetter++
	case b > a:
		t.TheirBetter++
	}
	addResult(&t.Theirs, rt.Theirs)
	addResult(&t.Ours, rt.Ours)
}

// Merge adds another tally.
func (t *RoundtripTally) Merge(o RoundtripTally) {
	t.Tunes += o.Tunes
	t.Skipped += o.Skipped
	t.TheirFails += o.TheirFails
	t.OurFails += o.OurFails
	t.TheirExact += o.TheirExact
	t.OurExact += o.OurExact
	t.OursBetter += o.OursBetter
	t.TheirBetter += o.TheirBetter
	addResult(&t.Theirs, o.Theirs)
	addResult(&t.Ours, o.Ours)
}

func exact(r Result) bool { return r.Agreeing == r.RefNotes+r.OurNotes-r.Matched }

func addResult(sum *Result, r Result) {
	sum.RefNotes += r.RefNotes
	sum.OurNotes += r.OurNotes
	sum.Matched += r.Matched
	sum.Agreeing += r.Agreeing
}

func (t RoundtripTally) String() string {
	return fmt.Sprintf("%5d tunes %7d notes | midi2abc %6.2f%% (%4d exact, %3d failed) | midi_to_abc %6.2f%% (%4d exact, %3d failed) | better: ours %d, theirs %d",
		t.Tunes, t.Ours.RefNotes, 100*t.Theirs.Agreement(), t.TheirExact, t.TheirFails, 100*t.Ours.Agreement(), t.OurExact, t.OurFails, t.OursBetter, t.TheirBetter)
}
