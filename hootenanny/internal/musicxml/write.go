package musicxml

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
)

const header = `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE score-partwise PUBLIC "-//Recordare//DTD MusicXML 4.0 Partwise//EN" "http://www.musicxml.org/dtds/partwise.dtd">
`

// xw writes indented XML.
type xw struct {
	b     bytes.Buffer
	depth int
}

func (w *xw) indent() {
	for range w.depth {
		w.b.WriteString("  ")
	}
}

// open writes a start tag; attrs are name, value pairs.
func (w *xw) open(name string, attrs ...string) {
	w.indent()
	w.tag(name, attrs)
	w.b.WriteString(">\n")
	w.depth++
}

func (w *xw) tag(name string, attrs []string) {
	w.b.WriteByte('<')
	w.b.WriteString(name)
	for i := 0; i+1 < len(attrs); i += 2 {
		w.b.WriteByte(' ')
		w.b.WriteString(attrs[i])
		w.b.WriteString(`="`)
		xml.EscapeText(&w.b, []byte(attrs[i+1]))
		w.b.WriteByte('"')
	}
}

func (w *xw) close(name string) {
	w.depth--
	w.indent()
	w.b.WriteString("</" + name + ">\n")
}

// empty writes <name attrs/>.
func (w *xw) empty(name string, attrs ...string) {
	w.indent()
	w.tag(name, attrs)
	w.b.WriteString("/>\n")
}

// text writes <name attrs>text</name>.
func (w *xw) text(name, text string, attrs ...string) {
	w.indent()
	w.tag(name, attrs)
	w.b.WriteByte('>')
	xml.EscapeText(&w.b, []byte(text))
	w.b.WriteString("</" + name + ">\n")
}

func (w *xw) int(name string, n int64) { w.text(name, strconv.FormatInt(n, 10)) }

func write(t *abc.Tune, parts []*part, div int64) ([]byte, error) {
	w := &xw{}
	w.b.WriteString(header)
	w.open("score-partwise", "version", "4.0")
	if len(t.Header.Titles) > 0 {
		w.open("work")
		w.text("work-title", t.Header.Titles[0])
		w.close("work")
	}
	w.open("identification")
	for _, c := range t.Header.Composers {
		w.text("creator", c, "type", "composer")
	}
	w.open("encoding")
	w.text("software", "Hootenanny abc_to_musicxml")
	w.close("encoding")
	w.close("identification")
	w.open("part-list")
	for _, p := range parts {
		w.open("score-part", "id", p.id)
		w.text("part-name", p.name)
		// Notation programs look for an instrument in each part (MuseScore says when there is
		// none).
		w.open("score-instrument", "id", p.id+"-I1")
		w.text("instrument-name", p.name)
		w.close("score-instrument")
		w.close("score-part")
	}
	w.close("part-list")
	for _, p := range parts {
		w.open("part", "id", p.id)
		if err := writeMeasures(w, t, p, div); err != nil {
			return nil, err
		}
		w.close("part")
	}
	w.close("score-partwise")
	return w.b.Bytes(), nil
}

// writeMeasures writes a part's measures, stopping when the document passes MaxBytes.
func writeMeasures(w *xw, t *abc.Tune, p *part, div int64) error {
	number := 1
	for i, m := range p.measures {
		attrs := []string{"number", strconv.Itoa(number)}
		// A first bar shorter than the meter's is a pickup, numbered 0.
		if i == 0 && len(p.measures) > 1 {
			if bar := t.Header.Meter.Value(); !bar.IsZero() && m.elapsed.Cmp(bar) < 0 {
				attrs = []string{"number", "0", "implicit", "yes"}
				number = 0
			}
		}
		number++
		w.open("measure", attrs...)
		if m.left != nil {
			writeBarline(w, m.left, "left")
		}
		for _, it := range m.items {
			switch x := it.(type) {
			case *attributes:
				writeAttributes(w, x, div)
			case *note:
				writeNote(w, x, div)
			case *harmony:
				writeHarmony(w, x)
			case *direction:
				writeDirection(w, x)
			case *backup:
				w.open("backup")
				w.int("duration", ticks(x.dur, div))
				w.close("backup")
			}
			if w.b.Len() > MaxBytes {
				return fmt.Errorf("musicxml: the document passes %d bytes", MaxBytes)
			}
		}
		if m.right != nil {
			writeBarline(w, m.right, "right")
		}
		w.close("measure")
		if w.b.Len() > MaxBytes {
			return fmt.Errorf("musicxml: the document passes %d bytes", MaxBytes)
		}
	}
	return nil
}

