package musicxml

import "strings"

// chordKinds maps what follows a chord symbol's root to MusicXML's kind of harmony.
var chordKinds = map[string]string{
	"": "major", "maj": "major", "M": "major",
	"m": "minor", "min": "minor", "mi": "minor", "-": "minor",
	"7": "dominant", "dom": "dominant",
	"maj7": "major-seventh", "M7": "major-seventh", "Maj7": "major-seventh", "ma7": "major-seventh", "Δ": "major-seventh", "Δ7": "major-seventh",
	"m7": "minor-seventh", "min7": "minor-seventh", "mi7": "minor-seventh", "-7": "minor-seventh",
	"dim": "diminished", "o": "diminished", "°": "diminished",
	"dim7": "diminished-seventh", "o7": "diminished-seventh", "°7": "diminished-seventh",
	"aug": "augmented", "+": "augmented",
	"aug7": "augmented-seventh", "+7": "augmented-seventh", "7#5": "augmented-seventh",
	"m7b5": "half-diminished", "ø": "half-diminished", "ø7": "half-diminished", "-7b5": "half-diminished",
	"6": "major-sixth", "m6": "minor-sixth", "min6": "minor-sixth",
	"9": "dominant-ninth", "maj9": "major-ninth", "M9": "major-ninth", "m9": "minor-ninth",
	"11": "dominant-11th", "m11": "minor-11th", "13": "dominant-13th", "m13": "minor-13th",
	"sus": "suspended-fourth", "sus4": "suspended-fourth", "sus2": "suspended-second",
	"5": "power", "mmaj7": "major-minor", "m(maj7)": "major-minor",
}

// parseHarmony reads a chord symbol such as "Am7", "F#", "Bb/D" or "D7sus4"; nil when the text
// is not one (fingerings, words, "N.C." aside).
func parseHarmony(s string) *harmony {
	if s == "N.C." || s == "NC" {
		return &harmony{kind: "none", kindText: s}
	}
	// An optional chord in parentheses: "(D7)".
	if len(s) > 2 && s[0] == '(' && s[len(s)-1] == ')' {
		s = s[1 : len(s)-1]
	}
	h := &harmony{}
	step, alter, rest, ok := chordRoot(s)
	if !ok {
		return nil
	}
	h.rootStep, h.rootAlter = step, alter
	if i := strings.LastIndexByte(rest, '/'); i >= 0 {
		bs, ba, tail, ok := chordRoot(rest[i+1:])
		if !ok || tail != "" {
			return nil
		}
		h.bassStep, h.bassAlter, h.hasBass = bs, ba, true
		rest = rest[:i]
	}
	if len(rest) > 16 {
		return nil
	}
	h.kindText = rest
	if k, ok := chordKinds[rest]; ok {
		h.kind = k
		return h
	}
	// A kind with an addition: "7sus4", "m7(b9)", "add9". The root says it is a chord; the
	// rest is written as the text of "other".
	for _, r := range rest {
		if !strings.ContainsRune("0123456789#b♯♭+-()majMindsuglΔø°o ", r) {
			return nil
		}
	}
	h.kind = "other"
	return h
}

// chordRoot reads a root letter and its accidentals at the start of s.
func chordRoot(s string) (step byte, alter int, rest string, ok bool) {
	if s == "" || s[0] < 'A' || s[0] > 'G' {
		return 0, 0, "", false
	}
	step, rest = s[0], s[1:]
	for {
		switch {
		case strings.HasPrefix(rest, "#"):
			alter, rest = alter+1, rest[1:]
			continue
		case strings.HasPrefix(rest, "♯"):
			alter, rest = alter+1, rest[len("♯"):]
			continue
		case strings.HasPrefix(rest, "♭"):
			alter, rest = alter-1, rest[len("♭"):]
			continue
		case strings.HasPrefix(rest, "b"):
			alter, rest = alter-1, rest[1:]
			continue
		}
		break
	}
	if alter < -2 || alter > 2 {
		return 0, 0, "", false
	}
	return step, alter, rest, true
}
