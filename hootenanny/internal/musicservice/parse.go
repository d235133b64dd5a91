package musicservice

import (
	"context"
	"fmt"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hooteproto"
)

// AbcParse returns the whole structure of the tunes in the ABC text.
func (h *Handler) AbcParse(ctx context.Context, req *hootv1.AbcParseRequest) (*hootv1.AbcParseResult, error) {
	src, err := h.loadABC(ctx, "abc_parse", req)
	if err != nil {
		return nil, err
	}
	book, diags := parse(src.text)
	res := &hootv1.AbcParseResult{}
	for _, f := range book.FileHeader {
		res.FileHeader = append(res.FileHeader, field(f))
	}
	for _, t := range book.Tunes {
		if req.GetX() != 0 && uint32(t.Header.X) != req.GetX() {
			continue
		}
		if req.GetX() != 0 {
			// The diagnostics of the tune asked for, not of the whole book.
			diags = tuneDiagnostics(src.text, t, diags)
		}
		res.Tunes = append(res.Tunes, tune(src.text, t))
	}
	if req.GetX() != 0 && len(res.Tunes) == 0 {
		return nil, noSuchTune(book, req.GetX())
	}
	if n := elements(res.Tunes); n > MaxParseElements {
		field, hint := "x", "parse one tune at a time: pass its X: number in x (abc_validate lists them)"
		if len(res.Tunes) == 1 {
			field, hint = src.field, "for the problems alone, use abc_validate; for the sound, abc_to_midi and midi_info"
		}
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("the structure has %d elements, more than the %d one answer holds", n, MaxParseElements)).
			WithField(field).
			WithHint(hint)
	}
	res.Diagnostics = diagnostics(diags)
	res.Errors, res.Warnings = count(diags)
	return res, nil
}

// MaxParseElements bounds the elements (notes, rests, bar contents) of one abc_parse answer:
// far more than a model can use at once, and far less than the wire's limit.
const MaxParseElements = 20000

func elements(tunes []*hootv1.AbcTune) int {
	n := 0
	for _, t := range tunes {
		for _, v := range t.GetVoices() {
			for _, b := range v.GetBars() {
				n += len(b.GetElements())
			}
		}
	}
	return n
}

// AbcValidate returns the diagnostics alone.
func (h *Handler) AbcValidate(ctx context.Context, req *hootv1.AbcValidateRequest) (*hootv1.AbcValidateResult, error) {
	src, err := h.loadABC(ctx, "abc_validate", req)
	if err != nil {
		return nil, err
	}
	book, diags := parse(src.text)
	res := &hootv1.AbcValidateResult{Diagnostics: diagnostics(diags)}
	res.Errors, res.Warnings = count(diags)
	res.Valid = res.Errors == 0
	for _, t := range book.Tunes {
		res.Tunes = append(res.Tunes, &hootv1.AbcTuneRef{X: uint32(t.Header.X), Title: title(t)})
	}
	return res, nil
}

// parse parses src and adds the one problem the parser does not report, because an empty
// file is valid for it: a text without any tune.
func parse(src string) (*abc.Book, []abc.Diagnostic) {
	book, diags := abc.Parse(src, abc.Options{})
	if len(book.Tunes) == 0 {
		diags = append(diags, abc.Diagnostic{Line: 1, Col: 1, Severity: abc.Error, Message: noTuneMessage, Suggestion: noTuneHint})
	}
	return book, diags
}

const (
	noTuneMessage = "no tune found: a tune starts with an X: line, and its header ends with K:"
	noTuneHint    = `start with "X:1", then "T:Title", "M:4/4", "L:1/8", "K:C" on lines of their own, then the notes`
)

// noTune answers a tool that needs a tune when the text named by field holds none.
func noTune(field string) *hooteproto.Error {
	return hooteproto.NewError(hooteproto.CodeInvalidArgument, noTuneMessage).WithField(field).WithHint(noTuneHint)
}

