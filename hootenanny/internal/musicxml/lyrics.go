package musicxml

import (
	"strconv"
	"strings"
)

// MaxVerses bounds the w: lines that go under one stretch of music.
const MaxVerses = 16

// lyricToken is one step of a w: line: a syllable, a skipped note (*), a held syllable (_), or
// a move to the next bar (|).
type lyricToken struct {
	kind   byte // 'w' word, '*' skip, '_' extend, '|' bar
	text   string
	hyphen bool // a hyphen follows: the word goes on in the next syllable
}

// lyricTokens splits a w: line as the ABC standard reads it: spaces end words, - splits
// syllables, _ holds the last syllable over one more note, * skips a note, | moves to the next
// bar, ~ is a space within a syllable and \- a hyphen.
func lyricTokens(s string) []lyricToken {
	var (
		out []lyricToken
		cur strings.Builder
	)
	flush := func(hyphen bool) {
		if cur.Len() > 0 {
			out = append(out, lyricToken{kind: 'w', text: cur.String(), hyphen: hyphen})
			cur.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t':
			flush(false)
		case '-':
			if cur.Len() > 0 {
				flush(true)
			} else if n := len(out); n > 0 && out[n-1].kind == 'w' {
				out[n-1].hyphen = true
			}
		case '_', '*', '|':
			flush(false)
			out = append(out, lyricToken{kind: c})
		case '~':
			cur.WriteByte(' ')
		case '\\':
			if i+1 < len(s) && s[i+1] == '-' {
				cur.WriteByte('-')
				i++
			} else {
				cur.WriteByte(c)
			}
		default:
			cur.WriteByte(c)
		}
	}
	flush(false)
	return out
}

// lyrics puts a w: line under the notes since the last w: block; a w: line right after another
// is the next verse of the same notes.
func (w *walker) lyrics(text string) {
	if w.afterLyrics {
		w.verse++
	} else {
		w.verse = 1
		w.lyricBlock, w.lyricNotes = w.lyricNotes, nil
	}
	w.afterLyrics = true
	if w.verse > MaxVerses {
		return
	}
	notes := w.lyricBlock
	pos := 0
	prevHyphen := false
	var last *lyric
	for _, t := range lyricTokens(text) {
		switch t.kind {
		case 'w':
			if pos >= len(notes) {
				return
			}
			syl := "single"
			switch {
			case prevHyphen && t.hyphen:
				syl = "middle"
			case prevHyphen:
				syl = "end"
			case t.hyphen:
				syl = "begin"
			}
			n := notes[pos].n
			n.lyrics = append(n.lyrics, lyric{verse: w.verse, syllabic: syl, text: t.text})
			last = &n.lyrics[len(n.lyrics)-1]
			prevHyphen = t.hyphen
			pos++
		case '*':
			pos++
		case '_':
			if last != nil {
				last.extend = true
			}
			pos++
		case '|':
			if pos > 0 && pos < len(notes) {
				m := notes[pos-1].measure
				for pos < len(notes) && notes[pos].measure == m {
					pos++
				}
			}
		}
	}
}

func verseNumber(v int) string { return strconv.Itoa(v) }
