// Package synth plays Standard MIDI Files with SoundFont (SF2) instruments. It checks a
// SoundFont's structure before the synthesiser (github.com/sinshu/go-meltysynth) reads it, so
// that a malformed file is refused with a reason instead of making the synthesiser allocate what
// its headers claim or index past its tables; it describes a SoundFont's presets, instruments
// and drum kits; and it renders MIDI to stereo samples with the tempo map and timing of
// package midi.
package synth

import (
	"bytes"
	"fmt"

	"github.com/sinshu/go-meltysynth/meltysynth"
)

// MaxBytes bounds the SoundFonts Load reads: room for the large General MIDI fonts
// (FluidR3_GM is 142 MB).
const MaxBytes = 256 << 20

// A SoundFont is a loaded SF2 file, ready to play and safe to share between renders.
type SoundFont struct {
	sf *meltysynth.SoundFont
}

// A FormatError says why bytes are not a SoundFont this package plays.
type FormatError struct{ Msg string }

func (e *FormatError) Error() string { return "synth: not a usable SF2 SoundFont: " + e.Msg }

func formatErr(format string, args ...any) error {
	return &FormatError{Msg: fmt.Sprintf(format, args...)}
}

// Load checks b's structure and loads it as a SoundFont. A malformed file gives a
// *FormatError, never a panic.
func Load(b []byte) (sf *SoundFont, err error) {
	if len(b) > MaxBytes {
		return nil, formatErr("it is %d bytes, more than the %d read", len(b), MaxBytes)
	}
	if err := check(b); err != nil {
		return nil, err
	}
	defer func() {
		// check covers what the synthesiser's reader trusts; this is the second line.
		if r := recover(); r != nil {
			sf, err = nil, formatErr("the synthesiser could not read it (%v)", r)
		}
	}()
	m, err := meltysynth.NewSoundFont(bytes.NewReader(b))
	if err != nil {
		return nil, formatErr("%v", err)
	}
	if len(m.Presets) == 0 {
		return nil, formatErr("it has no presets")
	}
	return &SoundFont{sf: m}, nil
}