func count(diags []abc.Diagnostic) (errs, warnings uint32) {
	for _, d := range diags {
		if d.Severity == abc.Error {
			errs++
		} else {
			warnings++
		}
	}
	return errs, warnings
}

func diagnostics(diags []abc.Diagnostic) []*hootv1.AbcDiagnostic {
	out := make([]*hootv1.AbcDiagnostic, 0, len(diags))
	for _, d := range diags {
		out = append(out, &hootv1.AbcDiagnostic{
			Line: uint32(d.Line), Column: uint32(d.Col),
			Severity: d.Severity.String(), Message: d.Message, Suggestion: d.Suggestion,
		})
	}
	return out
}

// tuneDiagnostics returns the diagnostics on the lines of t.
func tuneDiagnostics(src string, t *abc.Tune, diags []abc.Diagnostic) []abc.Diagnostic {
	last := t.Pos.Line + strings.Count(src[t.Pos.Offset:min(t.End, len(src))], "\n")
	var out []abc.Diagnostic
	for _, d := range diags {
		if d.Line >= t.Pos.Line && d.Line <= last {
			out = append(out, d)
		}
	}
	return out
}

// noSuchTune answers a request for a tune number the text does not have.
func noSuchTune(book *abc.Book, x uint32) *hooteproto.Error {
	return hooteproto.NewError(hooteproto.CodeNotFound, fmt.Sprintf("the ABC has no tune X:%d; it has %s", x, tuneList(book))).
		WithField("x").
		WithHint("pass one of those X: numbers in x, or 0 for every tune")
}

// tuneList names up to ten tunes of book, such as "X:1 (The Kesh), X:2 (Cooley's)".
func tuneList(book *abc.Book) string {
	if len(book.Tunes) == 0 {
		return "no tunes"
	}
	var b strings.Builder
	for i, t := range book.Tunes {
		if i == 10 {
			fmt.Fprintf(&b, " and %d more", len(book.Tunes)-10)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "X:%d", t.Header.X)
		if s := title(t); s != "" {
			fmt.Fprintf(&b, " (%s)", s)
		}
	}
	return b.String()
}

func title(t *abc.Tune) string {
	if len(t.Header.Titles) > 0 {
		return t.Header.Titles[0]
	}
	return ""
}

func field(f abc.Field) *hootv1.AbcField {
	return &hootv1.AbcField{Name: string(f.Name), Value: f.Value, Line: uint32(f.Pos.Line)}
}

func tune(src string, t *abc.Tune) *hootv1.AbcTune {
	hd := t.Header
	out := &hootv1.AbcTune{
		X:          uint32(hd.X),
		Line:       uint32(t.Pos.Line),
		Titles:     hd.Titles,
		Composers:  hd.Composers,
		Origin:     hd.Origin,
		Rhythm:     hd.Rhythm,
		Meter:      meter(hd.Meter),
		UnitLength: hd.UnitLength.String(),
		Tempo:      tempo(hd.Tempo),
		Key:        key(hd.Key),
		Parts:      hd.Parts,
		Words:      t.Words,
	}
	for _, f := range hd.Fields {
		out.Header = append(out.Header, field(f))
	}
	for i := range hd.Voices {
		out.VoiceDefs = append(out.VoiceDefs, voiceDef(&hd.Voices[i]))
	}
	for _, v := range t.Voices {
		out.Voices = append(out.Voices, voice(src, v))
	}
	return out
}

func meter(m abc.Meter) *hootv1.AbcMeter {
	out := &hootv1.AbcMeter{Text: m.Text, Denominator: uint32(m.Den), BarLength: m.Value().String()}
	for _, n := range m.Num {
		out.Numerators = append(out.Numerators, uint32(n))
	}
	if m.Kind == abc.MeterCommon || m.Kind == abc.MeterCut {
		// C is 4/4 and C| is 2/2.
		out.Numerators, out.Denominator = []uint32{4}, 4
		if m.Kind == abc.MeterCut {
			out.Numerators, out.Denominator = []uint32{2}, 2
		}
	}
	return out
}

