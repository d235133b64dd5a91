package abc

import (
	"fmt"
	"strings"

	"github.com/hootenanny/hoot/hooteproto/suggest"
)

// shortDecorations are the one-character decorations of the standard.
var shortDecorations = map[byte]string{
	'.': "staccato", '~': "roll", 'H': "fermata", 'L': "accent", 'M': "lowermordent",
	'O': "coda", 'P': "uppermordent", 'S': "segno", 'T': "trill", 'u': "upbow", 'v': "downbow",
}

// knownDecorations are the !name! decorations of the standard.
var knownDecorations = map[string]bool{}

func init() {
	for _, d := range []string{
		"trill", "trill(", "trill)", "lowermordent", "uppermordent", "mordent", "pralltriller",
		"roll", "turn", "turnx", "invertedturn", "invertedturnx", "arpeggio", ">", "accent",
		"emphasis", "fermata", "invertedfermata", "tenuto", "0", "1", "2", "3", "4", "5", "+",
		"plus", "snap", "slide", "wedge", "upbow", "downbow", "open", "thumb", "breath", "pppp",
		"ppp", "pp", "p", "mp", "mf", "f", "ff", "fff", "ffff", "sfz", "crescendo(", "<(",
		"crescendo)", "<)", "diminuendo(", ">(", "diminuendo)", ">)", "segno", "coda", "D.S.",
		"D.C.", "dacoda", "dacapo", "fine", "shortphrase", "mediumphrase", "longphrase",
		"staccato", "editorial", "courtesy", "marcato", "umarcato", "ignore",
		// abcm2ps's own, which it draws (and abc2midi passes over): octave lines, tremolos,
		// pedal marks, the longer D.C. and D.S. and a few for layout.
		"8va(", "8va)", "8vb(", "8vb)", "trem1", "trem2", "trem3", "trem4", "ped", "ped-up",
		"D.C.alfine", "D.C.alcoda", "D.S.alfine", "D.S.alcoda", "invisible", "xstem", "beamon",
		"gmark", "rbstop",
	} {
		knownDecorations[d] = true
	}
}

// checkDecoration reports an unknown !name! (or +name+), suggesting the closest known one.
func (p *parser) checkDecoration(at Pos, name string, delim byte) {
	if knownDecorations[name] {
		return
	}
	msg := fmt.Sprintf("unknown decoration %c%s%c at line %d, column %d", delim, name, delim, at.Line, at.Col)
	sugg := "see the decorations of the ABC standard, e.g. !trill! !fermata! !mf!"
	if lower := strings.ToLower(name); lower != name && knownDecorations[lower] {
		p.diagAt(at, Warning, msg, "decorations are written in lower case: !"+lower+"!")
		return
	}
	if strings.ContainsAny(name, " |") {
		// Music between two ! signs: ABC 1.6 wrote ! for a line break of the score.
		p.diagAt(at, Warning, fmt.Sprintf("%c at line %d, column %d and the next %c enclose music, not a decoration name", delim, at.Line, at.Col, delim),
			fmt.Sprintf("a decoration is one name, e.g. !trill!; a lone %c (a line break in ABC 1.6) is not ABC 2.1: remove it", delim))
		return
	}
	if delim == '+' && oldChord(name) {
		p.diagAt(at, Warning, msg, "+"+name+"+ is the chord of ABC 1.6; since ABC 2.0 + marks a decoration: write the chord as ["+name+"]")
		return
	}
	if len(name) <= 32 {
		best, bestD := "", 4
		for k := range knownDecorations {
			if d := suggest.Distance(name, k); d < bestD || d == bestD && k < best {
				best, bestD = k, d
			}
		}
		if best != "" && bestD <= 2 {
			sugg = "did you mean !" + best + "!?"
		}
	}
	p.diagAt(at, Warning, msg, sugg)
}

// oldChord reports text that reads as notes only (E3A3, CEG), the chord of ABC 1.6 between + signs.
func oldChord(s string) bool {
	letters := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'G' || c >= 'a' && c <= 'g':
			letters++
		case c >= '0' && c <= '9' || strings.IndexByte("^_=,'/", c) >= 0:
		default:
			return false
		}
	}
	return letters >= 2
}
