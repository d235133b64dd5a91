package abcmidi

import (
	"strconv"
	"strings"

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
	if t == nil || t.Pos.Offset < 0 || t.End > len(src) || t.Pos.Offset > t.End {
		return out
	}
	voice := ""
	for _, line := range strings.Split(src[t.Pos.Offset:t.End], "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "V:") {
			if f := strings.Fields(line[2:]); len(f) > 0 {
				voice = f[0]
			}
			continue
		}
		rest, ok := strings.CutPrefix(line, "%%MIDI")
		if !ok {
			continue
		}
		if i := strings.IndexByte(rest, '%'); i >= 0 {
			rest = rest[:i]
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			continue
		}
		n, err := strconv.Atoi(f[len(f)-1]) // %%MIDI program [channel] n
		if err != nil {
			continue
		}
		vm, seen := out[voice]
		if !seen {
			vm.Program = -1
		}
		switch f[0] {
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
		out[voice] = vm
	}
	return out
}