func tempo(q *abc.Tempo) *hootv1.AbcTempo {
	if q == nil {
		return nil
	}
	out := &hootv1.AbcTempo{Bpm: uint32(q.BPM), Text: q.Text}
	beat := abc.Rat{Num: 0, Den: 1}
	for _, b := range q.Beats {
		out.Beats = append(out.Beats, b.String())
		beat = beat.Add(b)
	}
	if q.BPM > 0 {
		if len(q.Beats) == 0 {
			// A bare Q:120 counts quarter notes, as players read it.
			beat = abc.R(1, 4)
		}
		out.QuarterNotesPerMinute = float64(q.BPM) * beat.Float64() * 4
	}
	return out
}

func key(k abc.Key) *hootv1.AbcKey {
	out := &hootv1.AbcKey{
		Text:          k.Text,
		Mode:          k.Mode.String(),
		Fifths:        int32(k.Fifths()),
		ExplicitOnly:  k.Exp,
		None:          k.None,
		HighlandPipes: k.Highland,
		Clef:          clef(k.Clef),
	}
	if k.Tonic != 0 {
		out.Tonic = string(k.Tonic)
		switch k.TonicAcc {
		case abc.Sharp:
			out.Tonic += "#"
		case abc.Flat:
			out.Tonic += "b"
		}
	}
	for _, a := range k.Explicit {
		out.Accidentals = append(out.Accidentals, a.Accidental.String()+strings.ToLower(string(a.Letter)))
	}
	return out
}

func clef(c abc.Clef) *hootv1.AbcClef {
	name := c.Name
	if name == "" {
		name = "treble"
	}
	return &hootv1.AbcClef{Name: name, Transpose: int32(c.Transpose), Octave: int32(c.Octave)}
}

func voiceDef(d *abc.VoiceDef) *hootv1.AbcVoiceDef {
	return &hootv1.AbcVoiceDef{
		Id: d.ID, Name: d.Name, Subname: d.Subname, Clef: clef(d.Clef),
		Properties: d.Props, Line: uint32(d.Pos.Line),
	}
}

// voice groups a voice's elements into bars: a bar ends with its bar line; an ending number
// after a bar line belongs to the bar it starts.
func voice(src string, v *abc.Voice) *hootv1.AbcVoice {
	out := &hootv1.AbcVoice{Id: v.ID}
	var bar *hootv1.AbcBar
	open := func(at abc.Pos) *hootv1.AbcBar {
		if bar == nil {
			bar = &hootv1.AbcBar{Number: uint32(len(out.Bars) + 1), Line: uint32(at.Line)}
		}
		return bar
	}
	for _, e := range v.Elements {
		switch x := e.(type) {
		case *abc.BarLine:
			if bar == nil || len(bar.Elements) == 0 {
				// A bar line with nothing before it (at the start of a line, or right after
				// another) closes no bar: it only says how the next bar starts.
				b := open(x.Pos)
				b.RepeatStart = b.RepeatStart || x.RepeatStart()
				if last := len(out.Bars) - 1; last >= 0 && x.RepeatEnd() {
					out.Bars[last].RepeatEnd = true
				}
				continue
			}
			bar.BarLine, bar.RepeatEnd = x.Text, x.RepeatEnd()
			out.Bars = append(out.Bars, bar)
			bar = nil
			if x.RepeatStart() {
				open(x.Pos).RepeatStart = true
			}
			continue
		case *abc.Ending:
			b := open(x.Pos)
			for _, n := range x.Numbers {
				b.Ending = append(b.Ending, uint32(n))
			}
			continue
		case *abc.LineBreak, *abc.Spacer:
			continue
		case *abc.Note:
			out.Notes++
		case *abc.Chord:
			out.Notes += uint32(len(x.Notes))
		case *abc.Rest:
			out.Rests++
		}
		if el := element(src, e); el != nil {
			b := open(e.Position())
			b.Elements = append(b.Elements, el)
		}
	}
	if bar != nil && len(bar.Elements) > 0 {
		out.Bars = append(out.Bars, bar)
	}
	return out
}

