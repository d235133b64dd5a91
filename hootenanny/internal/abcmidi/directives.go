package abcmidi

import (
	"strconv"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
)

// VoiceMIDI is the MIDI set-up of one voice.
type VoiceMIDI struct {
	// Channel is 1..16 as in %%MIDI channel (10 for drums); 0 leaves the default (the
	// lowest channel no earlier voice has, skipping the drum channel 10).
	Channel int
	// Program is 0..127 as in %%MIDI program (abc2midi numbers programs from 0); -1 or an
	// absent entry sends no program change.
	Program int
}

// MIDIDirectives reads the %%MIDI program and %%MIDI channel lines of tune t from src, the
// text it was parsed from (the parser skips %% directives as comments). A directive applies to
// the voice of the last V: line before it; directives before any V: line are keyed "" (the
// voice of a tune without V: fields, and the default program of every other voice). Other
// %%MIDI directives are ignored.
func MIDIDirectives(src string, t *abc.Tune) map[string]VoiceMIDI {
	out := map[string]VoiceMIDI{}
	for _, d := range Directives(src, t) {
		if len(d.Args) == 0 {
			continue
		}
		n, err := strconv.Atoi(d.Args[len(d.Args)-1]) // %%MIDI program [channel] n
		if err != nil {
			continue
		}
		vm, seen := out[d.Voice]
		if !seen {
			vm.Program = -1
		}
		switch d.Name {
		case "program":
			if n >= 0 && n <= 127 {
				vm.Program = n
			}
		case "channel":
			if n >= 1 && n <= 16 {
				vm.Channel = n
			}
		default:
			continue
		}
		out[d.Voice] = vm
	}
	return out
}
