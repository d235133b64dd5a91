package abc

import "github.com/hootenanny/hoot/hooteproto/suggest"

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
	} {
		knownDecorations[d] = true
	}
}

// checkDecoration reports an unknown !name!, suggesting the closest known one.
func (p *parser) checkDecoration(at Pos, name string) {
	if knownDecorations[name] {
		return
	}
	sugg := "see the decorations of the ABC standard, e.g. !trill! !fermata! !mf!"
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
	p.diagAt(at, Warning, "unknown decoration !"+name+"!", sugg)
}