func element(src string, e abc.Element) *hootv1.AbcElement {
	p := e.Position()
	out := &hootv1.AbcElement{Line: uint32(p.Line), Column: uint32(p.Col)}
	if p.Offset >= 0 && p.Offset <= e.EndOffset() && e.EndOffset() <= len(src) {
		out.Text = src[p.Offset:e.EndOffset()]
	}
	switch x := e.(type) {
	case *abc.Note:
		out.Kind = &hootv1.AbcElement_Note{Note: note(src, x)}
	case *abc.Rest:
		r := &hootv1.AbcRest{
			Invisible: x.Kind == abc.RestInvisible || x.Kind == abc.RestInvisibleMeasure,
			Duration:  x.Duration.String(),
		}
		if x.Kind == abc.RestMeasures || x.Kind == abc.RestInvisibleMeasure {
			r.Bars = uint32(x.Measures)
		}
		out.Kind = &hootv1.AbcElement_Rest{Rest: r}
	case *abc.Chord:
		c := &hootv1.AbcChord{Duration: x.Duration.String(), Tie: x.Tie}
		for _, n := range x.Notes {
			c.Notes = append(c.Notes, note(src, n))
		}
		out.Kind = &hootv1.AbcElement_Chord{Chord: c}
	case *abc.Tuplet:
		out.Kind = &hootv1.AbcElement_Tuplet{Tuplet: &hootv1.AbcTuplet{P: uint32(x.P), Q: uint32(x.Q), R: uint32(x.R)}}
	case *abc.GraceGroup:
		g := &hootv1.AbcGrace{Acciaccatura: x.Acciaccatura}
		for _, ge := range x.Notes {
			switch n := ge.(type) {
			case *abc.Note:
				g.Notes = append(g.Notes, note(src, n))
			case *abc.Chord:
				for _, cn := range n.Notes {
					g.Notes = append(g.Notes, note(src, cn))
				}
			}
		}
		out.Kind = &hootv1.AbcElement_Grace{Grace: g}
	case *abc.Decoration:
		out.Kind = &hootv1.AbcElement_Decoration{Decoration: x.Name}
	case *abc.ChordSymbol:
		out.Kind = &hootv1.AbcElement_ChordSymbol{ChordSymbol: x.Text}
	case *abc.Annotation:
		out.Kind = &hootv1.AbcElement_Annotation{Annotation: string(x.Placement) + x.Text}
	case *abc.Slur:
		s := ")"
		if x.Open {
			s = "("
		}
		out.Kind = &hootv1.AbcElement_Slur{Slur: s}
	case *abc.BrokenRhythm:
		out.Kind = &hootv1.AbcElement_BrokenRhythm{BrokenRhythm: strings.Repeat(string(x.Dir), x.Count)}
	case *abc.InlineField:
		out.Kind = &hootv1.AbcElement_Field{Field: field(x.Field)}
	case *abc.Lyrics:
		out.Kind = &hootv1.AbcElement_Lyrics{Lyrics: x.Text}
	case *abc.Overlay:
		out.Kind = &hootv1.AbcElement_Overlay{Overlay: true}
	default:
		return nil
	}
	return out
}

func note(src string, n *abc.Note) *hootv1.AbcNote {
	out := &hootv1.AbcNote{
		Letter:     string(n.Letter),
		Accidental: n.Accidental.String(),
		Octave:     int32(n.Octave),
		Length:     n.Length.String(),
		Duration:   n.Duration.String(),
		Tie:        n.Tie,
	}
	if n.Pos.Offset >= 0 && n.Pos.Offset <= n.PitchEnd && n.PitchEnd <= len(src) {
		out.Pitch = src[n.Pos.Offset:n.PitchEnd]
	}
	return out
}