// ticks is a length in whole notes as divisions of a quarter note.
func ticks(d abc.Rat, div int64) int64 {
	q := d.Mul(abc.R(4*div, 1))
	if q.Den != 1 {
		return max(1, q.Num/q.Den)
	}
	return q.Num
}

func writeBarline(w *xw, b *barline, location string) {
	if b.style == "" && b.repeat == "" && b.endingType == "" {
		return
	}
	w.open("barline", "location", location)
	if b.style != "" {
		w.text("bar-style", b.style)
	}
	if b.endingType != "" {
		text := ""
		if b.endingType == "start" {
			text = b.endingNumber + "."
		}
		w.text("ending", text, "number", b.endingNumber, "type", b.endingType)
	}
	if b.repeat != "" {
		w.empty("repeat", "direction", b.repeat)
	}
	w.close("barline")
}

var modeNames = map[abc.Mode]string{
	abc.Major: "major", abc.Minor: "minor", abc.Mixolydian: "mixolydian", abc.Dorian: "dorian",
	abc.Phrygian: "phrygian", abc.Lydian: "lydian", abc.Locrian: "locrian",
}

func writeAttributes(w *xw, a *attributes, div int64) {
	w.open("attributes")
	if a.divisions {
		w.int("divisions", div)
	}
	if k := a.key; k != nil {
		w.open("key")
		switch {
		case k.Exp || len(k.Explicit) > 0:
			// K: with explicit accidentals: the signature, letter by letter.
			sig := k.Signature()
			for _, l := range []byte("FCGDAEB") {
				if a := sig[l-'A']; a != 0 {
					w.text("key-step", string(l))
					w.int("key-alter", int64(a))
				}
			}
		case k.None || k.Tonic == 0:
			w.int("fifths", int64(k.Fifths()))
			w.text("mode", "none")
		default:
			w.int("fifths", int64(k.Fifths()))
			w.text("mode", modeNames[k.Mode])
		}
		w.close("key")
	}
	if m := a.meter; m != nil {
		writeTime(w, m)
	}
	if c := a.clef; c != nil {
		writeClef(w, c)
	}
	w.close("attributes")
}

func writeTime(w *xw, m *abc.Meter) {
	switch {
	case m.Kind == abc.MeterCommon:
		w.open("time", "symbol", "common")
		w.text("beats", "4")
		w.text("beat-type", "4")
	case m.Kind == abc.MeterCut:
		w.open("time", "symbol", "cut")
		w.text("beats", "2")
		w.text("beat-type", "2")
	case m.Kind == abc.MeterFraction && m.Den > 0 && len(m.Num) > 0:
		w.open("time")
		var nums []string
		for _, n := range m.Num {
			nums = append(nums, strconv.Itoa(n))
		}
		w.text("beats", strings.Join(nums, "+"))
		w.text("beat-type", strconv.Itoa(m.Den))
	default:
		w.open("time")
		w.empty("senza-misura")
	}
	w.close("time")
}

func writeClef(w *xw, c *abc.Clef) {
	name := strings.ToLower(c.Name)
	sign, line, octave := "G", 2, 0
	switch {
	case name == "none":
		return
	case strings.HasPrefix(name, "bass"):
		sign, line = "F", 4
	case strings.HasPrefix(name, "alto"):
		sign, line = "C", 3
	case strings.HasPrefix(name, "tenor"):
		sign, line = "C", 4
	case strings.HasPrefix(name, "perc"):
		sign, line = "percussion", 0
	}
	switch {
	case strings.HasSuffix(name, "-8"):
		octave = -1
	case strings.HasSuffix(name, "+8"):
		octave = 1
	}
	w.open("clef")
	w.text("sign", sign)
	if line > 0 {
		w.int("line", int64(line))
	}
	if octave != 0 {
		w.int("clef-octave-change", int64(octave))
	}
	w.close("clef")
}

func writeNote(w *xw, n *note, div int64) {
	var attrs []string
	if n.invisible {
		attrs = append(attrs, "print-object", "no")
	}
	w.open("note", attrs...)
	if n.grace {
		if n.slash {
			w.empty("grace", "slash", "yes")
		} else {
			w.empty("grace")
		}
	}
	if n.chord {
		w.empty("chord")
	}
	if n.rest {
		if n.measureRest {
			w.empty("rest", "measure", "yes")
		} else {
			w.empty("rest")
		}
	} else {
		w.open("pitch")
		w.text("step", string(n.step))
		if n.alter != 0 {
			w.int("alter", int64(n.alter))
		}
		w.int("octave", int64(n.octave))
		w.close("pitch")
	}
	if !n.grace {
		w.int("duration", ticks(n.dur, div))
	}
	if n.tieStop {
		w.empty("tie", "type", "stop")
	}
	if n.tieStart {
		w.empty("tie", "type", "start")
	}
	w.int("voice", int64(n.voice))
	if n.typ != "" {
		w.text("type", n.typ)
	}
	for range n.dots {
		w.empty("dot")
	}
	if n.accidental != "" {
		w.text("accidental", n.accidental)
	}
	if n.actual > 0 {
		w.open("time-modification")
		w.int("actual-notes", int64(n.actual))
		w.int("normal-notes", int64(n.normal))
		w.close("time-modification")
	}
	if n.beam != "" {
		w.text("beam", n.beam, "number", "1")
	}
	writeNotations(w, n)
	for _, l := range n.lyrics {
		w.open("lyric", "number", verseNumber(l.verse))
		w.text("syllabic", l.syllabic)
		w.text("text", l.text)
		if l.extend {
			w.empty("extend")
		}
		w.close("lyric")
	}
	w.close("note")
}

func writeNotations(w *xw, n *note) {
	if !n.tieStart && !n.tieStop && !n.tupletStart && !n.tupletStop && len(n.slurStarts) == 0 &&
		len(n.slurStops) == 0 && len(n.marks) == 0 {
		return
	}
	w.open("notations")
	if n.tieStop {
		w.empty("tied", "type", "stop")
	}
	if n.tieStart {
		w.empty("tied", "type", "start")
	}
	for _, s := range n.slurStops {
		w.empty("slur", "type", "stop", "number", strconv.Itoa(s))
	}
	for _, s := range n.slurStarts {
		w.empty("slur", "type", "start", "number", strconv.Itoa(s))
	}
	if n.tupletStart {
		w.empty("tuplet", "type", "start")
	}
	if n.tupletStop {
		w.empty("tuplet", "type", "stop")
	}
	for _, group := range []string{"articulations", "ornaments", "technical"} {
		opened := false
		for _, m := range n.marks {
			if m.group != group {
				continue
			}
			if !opened {
				w.open(group)
				opened = true
			}
			w.empty(m.name)
		}
		if opened {
			w.close(group)
		}
	}
	for _, m := range n.marks {
		if m.group == "" {
			w.empty(m.name)
		}
	}
	w.close("notations")
}

func writeHarmony(w *xw, h *harmony) {
	w.open("harmony")
	if h.kind == "none" {
		w.open("root")
		w.text("root-step", "C")
		w.close("root")
		w.text("kind", "none", "text", h.kindText)
		w.close("harmony")
		return
	}
	w.open("root")
	w.text("root-step", string(h.rootStep))
	if h.rootAlter != 0 {
		w.int("root-alter", int64(h.rootAlter))
	}
	w.close("root")
	w.text("kind", h.kind, "text", h.kindText)
	if h.hasBass {
		w.open("bass")
		w.text("bass-step", string(h.bassStep))
		if h.bassAlter != 0 {
			w.int("bass-alter", int64(h.bassAlter))
		}
		w.close("bass")
	}
	w.close("harmony")
}

func writeDirection(w *xw, d *direction) {
	w.open("direction", "placement", d.placement)
	if d.rehearsal != "" {
		w.open("direction-type")
		w.text("rehearsal", d.rehearsal)
		w.close("direction-type")
	}
	if d.sign != "" {
		w.open("direction-type")
		w.empty(d.sign)
		w.close("direction-type")
	}
	if d.wedge != "" {
		w.open("direction-type")
		w.empty("wedge", "type", d.wedge)
		w.close("direction-type")
	}
	if d.words != "" {
		w.open("direction-type")
		w.text("words", d.words)
		w.close("direction-type")
	}
	if d.beatUnit != "" {
		w.open("direction-type")
		w.open("metronome")
		w.text("beat-unit", d.beatUnit)
		for range d.beatDots {
			w.empty("beat-unit-dot")
		}
		w.int("per-minute", int64(d.perMinute))
		w.close("metronome")
		w.close("direction-type")
	}
	if d.dynamic != "" {
		w.open("direction-type")
		w.open("dynamics")
		w.empty(d.dynamic)
		w.close("dynamics")
		w.close("direction-type")
	}
	if d.tempo > 0 {
		w.empty("sound", "tempo", strconv.FormatFloat(d.tempo, 'f', -1, 64))
	}
	w.close("direction")
}
